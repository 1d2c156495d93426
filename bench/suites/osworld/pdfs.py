"""PDFs as OSWorld's metrics read them (its metrics/chrome.py and pdf.py).

- `compare_pdfs`: `bench.formats.pdf.text_similarity` (PyMuPDF's text,
  rapidfuzz's ratio; WAA's is the same); a missing file on either side reads
  as an empty document, as PyMuPDF opens None; OSWorld's function takes no
  options, and raises on any;
- `check_pdf_pages`: the pages pypdf counts, related to `ref_value` by the
  rule's `relation` (an `operator` function: eq, lt, ge, ...); a missing
  file scores 0, a file pypdf cannot read raises, as a rule without its keys
  does;
- `compare_pdf_images`: every image each page draws, in order (PyMuPDF's
  `get_images(full=True)`, decoded by Pillow; one Pillow cannot decode is
  left out), as many on both sides, and the share of pairs whose perceptual
  hashes (imagehash's `phash`) differ by at most 5 bits; none on either side
  is a match (1), a missing file scores 0. A file PyMuPDF cannot read
  raises: OSWorld's function means to score it 0, but its `finally` removes
  the scratch folder its `except` already removed, and that raises.
"""

from __future__ import annotations

import io
import logging
import operator
from typing import Any

import imagehash
from PIL import Image

from bench.formats.pdf import mupdf_open, page_count, text_similarity
from bench.suites.osworld.errors import MetricFailed

logger = logging.getLogger(__name__)

HASH_THRESHOLD = 5
"""OSWorld's bound on two images' phash difference, in bits, for the pair to count as the same image."""


def compare_pdfs(result: Any, expected: Any, **options: Any) -> float:
    if options:
        raise MetricFailed(f"compare_pdfs takes no options, got {sorted(options)} (OSWorld's function raises here)")
    return text_similarity(result, expected)


def check_pdf_pages(result: bytes | None, rules: Any, **options: Any) -> float:
    if result is None:
        return 0.0
    try:
        pages = page_count(result)
    except Exception as exc:  # noqa: BLE001 - pypdf raises many kinds on a damaged file
        raise MetricFailed(f"check_pdf_pages: the file does not read as a PDF ({type(exc).__name__}: {exc}) "
                           "(OSWorld's function raises here)") from None
    if not isinstance(rules, dict) or "relation" not in rules or "ref_value" not in rules:
        raise MetricFailed(f"check_pdf_pages: expected rules with `relation` and `ref_value`, got {rules!r} "
                           "(OSWorld's function raises here)")
    relation = getattr(operator, str(rules["relation"]), None)
    if not callable(relation):
        raise MetricFailed(f"check_pdf_pages: relation {rules['relation']!r} is not an operator function "
                           "(OSWorld's function raises here)")
    return float(relation(pages, rules["ref_value"]))


def _images(data: bytes) -> list[Image.Image]:
    images = []
    with mupdf_open(data) as document:
        for page in document:
            for image in page.get_images(full=True):
                encoded = document.extract_image(image[0])["image"]
                try:
                    images.append(Image.open(io.BytesIO(encoded)))
                except Exception as exc:  # noqa: BLE001 - OSWorld logs an image Pillow cannot open and goes on
                    logger.info("compare_pdf_images: an image on page %d does not decode (%s)", page.number, exc)
    return images


def compare_pdf_images(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    if result is None or expected is None:
        return 0.0
    try:
        mine, gold = _images(result), _images(expected)
    except Exception as exc:  # noqa: BLE001 - any failure to extract the images ends as OSWorld's does
        raise MetricFailed(f"compare_pdf_images: the images cannot be extracted ({type(exc).__name__}: {exc}); "
                           "OSWorld's function raises here (removing its scratch folder twice)") from None
    if len(mine) != len(gold):
        return 0.0
    if not mine:
        return 1.0
    same = sum(imagehash.phash(first) - imagehash.phash(second) <= HASH_THRESHOLD for first, second in zip(mine, gold))
    return same / len(mine)


PDF_METRICS = {"compare_pdfs": compare_pdfs, "check_pdf_pages": check_pdf_pages,
               "compare_pdf_images": compare_pdf_images}
