"""Top-level windows of a display, read with python-xlib: the active one's title and
application, and waiting for a window to appear (a setup step).

The window manager publishes both (_NET_ACTIVE_WINDOW, _NET_CLIENT_LIST); the
application name is the WM_CLASS class ("Mousepad"), which is what a user
sees in a task switcher.
"""

from __future__ import annotations

import time

from Xlib import X, display as xdisplay, error as xerror

FOCUS_GRACE = 3.0
"""Seconds a setup step waits, after its window appeared, for the window manager to focus it."""


class WindowList:
    def __init__(self, display: str) -> None:
        self.conn = xdisplay.Display(display)
        self.root = self.conn.screen().root
        self._atoms = {name: self.conn.intern_atom(name) for name in
                       ("_NET_ACTIVE_WINDOW", "_NET_CLIENT_LIST", "_NET_WM_NAME", "UTF8_STRING",
                                    "_NET_SUPPORTING_WM_CHECK")}

    def _window_ids(self, atom: str) -> list[int]:
        prop = self.root.get_full_property(self._atoms[atom], X.AnyPropertyType)
        return [int(w) for w in prop.value] if prop is not None else []

    def title_and_app(self, window_id: int) -> tuple[str, str]:
        window = self.conn.create_resource_object("window", window_id)
        try:
            prop = window.get_full_property(self._atoms["_NET_WM_NAME"], self._atoms["UTF8_STRING"])
            title = prop.value.decode("utf-8", "replace") if prop is not None else (window.get_wm_name() or "")
            wm_class = window.get_wm_class()
        except xerror.BadWindow:
            return "", ""  # closed between listing and reading
        return str(title), wm_class[1] if wm_class else ""

    def wm_class(self, window_id: int) -> str:
        """The window's WM_CLASS as `instance.class` (what `wmctrl -x` matches), "" when it has none."""
        try:
            wm_class = self.conn.create_resource_object("window", window_id).get_wm_class()
        except xerror.BadWindow:
            return ""
        return ".".join(wm_class) if wm_class else ""

    def active(self) -> tuple[str | None, str | None]:
        ids = [w for w in self._window_ids("_NET_ACTIVE_WINDOW") if w]
        if not ids:
            return None, None
        title, app = self.title_and_app(ids[0])
        return title or None, app or None

    def titles(self) -> list[str]:
        return [self.title_and_app(w)[0] for w in self._window_ids("_NET_CLIENT_LIST")]

    def wait_for_manager(self, timeout: float) -> None:
        """Block until a window manager runs: a window mapped before it starts is never managed
        (no title in the client list, no focus)."""
        deadline = time.monotonic() + timeout
        while not self._window_ids("_NET_SUPPORTING_WM_CHECK"):
            if time.monotonic() > deadline:
                raise TimeoutError(f"no window manager took the display within {timeout:g} s")
            time.sleep(0.02)

    def wait_for(self, title: str, timeout: float) -> str:
        """Block until a window whose title contains `title` exists; return its full title.

        Then wait (at most FOCUS_GRACE more) until the window manager has made it the active
        window: one mapped a moment ago has no focus yet on a loaded machine, so the first
        observation would name no window and keys typed then would go nowhere. A window that
        never gets focus (a task opening another after it) is not an error."""
        deadline = time.monotonic() + timeout
        while True:
            found = [t for t in self.titles() if title in t]
            if found:
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"no window titled like {title!r} within {timeout:g} s; open: {self.titles()}")
            time.sleep(0.05)
        focus_deadline = time.monotonic() + FOCUS_GRACE
        while title not in (self.active()[0] or "") and time.monotonic() < focus_deadline:
            time.sleep(0.02)
        return found[0]

    def close(self) -> None:
        self.conn.close()
