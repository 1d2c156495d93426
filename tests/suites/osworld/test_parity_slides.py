"""troupe's compare_pptx_files agrees with OSWorld's own (metrics/slides.py, imported from
../shared/osworld/reference for tests only) on decks built with python-pptx to sit on its edges: slides
added, text and runs changed, each font property (None against False too), strike-through, alignment,
indent level, notes, background, shapes moved within and past the tolerance, pictures resized, tables,
bullets, groups, and each `examine_*` option the tasks turn off or on; no result file, and files that are
not decks. Prints the agreement."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pytest
from PIL import Image
from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.enum.text import PP_ALIGN
from pptx.util import Emu, Pt

from bench.suites.osworld.slides import compare_pptx_files

from tests.osworld_reference import FILE, METRICS, REFERENCE, Case, assert_agrees, load

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")

Edit = Callable[[Any], None]


def png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (4, 4), (200, 30, 30)).save(out, "PNG")
    return out.getvalue()


def deck(*edits: Edit, slides: int = 3) -> bytes:
    """Three slides: a title slide ("Product Comparison"), a text box with two paragraphs beside a
    picture, a table; then `edits`, each given the presentation."""
    prs = Presentation()
    title = prs.slides.add_slide(prs.slide_layouts[0])
    title.shapes.title.text = "Product Comparison"
    title.placeholders[1].text = "Second quarter"
    if slides > 1:
        body = prs.slides.add_slide(prs.slide_layouts[6])
        box = body.shapes.add_textbox(Emu(914400), Emu(914400), Emu(3657600), Emu(1828800))
        box.text_frame.text = "First point"
        second = box.text_frame.add_paragraph()
        run = second.add_run()
        run.text = "Second point"
        run.font.size = Pt(18)
        body.shapes.add_picture(io.BytesIO(png()), Emu(5029200), Emu(914400), Emu(1828800), Emu(1828800))
    if slides > 2:
        table = prs.slides.add_slide(prs.slide_layouts[6]).shapes.add_table(2, 2, Emu(914400), Emu(3657600),
                                                                            Emu(3657600), Emu(914400)).table
        for row in range(2):
            for column in range(2):
                table.cell(row, column).text = f"r{row}c{column}"
    for edit in edits:
        edit(prs)
    out = io.BytesIO()
    prs.save(out)
    return out.getvalue()


def box(prs: Any) -> Any:
    return prs.slides[1].shapes[0]


def picture(prs: Any) -> Any:
    return prs.slides[1].shapes[1]


def second_run(prs: Any) -> Any:
    return box(prs).text_frame.paragraphs[1].runs[0]


def cell_run(prs: Any) -> Any:
    return prs.slides[2].shapes[0].table.cell(0, 0).text_frame.paragraphs[0].runs[0]


def setting(get: Callable[[Any], Any], name: str, value: Any) -> Edit:
    def edit(prs: Any) -> None:
        setattr(get(prs), name, value)
    return edit


def font(get: Callable[[Any], Any], name: str, value: Any) -> Edit:
    return setting(lambda prs: get(prs).font, name, value)


def colour(get: Callable[[Any], Any], rgb: str) -> Edit:
    def edit(prs: Any) -> None:
        get(prs).font.color.rgb = RGBColor.from_string(rgb)
    return edit


def moved(get: Callable[[Any], Any], side: str, factor: float) -> Edit:
    def edit(prs: Any) -> None:
        shape = get(prs)
        setattr(shape, side, Emu(int(getattr(shape, side) * factor)))
    return edit


def notes(text: str) -> Edit:
    def edit(prs: Any) -> None:
        prs.slides[0].notes_slide.notes_text_frame.text = text
    return edit


def background(rgb: str) -> Edit:
    def edit(prs: Any) -> None:
        fill = prs.slides[0].background.fill
        fill.solid()
        fill.fore_color.rgb = RGBColor.from_string(rgb)
    return edit


def strike(prs: Any) -> None:
    second_run(prs).font._element.set("strike", "sngStrike")


def bullet(prs: Any) -> None:
    properties = box(prs).text_frame.paragraphs[0]._p.get_or_add_pPr()
    properties.append(properties.makeelement("{http://schemas.openxmlformats.org/drawingml/2006/main}buChar",
                                             {"char": "•"}))


def split_runs(prs: Any) -> None:
    paragraph = box(prs).text_frame.paragraphs[1]
    paragraph.runs[0].text = "Second "
    paragraph.add_run().text = "point"


def extra_shape(prs: Any) -> None:
    prs.slides[1].shapes.add_textbox(Emu(0), Emu(0), Emu(914400), Emu(914400)).text_frame.text = "More"


def extra_paragraph_in_cell(prs: Any) -> None:
    prs.slides[2].shapes[0].table.cell(1, 1).text_frame.add_paragraph().text = "more"


def title_raised(prs: Any) -> None:
    prs.slides[0].shapes.title.top = Emu(4000000)


def grouped(prs: Any) -> None:
    group = prs.slides[1].shapes.add_group_shape()
    group.shapes.add_textbox(Emu(0), Emu(0), Emu(914400), Emu(914400)).text_frame.text = "Inside"


GOLD = deck()
C = Case
OFF = {name: False for name in ("examine_number_of_slides", "examine_shape", "examine_text", "examine_indent",
                                "examine_font_name", "examine_font_size", "examine_font_bold", "examine_font_italic",
                                "examine_color_rgb", "examine_font_underline", "examine_strike_through",
                                "examine_alignment", "examine_run_count", "examine_bullets",
                                "examine_background_color", "examine_note")}
CHANGED: list[bytes] = [
    deck(slides=2), deck(setting(lambda p: p.slides[0].shapes.title, "text", "Products")),
    deck(moved(box, "left", 1.001)), deck(moved(box, "left", 1.01)), deck(moved(picture, "height", 1.2)),
    deck(moved(picture, "width", 1.2)), deck(font(second_run, "bold", True)), deck(font(second_run, "bold", False)),
    deck(font(second_run, "italic", True)), deck(font(second_run, "size", Pt(20))),
    deck(font(second_run, "name", "DejaVu Serif")), deck(colour(second_run, "FF0000")),
    deck(font(second_run, "underline", True)), deck(font(second_run, "underline", False)), deck(strike),
    deck(setting(lambda p: box(p).text_frame.paragraphs[0], "alignment", PP_ALIGN.CENTER)),
    deck(setting(lambda p: box(p).text_frame.paragraphs[0], "alignment", PP_ALIGN.LEFT)),
    deck(setting(lambda p: box(p).text_frame.paragraphs[1], "level", 1)), deck(notes("Say hello")),
    deck(background("112233")), deck(bullet), deck(split_runs), deck(extra_shape), deck(extra_paragraph_in_cell),
    deck(font(cell_run, "bold", True)), deck(colour(cell_run, "00FF00")), deck(title_raised), deck(grouped),
]
OPTIONS: list[dict[str, Any]] = [{}, {"examine_shape": False}, OFF]
POSITIONED: list[bytes] = [GOLD, deck(moved(box, "left", 1.001)), deck(moved(box, "left", 1.01)),
                           deck(moved(picture, "height", 1.2)), deck(moved(picture, "width", 1.2)), deck(title_raised)]
POSITION_OPTIONS: list[dict[str, Any]] = [
    {"approximately_tolerance": 0.02}, {"examine_shape": False, "examine_modify_height": True},
    {"examine_shape": False, "examine_image_size": True}, {"examine_shape": False, "examine_title_bottom_position": True},
    {"examine_shape": False, "examine_table_bottom_position": True},
    {"examine_shape": False, "examine_right_position": True}, {"examine_shape": False, "examine_top_position": True},
    {"examine_shape_for_shift_size": True, "examine_shape": False},
]
CASES = ([C(FILE, result, FILE, GOLD, **options) for result in [GOLD, *CHANGED] for options in OPTIONS]
         + [C(FILE, result, FILE, GOLD, **options) for result in POSITIONED for options in POSITION_OPTIONS]
         + [C(None, FILE, GOLD), C(None, FILE, GOLD, examine_number_of_slides=False),
            C(FILE, b"not a deck", FILE, GOLD), C(FILE, GOLD, FILE, b"PK\x03\x04 broken")])


def test_compare_pptx_files_agrees_with_osworlds_own(tmp_path, capsys):
    reference = load(METRICS / "slides.py", {}).compare_pptx_files
    assert_agrees("compare_pptx_files", reference, compare_pptx_files, CASES, tmp_path, capsys, suffix=".pptx")
