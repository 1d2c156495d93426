"""LibreOffice Writer's documents as OSWorld's docs.py metrics read them.

- `compare_docx_files`: the two .docx files' paragraph texts (python-docx's
  `paragraph.text`), judged as `bench.formats.paragraph_texts` says, with
  OSWorld's options (`ignore_blanks`, `ignore_case`, `ignore_order`,
  `content_only`, `fuzzy_match`, `delete_empty_lines`). A missing file, or
  one python-docx cannot open, scores 0. OSWorld picks the reader by the
  files' names; every task that uses it names .docx files, and so this reads
  .docx only (OSWorld's .odt branch is not here).
- `compare_docx_files_and_ignore_new_lines`: the same judgement, with its
  one option `ignore_blanks`, of the paragraphs that are not empty strings
  (a paragraph of spaces stays);
- `compare_references`: the paragraphs after the first one reading exactly
  `reference_indicator` ("References") that are not blank, as many in both,
  their mean rapidfuzz ratio r scored (r - b) / (1 - b) when r is at least
  `reference_base_result` b (0.5) plus 0.01, else 0; 1 when neither
  document has the heading, 0 when one has; a heading with no reference
  after it in both raises (OSWorld divides by zero);
- `compare_unique_train_records`: the expected value is the gold and the
  original document (`gives` [0, 1]); every non-blank paragraph of the
  result (stripped) is one of the original's, the train ids (the second
  field of a line of four comma-separated fields) are unique and the gold's,
  and there are as many lines as the gold's;
- the checks WAA's docs.py defines alike (bench.formats: `docx_checks`,
  `tab_stops`, `writer_default_font`, `odt`), and those of
  writer_formatting.py.
"""

from __future__ import annotations

import functools
import io
from typing import Any, Callable

import docx
from rapidfuzz import fuzz

from bench.formats.docx_checks import DOCX_CHECKS, open_docx, paragraph_texts
from bench.formats.odt import check_highlighted_words
from bench.formats.paragraph_texts import text_score
from bench.formats.reference_raises import ReferenceRaises
from bench.formats.tab_stops import check_tabstops
from bench.formats.writer_default_font import find_default_font
from bench.suites.osworld.errors import MetricFailed
from bench.suites.osworld.writer_formatting import FORMATTING_METRICS

OPTIONS = ("ignore_blanks", "ignore_case", "ignore_order", "content_only", "fuzzy_match", "delete_empty_lines")


def _paragraphs(data: bytes) -> list[str] | None:
    try:
        return [paragraph.text for paragraph in docx.Document(io.BytesIO(data)).paragraphs]
    except Exception:  # noqa: BLE001 - python-docx raises many kinds on a broken file; OSWorld catches them all
        return None


def _texts_of_both(result: bytes | None, expected: bytes | None) -> tuple[list[str], list[str]] | None:
    if result is None or expected is None:
        return None
    first, second = _paragraphs(result), _paragraphs(expected)
    return None if first is None or second is None else (first, second)


def compare_docx_files(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    texts = _texts_of_both(result, expected)
    if texts is None:
        return 0.0
    return text_score(*texts, **{name: options.get(name, name == "ignore_blanks") for name in OPTIONS})


def compare_docx_files_and_ignore_new_lines(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    texts = _texts_of_both(result, expected)
    if texts is None:
        return 0.0
    first, second = ([text for text in side if text != ""] for side in texts)
    return text_score(first, second, ignore_blanks=options.get("ignore_blanks", True))


def _after(texts: list[str], heading: str) -> list[str] | None:
    return [text for text in texts[texts.index(heading) + 1:] if text.strip()] if heading in texts else None


def compare_references(result: bytes | None, expected: bytes | None, *, reference_indicator: str = "References",
                       reference_base_result: float = 0.5, **options: Any) -> float:
    texts = _texts_of_both(result, expected)
    if texts is None:
        return 0.0
    mine, gold = _after(texts[0], reference_indicator), _after(texts[1], reference_indicator)
    if mine is None or gold is None:
        return float(mine is None and gold is None)
    if len(mine) != len(gold):
        return 0.0
    if not mine:
        raise MetricFailed(f"compare_references: neither document has a reference after {reference_indicator!r} "
                           "(OSWorld's function divides by zero here)")
    similarity = sum(fuzz.ratio(a, b) / 100.0 for a, b in zip(mine, gold)) / len(mine)
    if similarity >= reference_base_result + 0.01:
        return (similarity - reference_base_result) / (1 - reference_base_result)
    return 0.0


def _lines_and_ids(data: bytes | None) -> tuple[list[str], list[str]] | None:
    document = open_docx(data)
    if document is None:
        return None
    lines = [text.strip() for text in paragraph_texts(document) if text.strip()]
    return lines, [line.split(",")[1].strip() for line in lines if len(line.split(",")) == 4]


def compare_unique_train_records(result: bytes | None, expected: Any, **options: Any) -> float:
    if result is None or not isinstance(expected, list) or len(expected) < 2:
        return 0.0
    if expected[0] is None or expected[1] is None:
        return 0.0
    mine, gold, original = (_lines_and_ids(data) for data in (result, expected[0], expected[1]))
    if mine is None or gold is None or original is None:
        return 0.0
    lines, ids = mine
    return float(set(lines) <= set(original[0]) and len(ids) == len(set(ids)) and set(ids) == set(gold[1])
                 and len(lines) == len(gold[0]))


def _osworld_outcomes(metric: Callable[..., float]) -> Callable[..., float]:
    """A shared evaluator from bench.formats, where OSWorld's function raises an evaluation error."""
    @functools.wraps(metric)
    def judged(*arguments: Any, **options: Any) -> float:
        try:
            return metric(*arguments, **options)
        except ReferenceRaises as exc:
            raise MetricFailed(f"{exc} (OSWorld's function raises here)") from None
    return judged


_SHARED = {**DOCX_CHECKS, "check_tabstops": check_tabstops, "check_highlighted_words": check_highlighted_words,
           "find_default_font": find_default_font}

WRITER_METRICS = {
    "compare_docx_files": compare_docx_files,
    "compare_docx_files_and_ignore_new_lines": compare_docx_files_and_ignore_new_lines,
    "compare_references": compare_references,
    "compare_unique_train_records": compare_unique_train_records,
    **FORMATTING_METRICS,
    **{name: _osworld_outcomes(metric) for name, metric in _SHARED.items()},
}
