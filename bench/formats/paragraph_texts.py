"""compare_docx_files' judgement of two documents' paragraph texts, as WAA's and OSWorld's references
judge them, whatever format the texts were read from (WAA reads .docx and OpenDocument text files,
OSWorld .docx ones).

By default (`ignore_blanks`) the paragraphs joined by newlines, runs of
whitespace as one space and the ends stripped, must be equal; with
`ignore_blanks: false` there must be as many paragraphs, equal one for one.
`ignore_case` lowercases; `ignore_order` sorts the paragraphs first;
`content_only` scores rapidfuzz's ratio of the two squeezed texts (over 100)
instead of a yes or no. Two options only OSWorld's function has (WAA's
suite never passes them): `delete_empty_lines` drops blank paragraphs
after the sort, and `fuzzy_match` scores the ratio of the squeezed texts,
or with `ignore_blanks: false` the mean ratio of paragraph pairs (1 for two
documents without paragraphs).
"""

from __future__ import annotations

import re

from rapidfuzz import fuzz

__all__ = ["same_texts", "text_score"]


def _squeezed(texts: list[str]) -> str:
    return re.sub(r"\s+", " ", "\n".join(texts)).strip()


def text_score(first: list[str], second: list[str], *, ignore_blanks: bool = True, ignore_case: bool = False,
               ignore_order: bool = False, content_only: bool = False, fuzzy_match: bool = False,
               delete_empty_lines: bool = False) -> float:
    if ignore_order:
        first, second = sorted(first), sorted(second)
    if delete_empty_lines:
        first, second = [t for t in first if t.strip()], [t for t in second if t.strip()]
    if ignore_case:
        first, second = [t.lower() for t in first], [t.lower() for t in second]
    if content_only or (ignore_blanks and fuzzy_match):
        return fuzz.ratio(_squeezed(first), _squeezed(second)) / 100.0
    if ignore_blanks:
        return float(_squeezed(first) == _squeezed(second))
    if len(first) != len(second):
        return 0.0
    if fuzzy_match:
        return sum(fuzz.ratio(a, b) / 100.0 for a, b in zip(first, second)) / len(first) if first else 1.0
    return float(first == second)


def same_texts(first: list[str], second: list[str]) -> bool:
    """The texts agree as compare_docx_files' defaults judge them (the checks that call it in WAA)."""
    return text_score(first, second) == 1.0
