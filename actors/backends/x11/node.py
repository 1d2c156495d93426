"""The node app for X11 desktops: `python -m runtime.node --app actors.backends.x11.node:build`.

The screen size comes from TROUPE_X11_SIZE (WIDTHxHEIGHT, default 1280x800);
a task may ask for its own with `raw_config["screen"]`.
"""

from __future__ import annotations

import os

from actors.observer import Observer
from actors.vm_controller import VMController
from actors.backends.x11.desktop import X11Desktop


class DesktopController(VMController):
    """A VMController that takes its desktop's processes down with it."""

    async def on_stop(self) -> None:
        self.backend.close()


def screen_size(value: str) -> tuple[int, int]:
    width, sep, height = value.partition("x")
    if not sep or not width.isdigit() or not height.isdigit():
        raise ValueError(f"TROUPE_X11_SIZE must look like 1280x800, got {value!r}")
    return int(width), int(height)


def build() -> list:
    desktop = X11Desktop(*screen_size(os.environ.get("TROUPE_X11_SIZE", "1280x800")))
    return [DesktopController(desktop), Observer(desktop)]
