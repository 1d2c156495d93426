"""Each libreoffice_writer and multi_apps task whose one metric is a Writer check of this family, evaluated
as its own file says (function, options, rule or gold file) by OSWorld's function (metrics/docs.py, from
../shared/osworld/reference, tests only) and by troupe's checker: a solved file scores 1 in both, the
untouched one 0. The metrics' edges are in test_parity_writer_checks.py."""

from __future__ import annotations

from typing import Any

import pytest
from docx.enum.text import WD_ALIGN_PARAGRAPH, WD_BREAK, WD_TAB_ALIGNMENT
from docx.shared import Pt, RGBColor

from tests.osworld_reference import REFERENCE, docs, task_scores
from tests.writer_files import (REFERENCES, TEXT, TRAIN_RECORDS, breaks, coloured, document, first_aligned, footer,
                                odt, pictures, png, runs, spacing, table, tabbed, xcu)

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")


def tasks() -> dict[str, tuple[str, Any, bytes, bytes]]:
    """Each single-function task of this family: (suffix, its gold file(s) or None, a solved and an
    untouched result)."""
    rows = [["Grapheme", "Sound"], ["ph", "/f/"]]
    tabbed_lines = ["Ebook purchasing info\t2021", "Contact the library\tJanuary"]
    right = WD_TAB_ALIGNMENT.RIGHT
    tabs = tabbed([(line, [(6.0, right)]) for line in tabbed_lines])
    plain_odt = odt([("Hello caller,", None), ("thanks for calling.", None)])
    red, blue = png((255, 0, 0)), png((0, 0, 255))
    body = ["Case study", "Some text.", "References"]
    original = document(TRAIN_RECORDS)
    deduplicated = document([TRAIN_RECORDS[0], TRAIN_RECORDS[1], TRAIN_RECORDS[3]])
    tables_of = (".docx", document(TEXT, table(rows)), document(TEXT, table(rows)), document(TEXT))
    pictured = (".docx", pictures(red, blue), pictures(red, blue), pictures(red))
    return {
        "libreoffice_writer/0a0faba3-5580-44df-965d-f562a99b291c": (
            ".docx", tabs, tabs, tabbed([(line, []) for line in tabbed_lines])),
        "libreoffice_writer/0e47de2a-32e0-456c-a366-8c607ef7a9d2": (".docx", None, footer("Page 1"), document(TEXT)),
        "libreoffice_writer/0e763496-b6bb-4508-a427-fad0b6c3e195": (
            ".docx", None, runs(("Dublin Zoo", {"name": "Times New Roman"})), runs(("Dublin Zoo", {"name": "Arial"}))),
        "libreoffice_writer/3ef2b351-8a84-4ff2-8724-d86eae9b842e": (
            ".docx", None, first_aligned(WD_ALIGN_PARAGRAPH.CENTER), document(TEXT)),
        "libreoffice_writer/66399b0d-8fda-4618-95c4-bfc6191617e9": tables_of,
        "multi_apps/00fa164e-2612-4439-992e-157d019a8436": tables_of,
        "multi_apps/81c425f5-78f3-4771-afd6-3d2973825947": tables_of,
        "libreoffice_writer/6a33f9b9-0a56-4844-9c3f-96ec3ffb3ba2": (
            ".odt", plain_odt, plain_odt, odt([("Hello caller,", "#ffff00"), ("thanks for calling.", None)])),
        "libreoffice_writer/6ada715d-3aae-4a32-a6a7-429b2e43fb93": pictured,
        "multi_apps/227d2f97-562b-4ccb-ae47-a5ec9e142fbb": pictured,
        "libreoffice_writer/6f81754e-285d-4ce0-b59e-af7edb02d108": (
            ".docx", [deduplicated, original], deduplicated, original),
        "libreoffice_writer/72b810ef-4156-4d09-8f08-a0cf57e7cefe": (
            ".docx", document(TEXT), runs((TEXT[2], {"strike": True}), before=TEXT[:2]), document(TEXT)),
        "libreoffice_writer/8472fece-c7dd-4241-8d65-9b3cd1a0b568": (
            ".docx", document(TEXT), coloured([("apple", RGBColor(255, 0, 0)), ("tree", RGBColor(0, 0, 255))]),
            coloured([("apple", RGBColor(0, 0, 0)), ("tree", RGBColor(0, 0, 0))])),
        "libreoffice_writer/b21acd93-60fd-4127-8a43-2f5178f4a830": (
            ".docx", document(TEXT, spacing(1.5, 1.5, 1.5)), document(TEXT, spacing(1.5, 1.5, 1.5)), document(TEXT)),
        "libreoffice_writer/e246f6d8-78d7-44ac-b668-fcf47946cb50": (
            ".docx", document(TEXT), runs((TEXT[2], {"italic": True, "size": Pt(14)}), before=TEXT[:2]),
            runs((TEXT[2], {"italic": True, "size": Pt(12)}), before=TEXT[:2])),
        "libreoffice_writer/ecc2413d-8a48-416e-a3a2-d30106ca36cb": (
            ".docx", None, breaks(*[WD_BREAK.PAGE] * 5), document(TEXT)),
        "libreoffice_writer/f178a4a9-d090-4b56-bc4c-4b72a61a035d": (".xcu", None, xcu("Times New Roman"), xcu(None)),
        "multi_apps/2c1ebcd7-9c6d-4c9a-afad-900e381ecd5e": (
            ".docx", document(body + REFERENCES), document(body + REFERENCES),
            document(body + ["Nobody (1900). Nothing.", "Anon. Untitled."])),
        "multi_apps/5bc63fb9-276a-4439-a7c1-9dc76401737f": (
            ".docx", document(TEXT), document(["", *TEXT, ""]), document(TEXT[:2])),
    }


@pytest.fixture(scope="module")
def reference_and_tasks() -> tuple[Any, dict[str, tuple[str, Any, bytes, bytes]]]:
    return docs(), tasks()


@pytest.mark.anyio
async def test_each_tasks_own_evaluator_scores_a_solved_file_1_and_the_untouched_0(reference_and_tasks, tmp_path):
    reference, built = reference_and_tasks
    for task_id, (suffix, gold, solved, untouched) in built.items():
        assert await task_scores(task_id, reference, solved, tmp_path, suffix, gold) == (1.0, 1.0), task_id
        assert await task_scores(task_id, reference, untouched, tmp_path, suffix, gold) == (0.0, 0.0), task_id
