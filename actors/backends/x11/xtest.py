"""Input primitives (actors.backends.input_plan) sent in-process through the XTEST extension.

One connection per desktop, open for the episode: an action's primitives
go out as one sequence of fake events on it, and the connection is synced
at the end, so the X server has every event before the screen's settle
window starts. (An xdotool process per action cost ~18 ms of each step:
its start, its own connection, its keyboard-map queries.)

Keys are found in the keyboard map as xdotool finds them: a keysym at a
keycode's first position is pressed alone, at the second with Shift. A
character or key the map lacks gets a spare keycode of its own first
(actors.backends.x11.keymap.SpareKeys), so an application never reads a
keycode rebound under it; a text needing more spare keys than the desktop
has is typed a part at a time, and a key is lent again only once the
application has read the last part: once it has drawn and then stopped
drawing for READ_QUIET (actors.backends.x11.redraws), at most READ_BOUND.
An application reads a keycode through the keymap it holds when it reads
the event, not the one the event was sent under, so a key lent again under
events still queued would type the next part's characters (an editor
stalled for a second types "京✓ÿ" for "äöü").
Text is typed a character at a time TYPE_DELAY apart, newlines as Return and
tabs as Tab (some applications drop them typed as text); clicks and wheel
steps repeat CLICK_DELAY and SCROLL_DELAY apart, as xdotool's options did.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from Xlib import X, XK
from Xlib.ext import xtest

from actors.backends.input_plan import Op
from actors.backends.x11 import xdotool
from actors.backends.x11.extensions import connect
from actors.backends.x11.keymap import SpareKeys, keysym as char_keysym
from actors.backends.x11.redraws import Redraws

BUTTONS = {"left": 1, "middle": 2, "right": 3}
WHEEL = {"up": 4, "down": 5, "left": 6, "right": 7}
TYPE_DELAY = 0.004
CLICK_DELAY = 0.04
SCROLL_DELAY = 0.02
READ_QUIET = 0.1
READ_BOUND = 2.0
_TYPED_AS_KEYS = {"\n": XK.XK_Return, "\t": XK.XK_Tab}


def key_keysym(key: str) -> int:
    """The keysym of a protocol key name ("enter", "a", "comma", "f5")."""
    sym = XK.string_to_keysym(xdotool.keysym(key))
    if not sym:
        raise ValueError(f"no X keysym for key {key!r}")
    return sym


def text_keysym(char: str) -> int:
    return _TYPED_AS_KEYS.get(char) or char_keysym(char)


def batches(ops: list[Op]) -> list[list[Op] | float]:
    """The primitives between waits, and each wait's seconds, in order."""
    out: list[list[Op] | float] = [[]]
    for op in ops:
        if op[0] == "wait":
            out += [float(op[1]), []]
        else:
            out[-1].append(op)
    return [part for part in out if part != []]


class XTestInput:
    """Fake input on display `display`, over a connection of its own."""

    def __init__(self, display: str) -> None:
        self.display = display
        self.conn = connect(display, "XTEST")
        self.spare_keys = SpareKeys(self.conn)
        self._keys: dict[int, tuple[int, bool]] = {}

    def close(self) -> None:
        self.conn.close()

    def _read_keymap(self) -> None:
        """keysym -> (keycode, with Shift), the first keycode holding it at position 0 or 1."""
        info = self.conn.display.info
        mapping = self.conn.get_keyboard_mapping(info.min_keycode, info.max_keycode - info.min_keycode + 1)
        keys: dict[int, tuple[int, bool]] = {}
        for level in (0, 1):
            for index, syms in enumerate(mapping):
                if len(syms) > level and syms[level] and syms[level] not in keys:
                    keys[syms[level]] = (info.min_keycode + index, level == 1)
        self._keys = keys

    def _parts(self, syms: list[int]) -> Iterator[int]:
        """The ends of the parts of `syms` whose missing keysyms the spare keys can hold at once."""
        capacity = max(1, self.spare_keys.capacity)
        missing: set[int] = set()
        for index, sym in enumerate(syms):
            if sym not in self._keys and sym not in missing:
                if len(missing) == capacity:
                    yield index
                    missing = set()
                missing.add(sym)
        yield len(syms)

    def _lend(self, syms: list[int]) -> None:
        if any(sym not in self._keys for sym in syms):
            self.spare_keys.bind(syms)
            self._read_keymap()

    def _key(self, sym: int, down: bool) -> None:
        keycode, shifted = self._keys[sym]
        shift = self._keys[XK.XK_Shift_L][0] if shifted else None
        if down and shift is not None:
            xtest.fake_input(self.conn, X.KeyPress, shift)
        xtest.fake_input(self.conn, X.KeyPress if down else X.KeyRelease, keycode)
        if not down and shift is not None:
            xtest.fake_input(self.conn, X.KeyRelease, shift)

    def _tap(self, sym: int) -> None:
        self._key(sym, True)
        self._key(sym, False)

    def _type_part(self, syms: list[int]) -> None:
        self._lend(syms)
        for sym in syms:
            self._tap(sym)
            self.conn.sync()
            time.sleep(TYPE_DELAY)

    def _type(self, text: str) -> None:
        syms = [text_keysym(char) for char in text]
        ends = list(self._parts(syms))
        if len(ends) == 1:
            self._type_part(syms)
            return
        redraws = Redraws(self.display)  # watched only while a text in parts is typed: nothing piles up
        try:
            for start, end in zip([0, *ends], ends):
                if start:
                    redraws.caught_up(READ_QUIET, READ_BOUND)
                redraws.forget()
                self._type_part(syms[start:end])
        finally:
            redraws.close()

    def _buttons(self, button: int, times: int, delay: float) -> None:
        for index in range(times):
            if index:
                self.conn.sync()
                time.sleep(delay)
            xtest.fake_input(self.conn, X.ButtonPress, button)
            xtest.fake_input(self.conn, X.ButtonRelease, button)

    def send(self, ops: list[Op]) -> None:
        """Carry out `ops` (no waits: see `batches`), synced at the end."""
        self._read_keymap()
        self._lend([key_keysym(op[1]) for op in ops if op[0] in ("key_down", "key_up", "press")])
        for kind, *args in ops:
            match kind:
                case "move":
                    xtest.fake_input(self.conn, X.MotionNotify, x=int(args[0]), y=int(args[1]))
                case "down" | "up":
                    xtest.fake_input(self.conn, X.ButtonPress if kind == "down" else X.ButtonRelease,
                                     BUTTONS[args[0]])
                case "click":
                    self._buttons(BUTTONS[args[0]], int(args[1]), CLICK_DELAY)
                case "scroll":
                    self._buttons(WHEEL[args[0]], int(args[1]), SCROLL_DELAY)
                case "key_down" | "key_up":
                    self._key(key_keysym(args[0]), kind == "key_down")
                case "press":
                    self._tap(key_keysym(args[0]))
                case "type":
                    self._type(args[0])
                case _:
                    raise ValueError(f"unknown input primitive {kind!r}")
        self.conn.sync()
