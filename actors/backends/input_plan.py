"""Protocol actions as a short list of input primitives, the same for every desktop.

A backend (xdotool on X11, SendInput on Windows) only has to carry out these
primitives; where to click, whether the point is on the screen, and which
keys a hotkey holds are decided once, here, and tested without a screen.

    ("move", x, y)         ("down", button)   ("up", button)
    ("click", button, n)   ("scroll", direction, clicks)
    ("key_down", key)      ("key_up", key)    ("press", key)   ("type", text)
    ("wait", seconds)

Keys are the protocol's canonical names (protocols.keys); buttons are
"left", "right", "middle".
"""

from __future__ import annotations

from typing import Any, Callable

from protocols import (
    Action, BBox, Click, DoubleClick, Drag, Hotkey, Key, Move, Point, RightClick, Scroll, Target, TripleClick,
    TypeText, UIElement, Wait, TroupeError,
)

Op = tuple[Any, ...]


class StepError(TroupeError, ValueError):
    """The action cannot be carried out as asked; the text goes back to the agent."""


class Plan:
    """Resolves points and targets on a `width` x `height` screen; `find` looks a node id up
    in the last observed tree."""

    def __init__(self, width: int, height: int, find: Callable[[str], UIElement | None] = lambda node_id: None) -> None:
        self.width = width
        self.height = height
        self.find = find

    def ops(self, action: Action) -> list[Op]:
        match action:
            case Click() | DoubleClick() | TripleClick() | RightClick():
                button = "right" if isinstance(action, RightClick) else "left"
                return self._held(action.modifiers, [self._move(action.point, action.target),
                                                     ("click", button, action.clicks)])
            case Move():
                return self._held(action.modifiers, [self._move(action.point, action.target)])
            case Drag():
                return self._held(action.modifiers, [
                    self._move(action.point, action.target), ("down", "left"),
                    self._move(action.end, action.end_target, "end"), ("up", "left"),
                ])
            case Scroll():
                moved = [self._move(action.point, action.target)] if action.point or action.target else []
                return [*moved, ("scroll", action.direction, action.amount)]
            case TypeText():
                focus = [self._move(None, action.target), ("click", "left", 1)] if action.target else []
                return [*focus, ("type", action.text)]
            case Key():
                return self._held(action.modifiers, [("press", action.key)])
            case Hotkey():
                return [*(("key_down", k) for k in action.keys), *(("key_up", k) for k in reversed(action.keys))]
            case Wait():
                return [("wait", action.seconds)]
        raise StepError(f"{type(action).__name__} actions are not carried out on a desktop")

    @staticmethod
    def _held(modifiers: tuple[str, ...], ops: list[Op]) -> list[Op]:
        return [*(("key_down", m) for m in modifiers), *ops, *(("key_up", m) for m in reversed(modifiers))]

    def _move(self, point: Point | None, target: Target | None, field: str = "point") -> Op:
        x, y = self.resolve(point, target, field)
        return ("move", x, y)

    def resolve(self, point: Point | None, target: Target | None, field: str = "point") -> tuple[int, int]:
        """Pixels for a point, else the centre of the target's box (given, or from the last tree)."""
        if point is not None:
            x, y = point.to_pixels(self.width, self.height)
            where = f"`{field}` ({point.x:g}, {point.y:g})"
        else:
            assert target is not None
            bbox = target.bbox or self._bbox_of(target.node_id)
            x, y = bbox.center
            where = f"the centre of target {target.node_id or ''} ({x:.0f}, {y:.0f})".replace("  ", " ")
        if point is not None and point.unit == "norm":
            x, y = min(x, self.width - 1), min(y, self.height - 1)
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise StepError(f"{where} is outside the {self.width}x{self.height} screen")
        return round(x), round(y)

    def _bbox_of(self, node_id: str | None) -> BBox:
        element = self.find(node_id) if node_id is not None else None
        if element is None:
            raise StepError(f"target node {node_id!r} is not in the last observed tree")
        if element.bbox is None:
            raise StepError(f"target node {node_id!r} ({element.role} {element.name!r}) has no box on screen")
        return element.bbox
