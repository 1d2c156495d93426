"""LibreOffice Writer's documents as OSWorld's docs.py metrics read them.

- `compare_docx_files`: the two files' paragraph texts, judged as
  `bench.formats.paragraph_texts` says, with OSWorld's options
  (`ignore_blanks`, `ignore_case`, `ignore_order`, `content_only`,
  `fuzzy_match`, `delete_empty_lines`): two .docx files' as python-docx reads
  them (`paragraph.text`), two .odt files' as odfpy does (`bench.formats.odt`:
  each `text:p`'s own text and its spans'). OSWorld picks the reader by the
  files' names, so does this (a getter's value carries its `dest`; one that
  carries none is told by its content): files of another kind or of two
  kinds score 0, and so does a missing file or one that does not open;
- `compare_docx_files_and_ignore_new_lines`: the same judgement, with its
  one option `ignore_blanks`, of the paragraphs that are not empty strings
  (a paragraph of spaces stays), of two .docx files only (by name, as above);
- `compare_references`: the paragraphs after the first one reading exactly
  `reference_indicator` ("References") that are not blank, as many in both,
  their mean rapidfuzz ratio r scored (r - b) / (1 - b) when r is at least
  `reference_base_result` b (0.5) plus 0.01, else 0; 1 when neither
  document has the heading, 0 when one has; a heading with no reference
  after it in both raises (OSWorld divides by zero); two .docx files only;
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
from typing import Any, Callable

from rapidfuzz import fuzz

from bench.formats import odt
from bench.formats.docx_checks import DOCX_CHECKS, open_docx, paragraph_texts
from bench.formats.odt import check_highlighted_words
from bench.formats.paragraph_texts import text_score
from bench.formats.reference_raises import ReferenceRaises
from bench.formats.tab_stops import check_tabstops
from bench.formats.writer_default_font import find_default_font
from bench.suites.osworld.errors import MetricFailed
from bench.suites.osworld.writer_formatting import FORMATTING_METRICS

OPTIONS = ("ignore_blanks", "ignore_case", "ignore_order", "content_only", "fuzzy_match", "delete_empty_lines")


READERS: dict[str, tuple[Callable[[bytes], Any], Callable[[Any], list[str]]]] = {
    ".docx": (open_docx, paragraph_texts), ".odt": (odt.open_odt, odt.paragraph_texts)}
"""How each kind of document opens (None when it does not) and what its paragraphs' texts are."""


def _kind(data: bytes) -> str:
    """The kind OSWorld's function takes a file for: the ending of its name (the getter's `dest`), as it
    tests its path's ("" for another); a value that carries no name, by its content."""
    name = getattr(data, "name", None)
    if name is None:
        return ".odt" if odt.is_odt(data) else ".docx"
    return next((kind for kind in READERS if name.endswith(kind)), "")


def _texts_of_both(result: bytes | None, expected: bytes | None,
                   kinds: tuple[str, ...] = (".docx",)) -> tuple[list[str], list[str]] | None:
    """Both documents' paragraph texts, when both are of one of `kinds` and open; else None (OSWorld's
    functions score 0 on files of another kind, of two kinds, or that do not open)."""
    if result is None or expected is None:
        return None
    kind = _kind(result)
    if kind not in kinds or _kind(expected) != kind:
        return None
    opened, texts = READERS[kind]
    first, second = opened(result), opened(expected)
    return None if first is None or second is None else (texts(first), texts(second))


def compare_docx_files(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    texts = _texts_of_both(result, expected, kinds=(".docx", ".odt"))
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
