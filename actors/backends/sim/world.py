"""A small GUI as a state machine: the screen a simulated VM shows.

A window holds buttons, text fields and checkboxes laid out in a column.
Pointer actions hit-test against their boxes; typing goes to the focused
field. The state is plain data, so the Evaluator can check it exactly like a
real evaluator checks files or page globals.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import msgspec

from protocols import (
    Action, BBox, Click, DoubleClick, Drag, Hotkey, Key, Move, Point, RightClick, Scroll, Target,
    TripleClick, TypeText, UIElement, Viewport,
)

VIEWPORT = Viewport(1280, 800)
TITLE = "Simulated form"
ROLES = ("button", "textbox", "checkbox")
_ROW_HEIGHT = 48
_WIDGET_WIDTH = 400
_ENCODER = msgspec.msgpack.Encoder()


@dataclass
class Widget:
    node_id: str
    role: str  # "button" | "textbox" | "checkbox"
    name: str
    bbox: BBox
    value: str = ""
    checked: bool = False
    clicks: int = 0


@dataclass
class World:
    widgets: list[Widget]
    focused: Widget | None = None
    pointer: tuple[float, float] = (0.0, 0.0)
    scroll: int = 0
    submitted: bool = False
    log: list[str] = field(default_factory=list)
    layout: tuple[tuple[str, str, BBox], ...] = field(init=False, repr=False)
    """Each widget's role, name and box: what never changes once the window is built."""

    def __post_init__(self) -> None:
        self.layout = tuple((w.role, w.name, w.bbox) for w in self.widgets)
        self._layout_digest = hashlib.blake2b(_ENCODER.encode(self.layout), digest_size=8).digest()

    @classmethod
    def from_layout(cls, layout: list[dict]) -> World:
        """Build a window from `[{"role": ..., "name": ...}, ...]` (a task's `sim.layout`);
        a role the window cannot show is a ValueError naming it."""
        for index, item in enumerate(layout):
            if item["role"] not in ROLES:
                raise ValueError(f"layout[{index}]: unknown role {item['role']!r}, expected one of {', '.join(ROLES)}")
        widgets = [
            Widget(
                node_id=f"w{index}",
                role=item["role"],
                name=item["name"],
                bbox=BBox(40, 80 + index * _ROW_HEIGHT, _WIDGET_WIDTH, _ROW_HEIGHT - 8),
            )
            for index, item in enumerate(layout)
        ]
        return cls(widgets=widgets)

    # --- observation ------------------------------------------------------------

    def tree(self) -> UIElement:
        children = tuple(
            UIElement(
                node_id=w.node_id,
                role=w.role,
                name=w.name,
                bbox=w.bbox,
                text=w.value if w.role == "textbox" else ("checked" if w.checked else ""),
            )
            for w in self.widgets
        )
        return UIElement(node_id="root", role="window", name=TITLE,
                         bbox=BBox(0, 0, VIEWPORT.width, VIEWPORT.height), children=children)

    def fingerprint(self) -> bytes:
        """A digest of everything drawn on the screen (actors.backends.sim.draw): equal
        digests mean an unchanged screen, so a screenshot can be cached by it.

        The state is serialized by msgspec (~2 us; its `repr` took ~7, at every step)."""
        visible = [(w.value, w.checked, w.clicks) for w in self.widgets]
        focused = self.focused.node_id if self.focused else ""
        state = (self._layout_digest, visible, focused, self.scroll, self.submitted)
        return hashlib.blake2b(_ENCODER.encode(state), digest_size=8).digest()

    def state(self) -> dict:
        return {
            "fields": {w.name: w.value for w in self.widgets if w.role == "textbox"},
            "checked": sorted(w.name for w in self.widgets if w.role == "checkbox" and w.checked),
            "clicked": sorted(w.name for w in self.widgets if w.role == "button" and w.clicks),
            "submitted": self.submitted,
        }

    # --- actions ---------------------------------------------------------------------

    def apply(self, action: Action) -> str | None:
        """Carry out `action`; return an error text when it could not be, else None."""
        if isinstance(action, (Click, DoubleClick, TripleClick, RightClick)):
            return self._press(self._locate(action.point, action.target), action)
        if isinstance(action, Move):
            self.pointer = self._locate(action.point, action.target)
            return None
        if isinstance(action, Drag):
            self.pointer = self._locate(action.end, action.end_target)
            return None
        if isinstance(action, TypeText):
            if action.target is not None:
                self._press(self._locate(None, action.target), Click(target=action.target))
            if self.focused is None or self.focused.role != "textbox":
                return "no text field has the focus"
            self.focused.value += action.text
            return None
        if isinstance(action, Key):
            return self._key(action.key)
        if isinstance(action, Hotkey):
            return self._key(action.keys[-1]) if len(action.keys) == 1 else None
        if isinstance(action, Scroll):
            self.scroll += action.amount if action.direction in ("down", "right") else -action.amount
            return None
        return None  # wait, answer, done, fail change nothing on screen

    def _locate(self, point: Point | None, target: Target | None) -> tuple[float, float]:
        if point is not None:
            return point.to_pixels(VIEWPORT.width, VIEWPORT.height)
        assert target is not None
        if target.bbox is not None:
            return target.bbox.center
        widget = next((w for w in self.widgets if w.node_id == target.node_id), None)
        return widget.bbox.center if widget else (-1.0, -1.0)

    def _press(self, where: tuple[float, float], action: Action) -> str | None:
        self.pointer = where
        widget = next((w for w in self.widgets if w.bbox.contains(*where)), None)
        if widget is None:
            self.log.append(f"{action.__struct_config__.tag} at {where} hit nothing")
            return None
        self.focused = widget
        widget.clicks += 1
        if widget.role == "checkbox":
            widget.checked = not widget.checked
        return None

    def _key(self, key: str) -> str | None:
        if key == "enter":
            self.submitted = True
        elif key == "backspace" and self.focused is not None and self.focused.role == "textbox":
            self.focused.value = self.focused.value[:-1]
        elif key == "tab":
            index = self.widgets.index(self.focused) + 1 if self.focused in self.widgets else 0
            self.focused = self.widgets[index % len(self.widgets)]
        return None

