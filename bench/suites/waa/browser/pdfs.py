"""`compare_pdfs`: how alike two PDFs' texts are, as WAA's metric scores them.

WAA extracts each file's text (every page's, joined, stripped) and adds
rapidfuzz's `fuzz.ratio` of the two texts divided by 100 for each pair
(lists are compared pairwise, up to the shorter list), then divides by the
number of expected files. A pair whose text cannot be extracted adds 0; a
missing result reads as an empty document (WAA's PyMuPDF opens None as a
new, empty PDF). A missing gold file makes WAA's `evaluate()` call the metric
without it, which raises: `ReferenceCrash`, whose `missing-file` fix reads it
as an empty document too.

WAA extracts text with PyMuPDF; troupe with pypdf, whose text of the same
page can differ in spacing and line breaks. Identical documents score 1 with
either and different ones score below 1 with either, but a partial score can
differ from WAA's (tests/suites/waa/test_browser_metrics.py holds the cases).
"""

from __future__ import annotations

import io
import logging
from typing import Any

from pypdf import PdfReader
from rapidfuzz import fuzz

from bench.suites.waa.errors import ReferenceCrash

logger = logging.getLogger(__name__)


def extracted_text(data: bytes, page_end: str = "") -> str:
    """Every page's text, each followed by `page_end`, joined."""
    return "".join(page.extract_text() + page_end for page in PdfReader(io.BytesIO(data)).pages)


def pdf_text(data: bytes | None) -> str:
    """The text as WAA's PyMuPDF reads it, as near as pypdf gets: PyMuPDF ends every line, the
    page's last one included, with a newline, where pypdf ends a page without one."""
    return "" if data is None else extracted_text(data, "\n").strip()


def compare_pdfs(result: Any, expected: Any, **options: Any) -> float:
    if expected is None:
        raise ReferenceCrash("compare_pdfs: the gold PDF could not be read", fix="missing-file",
                             fixed=_score([result], [None]))
    if not isinstance(expected, list):
        result, expected = [result], [expected]
    return _score(result, expected)


def _score(result: list[Any], expected: list[Any]) -> float:
    score = 0.0
    for mine, gold in zip(result, expected):
        try:
            score += fuzz.ratio(pdf_text(mine), pdf_text(gold)) / 100
        except Exception as exc:  # noqa: BLE001 - WAA's metric scores any failure to read a pair 0
            logger.info("compare_pdfs: a file's text cannot be extracted (%s: %s); the pair scores 0",
                        type(exc).__name__, exc)
    return score / len(expected)
