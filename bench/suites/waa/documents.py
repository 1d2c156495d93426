"""Writer checks on the .docx and .odt files the libreoffice_writer tasks save, with the reference
semantics of WAA's own functions (docs.py), edge cases included.

Each takes the result file's bytes (None when the agent did not save it:
score 0) and, where the task has one, the gold file's bytes or a rule.

- `compare_docx_files`: the paragraphs' text, judged as paragraph_texts.py
  says (a soft line break inside a paragraph is not a paragraph break); two
  OpenDocument text files are read as .odt files (bench.formats.odt), as WAA
  reads files named .odt;
- the checks OSWorld's docs.py defines alike, from bench.formats:
  `docx_checks` (line spacing, tables, font names, highlighted text,
  subscripts, a centred first line, page numbers in footers, strike-through,
  italics at 14 pt), `tab_stops`, `writer_default_font` and `odt`
  (`check_highlighted_words`).

Where WAA's function raises (a highlighted-text file that is not a zip, a
document without paragraphs, a paragraph without the tab piece asked for),
`ReferenceCrash` names the optional fix; so does a check of two files whose
gold file could not be read (`errors.gold_required`).
"""

from __future__ import annotations

from typing import Any, Callable

from bench.formats.docx_checks import DOCX_CHECKS, open_docx, paragraph_texts
from bench.formats.odt import check_highlighted_words, is_odt, open_odt, paragraph_texts as odt_paragraph_texts
from bench.formats.paragraph_texts import text_score
from bench.formats.tab_stops import check_tabstops
from bench.formats.writer_default_font import find_default_font
from bench.suites.waa.errors import gold_required, reference_outcomes


def _paragraphs_of_both(result: bytes | None, expected: bytes | None) -> tuple[list[str], list[str]] | None:
    """Both files' paragraph texts, as .docx files or, when both are OpenDocument text, as .odt files
    (WAA goes by the files' names, which the tasks give the suffix of their format)."""
    documents = open_docx(result), open_docx(expected)
    if None not in documents:
        return paragraph_texts(documents[0]), paragraph_texts(documents[1])
    if result is None or expected is None or not (is_odt(result) and is_odt(expected)):
        return None
    documents = open_odt(result), open_odt(expected)
    if None in documents:
        return None
    return odt_paragraph_texts(documents[0]), odt_paragraph_texts(documents[1])


def compare_docx_files(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    texts = _paragraphs_of_both(result, expected)
    if texts is None:
        return 0.0
    wanted = ("ignore_blanks", "ignore_case", "ignore_order", "content_only")
    return text_score(*texts, **{k: bool(v) for k, v in options.items() if k in wanted})


_WITHOUT_GOLD = ("is_first_line_centered", "has_page_numbers_in_footers", "compare_font_names")
"""The shared checks that take a rule or nothing as their second argument, not a gold file."""
_SHARED: dict[str, Callable[..., float]] = {**DOCX_CHECKS, "check_tabstops": check_tabstops,
                                            "check_highlighted_words": check_highlighted_words}

DOCX_METRICS: dict[str, Callable[..., float]] = {
    "compare_docx_files": gold_required(compare_docx_files),
    **{name: reference_outcomes(metric if name in _WITHOUT_GOLD else gold_required(metric))
       for name, metric in _SHARED.items()},
    "find_default_font": reference_outcomes(find_default_font),
}
