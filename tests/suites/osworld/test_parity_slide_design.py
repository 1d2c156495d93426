"""troupe's slide-design metrics agree with OSWorld's own (metrics/slides.py, imported from
../shared/osworld/reference for tests only) on decks built with python-pptx, some parts edited by hand the
way LibreOffice writes them, to sit on each function's edges: portrait, landscape, square and no slide size;
backgrounds solid, inherited from a solid or a theme master, a theme colour, gradient, pattern, a fill with
no colour, the original colour, mixed slides, no slides, rules short of a channel; transitions present,
absent, another kind, in PowerPoint's AlternateContent, on another slide, a slide that is not there, a kind
ElementTree's path syntax rejects; slide-number colours in the placeholder, in a footer, in runs, only black,
none, with '#' or not six hex digits, each named colour and one no check knows; rules without their key, no
file, files that are not decks. Prints the agreement per function. Then each of the four tasks that
name these, with its own evaluator and rule: a solved deck scores 1 and the untouched one 0, in OSWorld's
function and through troupe's checker."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from typing import Any

import pytest
from lxml import etree
from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.enum.dml import MSO_THEME_COLOR
from pptx.util import Inches

from bench.suites.osworld.slide_design import SLIDE_DESIGN_METRICS

from tests.osworld_reference import FILE, METRICS, REFERENCE, Case, assert_agrees, load, outcome, task_scores

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")

Edit = Callable[[Any], None]
P = "http://schemas.openxmlformats.org/presentationml/2006/main"
A = "http://schemas.openxmlformats.org/drawingml/2006/main"
C = Case


def deck(*edits: Edit, slides: int = 2) -> bytes:
    """`slides` title slides, then `edits`, each given the presentation."""
    prs = Presentation()
    for number in range(slides):
        prs.slides.add_slide(prs.slide_layouts[0]).shapes.title.text = f"Slide {number + 1}"
    for edit in edits:
        edit(prs)
    out = io.BytesIO()
    prs.save(out)
    return out.getvalue()


def with_parts(data: bytes, named: dict[str, bytes | None]) -> bytes:
    """The deck with its `named` parts replaced, or removed where None."""
    source, out = zipfile.ZipFile(io.BytesIO(data)), io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            if info.filename not in named:
                target.writestr(info, source.read(info))
        for name, part in named.items():
            if part is not None:
                target.writestr(name, part)
    return out.getvalue()


SLIDE, MASTER = "ppt/slides/slide1.xml", "ppt/slideMasters/slideMaster1.xml"


# check_slide_orientation_Portrait

def size(width: float, height: float) -> Edit:
    def edit(prs: Any) -> None:
        prs.slide_width, prs.slide_height = Inches(width), Inches(height)
    return edit


def no_slide_size(prs: Any) -> None:
    prs.part._element.remove(prs.part._element.sldSz)


ORIENTATION = [
    C(FILE, deck()), C(FILE, deck(size(7.5, 10))), C(FILE, deck(size(10, 10))), C(FILE, deck(size(7.5, 7.51))),
    C(FILE, deck(size(7.5, 10), slides=0)), C(FILE, deck(no_slide_size)), C(None), C(FILE, b"not a deck"),
    C(FILE, b""),
]


# evaluate_presentation_fill_to_rgb_distance

def solid(rgb: str, slide: int | None = None) -> Edit:
    """Slide `slide`'s background (every slide's when None) a solid `rgb`."""
    def edit(prs: Any) -> None:
        for index, each in enumerate(prs.slides):
            if slide is None or index == slide:
                each.background.fill.solid()
                each.background.fill.fore_color.rgb = RGBColor.from_string(rgb)
    return edit


def master_solid(rgb: str) -> Edit:
    def edit(prs: Any) -> None:
        prs.slide_master.background.fill.solid()
        prs.slide_master.background.fill.fore_color.rgb = RGBColor.from_string(rgb)
    return edit


def first_fill(kind: str) -> Edit:
    """The first slide's background a theme colour, a gradient, a pattern, or a solid fill naming no colour."""
    def edit(prs: Any) -> None:
        fill = prs.slides[0].background.fill
        if kind == "theme":
            fill.solid()
            fill.fore_color.theme_color = MSO_THEME_COLOR.ACCENT_1
        elif kind == "gradient":
            fill.gradient()
        elif kind == "pattern":
            fill.patterned()
        else:
            fill.solid()
    return edit


def theme_reference(prs: Any) -> None:
    """The first slide's background a reference into the theme, as PowerPoint writes `p:bgRef`."""
    c_sld = prs.slides[0]._element.cSld
    c_sld.insert(0, etree.fromstring(f'<p:bg xmlns:p="{P}" xmlns:a="{A}"><p:bgRef idx="1001">'
                                     '<a:schemeClr val="bg1"/></p:bgRef></p:bg>'))


TASK_RULE = {"rgb": [0, 0, 255], "original_rgb": [255, 255, 255]}
FILLS = [deck(solid("0000FF")), deck(solid("0000ff")), deck(solid("FFFFFF")), deck(solid("0000FF", 0)),
         deck(solid("0000C8")), deck(solid("FF0000")), deck(master_solid("0000FF")), deck(master_solid("FFFFFF")),
         deck(master_solid("0000FF"), solid("FFFFFF", 1)), deck(), deck(first_fill("theme"), solid("0000FF", 1)),
         deck(first_fill("gradient"), solid("0000FF", 1)), deck(first_fill("pattern"), solid("0000FF", 1)),
         deck(first_fill("none"), solid("0000FF", 1)), deck(theme_reference, master_solid("0000FF")),
         deck(solid("0000FF"), slides=1), deck(solid("0000FF"), slides=5)]
FILL = ([C(FILE, data, TASK_RULE) for data in FILLS]
        + [C(FILE, data, {"rgb": [0, 0, 255]}) for data in FILLS[2:6]]
        + [C(FILE, deck(solid("FFFFFF")), {"rgb": [0, 0, 255], "original_rgb": [255, 255]}),
           C(FILE, deck(solid("FFFFFF")), {"rgb": [0, 0]}), C(FILE, deck(), {"rgb": [0, 0]}),
           C(FILE, deck(solid("0000FF")), {"rgb": ["0", "0", "255"]}),
           C(FILE, deck(solid("0000FF")), {"rgb": "0000FF"}),
           C(FILE, deck(solid("0000FF")), {"original_rgb": [255, 255, 255]}),
           C(FILE, deck(solid("0000FF")), [0, 0, 255]),
           C(FILE, deck(slides=0), TASK_RULE), C(None, TASK_RULE), C(FILE, b"not a deck", TASK_RULE)])


# check_transition

def transition(xml: str, slide: int = 0) -> Edit:
    """`xml` (in the p and a namespaces, and p14's and mc's) put where a slide's transition goes."""
    def edit(prs: Any) -> None:
        element = prs.slides[slide]._element
        element.insert(element.index(element.clrMapOvr) + 1, etree.fromstring(
            f'<root xmlns:p="{P}" xmlns:a="{A}" xmlns:p14="http://schemas.microsoft.com/office/powerpoint/2010/main" '
            f'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006">{xml}</root>')[0])
    return edit


DISSOLVE = '<p:transition spd="slow"><p:dissolve/></p:transition>'  # as LibreOffice saves it
ALTERNATE = ('<mc:AlternateContent><mc:Choice Requires="p14"><p:transition spd="slow" p14:dur="2000">{}</p:transition>'
             '</mc:Choice><mc:Fallback><p:transition spd="slow"><p:fade/></p:transition></mc:Fallback>'
             '</mc:AlternateContent>')
RULE = {"slide_idx": 0, "transition_type": "dissolve"}
WITH_DISSOLVE = deck(transition(DISSOLVE))
TRANSITION = [
    C(FILE, WITH_DISSOLVE, RULE), C(FILE, deck(), RULE),
    C(FILE, deck(transition("<p:transition><p:fade/></p:transition>")), RULE),
    C(FILE, deck(transition("<p:transition/>")), RULE), C(FILE, deck(transition(DISSOLVE, 1)), RULE),
    C(FILE, deck(transition(DISSOLVE, 1)), {"slide_idx": 1, "transition_type": "dissolve"}),
    C(FILE, deck(transition(ALTERNATE.format("<p:dissolve/>"))), RULE),
    C(FILE, deck(transition(ALTERNATE.format("<p14:vortex/>"))), RULE),
    C(FILE, deck(transition(ALTERNATE.format("<p14:vortex/>"))), {"slide_idx": 0, "transition_type": "fade"}),
    C(FILE, deck(transition('<p:transition><p:cut thruBlk="1"/></p:transition>')),
      {"slide_idx": 0, "transition_type": "cut"}),
    C(FILE, WITH_DISSOLVE, {"slide_idx": 0, "transition_type": "Dissolve"}),
    C(FILE, WITH_DISSOLVE, {"slide_idx": 5, "transition_type": "dissolve"}),
    C(FILE, WITH_DISSOLVE, {"slide_idx": -1, "transition_type": "dissolve"}),
    C(FILE, WITH_DISSOLVE, {"slide_idx": 0.0, "transition_type": "dissolve"}),
    C(FILE, WITH_DISSOLVE, {"slide_idx": "0", "transition_type": "dissolve"}),
    C(FILE, WITH_DISSOLVE, {"slide_idx": 0, "transition_type": "dissolve["}),
    C(FILE, WITH_DISSOLVE, {"slide_idx": 0, "transition_type": ""}),
    C(FILE, WITH_DISSOLVE, {"slide_idx": 0, "transition_type": None}),
    C(FILE, WITH_DISSOLVE, {"slide_idx": 0}), C(FILE, WITH_DISSOLVE, {"transition_type": "dissolve"}),
    C(FILE, with_parts(WITH_DISSOLVE, {SLIDE: b"<p:sld"}), RULE),
    C(FILE, with_parts(WITH_DISSOLVE, {SLIDE: None}), RULE),
    C(None, RULE), C(FILE, b"not a deck", RULE),
]


# check_page_number_colors

def filled(colour: str) -> str:
    return f'<a:solidFill><a:srgbClr val="{colour}"/></a:solidFill>'


def placeholder(kind: str, colour: str | None, inside: str = "") -> str:
    """A master's placeholder shape as LibreOffice writes it: its `p:ph` (holding `inside`, which
    LibreOffice never writes there) and a run in `colour` (no fill when None)."""
    fill = "" if colour is None else filled(colour)
    return (f'<p:sp><p:nvSpPr><p:cNvPr id="2" name="PlaceHolder {kind}"/><p:cNvSpPr/><p:nvPr><p:ph type="{kind}">'
            f'{inside}</p:ph></p:nvPr></p:nvSpPr><p:spPr><a:noFill/></p:spPr><p:txBody><a:bodyPr/><a:p><a:r>'
            f'<a:rPr sz="1200">{fill}</a:rPr><a:t>&lt;{kind}&gt;</a:t></a:r></a:p></p:txBody></p:sp>')


def master(*shapes: str, background: str = "") -> bytes:
    return (f'<?xml version="1.0" encoding="UTF-8"?><p:sldMaster xmlns:p="{P}" xmlns:a="{A}"><p:cSld>{background}'
            f'<p:spTree>{"".join(shapes)}</p:spTree></p:cSld></p:sldMaster>').encode()


def numbered(*shapes: str, background: str = "") -> bytes:
    return with_parts(deck(), {MASTER: master(*shapes, background=background)})


def decoration(colour: str) -> str:
    """A shape filled with `colour`: a fill colour outside any run."""
    return (f'<p:sp><p:nvSpPr><p:cNvPr id="9" name="Shape"/><p:cNvSpPr/><p:nvPr/></p:nvSpPr>'
            f'<p:spPr>{filled(colour)}</p:spPr></p:sp>')


def master_background(fill: str) -> str:
    return f"<p:bg><p:bgPr>{fill}</p:bgPr></p:bg>"


NO_COLOUR = "<a:solidFill><a:srgbClr/></a:solidFill>"
LIBREOFFICE = [placeholder("title", "000000"), placeholder("body", "000000"), placeholder("dt", "8b8b8b"),
               placeholder("ftr", "8b8b8b")]
MASTERS = [
    numbered(*LIBREOFFICE, placeholder("sldNum", "8b8b8b")), numbered(*LIBREOFFICE, placeholder("sldNum", "ff0000")),
    numbered(*LIBREOFFICE, placeholder("sldNum", "FF0000")), numbered(*LIBREOFFICE, placeholder("sldNum", "0000ff")),
    numbered(*LIBREOFFICE, placeholder("sldNum", "00c800")), numbered(*LIBREOFFICE, placeholder("sldNum", "c8a000")),
    numbered(*LIBREOFFICE, placeholder("sldNum", "#ff0000")), numbered(*LIBREOFFICE, placeholder("sldNum", "f00")),
    numbered(*LIBREOFFICE, placeholder("sldNum", "gg0000")), numbered(*LIBREOFFICE, placeholder("sldNum", "000000")),
    numbered(placeholder("sldNum", "ff0000"), placeholder("ftr", "0000ff")),
    numbered(placeholder("title", "000000"), placeholder("sldNum", "000000")),
    numbered(placeholder("title", None), placeholder("sldNum", None)), numbered(),
    numbered(placeholder("sldNum", "000000"), background=master_background(filled("ffffff"))),
    numbered(placeholder("sldNum", None), background=master_background(filled("ff0000"))),
    numbered(placeholder("sldNum", None), background=master_background(NO_COLOUR)),
    numbered(placeholder("sldNum", "8b8b8b", filled("ff0000"))),
    numbered(placeholder("dt", "8b8b8b", filled("0000ff")), placeholder("sldNum", "ff0000")),
    numbered(placeholder("dt", "8b8b8b", filled("0000ff")), placeholder("sldNum", "8b8b8b", filled("ff0000"))),
    numbered(*LIBREOFFICE, placeholder("sldNum", "ff0000"), decoration("0000ff")),
    numbered(*LIBREOFFICE, placeholder("sldNum", "000000"), decoration("0000ff")),
    numbered(placeholder("sldNum", "8b8b8b", NO_COLOUR), placeholder("ftr", "8b8b8b", filled("ff0000"))),
    deck(),
]
COLOURS = ([C(FILE, data, {"color": colour}) for data in MASTERS for colour in ("red", "blue", "green", "black")]
           + [C(FILE, MASTERS[0], {"color": "purple"}), C(FILE, MASTERS[0], {"color": ["red"]}),
              C(FILE, MASTERS[1], {"colour": "red"}), C(FILE, MASTERS[1], "red"),
              C(FILE, with_parts(deck(), {MASTER: None}), {"color": "red"}),
              C(FILE, with_parts(deck(), {MASTER: b"<p:sldMaster"}), {"color": "red"}),
              C(None, {"color": "red"}), C(FILE, b"not a deck", {"color": "red"})])

CASES: dict[str, list[Case]] = {
    "check_slide_orientation_Portrait": ORIENTATION,
    "evaluate_presentation_fill_to_rgb_distance": FILL,
    "check_transition": TRANSITION,
    "check_page_number_colors": COLOURS,
}


TASKS: dict[str, tuple[bytes, bytes]] = {
    "libreoffice_impress/ce88f674-ab7a-43da-9201-468d38539e4a": (deck(size(7.5, 10)), deck()),
    "libreoffice_impress/3b27600c-3668-4abd-8f84-7bcdebbccbdb": (deck(solid("0000ff")), deck(solid("ffffff"))),
    "libreoffice_impress/21760ecb-8f62-40d2-8d85-0cee5725cb72": (WITH_DISSOLVE, deck()),
    "libreoffice_impress/ac9bb6cb-1888-43ab-81e4-a98a547918cd": (
        numbered(*LIBREOFFICE, placeholder("sldNum", "ff0000")),
        numbered(*LIBREOFFICE, placeholder("sldNum", "8b8b8b"))),
}
"""Per task: a deck solved as the instruction asks, and one as the task starts (as LibreOffice saves it)."""


@pytest.fixture(scope="module")
def reference() -> Any:
    return load(METRICS / "slides.py", {})


@pytest.mark.parametrize("name", sorted(CASES))
def test_troupes_slide_design_metric_agrees_with_osworlds_on_every_built_case(name, reference, tmp_path, capsys):
    assert_agrees(name, getattr(reference, name), SLIDE_DESIGN_METRICS[name], CASES[name], tmp_path, capsys,
                  suffix=".pptx")


def test_each_function_meets_both_outcomes_and_a_raise():
    """The built cases reach a 1, a 0 and a raise (no score) in OSWorld's terms for every function, so
    agreeing is not agreeing on one outcome."""
    for name, cases in CASES.items():
        seen = set()
        for case in cases:
            arguments = [item for item in case.arguments if item is not FILE]
            seen.add(outcome(SLIDE_DESIGN_METRICS[name], arguments, case.options))
        assert {0.0, 1.0, "raises"} <= seen, (name, seen)


@pytest.mark.anyio
@pytest.mark.parametrize("task_id", sorted(TASKS))
async def test_each_tasks_own_evaluator_scores_a_solved_deck_1_and_the_untouched_0(task_id, reference, tmp_path):
    solved, untouched = TASKS[task_id]
    assert await task_scores(task_id, reference, solved, tmp_path, ".pptx") == (1.0, 1.0)
    assert await task_scores(task_id, reference, untouched, tmp_path, ".pptx") == (0.0, 0.0)
