"""What WAA's and OSWorld's PDF metrics read from a PDF, with the libraries they read it with.

- `mupdf_open`: the file as both references open it with PyMuPDF by its
  path: the name it carries (a getter's value names its file; else a PDF's)
  picks the reader (a .txt opens as text); a file PyMuPDF cannot open
  raises its error;
- `mupdf_text`: every page's text joined and stripped, as both references'
  `compare_pdfs` extract it (`page.get_text()`); None reads as an empty
  document (PyMuPDF opens None as a new PDF);
- `text_similarity`: `compare_pdfs`' score in both references: the
  `pair_similarity` of each pair (lists compared pairwise up to the shorter
  one; a single file is a list of one), divided by the number of expected
  files; `pair_similarity` is rapidfuzz's `fuzz.ratio` of the two texts over
  100, or 0 when either text cannot be read;
- `pypdf_text`: every page's `extract_text()` joined, as both references'
  zip comparison reads a PDF member with PyPDF2 (here pypdf, its successor);
- `page_count`: the pages pypdf counts, as OSWorld's check_pdf_pages counts them.
"""

from __future__ import annotations

import io
import logging
from typing import Any

import pymupdf
from pypdf import PdfReader
from rapidfuzz import fuzz

__all__ = ["mupdf_open", "mupdf_text", "page_count", "pair_similarity", "pypdf_text", "text_similarity"]

logger = logging.getLogger(__name__)


def _file_name(data: Any) -> str:
    """The name a file carries (a getter's value names its file), else that of a PDF."""
    return getattr(data, "name", None) or "document.pdf"


def mupdf_open(data: bytes) -> pymupdf.Document:
    return pymupdf.open(_file_name(data), stream=data)


def mupdf_text(data: bytes | None) -> str:
    if data is None:
        return ""
    with mupdf_open(data) as document:
        return "".join(page.get_text() for page in document).strip()


def text_similarity(result: Any, expected: Any) -> float:
    if not isinstance(expected, list):
        result, expected = [result], [expected]
    return sum(pair_similarity(mine, gold) for mine, gold in zip(result, expected)) / len(expected)


def pair_similarity(mine: Any, gold: Any) -> float:
    try:
        return fuzz.ratio(mupdf_text(mine), mupdf_text(gold)) / 100
    except Exception as exc:  # noqa: BLE001 - both references score any failure to read a pair 0
        logger.info("compare_pdfs: a file's text cannot be extracted (%s: %s); the pair scores 0",
                    type(exc).__name__, exc)
        return 0.0


def pypdf_text(data: bytes) -> str:
    return "".join(page.extract_text() for page in PdfReader(io.BytesIO(data)).pages)


def page_count(data: bytes) -> int:
    return len(PdfReader(io.BytesIO(data)).pages)
