"""`compare_pdfs`: how alike two PDFs' texts are, as WAA's metric scores them
(`bench.formats.pdf.text_similarity`: PyMuPDF's text, rapidfuzz's ratio; OSWorld's is the same).

A missing result reads as an empty document (WAA's PyMuPDF opens None as a
new, empty PDF). A missing gold file makes WAA's `evaluate()` call the metric
without it, which raises: `ReferenceCrash`, whose `missing-file` fix reads it
as an empty document too.
"""

from __future__ import annotations

from typing import Any

from bench.formats.pdf import text_similarity
from bench.suites.waa.errors import ReferenceCrash


def compare_pdfs(result: Any, expected: Any, **options: Any) -> float:
    if expected is None:
        raise ReferenceCrash("compare_pdfs: the gold PDF could not be read", fix="missing-file",
                             fixed=text_similarity(result, None))
    return text_similarity(result, expected)
