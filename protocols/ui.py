"""The normalized UI element tree every backend's accessibility tree becomes.

Browsers (CDP), Linux desktops (AT-SPI) and Windows (UI Automation) each have
their own tree; agents and summarizers see only this one, so a prompt or a
grounding check is written once.
"""

from __future__ import annotations

import msgspec


class BBox(msgspec.Struct, frozen=True, array_like=True):
    """An axis-aligned box in screen pixels: left, top, width, height."""

    x: float
    y: float
    width: float
    height: float

    def __post_init__(self) -> None:
        if self.width < 0 or self.height < 0:
            raise ValueError(f"bbox width and height must be >= 0, got {self.width}x{self.height}")

    def contains(self, x: float, y: float) -> bool:
        return self.x <= x <= self.x + self.width and self.y <= y <= self.y + self.height

    @property
    def center(self) -> tuple[float, float]:
        return (self.x + self.width / 2, self.y + self.height / 2)


class UIElement(msgspec.Struct, frozen=True, gc=False, omit_defaults=True):
    """One node of the normalized tree; `node_id` is unique within one observation."""

    node_id: str
    role: str
    name: str = ""
    bbox: BBox | None = None
    text: str = ""
    children: tuple[UIElement, ...] = ()

    def walk(self):
        """Yield this element and all its descendants, depth first, without recursion."""
        stack = [self]
        while stack:
            element = stack.pop()
            yield element
            stack.extend(reversed(element.children))

    def find(self, node_id: str) -> UIElement | None:
        return next((e for e in self.walk() if e.node_id == node_id), None)
