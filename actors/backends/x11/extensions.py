"""A connection of its own to a display whose X server must have an extension (XTEST for input,
DAMAGE for the settle): without it the desktop cannot act, so it fails at once, naming both."""

from __future__ import annotations

from Xlib import display as xdisplay


class MissingExtension(RuntimeError):
    """The display's X server lacks an extension the desktop needs."""


def connect(display: str, extension: str) -> xdisplay.Display:
    conn = xdisplay.Display(display)
    if not conn.has_extension(extension):
        conn.close()
        raise MissingExtension(f"the X server of {display} has no {extension} extension")
    return conn
