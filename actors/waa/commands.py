"""Protocol actions as the pyautogui programs WAA sends through /execute.

WAA drives its VM with `python -c "import pyautogui; ..."`; we produce the
same command lines, so a real WAA VM runs them unchanged. Every number and
string goes in through `repr`, so no text an agent types can break out of
the program. An action that cannot be expressed (no point for a target
that is not on screen, text pyautogui cannot type) raises `Untranslatable`,
which becomes the step's error rather than a crash of the VM.
"""

from __future__ import annotations

from protocols import (
    Action, Click, DoubleClick, Drag, Hotkey, Key, Move, Point, RightClick, Scroll, Target, TypeText,
    UIElement, Viewport,
)

# Protocol key names (protocols/keys.py) that pyautogui spells differently.
PYAUTOGUI_KEYS = {"meta": "win", "menu": "apps"}

# pyautogui.write types these; anything else has no key on a US layout.
TYPEABLE = frozenset(chr(c) for c in range(0x20, 0x7F)) | {"\n", "\t"}

DRAG_SECONDS = 0.3


class Untranslatable(ValueError):
    """The action has no pyautogui form; the message says why."""


def command(program: str) -> list[str]:
    """The /execute command line WAA uses for a pyautogui program."""
    return ["python", "-c", f"import pyautogui; {program}"]


def to_pyautogui(action: Action, viewport: Viewport | None, tree: UIElement | None) -> str:
    """The pyautogui statements carrying out `action` (not Wait or terminal actions)."""
    match action:
        case Click() | DoubleClick() | RightClick() | Move():
            x, y = _place(action.point, action.target, viewport, tree)
            call = {Click: "click", DoubleClick: "doubleClick", RightClick: "rightClick", Move: "moveTo"}[type(action)]
            return _held(action.modifiers, f"pyautogui.{call}({x}, {y})")
        case Drag():
            x, y = _place(action.point, action.target, viewport, tree)
            x2, y2 = _place(action.end, action.end_target, viewport, tree, field="end")
            return _held(action.modifiers,
                         f"pyautogui.moveTo({x}, {y}); pyautogui.dragTo({x2}, {y2}, duration={DRAG_SECONDS}, button='left')")
        case Scroll():
            where = ""
            if action.point is not None or action.target is not None:
                x, y = _place(action.point, action.target, viewport, tree)
                where = f", x={x}, y={y}"
            if action.direction in ("up", "down"):
                clicks = action.amount if action.direction == "up" else -action.amount
                return f"pyautogui.scroll({clicks}{where})"
            clicks = action.amount if action.direction == "right" else -action.amount
            return f"pyautogui.hscroll({clicks}{where})"
        case TypeText():
            bad = sorted({c for c in action.text if c not in TYPEABLE})
            if bad:
                raise Untranslatable(f"pyautogui cannot type {''.join(bad)!r}: only printable ASCII, newline and tab")
            focus = ""
            if action.target is not None:
                x, y = _place(None, action.target, viewport, tree)
                focus = f"pyautogui.click({x}, {y}); "
            return f"{focus}pyautogui.write({action.text!r})"
        case Key():
            return f"pyautogui.hotkey({', '.join(map(repr, _keys(*action.modifiers, action.key)))})"
        case Hotkey():
            return f"pyautogui.hotkey({', '.join(map(repr, _keys(*action.keys)))})"
    raise Untranslatable(f"{type(action).__name__} has no pyautogui command")


def _keys(*names: str) -> list[str]:
    return [PYAUTOGUI_KEYS.get(name, name) for name in names]


def _held(modifiers: tuple[str, ...], program: str) -> str:
    """Hold `modifiers` down around `program` (ctrl-click, shift-drag)."""
    if not modifiers:
        return program
    keys = _keys(*modifiers)
    down = "; ".join(f"pyautogui.keyDown({k!r})" for k in keys)
    up = "; ".join(f"pyautogui.keyUp({k!r})" for k in reversed(keys))
    return f"{down}; {program}; {up}"


def _place(point: Point | None, target: Target | None, viewport: Viewport | None, tree: UIElement | None,
           *, field: str = "point") -> tuple[int, int]:
    """Whole pixels for a point, or the centre of a target's box (looked up in the tree by id)."""
    if point is not None:
        if point.unit == "norm" and viewport is None:
            raise Untranslatable(f"`{field}` is normalized but the screen size is not known yet")
        x, y = point.to_pixels(viewport.width, viewport.height) if viewport else (point.x, point.y)
    else:
        assert target is not None
        bbox = target.bbox
        if bbox is None:
            element = tree.find(target.node_id) if tree is not None else None
            if element is None or element.bbox is None:
                raise Untranslatable(f"target {target.node_id!r} is not in the last accessibility tree with a box")
            bbox = element.bbox
        x, y = bbox.center
    if viewport is not None and not (0 <= x < viewport.width and 0 <= y < viewport.height):
        raise Untranslatable(f"({x:g}, {y:g}) lies outside the {viewport.width}x{viewport.height} screen")
    return round(x), round(y)
