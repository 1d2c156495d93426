"""Key names as the computer-use APIs spell them, to troupe's closed vocabulary and back.

Anthropic's tool takes xdotool keysyms joined by `+` ("ctrl+s", "Return", "Page_Down",
"KP_Enter", "super"); OpenAI's takes a list of names, often upper case ("CTRL", "ENTER",
"ARROWLEFT", "CMD"). Both reach `protocols.keys.canonical_key` after the few spellings it does
not know are translated, so a key no backend knows is refused with its name, never guessed.
"""

from __future__ import annotations

from typing import Sequence

from protocols import Hotkey, Key
from protocols.keys import MODIFIERS, canonical_key

__all__ = ["key_action", "key_names"]

_SPELLINGS = {
    "page_up": "pageup", "page_down": "pagedown", "prior": "pageup", "next": "pagedown", "kp_enter": "enter",
    "control_l": "ctrl", "control_r": "ctrl", "shift_l": "shift", "shift_r": "shift", "alt_l": "alt",
    "alt_r": "alt", "super_l": "meta", "super_r": "meta", "meta_l": "meta", "meta_r": "meta",
    "caps_lock": "capslock", "num_lock": "numlock", "scroll_lock": "scrolllock", "print": "printscreen",
    "minus": "-", "equal": "=", "plus": "+", "comma": ",", "period": ".", "slash": "/", "backslash": "\\",
    "semicolon": ";", "apostrophe": "'", "grave": "`", "bracketleft": "[", "bracketright": "]",
}


def canonical(name: str) -> str:
    """troupe's name of one key as either API spells it; ValueError naming it if there is none."""
    lowered = name.strip().lower()
    return canonical_key(_SPELLINGS.get(lowered, lowered))


def key_action(names: Sequence[str]) -> Key | Hotkey:
    """One key with the modifiers before it held (`Key`), or a chord of several keys (`Hotkey`)."""
    keys = [canonical(name) for name in names if name.strip()]
    if not keys:
        raise ValueError("no key named")
    if all(key in MODIFIERS for key in keys[:-1]):
        return Key(key=keys[-1], modifiers=tuple(keys[:-1]))
    return Hotkey(keys=tuple(keys))


def key_names(action: Key | Hotkey) -> list[str]:
    """The keys `action` presses, in order: what `key_action` made it from."""
    return [*action.modifiers, action.key] if isinstance(action, Key) else list(action.keys)
