"""The closed vocabulary of key names an action may use.

Names follow the lowercase spelling most GUI benchmarks already use
(pyautogui, Playwright after lowercasing), so backends translate a fixed set
instead of guessing at free text.
"""

import string

MODIFIERS = frozenset({"ctrl", "alt", "shift", "meta"})

NAMED_KEYS = frozenset(
    {
        "enter", "tab", "space", "backspace", "delete", "escape", "insert",
        "home", "end", "pageup", "pagedown",
        "up", "down", "left", "right",
        "capslock", "numlock", "scrolllock", "printscreen", "pause", "menu",
    }
    | {f"f{n}" for n in range(1, 25)}
)

PRINTABLE_KEYS = frozenset(string.ascii_lowercase + string.digits + string.punctuation)

KEYS = NAMED_KEYS | PRINTABLE_KEYS | MODIFIERS

ALIASES = {
    "return": "enter", "esc": "escape", "del": "delete", "control": "ctrl",
    "cmd": "meta", "win": "meta", "super": "meta", "option": "alt",
    "pgup": "pageup", "pgdn": "pagedown", "arrowup": "up", "arrowdown": "down",
    "arrowleft": "left", "arrowright": "right", "spacebar": "space",
}


def canonical_key(name: str) -> str:
    """Map a loose spelling ('Return', 'ESC', 'A') to the canonical one, or raise ValueError."""
    lowered = name.lower()
    lowered = ALIASES.get(lowered, lowered)
    if lowered not in KEYS:
        raise ValueError(f"unknown key name {name!r}")
    return lowered


def check_key(name: str, *, field: str) -> None:
    """Reject a key name that is not canonical, naming the field and the fix."""
    if name in KEYS:
        return
    try:
        hint = f" (did you mean {canonical_key(name)!r}?)"
    except ValueError:
        hint = ""
    raise ValueError(f"`{field}`: unknown key name {name!r}{hint}")
