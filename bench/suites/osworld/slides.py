"""`compare_pptx_files`: an Impress deck the agent saved against the task's gold deck, read with
python-pptx, with the semantics of OSWorld's own metrics/slides.py, its order of checks included.

Per slide, in order (each `examine_*` option on by default unless named off):
the number of slides; the background colour (a solid fill's colour, a
fill inherited from the master read there, else none); the notes' text,
stripped; the number of shapes. Per shape pair: the task-specific position
checks OSWorld has (`examine_title_bottom_position`,
`examine_table_bottom_position`, `examine_right_position`,
`examine_top_position`, `examine_shape_for_shift_size`,
`examine_image_size`, `examine_modify_height`, all off by default and each
written for one task's deck, as OSWorld writes them); position and size
equal within `approximately_tolerance` (relative, default 0.005) when
`examine_shape`; a table's shape, and per cell its paragraphs and runs
(colour, bold, italic, underline: None and False count as the same);
a text shape's text, paragraph count and per paragraph its alignment (None
read as left), text, level and runs (when both paragraphs are blank only
runs with text count): font name, size, bold, italic, colour, underline,
strike-through and the slide's bullets (level, character, text). Then, when
`examine_alignment` and both slides have as many text shapes (those in
groups included), their texts and alignments again; a different number of
text shapes fails. A result that is not a deck (and a gold file that is
not) makes OSWorld's function raise: `MetricFailed` here; no result file is
python-pptx's empty default deck, as OSWorld opens `None`.
"""

from __future__ import annotations

import io
from typing import Any
from xml.etree import ElementTree

from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE_TYPE
from pptx.enum.text import PP_ALIGN

from bench.suites.osworld.errors import MetricFailed

_NS = {"a": "http://schemas.openxmlformats.org/drawingml/2006/main",
       "p": "http://schemas.openxmlformats.org/presentationml/2006/main"}
DEFAULTS = {"examine_number_of_slides": True, "examine_shape": True, "examine_text": True, "examine_indent": True,
            "examine_font_name": True, "examine_font_size": True, "examine_font_bold": True,
            "examine_font_italic": True, "examine_color_rgb": True, "examine_font_underline": True,
            "examine_strike_through": True, "examine_alignment": True, "examine_title_bottom_position": False,
            "examine_table_bottom_position": False, "examine_run_count": True, "examine_right_position": False,
            "examine_top_position": False, "examine_shape_for_shift_size": False, "examine_image_size": False,
            "examine_modify_height": False, "examine_bullets": True, "examine_background_color": True,
            "examine_note": True}


class _Differ(Exception):
    """The decks differ: OSWorld's `return 0`."""


def open_deck(data: bytes | None, metric: str, which: str = "result") -> Any:
    """The deck in `data` as OSWorld's metrics open a path with python-pptx (None: its empty default
    deck); a file that is not a deck raises MetricFailed naming `metric` and `which` file."""
    try:
        return Presentation(None if data is None else io.BytesIO(data))
    except Exception as exc:  # noqa: BLE001 - python-pptx raises many kinds on a broken file
        raise MetricFailed(f"{metric}: the {which} file is not a pptx deck ({type(exc).__name__}: {exc}; "
                           "OSWorld's function raises here)") from None


def _require(holds: bool) -> None:
    if not holds:
        raise _Differ


class _Compare:
    def __init__(self, options: dict[str, Any]) -> None:
        self.on = {name: options.get(name, default) for name, default in DEFAULTS.items()}
        self.tolerance = options.get("approximately_tolerance", 0.005)

    def near(self, one: Any, two: Any) -> bool:
        if one == two:
            return True
        if one == 0 or two == 0:
            return False
        return abs(one - two) / max(abs(one), abs(two)) <= self.tolerance

    def moved(self, one: Any, two: Any) -> bool:
        return not all(self.near(getattr(one, side), getattr(two, side)) for side in ("left", "top", "width", "height"))

    def decks(self, first: Any, second: Any) -> None:
        if self.on["examine_number_of_slides"]:
            _require(len(first.slides) == len(second.slides))
        for number, (one, two) in enumerate(zip(first.slides, second.slides), start=1):
            self.slide(number, one, two)

    def slide(self, number: int, one: Any, two: Any) -> None:
        # OSWorld reads the background and the notes whether it examines them or not (what cannot be read raises)
        same_background = _background(one) == _background(two)
        _require(same_background or not self.on["examine_background_color"])
        same_notes = one.notes_slide.notes_text_frame.text.strip() == two.notes_slide.notes_text_frame.text.strip()
        _require(same_notes or not self.on["examine_note"])
        texts = _text_shapes(one), _text_shapes(two)
        _require(len(one.shapes) == len(two.shapes))
        for shape_one, shape_two in zip(one.shapes, two.shapes):
            self.positions(number, shape_one, shape_two)
            if shape_one.shape_type == MSO_SHAPE_TYPE.TABLE:
                self.table(shape_one.table, shape_two.table)
            if hasattr(shape_one, "text") and hasattr(shape_two, "text"):
                self.text_shape(shape_one, shape_two)
        if self.on["examine_alignment"] and len(texts[0]) == len(texts[1]):
            for shape_one, shape_two in zip(*texts):
                if self.on["examine_text"]:
                    _require(shape_one.text.strip() == shape_two.text.strip())
                paragraphs = shape_one.text_frame.paragraphs, shape_two.text_frame.paragraphs
                _require(len(paragraphs[0]) == len(paragraphs[1]))
                for para_one, para_two in zip(*paragraphs):
                    _require(_alignment(para_one) == _alignment(para_two))
        else:
            _require(len(texts[0]) == len(texts[1]))

    def positions(self, number: int, one: Any, two: Any) -> None:
        """OSWorld's position checks, each written for one task's deck (its titles, slide numbers and
        EMU limits are OSWorld's)."""
        has_text = hasattr(one, "text") and hasattr(two, "text")
        if self.on["examine_title_bottom_position"]:
            if has_text and one.text == two.text:
                _require(not (one.text == "Product Comparison" and (one.top <= two.top or one.top < 3600000)))
            else:
                _require(not self.moved(one, two))
        if self.on["examine_table_bottom_position"]:
            if number == 3 and one.shape_type == 19 and two.shape_type == 19:
                _require(not (one.top <= two.top or one.top < 3600000))
            else:
                _require(not self.moved(one, two))
        if self.on["examine_right_position"] and number == 2 and not hasattr(one, "text") and not hasattr(two, "text"):
            _require(not (one.left <= two.left or one.left < 4320000))
        if self.on["examine_top_position"] and number == 2 and one.shape_type == 13 and two.shape_type == 13:
            _require(not (one.top >= two.top or one.top > 1980000))
        if self.on["examine_shape_for_shift_size"] and self.moved(one, two):
            _require(has_text and one.text == two.text and one.text == "Elaborate on what you want to discuss.")
        moved = self.moved(one, two)  # read whether examined or not, as OSWorld reads it
        _require(not (moved and self.on["examine_shape"]))
        if self.on["examine_image_size"]:
            if one.shape_type == 13 and two.shape_type == 13:
                _require(self.near(one.width, two.width) and self.near(one.height, two.height))
            else:
                _require(not self.moved(one, two))
        if self.on["examine_modify_height"]:
            if (not hasattr(one, "text") and not hasattr(two, "text")) or (one.shape_type == 5 and two.shape_type == 5):
                _require(self.near(one.height, two.height))
            else:
                _require(not self.moved(one, two))

    def table(self, one: Any, two: Any) -> None:
        _require(len(one.rows) == len(two.rows) and len(one.columns) == len(two.columns))
        for row in range(len(one.rows)):
            for column in range(len(one.columns)):
                paragraphs = one.cell(row, column).text_frame.paragraphs, two.cell(row, column).text_frame.paragraphs
                _require(len(paragraphs[0]) == len(paragraphs[1]))
                for para_one, para_two in zip(*paragraphs):
                    runs = _runs(para_one, para_two)
                    if self.on["examine_run_count"]:
                        _require(len(runs[0]) == len(runs[1]))
                    for run_one, run_two in zip(*runs):
                        font_one, font_two = run_one.font, run_two.font
                        if self.on["examine_color_rgb"]:
                            _require(_same_colour(font_one, font_two))
                        _require(_same_flag(font_one.bold, font_two.bold))
                        _require(_same_flag(font_one.italic, font_two.italic))
                        _require(_same_underline(font_one.underline, font_two.underline))

    def text_shape(self, one: Any, two: Any) -> None:
        if self.on["examine_text"]:
            _require(one.text.strip() == two.text.strip())
        paragraphs = one.text_frame.paragraphs, two.text_frame.paragraphs
        _require(len(paragraphs[0]) == len(paragraphs[1]))
        for para_one, para_two in zip(*paragraphs):
            if self.on["examine_alignment"]:
                _require(_alignment(para_one) == _alignment(para_two))
            if self.on["examine_text"]:
                _require(para_one.text == para_two.text)
            if self.on["examine_indent"]:
                _require(para_one.level == para_two.level)
            runs = _runs(para_one, para_two)
            _require(len(runs[0]) == len(runs[1]))
            for run_one, run_two in zip(*runs):
                self.run(run_one, run_two)

    def run(self, one: Any, two: Any) -> None:
        font_one, font_two = one.font, two.font
        if self.on["examine_font_name"]:
            _require(font_one.name == font_two.name)
        if self.on["examine_font_size"]:
            _require(font_one.size == font_two.size)
        if self.on["examine_font_bold"]:
            _require(_same_flag(font_one.bold, font_two.bold))
        if self.on["examine_font_italic"]:
            _require(_same_flag(font_one.italic, font_two.italic))
        if self.on["examine_color_rgb"]:
            _require(_same_colour(font_one, font_two))
        if self.on["examine_font_underline"]:
            _require(_same_underline(font_one.underline, font_two.underline))
        if self.on["examine_strike_through"]:
            _require(font_one._element.attrib.get("strike", "noStrike") == font_two._element.attrib.get("strike", "noStrike"))
        if self.on["examine_bullets"]:
            try:
                bullets = _bullets(one.part.blob.decode("utf-8")), _bullets(two.part.blob.decode("utf-8"))
            except Exception:  # noqa: BLE001 - OSWorld passes over a slide whose bullets it cannot read
                return
            _require(bullets[0] == bullets[1])


def _background(slide: Any) -> Any:
    fill = slide.background.fill
    if fill.type == 1:
        return fill.fore_color.rgb
    if fill.type == 5:
        master = slide.slide_layout.slide_master.background.fill
        return master.fore_color.rgb if master.type == 1 else None
    return None


def _text_shapes(slide: Any) -> list[Any]:
    """Every shape with a text frame, those inside groups too, depth first."""
    found: list[Any] = []

    def walk(shape: Any) -> None:
        if hasattr(shape, "text") and hasattr(shape, "text_frame"):
            found.append(shape)
        for inner in shape.shapes if hasattr(shape, "shapes") else []:
            walk(inner)

    for shape in slide.shapes:
        walk(shape)
    return found


def _alignment(paragraph: Any) -> Any:
    return PP_ALIGN.LEFT if paragraph.alignment is None else paragraph.alignment


def _runs(one: Any, two: Any) -> tuple[list[Any], list[Any]]:
    """Both paragraphs' runs; when both paragraphs are blank, only the runs that hold text."""
    if (one.text or "").strip() == "" and (two.text or "").strip() == "":
        return ([r for r in one.runs if (r.text or "").strip()], [r for r in two.runs if (r.text or "").strip()])
    return list(one.runs), list(two.runs)


def _same_flag(one: Any, two: Any) -> bool:
    return one == two or (one in (None, False) and two in (None, False))


def _same_underline(one: Any, two: Any) -> bool:
    if one == two:
        return True
    if one is not None and two is not None:
        return False
    return not ((one is None and two is True) or (one is True and two is None))


def _same_colour(one: Any, two: Any) -> bool:
    """Colours compared only where both runs' colours have an rgb (python-pptx raises for a theme colour,
    which counts as having none)."""
    if hasattr(one.color, "rgb") and hasattr(two.color, "rgb"):
        return one.color.rgb == two.color.rgb
    return True


def _bullets(xml: str) -> list[tuple[Any, str, str]]:
    """Each paragraph with text on the slide: its level, bullet character and text."""
    found = []
    for paragraph in ElementTree.fromstring(xml).findall(".//a:p", _NS):
        properties = paragraph.find("a:pPr", _NS)
        if properties is None:
            level, char = "No Level", "No Bullet"
        else:
            level = properties.get("lvl")
            bullet = properties.find("a:buChar", _NS)
            char = bullet.get("char") if bullet is not None else "No Bullet"
        text = "".join(t.text for t in paragraph.findall(".//a:t", _NS))
        if text.strip():
            found.append(("0" if level is None else level, char, text))
    return found


def compare_pptx_files(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    first = open_deck(result, "compare_pptx_files")
    second = open_deck(expected, "compare_pptx_files", "expected")
    try:
        _Compare(options).decks(first, second)
    except _Differ:
        return 0.0
    except Exception as exc:  # noqa: BLE001 - what OSWorld's function raises on gives no score
        raise MetricFailed(f"compare_pptx_files: {type(exc).__name__}: {exc} (OSWorld's function raises here)") from None
    return 1.0


SLIDES_METRICS = {"compare_pptx_files": compare_pptx_files}
