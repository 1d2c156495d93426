"""`check_tabstops` as WAA's and OSWorld's docs.py define it alike, on the .docx files a Writer task saves.

The two documents must have as many non-empty paragraphs; with
`word_number_split_by_tabstop`, each of the result's must have that many
words before its tab number `index`; then the paragraphs' own tab stops
(but cleared ones and a left one at 0) pair up by alignment, and the score
is 1 less the mean, over paragraphs, of their summed position differences
over the gold page's text width, so a near miss scores just under 1.

A missing or unreadable file scores 0. Where both references raise (a
paragraph without the tab piece asked for, a gold document without text or
without a page size and margins) this raises `ReferenceRaises`.
"""

from __future__ import annotations

import re
from typing import Any

from docx.enum.text import WD_TAB_ALIGNMENT

from bench.formats.docx_checks import open_docx
from bench.formats.reference_raises import ReferenceRaises

__all__ = ["check_tabstops"]


def _tab_stops(paragraph: Any) -> list[Any]:
    """The paragraph's own tab stops but cleared ones and a left one at 0, which the references ignore."""
    return [stop for stop in paragraph.paragraph_format.tab_stops
            if not (stop.alignment == WD_TAB_ALIGNMENT.CLEAR
                    or (stop.alignment == WD_TAB_ALIGNMENT.LEFT and stop.position == 0))]


def _words_before_tab(paragraph: Any, index: int) -> int:
    try:
        piece = paragraph.text.split("\t")[index]
    except IndexError:
        raise ReferenceRaises(f"check_tabstops: a paragraph has no tab-separated piece {index}") from None
    return len([w for w in re.split(r"\s", piece) if w.strip()])


def check_tabstops(result: bytes | None, expected: bytes | None, *, word_number_split_by_tabstop: int | None = None,
                   index: int = 0, **options: Any) -> float:
    mine_document, gold_document = open_docx(result), open_docx(expected)
    if mine_document is None or gold_document is None:
        return 0.0
    mine = [p for p in mine_document.paragraphs if p.text.strip()]
    gold = [p for p in gold_document.paragraphs if p.text.strip()]
    if len(mine) != len(gold):
        return 0.0
    if word_number_split_by_tabstop is not None:
        if any(_words_before_tab(p, index) != word_number_split_by_tabstop for p in mine):
            return 0.0
    section = gold_document.sections[0] if gold_document.sections else None
    if section is None or None in (section.page_width, section.left_margin, section.right_margin) or not mine:
        raise ReferenceRaises("check_tabstops: the gold document has no text or no page width and margins to "
                              "measure tab stops against")
    width = section.page_width - section.left_margin - section.right_margin
    lost = 0.0
    for first, second in zip(mine, gold):
        stops, wanted = _tab_stops(first), _tab_stops(second)
        if len(stops) != len(wanted) or any(a.alignment != b.alignment for a, b in zip(stops, wanted)):
            return 0.0
        lost += sum(abs(a.position - b.position) for a, b in zip(stops, wanted)) / width
    return 1 - lost / len(mine)
