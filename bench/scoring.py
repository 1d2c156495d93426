"""Scoring an action against a reference action, as static benchmarks do.

Step accuracy: the agent chose the same kind of action on the same thing
(same type; same element, or a point inside it; same text, keys or
direction). Grounding accuracy: the agent's pointer lands inside the
reference element's box. Both only need the observation's viewport, so a
recorded trajectory is scored with no VM.
"""

from __future__ import annotations

from protocols import (
    Action, Answer, Drag, Hotkey, Key, Point, Scroll, Target, TypeText, Viewport,
)

__all__ = ["POINT_TOLERANCE", "POINT_TOLERANCE_PX", "grounded", "step_matches"]

POINT_TOLERANCE = 0.05
"""A reference given only as a point matches within this fraction of the viewport..."""
POINT_TOLERANCE_PX = 10.0
"""... or within this many pixels when the viewport is unknown."""


_Place = tuple[Point | None, Target | None]


def grounded(action: Action, reference: Action, viewport: Viewport | None) -> bool | None:
    """True if the action lands inside the reference's element box; None if the reference has no box."""
    return _inside(_spot(_place(action), viewport), _place(reference)[1])


def step_matches(action: Action, reference: Action, viewport: Viewport | None) -> bool:
    if type(action) is not type(reference):
        return False
    match reference:
        case TypeText(text=text):
            return _same_text(action.text, text) and _same_place(action, reference, viewport, optional=True)
        case Answer(text=text):
            return _same_text(action.text, text)
        case Key(key=key, modifiers=modifiers):
            return action.key.lower() == key.lower() and set(action.modifiers) == set(modifiers)
        case Hotkey(keys=keys):
            return [k.lower() for k in action.keys] == [k.lower() for k in keys]
        case Scroll(direction=direction):
            return action.direction == direction
        case Drag(end=end, end_target=end_target):
            return (_same_place(action, reference, viewport)
                    and _same_places((action.end, action.end_target), (end, end_target), viewport))
    if hasattr(reference, "point"):
        return _same_place(action, reference, viewport)
    return True  # wait, done, fail: the type is the whole action


def _place(action: Action) -> _Place:
    return getattr(action, "point", None), getattr(action, "target", None)


def _spot(place: _Place, viewport: Viewport | None) -> tuple[float, float] | None:
    point, target = place
    if point is not None:
        if viewport is not None:
            return point.to_pixels(viewport.width, viewport.height)
        return None if point.unit == "norm" else (point.x, point.y)
    if target is not None and target.bbox is not None:
        return target.bbox.center
    return None


def _inside(spot: tuple[float, float] | None, target: Target | None) -> bool | None:
    if target is None or target.bbox is None:
        return None
    return spot is not None and target.bbox.contains(*spot)


def _same_text(a: str, b: str) -> bool:
    return a.strip().casefold() == b.strip().casefold()


def _same_place(action: Action, reference: Action, viewport: Viewport | None, optional: bool = False) -> bool:
    return _same_places(_place(action), _place(reference), viewport, optional)


def _same_places(ours: _Place, theirs: _Place, viewport: Viewport | None, optional: bool = False) -> bool:
    """Same element id, else inside the reference box, else near the reference point;
    `optional`: a reference with no place at all matches anything."""
    if ours[1] is not None and theirs[1] is not None and ours[1].node_id and theirs[1].node_id:
        return ours[1].node_id == theirs[1].node_id
    spot = _spot(ours, viewport)
    inside = _inside(spot, theirs[1])
    if inside is not None:
        return inside
    wanted = _spot(theirs, viewport)
    if wanted is None:
        return optional or spot is None
    if spot is None:
        return False
    dx, dy = (POINT_TOLERANCE * viewport.width, POINT_TOLERANCE * viewport.height) if viewport else (
        POINT_TOLERANCE_PX, POINT_TOLERANCE_PX)
    return abs(spot[0] - wanted[0]) <= dx and abs(spot[1] - wanted[1]) <= dy
