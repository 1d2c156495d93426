"""Characters and keys the keyboard map lacks, each bound to a spare keycode of its own before it is typed.

xdotool types a character the keymap lacks by binding it to one scratch
keycode, pressing it, then rebinding that same keycode for the next such
character. An application that looks the keycode up after the rebinding reads
the next character instead: on a loaded machine "Grüße" arrived in Mousepad as
"Grßße". Binding every such character of a text to a key of its own before
it is typed leaves nothing to race. Xvfb leaves about 19 keycodes unbound;
they are reused least recently used first, never for a character of the
text being typed (actors.backends.x11.xtest types a text needing more in
parts).
"""

from __future__ import annotations

from collections.abc import Iterable

from Xlib import display as xdisplay


def keysym(char: str) -> int:
    """X11's keysym for a character: Latin-1 keysyms equal the code point, the rest are 0x01000000 + it."""
    code = ord(char)
    return code if 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xFF else 0x01000000 | code


class SpareKeys:
    """The desktop's unbound keycodes, lent to the keysyms each typed text or key needs."""

    def __init__(self, conn: xdisplay.Display) -> None:
        self._conn = conn
        first = conn.display.info.min_keycode
        mapping = self._mapping()
        self._width = len(mapping[0])
        unbound = [first + index for index, syms in enumerate(mapping) if not any(syms)]
        self._held: dict[int, int] = dict.fromkeys(unbound, 0)  # keycode -> keysym, LRU first

    @property
    def capacity(self) -> int:
        """How many keysyms can hold a spare key at once."""
        return len(self._held)

    def _mapping(self) -> list:
        info = self._conn.display.info
        return self._conn.get_keyboard_mapping(info.min_keycode, info.max_keycode - info.min_keycode + 1)

    def bind(self, syms: Iterable[int]) -> None:
        """Give each of `syms` the keymap lacks a key, keeping keys these use."""
        wanted = dict.fromkeys(syms)
        present = {sym for syms in self._mapping() for sym in syms}
        for keycode in [k for k, sym in self._held.items() if sym in wanted]:  # used again: most recent
            self._held[keycode] = self._held.pop(keycode)
        reusable = [k for k, sym in self._held.items() if sym not in wanted]
        for keycode, sym in zip(reusable, [sym for sym in wanted if sym not in present]):
            self._conn.change_keyboard_mapping(keycode, [(sym,) * self._width])
            del self._held[keycode]
            self._held[keycode] = sym
        self._conn.sync()
