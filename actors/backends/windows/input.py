"""Input primitives (actors.backends.input_plan) as pyautogui calls and Unicode SendInput events.

pyautogui covers the pointer and named keys but types ASCII only, so text
goes through SendInput with KEYEVENTF_UNICODE, one UTF-16 code unit per
event (characters outside the BMP become surrogate pairs, as Windows
expects). `calls` is pure and tested on Linux; `send` runs them on Windows.
"""

from __future__ import annotations

import sys
from typing import Any

from actors.backends.input_plan import Op

KEYEVENTF_KEYUP = 0x0002
KEYEVENTF_UNICODE = 0x0004
_KEYS = {"escape": "esc", "menu": "apps", "meta": "win"}

Call = tuple[str, tuple[Any, ...], dict[str, Any]]


def key_name(key: str) -> str:
    return _KEYS.get(key, key)


def unicode_events(text: str) -> list[tuple[int, int]]:
    """(UTF-16 code unit, flags) for a key down and a key up per unit; newlines as \\r (Enter)."""
    units = text.replace("\r\n", "\n").replace("\n", "\r").encode("utf-16-le")
    events = []
    for index in range(0, len(units), 2):
        unit = int.from_bytes(units[index:index + 2], "little")
        events += [(unit, KEYEVENTF_UNICODE), (unit, KEYEVENTF_UNICODE | KEYEVENTF_KEYUP)]
    return events


def calls(ops: list[Op]) -> list[Call]:
    """pyautogui function calls (name, args, kwargs); "unicode" and "sleep" are ours."""
    out: list[Call] = []
    for kind, *args in ops:
        match kind:
            case "move":
                out.append(("moveTo", (args[0], args[1]), {}))
            case "down" | "up":
                out.append(("mouseDown" if kind == "down" else "mouseUp", (), {"button": args[0]}))
            case "click":
                out.append(("click", (), {"button": args[0], "clicks": args[1], "interval": 0.05}))
            case "scroll":
                direction, clicks = args
                amount = clicks if direction in ("up", "right") else -clicks
                out.append(("scroll" if direction in ("up", "down") else "hscroll", (amount,), {}))
            case "key_down" | "key_up":
                out.append(("keyDown" if kind == "key_down" else "keyUp", (key_name(args[0]),), {}))
            case "press":
                out.append(("press", (key_name(args[0]),), {}))
            case "type":
                out.append(("unicode", (args[0],), {}))
            case "wait":
                out.append(("sleep", (args[0],), {}))
            case _:
                raise ValueError(f"unknown input primitive {kind!r}")
    return out


def send(call_list: list[Call]) -> None:  # pragma: no cover - needs a Windows desktop
    """Carry the calls out on this machine's desktop (blocking; run it in a thread)."""
    if sys.platform != "win32":
        raise RuntimeError("actors.backends.windows.input.send needs Windows")
    import time

    import pyautogui

    pyautogui.FAILSAFE = False  # an agent may legitimately move to a corner
    pyautogui.PAUSE = 0
    for name, args, kwargs in call_list:
        if name == "unicode":
            _send_unicode(unicode_events(args[0]))
        elif name == "sleep":
            time.sleep(args[0])
        else:
            getattr(pyautogui, name)(*args, **kwargs)


def _send_unicode(events: list[tuple[int, int]]) -> None:  # pragma: no cover - needs Windows
    import ctypes
    from ctypes import wintypes

    class KEYBDINPUT(ctypes.Structure):
        _fields_ = [("wVk", wintypes.WORD), ("wScan", wintypes.WORD), ("dwFlags", wintypes.DWORD),
                    ("time", wintypes.DWORD), ("dwExtraInfo", ctypes.c_size_t)]

    class INPUT(ctypes.Structure):
        class _U(ctypes.Union):
            _fields_ = [("ki", KEYBDINPUT), ("padding", ctypes.c_byte * 32)]

        _anonymous_ = ("u",)
        _fields_ = [("type", wintypes.DWORD), ("u", _U)]

    inputs = (INPUT * len(events))(*[INPUT(type=1, ki=KEYBDINPUT(0, unit, flags, 0, 0)) for unit, flags in events])
    sent = ctypes.windll.user32.SendInput(len(events), inputs, ctypes.sizeof(INPUT))
    if sent != len(events):
        raise OSError(f"SendInput sent {sent} of {len(events)} events")
