"""Input primitives (actors.backends.input_plan) as xdotool command lines, and X's names of the keys.

The desktops send input in-process (actors.backends.x11.xtest), looking
keys up by the keysym names `keysym` gives; `commands` is the same input as
xdotool would carry it, one process per action, which bench.perf.desktop
measures against.
"""

from __future__ import annotations

import re
import string

from Xlib.keysymdef import latin1

from actors.backends.input_plan import Op

_BUTTONS = {"left": "1", "middle": "2", "right": "3"}
_WHEEL = {"up": "4", "down": "5", "left": "6", "right": "7"}
_NAMED = {
    "enter": "Return", "tab": "Tab", "space": "space", "backspace": "BackSpace", "delete": "Delete",
    "escape": "Escape", "insert": "Insert", "home": "Home", "end": "End", "pageup": "Prior", "pagedown": "Next",
    "up": "Up", "down": "Down", "left": "Left", "right": "Right", "capslock": "Caps_Lock",
    "numlock": "Num_Lock", "scrolllock": "Scroll_Lock", "printscreen": "Print", "pause": "Pause", "menu": "Menu",
    "ctrl": "Control_L", "alt": "Alt_L", "shift": "Shift_L", "meta": "Super_L",
    **{f"f{n}": f"F{n}" for n in range(1, 25)},
}
# Punctuation by keysym name ("comma", "bracketleft"), from Xlib's own table.
_PUNCTUATION = {chr(code): name[3:] for name, code in vars(latin1).items()
                if name.startswith("XK_") and chr(code) in string.punctuation if isinstance(code, int)}
TYPE_DELAY_MS = 4
REMAP_DELAY_MS = 40
_RUNS = re.compile(r"[\x20-\x7e]+|[^\x20-\x7e]+")


def _delay(run: str) -> int:
    """Non-ASCII runs go slower: when a text needs more keycodes than are spare, xdotool
    remaps one per character, and a slow application may read an event after the mapping moved on."""
    return TYPE_DELAY_MS if run.isascii() else REMAP_DELAY_MS


def keysym(key: str) -> str:
    if key in _NAMED:
        return _NAMED[key]
    if key in _PUNCTUATION:
        return _PUNCTUATION[key]
    if len(key) == 1 and key.isalnum():
        return key
    raise ValueError(f"no X keysym for key {key!r}")


def commands(ops: list[Op]) -> list[list[str] | float]:
    """xdotool argument lists, and seconds to sleep between them for a `wait`.

    `type` takes every argument after it as text, so it always ends its command line.
    """
    commands: list[list[str] | float] = [[]]
    for op in ops:
        kind, *args = op
        current = commands[-1]
        assert isinstance(current, list)  # a float (wait) is always followed by a fresh list
        match kind:
            case "move":
                # No --sync: it waits for the pointer to move, forever when it is already there.
                current += ["mousemove", str(args[0]), str(args[1])]
            case "down" | "up":
                current += ["mousedown" if kind == "down" else "mouseup", _BUTTONS[args[0]]]
            case "click":
                current += ["click", "--repeat", str(args[1]), "--delay", "40", _BUTTONS[args[0]]]
            case "scroll":
                current += ["click", "--repeat", str(args[1]), "--delay", "20", _WHEEL[args[0]]]
            case "key_down" | "key_up":
                current += ["keydown" if kind == "key_down" else "keyup", keysym(args[0])]
            case "press":
                current += ["key", keysym(args[0])]
            case "type":
                # Newlines as Return presses: typed as text they are dropped by some applications.
                for index, line in enumerate(args[0].split("\n")):
                    if index:
                        commands[-1] += ["key", "Return"]
                    for run in _RUNS.findall(line):
                        commands[-1] += ["type", "--delay", str(_delay(run)), "--", run]
                        commands.append([])
            case "wait":
                commands += [float(args[0]), []]
            case _:
                raise ValueError(f"unknown input primitive {kind!r}")
    return [c for c in commands if c != []]
