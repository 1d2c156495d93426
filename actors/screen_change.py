"""Did an action change the screen? Judged from the tree and the pixels, minus what ticks by itself.

Comparing screenshot bytes calls every step "changed" on a page with a clock:
a countdown, a timer, a progress counter redraws every second whether or not
the action did anything, so a no-op would never be seen as one. Here a text
element away from the action whose text changed in its digits only (a clock,
a countdown, a counter) is taken for such a self-changing region: its change
is ignored in the tree and its box is masked out of the pixel comparison.
Every other difference counts: an element that appeared or went, moved, was
renamed, or changed its text; and, when the tree shows none, any pixel outside
the masked boxes (a canvas stroke, a checkbox tick the tree does not carry).

Without a tree on both sides there is nothing to tell a clock from an effect,
and the screenshots are compared whole.
"""

from __future__ import annotations

import io
import re

from PIL import Image, ImageChops, ImageDraw

from protocols import Action, BBox, Observation, Point, UIElement

POINT_MARGIN = 16.0
"""Half the side of the box around a pointer position that counts as where the action acted."""

_DIGITS = re.compile(r"\d+")


def screen_changed(before: Observation, after: Observation, action: Action) -> bool:
    if before.screenshot == after.screenshot and before.tree == after.tree:
        return False
    if before.tree is None or after.tree is None:
        return before.screenshot != after.screenshot
    touched = _touched_region(action, before)
    ticking, differs = _tree_difference(before.tree, after.tree, touched)
    if differs:
        return True
    return _pixels_differ(before.screenshot, after.screenshot, ticking)


def _tree_difference(before: UIElement, after: UIElement, touched: BBox | None) -> tuple[list[BBox], bool]:
    """(boxes of self-changing text elements, whether anything else differs).

    Elements are matched by node_id; an element that went and one that came in
    its place with the same role and box and text equal but for digits are one
    ticking element too (a browser replaces a text node whose text is set).
    Runs every step, on the episode's path: the two trees are walked side by
    side, a subtree equal in both (compared whole, by msgspec, in C) is passed
    over, and the first real difference answers; only when the two differ in
    shape are all their elements paired by node_id."""
    ticking: list[BBox] = []
    pairs = [(before, after)]
    while pairs:
        was, now = pairs.pop()
        if was == now:
            continue
        if was.node_id != now.node_id or len(was.children) != len(now.children):
            return _difference_by_id(before, after, touched)
        if not _same(was, now):
            if not _ticks_away(was, now, touched):
                return [], True
            ticking.append(now.bbox)
        pairs.extend(zip(was.children, now.children))
    return ticking, False


def _difference_by_id(before: UIElement, after: UIElement, touched: BBox | None) -> tuple[list[BBox], bool]:
    """`_tree_difference` for trees of different shapes: their elements paired by node_id."""
    pairs = _matched(list(before.walk()), list(after.walk()))
    if pairs is None:
        return [], True
    ticking: list[BBox] = []
    for was, now in pairs:
        if not _same(was, now):
            if not _ticks_away(was, now, touched):
                return [], True
            ticking.append(now.bbox)
    return ticking, False


def _matched(old: list[UIElement], new: list[UIElement]) -> list[tuple[UIElement, UIElement]] | None:
    """The elements of both trees paired by node_id, a replaced ticking text paired with its
    replacement; None when an element went or came."""
    old_ids = {element.node_id: element for element in old}
    new_ids = {element.node_id: element for element in new}
    pairs = [(old_ids[i], new_ids[i]) for i in old_ids.keys() & new_ids.keys()]
    came = [new_ids[i] for i in new_ids.keys() - old_ids.keys()]
    for went in (old_ids[i] for i in old_ids.keys() - new_ids.keys()):
        twin = next((element for element in came if _ticks(went, element)), None)
        if twin is None:
            return None
        came.remove(twin)
        pairs.append((went, twin))
    return None if came else pairs


def _same(a: UIElement, b: UIElement) -> bool:
    return (a.role, a.name, a.text, a.bbox) == (b.role, b.name, b.text, b.bbox)


def _ticks_away(was: UIElement, now: UIElement, touched: BBox | None) -> bool:
    """`was` became `now` only as a clock ticks, away from where the action acted."""
    return not _overlaps(now.bbox, touched) and _ticks(was, now)


def _ticks(a: UIElement, b: UIElement) -> bool:
    """Only digits of the name or text changed, in place: a clock, not an effect."""
    return (
        a.bbox is not None and a.bbox == b.bbox and a.role == b.role
        and _DIGITS.sub("#", a.name) == _DIGITS.sub("#", b.name)
        and _DIGITS.sub("#", a.text) == _DIGITS.sub("#", b.text)
    )


def _overlaps(box: BBox | None, region: BBox | None) -> bool:
    if box is None or region is None:
        return False
    return (box.x < region.x + region.width and region.x < box.x + box.width
            and box.y < region.y + region.height and region.y < box.y + box.height)


def _touched_region(action: Action, before: Observation) -> BBox | None:
    """Where the action acted: its target's box, the box around its point, or the focused element."""
    target = getattr(action, "target", None)
    if target is not None:
        if target.bbox is not None:
            return target.bbox
        if target.node_id is not None and before.tree is not None:
            element = before.tree.find(target.node_id)
            if element is not None and element.bbox is not None:
                return element.bbox
    point = getattr(action, "point", None)
    if isinstance(point, Point) and before.viewport is not None:
        x, y = point.to_pixels(before.viewport.width, before.viewport.height)
        return BBox(max(0.0, x - POINT_MARGIN), max(0.0, y - POINT_MARGIN), 2 * POINT_MARGIN, 2 * POINT_MARGIN)
    if before.focused_element is not None and before.tree is not None:
        focused = before.tree.find(before.focused_element)
        return focused.bbox if focused is not None else None
    return None


def _pixels_differ(before: bytes, after: bytes, masked: list[BBox]) -> bool:
    if before == after:
        return False
    if not before or not after:
        return True
    old, new = Image.open(io.BytesIO(before)).convert("RGB"), Image.open(io.BytesIO(after)).convert("RGB")
    if old.size != new.size:
        return True
    for image in (old, new):
        draw = ImageDraw.Draw(image)
        for box in masked:
            draw.rectangle((box.x, box.y, box.x + box.width, box.y + box.height), fill=(0, 0, 0))
    return ImageChops.difference(old, new).getbbox() is not None
