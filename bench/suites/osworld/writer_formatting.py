"""What OSWorld's docs.py checks in a .docx beyond its text, where WAA's suite has no task that uses it.

- `contains_page_break`: the body paragraphs' runs hold at least one page
  break (`w:br w:type="page"`), and exactly `rules.page_break_count` when
  the rule names one (a rule without it, or no rule mapping, counts any);
- `compare_docx_images`: the images the main document part relates to (in
  its relationships' order) are as many as the gold's and decode to the
  same pixels one for one (Pillow); an image Pillow cannot decode raises,
  as it does in OSWorld;
- `evaluate_colored_words_in_tables`: the texts agree as compare_docx_files'
  defaults judge them, then in every table each non-empty run whose first
  character is a vowel is red, and each other one blue, within a CIEDE2000
  difference of `threshold` (3.5); a run without an RGB colour of its own
  (none, or "auto") raises, as OSWorld's does on it.

A missing file or one python-docx cannot open scores 0, as in OSWorld.
"""

from __future__ import annotations

import io
from typing import Any

from PIL import Image

from bench.formats.docx_checks import W, open_docx, same_text_documents
from bench.suites.osworld.colour_difference import ciede2000, srgb_to_lab
from bench.suites.osworld.errors import MetricFailed

_RED, _BLUE = (255, 0, 0), (0, 0, 255)


def contains_page_break(result: bytes | None, rules: Any, **options: Any) -> float:
    document = open_docx(result)
    if document is None:
        return 0.0
    wanted = rules.get("page_break_count") if isinstance(rules, dict) else None
    breaks = sum(1 for paragraph in document.paragraphs for run in paragraph.runs
                 for mark in run.element.findall(f".//{W}br") if mark.get(f"{W}type") == "page")
    if wanted is not None and breaks != wanted:
        return 0.0
    return float(breaks > 0)


def _images(document: Any) -> list[bytes]:
    return [rel.target_part.blob for rel in document.part.rels.values() if "image" in rel.reltype]


def compare_docx_images(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    mine, gold = open_docx(result), open_docx(expected)
    if mine is None or gold is None:
        return 0.0
    first, second = _images(mine), _images(gold)
    if len(first) != len(second):
        return 0.0
    return float(all(Image.open(io.BytesIO(a)).tobytes() == Image.open(io.BytesIO(b)).tobytes()
                     for a, b in zip(first, second)))


def _difference(rgb: Any, wanted: tuple[int, int, int], text: str) -> float:
    if rgb is None:
        raise MetricFailed(f"evaluate_colored_words_in_tables: the table run {text!r} has no RGB colour of its own "
                           "(OSWorld's function raises here)")
    return ciede2000(srgb_to_lab(tuple(c / 255.0 for c in rgb)), srgb_to_lab(tuple(c / 255.0 for c in wanted)))


def evaluate_colored_words_in_tables(result: bytes | None, expected: bytes | None, *, threshold: float = 3.5,
                                     **options: Any) -> float:
    pair = same_text_documents(result, expected)
    if pair is None:
        return 0.0
    for table in pair[0].tables:
        for row in table.rows:
            for cell in row.cells:
                for paragraph in cell.paragraphs:
                    for run in paragraph.runs:
                        if run.text and _difference(run.font.color.rgb, _RED if run.text[0].lower() in "aeiou"
                                                    else _BLUE, run.text) > threshold:
                            return 0.0
    return 1.0


FORMATTING_METRICS = {metric.__name__: metric for metric in (
    contains_page_break, compare_docx_images, evaluate_colored_words_in_tables)}
