"""The session's openbox has no menu on the bare desktop (whose "Exit" one typed "e" picks) and one
desktop only (a scroll over the bare desktop switches to an empty one with openbox's defaults)."""

from __future__ import annotations

import time

from Xlib import X, display as xdisplay
from Xlib.ext import xtest

from actors.backends.x11.session import Session

SETTLE = 1.0


def _mapped(conn: xdisplay.Display) -> set[int]:
    root = conn.screen().root
    return {child.id for child in root.query_tree().children if child.get_attributes().map_state == X.IsViewable}


def _desktops(conn: xdisplay.Display) -> int | None:
    found = conn.screen().root.get_full_property(conn.intern_atom("_NET_NUMBER_OF_DESKTOPS"), X.AnyPropertyType)
    return int(found.value[0]) if found else None


def test_a_right_click_on_the_bare_desktop_opens_nothing_and_there_is_one_desktop():
    session = Session.start(640, 480, accessibility=False)
    conn = xdisplay.Display(session.display)
    try:
        deadline = time.monotonic() + 10
        while _desktops(conn) is None and time.monotonic() < deadline:  # openbox is managing the screen
            time.sleep(0.05)
        assert _desktops(conn) == 1
        before = _mapped(conn)
        xtest.fake_input(conn, X.MotionNotify, x=20, y=20)
        xtest.fake_input(conn, X.ButtonPress, 3)
        xtest.fake_input(conn, X.ButtonRelease, 3)
        conn.sync()
        time.sleep(SETTLE)  # a menu would be mapped by now; nothing else can tell that none is coming
        assert _mapped(conn) == before, "a right click on the bare desktop mapped a window (openbox's root menu)"
    finally:
        conn.close()
        session.close()
