"""Simulated screenshots: the sim `World` drawn as the form it models.

A newcomer's first sim run, the viewer's filmstrip and a vision policy all
look at these frames, so every widget is drawn where the accessibility tree
says it is: the image is the viewport (1280x800, no scaling) and each widget
lies inside its own bbox, so clicking the middle of a drawn button hits that
button. A frame shows nothing `World.fingerprint` does not digest (the
layout, field values, ticks, focus, how often each button was clicked, the
submitted state, the scroll offset), so frames are cached by it. Scrolling
moves the scrollbar's thumb only: the tree's boxes do not scroll either.

Cheap, because a sim run takes a frame at every step: what never changes
within a layout (title bar, labels, button faces, empty fields) is drawn once
per layout and copied; a frame draws the state on top. Frames are drawn in a
palette of at most 16 colours, so a pixel is 4 bits and `encode_png` packs a
frame in ~1 ms where an RGB frame through Pillow's encoder takes ~15; the
price is text without anti-aliasing, which palette images cannot blend.
"""

from __future__ import annotations

from enum import IntEnum
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from protocols import BBox

from actors.backends.sim.png import encode_png
from actors.backends.sim.world import TITLE, VIEWPORT, Widget, World


class Ink(IntEnum):
    """The palette's entries; `PALETTE` gives each one's colour."""

    BACKGROUND = 0
    TITLE_BAR = 1
    WHITE = 2
    TEXT = 3
    BUTTON = 4
    BORDER = 5
    FOCUS = 6
    TICK = 7
    BANNER = 8
    TRACK = 9


PALETTE: dict[Ink, tuple[int, int, int]] = {
    Ink.BACKGROUND: (243, 244, 246),
    Ink.TITLE_BAR: (38, 42, 51),
    Ink.WHITE: (255, 255, 255),
    Ink.TEXT: (33, 37, 41),
    Ink.BUTTON: (37, 99, 235),
    Ink.BORDER: (156, 163, 175),
    Ink.FOCUS: (234, 88, 12),
    Ink.TICK: (22, 163, 74),
    Ink.BANNER: (220, 252, 231),
    Ink.TRACK: (229, 231, 235),
}
_PALETTE_BYTES = b"".join(bytes(PALETTE[ink]) for ink in Ink)

_TEXT_SIZE = 20  # large for a 1280x800 screen: the viewer shows frames at about half size
_SMALL_SIZE = 15
_TITLE_BAR_HEIGHT = 40
_LABEL_WIDTH = 120  # a text field's name, left of its field
_BOX_SIDE = 22  # a checkbox's square
_BANNER = (480, 80, 1240, 120)  # right of the widgets' column
_TRACK = (1266, 48, 1276, VIEWPORT.height - 8)
_THUMB_LENGTH = 96
_SCROLL_STEP = 24  # pixels the thumb moves per scroll unit


@lru_cache(maxsize=2)
def _font(size: int) -> ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=size)


def draw_png(world: World, pad_to: int = 0) -> bytes:
    """The screen `world` shows, as a viewport-sized PNG padded up to `pad_to` bytes."""
    image = _window(world.layout).copy()
    pen = ImageDraw.Draw(image)
    for widget in world.widgets:
        _STATE[widget.role](pen, widget, _box(widget.bbox), widget is world.focused)
    if world.submitted:
        pen.rectangle(_BANNER, fill=Ink.BANNER, outline=Ink.TICK)
        pen.text((_BANNER[0] + 16, (_BANNER[1] + _BANNER[3]) // 2), "Form submitted", font=_font(_TEXT_SIZE),
                 anchor="lm", fill=Ink.TICK)
    travel = _TRACK[3] - _TRACK[1] - _THUMB_LENGTH
    top = _TRACK[1] + min(max(world.scroll * _SCROLL_STEP, 0), travel)
    pen.rounded_rectangle((_TRACK[0], top, _TRACK[2], top + _THUMB_LENGTH), radius=4, fill=Ink.BORDER)
    return encode_png(image.width, image.height, image.tobytes("raw", "P;4"), palette=_PALETTE_BYTES, bits=4,
                      pad_to=pad_to)


def _box(bbox: BBox) -> tuple[int, int, int, int]:
    """A bbox as Pillow's inclusive corners: the drawn box covers exactly what `BBox.contains` hits."""
    return (round(bbox.x), round(bbox.y), round(bbox.x + bbox.width), round(bbox.y + bbox.height))


@lru_cache(maxsize=8)
def _window(layout: tuple[tuple[str, str, BBox], ...]) -> Image.Image:
    """What a layout shows before any state: title bar, scroll track and each widget's face."""
    image = Image.new("P", (VIEWPORT.width, VIEWPORT.height), Ink.BACKGROUND)
    pen = ImageDraw.Draw(image)
    pen.rectangle((0, 0, VIEWPORT.width - 1, _TITLE_BAR_HEIGHT - 1), fill=Ink.TITLE_BAR)
    pen.text((16, _TITLE_BAR_HEIGHT // 2), TITLE, font=_font(_TEXT_SIZE), anchor="lm", fill=Ink.WHITE)
    pen.rounded_rectangle(_TRACK, radius=4, fill=Ink.TRACK)
    for role, name, bbox in layout:
        _FACE[role](pen, name, _box(bbox))
    return image


def _middle(box: tuple[int, int, int, int]) -> int:
    return (box[1] + box[3]) // 2


def _button_face(pen: ImageDraw.ImageDraw, name: str, box: tuple[int, int, int, int]) -> None:
    pen.rounded_rectangle(box, radius=6, fill=Ink.BUTTON)
    pen.text(((box[0] + box[2]) // 2, _middle(box)), name, font=_font(_TEXT_SIZE), anchor="mm", fill=Ink.WHITE)


def _button_state(pen: ImageDraw.ImageDraw, widget: Widget, box: tuple[int, int, int, int], focused: bool) -> None:
    if widget.clicks:
        pen.text((box[2] - 10, _middle(box)), f"clicked {widget.clicks}", font=_font(_SMALL_SIZE), anchor="rm",
                 fill=Ink.WHITE)
    if focused:
        pen.rounded_rectangle(box, radius=6, outline=Ink.FOCUS, width=3)


def _field(box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    return (box[0] + _LABEL_WIDTH, box[1] + 2, box[2], box[3] - 2)


def _textbox_face(pen: ImageDraw.ImageDraw, name: str, box: tuple[int, int, int, int]) -> None:
    pen.text((box[0], _middle(box)), name, font=_font(_TEXT_SIZE), anchor="lm", fill=Ink.TEXT)
    pen.rectangle(_field(box), fill=Ink.WHITE, outline=Ink.BORDER)


def _textbox_state(pen: ImageDraw.ImageDraw, widget: Widget, box: tuple[int, int, int, int], focused: bool) -> None:
    field, font = _field(box), _font(_TEXT_SIZE)
    room = field[2] - field[0] - 20
    shown = widget.value
    while shown and font.getlength(shown) > room:  # a long value scrolls, as a real field does
        shown = shown[1:]
    if shown:
        pen.text((field[0] + 8, _middle(box)), shown, font=font, anchor="lm", fill=Ink.TEXT)
    if focused:
        pen.rectangle(field, outline=Ink.FOCUS, width=2)
        caret = field[0] + 9 + round(font.getlength(shown))
        pen.line((caret, _middle(box) - 10, caret, _middle(box) + 10), fill=Ink.TEXT, width=2)


def _checkbox_square(box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    middle = _middle(box)
    return (box[0] + 4, middle - _BOX_SIDE // 2, box[0] + 4 + _BOX_SIDE, middle + _BOX_SIDE // 2)


def _checkbox_face(pen: ImageDraw.ImageDraw, name: str, box: tuple[int, int, int, int]) -> None:
    pen.rectangle(_checkbox_square(box), fill=Ink.WHITE, outline=Ink.BORDER, width=2)
    pen.text((box[0] + _BOX_SIDE + 16, _middle(box)), name, font=_font(_TEXT_SIZE), anchor="lm", fill=Ink.TEXT)


def _checkbox_state(pen: ImageDraw.ImageDraw, widget: Widget, box: tuple[int, int, int, int], focused: bool) -> None:
    if widget.checked:
        left, top, right, bottom = square = _checkbox_square(box)
        pen.rectangle(square, fill=Ink.TICK)
        pen.line(((left + 5, top + 11), (left + 9, bottom - 6), (right - 5, top + 6)), fill=Ink.WHITE, width=3)
    if focused:
        pen.rounded_rectangle(box, radius=6, outline=Ink.FOCUS, width=2)


_FACE = {"button": _button_face, "textbox": _textbox_face, "checkbox": _checkbox_face}
_STATE = {"button": _button_state, "textbox": _textbox_state, "checkbox": _checkbox_state}
