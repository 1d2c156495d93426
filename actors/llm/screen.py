"""Showing the model the screen at a size of its own (`--llm-screen WxH`), and mapping its answer back.

Models are trained and priced on images of particular sizes: a 2560x1600
screenshot costs four times the tokens of a 1280x800 one and may be shrunk by
the provider anyway, with the model then answering in coordinates of an
image it never saw. So the observation is scaled before the prompt is made
(screenshot resized, every box of the tree scaled, the viewport set to the
model's size, so text, marks and pixels agree), and every pixel coordinate
of the reply is divided back by the same factors: a point the model gives
in its frame is exactly the screen point it means. Elements named by id or
mark are grounded in the unscaled tree, so they need no mapping at all.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass

import msgspec
from PIL import Image

from protocols import Action, BBox, Observation, Point, Target, UIElement, Viewport

__all__ = ["ModelScreen", "Scale", "screen_size"]

_SIZE = re.compile(r"^([1-9][0-9]{1,4})x([1-9][0-9]{1,4})$")


@dataclass(frozen=True)
class ModelScreen:
    width: int
    height: int

    @classmethod
    def parse(cls, text: str) -> ModelScreen:
        """`WIDTHxHEIGHT` in pixels; ValueError naming the expected form otherwise."""
        match = _SIZE.match(text.strip())
        if match is None:
            raise ValueError(f"expected WIDTHxHEIGHT in pixels, e.g. 1280x800, got {text!r}")
        return cls(int(match[1]), int(match[2]))

    def scale(self, observation: Observation) -> Scale | None:
        """The factors from `observation`'s screen to this size; None when it has no size to scale."""
        size = screen_size(observation)
        return None if size is None else Scale(*size, self)


def screen_size(observation: Observation) -> tuple[int, int] | None:
    """The screen's width and height in pixels (the viewport's, else the screenshot's); None without either."""
    if observation.viewport is not None:
        return observation.viewport.width, observation.viewport.height
    if observation.screenshot:
        return Image.open(io.BytesIO(observation.screenshot)).size
    return None


@dataclass(frozen=True)
class Scale:
    """From a screen of `width` x `height` to the model's `screen`. A coordinate is mapped as
    `x * to / from` with both sizes whole numbers, so the model's point lands on the screen point
    it names as exactly as a float holds it (a factor, once rounded, would add its own error)."""

    width: int
    height: int
    screen: ModelScreen

    def observation(self, observation: Observation) -> Observation:
        """`observation` as the model sees it: screenshot, tree boxes and viewport at the model's size."""
        screenshot = self._image(observation.screenshot) if observation.screenshot else b""
        tree = None if observation.tree is None else self._tree(observation.tree)
        return msgspec.structs.replace(observation, screenshot=screenshot, tree=tree,
                                       viewport=Viewport(self.screen.width, self.screen.height))

    def to_screen(self, action: Action) -> Action:
        """`action` with its pixel coordinates (from the model's frame) on the real screen."""
        return _mapped(action, (self.screen.width, self.width), (self.screen.height, self.height))

    def to_model(self, action: Action) -> Action:
        """`action` (a step taken) with its pixel coordinates in the model's frame."""
        return _mapped(action, (self.width, self.screen.width), (self.height, self.screen.height))

    def _image(self, screenshot: bytes) -> bytes:
        image = Image.open(io.BytesIO(screenshot))
        out = io.BytesIO()
        image.resize((self.screen.width, self.screen.height), Image.Resampling.BILINEAR).save(
            out, format="PNG", compress_level=1)
        return out.getvalue()

    def _tree(self, root: UIElement) -> UIElement:
        """The tree with every box scaled, rebuilt bottom-up without recursion (trees can be deep)."""
        order = list(root.walk())
        built: dict[int, UIElement] = {}
        for element in reversed(order):
            children = tuple(built.pop(id(child)) for child in element.children)
            bbox = None if element.bbox is None else _box(
                element.bbox, (self.width, self.screen.width), (self.height, self.screen.height))
            built[id(element)] = msgspec.structs.replace(element, bbox=bbox, children=children)
        return built[id(root)]


Ratio = tuple[int, int]
"""(from, to) sizes of one axis."""


def _mapped(action: Action, x: Ratio, y: Ratio) -> Action:
    changes = {}
    for field in ("point", "end"):
        point = getattr(action, field, None)
        if isinstance(point, Point) and point.unit == "px":
            changes[field] = Point(_on(point.x, x), _on(point.y, y))
    for field in ("target", "end_target"):
        target = getattr(action, field, None)
        if isinstance(target, Target) and target.bbox is not None:
            changes[field] = msgspec.structs.replace(target, bbox=_box(target.bbox, x, y))
    return msgspec.structs.replace(action, **changes) if changes else action


def _on(value: float, ratio: Ratio) -> float:
    source, target = ratio
    return value * target / source


def _box(box: BBox, x: Ratio, y: Ratio) -> BBox:
    return BBox(_on(box.x, x), _on(box.y, y), _on(box.width, x), _on(box.height, y))
