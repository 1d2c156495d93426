"""When a display has stopped drawing: the settle after an action, through the DAMAGE extension.

The X server reports every drawing on the screen (any window's, the root
window's damage includes its children's) as it happens, so the settle needs
no screenshots: it is over once QUIET seconds pass without any drawing,
counted from the action's last input event and then from each drawing, or
at the bound. Comparing two frames QUIET apart, as `Screen.settle` does
where there is no DAMAGE (Windows), costs two grabs and their checksums on
top of the window, and sees only what differs at the two instants.
"""

from __future__ import annotations

import select
import time

from Xlib.ext import damage

from actors.backends.x11.extensions import connect

QUIET = 0.03
"""Seconds without drawing after which the screen counts as settled."""


class Redraws:
    """Drawing anywhere on display `display`, over a connection of its own."""

    def __init__(self, display: str) -> None:
        self.conn = connect(display, "DAMAGE")
        self.conn.damage_query_version()
        self.conn.screen().root.damage_create(damage.DamageReportRawRectangles)
        self.conn.sync()

    def close(self) -> None:
        self.conn.close()

    def _drawn(self, timeout: float) -> bool:
        """Whether anything was drawn since the last call, waiting at most `timeout` for it."""
        if not self.conn.pending_events() and not select.select([self.conn.fileno()], [], [], timeout)[0]:
            return False
        drawn = False
        while self.conn.pending_events():  # keymap changes (MappingNotify) reach every client too
            drawn |= self.conn.next_event().type == self.conn.extension_event.DamageNotify
        return drawn

    def forget(self) -> None:
        """Drop what was drawn so far: the settle after the next action counts from it."""
        self._drawn(0)

    def settle(self, quiet: float = QUIET, bound: float = 2.0) -> float:
        """Wait until `quiet` seconds pass without drawing, at most `bound`; how long that took."""
        began = last = time.monotonic()
        while (wait := min(last + quiet, began + bound) - time.monotonic()) > 0:
            if self._drawn(wait):
                last = time.monotonic()
        return time.monotonic() - began

    def caught_up(self, quiet: float, bound: float) -> float:
        """Wait for a drawing, then for `quiet` seconds without one, at most `bound` in all; how long that took.

        An application that has not drawn since the last `forget` has not yet read the input sent
        since, however long the screen has been still: on a loaded machine it may not have run at all.
        """
        began = time.monotonic()
        while (left := began + bound - time.monotonic()) > 0:
            if self._drawn(left):
                self.settle(quiet, began + bound - time.monotonic())
                break
        return time.monotonic() - began
