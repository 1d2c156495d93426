"""Set-of-marks: numbered boxes drawn on the screenshot, one per element the agent can act on.

A vision model points better at "mark 7" than at pixel coordinates or at an
id in a long tree: the interactive elements with a visible box get numbers
1, 2, ... in reading order (top to bottom, left to right), each drawn as a
box with its number on the screenshot and listed in the prompt as
`[7] button "Submit"`, and an action names its element as `{"mark": 7}`.
The marks are computed from the observation's tree alone, so the prompt and
the reply's grounding always agree on what a number means.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from protocols import BBox, Observation, UIElement

__all__ = ["MAX_MARKS", "Mark", "draw_marks", "marks_of"]

MAX_MARKS = 200
"""More marks than this would cover the screen in labels; the rest stay reachable by point."""

INTERACTIVE = frozenset({
    "button", "pushbutton", "togglebutton", "link", "hyperlink", "textbox", "searchbox", "textarea", "entry",
    "edit", "passwordtext", "checkbox", "checkbutton", "radio", "radiobutton", "combobox", "listbox", "option",
    "menuitem", "tab", "pagetab", "slider", "spinbutton", "switch", "treeitem", "listitem",
})
"""Roles an agent acts on, as the normalized trees of every backend spell them (spaces,
underscores and a UIA "control" suffix aside)."""

_INK = (220, 30, 30)
_LABEL_TEXT = (255, 255, 255)


@dataclass(frozen=True)
class Mark:
    number: int
    element: UIElement

    def line(self) -> str:
        role, name = self.element.role, " ".join(self.element.name.split())
        return f"[{self.number}] {role}" + (f' "{name[:80]}"' if name else "")


def marks_of(observation: Observation) -> list[Mark]:
    """The observation's interactive elements with a visible box, numbered in reading order."""
    if observation.tree is None:
        return []
    width = observation.viewport.width if observation.viewport else None
    height = observation.viewport.height if observation.viewport else None
    chosen = [element for element in observation.tree.walk()
              if _interactive(element.role) and element.bbox is not None and _visible(element.bbox, width, height)]
    chosen.sort(key=lambda element: (round(element.bbox.y), round(element.bbox.x)))
    return [Mark(number, element) for number, element in enumerate(chosen[:MAX_MARKS], start=1)]


def _interactive(role: str) -> bool:
    plain = role.lower().replace(" ", "").replace("_", "").removesuffix("control")
    return plain in INTERACTIVE


def _visible(box: BBox, width: int | None, height: int | None) -> bool:
    if box.width < 2 or box.height < 2:
        return False
    return (width is None or box.x < width and box.x + box.width > 0) and (
        height is None or box.y < height and box.y + box.height > 0)


def draw_marks(screenshot: bytes, marks: list[Mark], viewport_width: int | None = None) -> bytes:
    """`screenshot` (PNG or JPEG) with each mark's box and number drawn on it, as PNG. Boxes are in
    screen pixels; a screenshot taken at another scale (a HiDPI screen) is drawn on at its own."""
    image = Image.open(io.BytesIO(screenshot)).convert("RGB")
    scale = image.width / viewport_width if viewport_width else 1.0
    pen = ImageDraw.Draw(image)
    font = _font(max(10, round(14 * scale)))
    for mark in marks:
        box = mark.element.bbox
        left, top = box.x * scale, box.y * scale
        pen.rectangle((left, top, left + box.width * scale, top + box.height * scale), outline=_INK,
                      width=max(1, round(2 * scale)))
        label = str(mark.number)
        right, bottom = pen.textbbox((0, 0), label, font=font)[2:]
        tag = (left, max(0.0, top - bottom - 2), left + right + 4, max(0.0, top - bottom - 2) + bottom + 2)
        pen.rectangle(tag, fill=_INK)
        pen.text((tag[0] + 2, tag[1] + 1), label, fill=_LABEL_TEXT, font=font)
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()


@lru_cache(maxsize=4)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)
