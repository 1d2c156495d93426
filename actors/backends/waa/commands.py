"""Protocol actions as the pyautogui programs WAA sends through /execute.

WAA drives its VM with `python -c "import pyautogui; import time;
pyautogui.FAILSAFE = False; ..."`; we produce the same command lines, so a real WAA VM runs them unchanged. Where to click and
which keys are held is decided once for every desktop by actors.backends.input_plan;
here each input primitive becomes one pyautogui call. Every number and
string goes in through `repr`, so no text an agent types can break out of
the program. An action that cannot be expressed (a target not on screen,
text pyautogui cannot type) raises `Untranslatable`, which becomes the
step's error rather than a crash of the VM.
"""

from __future__ import annotations

from protocols import Action, UIElement, Viewport

from actors.backends.input_plan import Op, Plan, StepError

PYAUTOGUI_KEYS = {"meta": "win", "menu": "apps"}
"""Protocol key names (protocols/keys.py) that pyautogui spells differently."""

TYPEABLE = frozenset(chr(c) for c in range(0x20, 0x7F)) | {"\n", "\t"}
"""What pyautogui.write can type on a US layout."""

_WHEEL = {"up": ("scroll", 1), "down": ("scroll", -1), "right": ("hscroll", 1), "left": ("hscroll", -1)}


class Untranslatable(StepError):
    """The action has no pyautogui form; the message says why."""


PREFIX = "import pyautogui; import time; pyautogui.FAILSAFE = False; "
"""WAA's own prefix: pyautogui's corner fail-safe is off, so an action that
ends in a screen corner does not abort the next one."""


def command(program: str) -> list[str]:
    """The /execute command line WAA uses for a pyautogui program."""
    return ["python", "-c", PREFIX + program]


def to_pyautogui(action: Action, viewport: Viewport | None, tree: UIElement | None) -> str:
    """The pyautogui statements carrying out `action` (not Wait or terminal actions)."""
    if viewport is None:
        raise Untranslatable("the screen size is not known yet: no screenshot has been taken")
    plan = Plan(viewport.width, viewport.height, tree.find if tree is not None else lambda node_id: None)
    try:
        ops = plan.ops(action)
    except StepError as exc:
        raise Untranslatable(str(exc)) from None
    return "; ".join(_call(op) for op in ops)


def _key(name: str) -> str:
    return repr(PYAUTOGUI_KEYS.get(name, name))


def _call(op: Op) -> str:
    kind, *args = op
    match kind:
        case "move":
            return f"pyautogui.moveTo({args[0]}, {args[1]})"
        case "click":
            return f"pyautogui.click(button={args[0]!r}, clicks={args[1]})"
        case "down" | "up":
            return f"pyautogui.mouse{kind.capitalize()}(button={args[0]!r})"
        case "scroll":
            function, sign = _WHEEL[args[0]]
            return f"pyautogui.{function}({sign * args[1]})"
        case "key_down" | "key_up":
            return f"pyautogui.{'keyDown' if kind == 'key_down' else 'keyUp'}({_key(args[0])})"
        case "press":
            return f"pyautogui.press({_key(args[0])})"
        case "type":
            bad = sorted({c for c in args[0] if c not in TYPEABLE})
            if bad:
                raise Untranslatable(f"pyautogui cannot type {''.join(bad)!r}: only printable ASCII, newline and tab")
            return f"pyautogui.write({args[0]!r})"
    raise Untranslatable(f"input primitive {kind!r} has no pyautogui call")
