"""The node app for a Windows machine: `python -m runtime.node --app actors.backends.windows.node:build`.

Run it on the Windows machine itself (next to the screen); the supervisor
connects with `--connect ws://HOST:PORT`. On any other platform it refuses
to start, with the reason, instead of failing at the first screenshot.
"""

from __future__ import annotations

import sys

from actors.observer import Observer
from actors.vm_controller import VMController


def build() -> list:
    if sys.platform != "win32":
        raise RuntimeError(f"actors.backends.windows.node hosts a Windows desktop; this is {sys.platform}")
    try:
        import pyautogui  # noqa: F401
        import uiautomation  # noqa: F401
    except ImportError as exc:
        raise RuntimeError(f"the Windows backend needs {exc.name}: pip install uiautomation pyautogui") from exc
    from actors.backends.windows.desktop import WindowsDesktop

    desktop = WindowsDesktop()
    return [VMController(desktop), Observer(desktop)]
