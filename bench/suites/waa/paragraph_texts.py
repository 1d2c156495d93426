"""compare_docx_files' judgement of two documents' paragraph texts, whatever format they were read from
(documents.py reads .docx files, odt.py OpenDocument text).

By default (`ignore_blanks`) the paragraphs joined by newlines, runs of
whitespace as one space and the ends stripped, must be equal; with
`ignore_blanks: false` there must be as many paragraphs, equal one for one.
`ignore_case` lowercases; `ignore_order` sorts the paragraphs first;
`content_only` scores rapidfuzz's ratio of the two squeezed texts (over 100)
instead of a yes or no, as WAA does.
"""

from __future__ import annotations

import re

from rapidfuzz import fuzz


def _squeezed(texts: list[str]) -> str:
    return re.sub(r"\s+", " ", "\n".join(texts)).strip()


def text_score(first: list[str], second: list[str], *, ignore_blanks: bool = True, ignore_case: bool = False,
               ignore_order: bool = False, content_only: bool = False) -> float:
    if ignore_order:
        first, second = sorted(first), sorted(second)
    if ignore_case:
        first, second = [t.lower() for t in first], [t.lower() for t in second]
    if content_only:
        return fuzz.ratio(_squeezed(first), _squeezed(second)) / 100.0
    if ignore_blanks:
        return float(_squeezed(first) == _squeezed(second))
    return float(first == second)


def same_texts(first: list[str], second: list[str]) -> bool:
    """The texts agree as compare_docx_files' defaults judge them (the checks that call it in WAA)."""
    return text_score(first, second) == 1.0
