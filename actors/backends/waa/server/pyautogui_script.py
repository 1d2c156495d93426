"""The `python -c "import pyautogui; ..."` programs WAA sends, read instead of run.

Nothing that arrives over a socket is executed as Python. A program is
parsed (`ast`), and every statement must be one of: `import pyautogui`,
`import time`, `time.sleep(<literal>)`, `pyautogui.FAILSAFE = <bool>` (WAA's
prefix; the desktop has no fail-safe corner, so it changes nothing), or a
call of an allow-listed pyautogui function with literal arguments. Anything else — a name, an
attribute, an expression, another module — refuses the whole program with
the offending statement named. The calls become the input primitives of
actors.backends.input_plan, which the desktop carries out through XTEST.
"""

from __future__ import annotations

import ast
import functools
from typing import Any, Callable

from protocols import TroupeError
from protocols.keys import canonical_key

from actors.backends.input_plan import Op

MAX_SLEEP = 60.0
"""The most seconds one program may sleep, in one call and in all."""

_PYAUTOGUI_KEYS = {
    "win": "meta", "winleft": "meta", "winright": "meta", "command": "meta", "apps": "menu",
    "ctrlleft": "ctrl", "ctrlright": "ctrl", "shiftleft": "shift", "shiftright": "shift",
    "altleft": "alt", "altright": "alt", "prtsc": "printscreen", "prtscr": "printscreen",
    "prntscrn": "printscreen", "print": "printscreen", "\n": "enter", "\t": "tab", " ": "space",
}


class ScriptRefused(TroupeError, ValueError):
    """The program is not an allow-listed pyautogui program; the message names the statement."""


def key(name: Any) -> str:
    if not isinstance(name, str):
        raise ScriptRefused(f"a key name must be a string, got {name!r}")
    try:
        return canonical_key(_PYAUTOGUI_KEYS.get(name.lower(), name))
    except ValueError as exc:
        raise ScriptRefused(str(exc)) from None


def _at(x: Any, y: Any) -> list[Op]:
    if x is None and y is None:
        return []
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (x, y)):
        raise ScriptRefused(f"a position needs two numbers, got ({x!r}, {y!r})")
    return [("move", round(x), round(y))]


def _button(button: Any) -> str:
    if button not in ("left", "right", "middle", "primary", "secondary"):
        raise ScriptRefused(f"unknown mouse button {button!r}")
    return {"primary": "left", "secondary": "right"}.get(button, button)


def _count(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 100:
        raise ScriptRefused(f"`{what}` must be a whole number in 0..100, got {value!r}")
    return value


# The allow-list: pyautogui's own signatures (extra timing arguments accepted and ignored).

def click(x=None, y=None, clicks=1, interval=0.0, button="left", duration=0.0, tween=None, logScreenshot=None,
          _pause=True):
    return [*_at(x, y), ("click", _button(button), _count(clicks, "clicks"))]


def doubleClick(x=None, y=None, interval=0.0, button="left", duration=0.0, tween=None, logScreenshot=None,
                _pause=True):
    return click(x, y, 2, button=button)


def tripleClick(x=None, y=None, interval=0.0, button="left", duration=0.0, tween=None, logScreenshot=None,
                _pause=True):
    return click(x, y, 3, button=button)


def rightClick(x=None, y=None, duration=0.0, tween=None, logScreenshot=None, _pause=True):
    return click(x, y, 1, button="right")


def middleClick(x=None, y=None, duration=0.0, tween=None, logScreenshot=None, _pause=True):
    return click(x, y, 1, button="middle")


def moveTo(x=None, y=None, duration=0.0, tween=None, logScreenshot=False, _pause=True):
    return _at(x, y)


def mouseDown(x=None, y=None, button="left", duration=0.0, tween=None, logScreenshot=None, _pause=True):
    return [*_at(x, y), ("down", _button(button))]


def mouseUp(x=None, y=None, button="left", duration=0.0, tween=None, logScreenshot=None, _pause=True):
    return [*_at(x, y), ("up", _button(button))]


def dragTo(x=None, y=None, duration=0.0, tween=None, button="left", logScreenshot=None, _pause=True,
           mouseDownUp=True):
    return [("down", _button(button)), *_at(x, y), ("up", _button(button))]


def _wheel(clicks: Any, x: Any, y: Any, positive: str, negative: str) -> list[Op]:
    """pyautogui's signed wheel clicks: positive is up (or right)."""
    if not isinstance(clicks, int) or isinstance(clicks, bool) or not -100 <= clicks <= 100:
        raise ScriptRefused(f"`clicks` must be a whole number in -100..100, got {clicks!r}")
    turn = [("scroll", positive if clicks > 0 else negative, abs(clicks))] if clicks else []
    return [*_at(x, y), *turn]


def scroll(clicks, x=None, y=None, logScreenshot=None, _pause=True):
    return _wheel(clicks, x, y, "up", "down")


def hscroll(clicks, x=None, y=None, logScreenshot=None, _pause=True):
    return _wheel(clicks, x, y, "right", "left")


def write(message, interval=0.0, logScreenshot=None, _pause=True):
    if isinstance(message, str):
        return [("type", message)] if message else []
    if isinstance(message, (list, tuple)):
        return [("press", key(k)) for k in message]
    raise ScriptRefused(f"write needs a string or a list of key names, got {message!r}")


def press(keys, presses=1, interval=0.0, logScreenshot=None, _pause=True):
    names = [keys] if isinstance(keys, str) else list(keys) if isinstance(keys, (list, tuple)) else [keys]
    return [("press", key(k)) for _ in range(_count(presses, "presses")) for k in names]


def hotkey(*keys, interval=0.0, logScreenshot=None, _pause=True):
    if keys and isinstance(keys[0], (list, tuple)):  # pyautogui takes a list of keys as its first argument too
        keys = tuple(keys[0])
    names = [key(k) for k in keys]
    return [*(("key_down", k) for k in names), *(("key_up", k) for k in reversed(names))]


def keyDown(key_name, logScreenshot=None, _pause=True):
    return [("key_down", key(key_name))]


def keyUp(key_name, logScreenshot=None, _pause=True):
    return [("key_up", key(key_name))]


def sleep(seconds):
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or not 0 <= seconds <= MAX_SLEEP:
        raise ScriptRefused(f"time.sleep needs seconds in [0, {MAX_SLEEP:g}], got {seconds!r}")
    return [("wait", float(seconds))]


ALLOWED: dict[tuple[str, str], Callable[..., list[Op]]] = {
    **{("pyautogui", f.__name__): f for f in (
        click, doubleClick, tripleClick, rightClick, middleClick, moveTo, mouseDown, mouseUp, dragTo,
        scroll, hscroll, write, press, hotkey, keyDown, keyUp)},
    ("pyautogui", "typewrite"): write,
    ("pyautogui", "vscroll"): scroll,
    ("time", "sleep"): sleep,
}
MODULES = frozenset({"pyautogui", "time"})


def is_pyautogui_command(command: list[str] | str) -> bool:
    """A `python -c PROGRAM` command line: those are read here and never run as Python."""
    return (isinstance(command, list) and len(command) == 3 and command[1] == "-c"
            and command[0].rsplit("/", 1)[-1].split(".")[0] in ("python", "python3", "py"))


def _is_failsafe_setting(statement: ast.stmt) -> bool:
    """`pyautogui.FAILSAFE = True|False`, as WAA's prefix writes it."""
    return (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(target := statement.targets[0], ast.Attribute)
            and isinstance(target.value, ast.Name) and target.value.id == "pyautogui" and target.attr == "FAILSAFE"
            and isinstance(statement.value, ast.Constant) and isinstance(statement.value.value, bool))


def parse(program: str) -> list[Op]:
    """The input primitives `program` asks for, or ScriptRefused naming what is not allowed.

    Linear in the program's length: a statement's source text is cut out only
    for the one that is refused (`ast.get_source_segment` splits the whole
    program into lines on every call).
    """
    try:
        tree = ast.parse(program, mode="exec")
    except SyntaxError as exc:
        raise ScriptRefused(f"not valid Python: {exc.msg} at column {exc.offset}") from None
    ops: list[Op] = []
    slept = 0.0
    for statement in tree.body:
        if isinstance(statement, ast.Import) and all(a.name in MODULES and a.asname is None for a in statement.names):
            continue
        if _is_failsafe_setting(statement):
            continue
        source = functools.partial(_source, program, statement)
        call = statement.value if isinstance(statement, ast.Expr) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and isinstance(call.func.value, ast.Name)
                and (call.func.value.id, call.func.attr) in ALLOWED):
            raise ScriptRefused(f"statement not allowed: {source()!r} (allowed: imports of {sorted(MODULES)}, "
                                f"pyautogui.FAILSAFE = True|False and calls of {sorted(f'{m}.{n}' for m, n in ALLOWED)})")
        function = ALLOWED[(call.func.value.id, call.func.attr)]
        try:
            args = [ast.literal_eval(a) for a in call.args]
            kwargs = {k.arg: ast.literal_eval(k.value) for k in call.keywords}
        except (ValueError, TypeError, SyntaxError):
            raise ScriptRefused(f"{source()!r}: arguments must be literal values, not names or expressions") from None
        try:
            called = function(*args, **kwargs)
        except TypeError as exc:  # arguments that do not fit the signature
            raise ScriptRefused(f"{source()!r}: {exc}") from None
        for op in called:
            if op[0] == "wait":
                slept += op[1]
                if slept > MAX_SLEEP:
                    raise ScriptRefused(f"{source()!r}: the program sleeps over {MAX_SLEEP:g} s in all")
            ops.append(op)
    return ops


def _source(program: str, statement: ast.stmt) -> str:
    """The text of `statement` in `program`, for the message that refuses it."""
    return ast.get_source_segment(program, statement) or ast.dump(statement)
