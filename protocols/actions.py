"""Every action a GUI benchmark needs, as one tagged union.

An action that cannot be carried out as written (a click with nowhere to
click, a drag with no end, a key nobody knows) is refused when it is decoded,
with the field named, so no backend ever has to guess.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from protocols.keys import MODIFIERS, check_key
from protocols.ui import BBox

Unit = Literal["px", "norm"]


class Point(msgspec.Struct, frozen=True, gc=False):
    """A screen position, in pixels or normalized to [0, 1] of the viewport."""

    x: float
    y: float
    unit: Unit = "px"

    def __post_init__(self) -> None:
        if self.unit == "norm" and not (0.0 <= self.x <= 1.0 and 0.0 <= self.y <= 1.0):
            raise ValueError(f"normalized point must lie in [0, 1], got ({self.x}, {self.y})")
        if self.x < 0 or self.y < 0:
            raise ValueError(f"point must not be negative, got ({self.x}, {self.y})")

    def to_pixels(self, width: int, height: int) -> tuple[float, float]:
        if self.unit == "px":
            return (self.x, self.y)
        return (self.x * width, self.y * height)


class Target(msgspec.Struct, frozen=True, gc=False, omit_defaults=True):
    """Element grounding: which UI element the action is meant for."""

    node_id: str | None = None
    bbox: BBox | None = None
    role: str | None = None
    name: str | None = None

    def __post_init__(self) -> None:
        if self.node_id is None and self.bbox is None:
            raise ValueError("a target needs `node_id` or `bbox`")


class _Action(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True, tag_field="type"):
    """Base of all actions; the `type` field carries the tag."""

    terminal = False


def _require_place(action: _Action, point: Point | None, target: Target | None, field: str) -> None:
    if point is None and target is None:
        raise ValueError(f"{action.__struct_config__.tag} needs `{field}` or `target`")


class _Pointer(_Action, frozen=True, kw_only=True):
    point: Point | None = None
    target: Target | None = None
    modifiers: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _require_place(self, self.point, self.target, "point")
        _check_modifiers(self.modifiers)


def _check_modifiers(modifiers: tuple[str, ...]) -> None:
    for name in modifiers:
        if name not in MODIFIERS:
            raise ValueError(f"`modifiers`: {name!r} is not one of {sorted(MODIFIERS)}")


class Click(_Pointer, frozen=True, kw_only=True, tag="click"):
    """`clicks` (a class constant, not a field) is how many presses of the button a backend makes,
    so each backend carries out every kind of click with one call."""

    clicks = 1


class DoubleClick(_Pointer, frozen=True, kw_only=True, tag="double_click"):
    clicks = 2


class TripleClick(_Pointer, frozen=True, kw_only=True, tag="triple_click"):
    """Selects a whole line or paragraph in text, as desktops and browsers do on three presses."""

    clicks = 3


class RightClick(_Pointer, frozen=True, kw_only=True, tag="right_click"):
    clicks = 1


class Move(_Pointer, frozen=True, kw_only=True, tag="move"):
    pass


class Drag(_Pointer, frozen=True, kw_only=True, tag="drag"):
    """Press at `point`/`target`, move to `end`/`end_target`, release."""

    end: Point | None = None
    end_target: Target | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.end is None and self.end_target is None:
            raise ValueError("drag needs `end` or `end_target`")


class Scroll(_Action, frozen=True, kw_only=True, tag="scroll"):
    """Scroll by `amount` wheel clicks; where, if given, is the pointer position."""

    direction: Literal["up", "down", "left", "right"]
    amount: int = 3
    point: Point | None = None
    target: Target | None = None

    def __post_init__(self) -> None:
        if self.amount <= 0:
            raise ValueError(f"`amount` must be a positive number of wheel clicks, got {self.amount}")


class TypeText(_Action, frozen=True, kw_only=True, tag="type"):
    """Type `text` into the focused element, or into `target` after focusing it."""

    text: str
    target: Target | None = None

    def __post_init__(self) -> None:
        if not self.text:
            raise ValueError("`text` must not be empty")


class Key(_Action, frozen=True, kw_only=True, tag="key"):
    """Press one key, holding `modifiers` down."""

    key: str
    modifiers: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        check_key(self.key, field="key")
        _check_modifiers(self.modifiers)


class Hotkey(_Action, frozen=True, kw_only=True, tag="hotkey"):
    """Press `keys` in order and release them in reverse, as pyautogui.hotkey does."""

    keys: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.keys:
            raise ValueError("`keys` must name at least one key")
        for index, name in enumerate(self.keys):
            check_key(name, field=f"keys[{index}]")


class Wait(_Action, frozen=True, kw_only=True, tag="wait"):
    seconds: float = 1.0

    def __post_init__(self) -> None:
        if not 0 <= self.seconds <= 600:
            raise ValueError(f"`seconds` must lie in [0, 600], got {self.seconds}")


class Answer(_Action, frozen=True, kw_only=True, tag="answer"):
    """The agent's answer to a question task; ends the episode."""

    text: str
    terminal = True


class Done(_Action, frozen=True, kw_only=True, tag="done"):
    """The agent believes the task is complete."""

    terminal = True


class Fail(_Action, frozen=True, kw_only=True, tag="fail"):
    """The agent gives up, or judges the task infeasible."""

    reason: str = ""
    terminal = True


Action = (
    Click | DoubleClick | TripleClick | RightClick | Move | Drag | Scroll | TypeText | Key | Hotkey
    | Wait | Answer | Done | Fail
)

ACTION_TYPES: tuple[type[_Action], ...] = Action.__args__
