"""The terminal of OSWorld's tasks on this desktop: Ctrl+Alt+T opens one, and /terminal reads its text.

On OSWorld's Ubuntu VM, Ctrl+Alt+T opens GNOME Terminal (window title
"Terminal", which tasks activate by name), and /terminal answers the focused
terminal's text, read over AT-SPI. Here openbox binds Ctrl+Alt+T to xterm
titled "Terminal" running an interactive bash (which reads ~/.bashrc, as
GNOME Terminal's does) under `script`, which writes everything the terminal
shows to a log named by the terminal's process id; /terminal answers the log
of the active window's process as text (control sequences and carriage
returns removed, trailing blanks stripped as OSWorld strips them), or null
when the active window is no such terminal.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from Xlib import X, display as xdisplay, error as xerror

from actors.backends.x11 import openbox

LAUNCHER = """#!/bin/sh
# A terminal as OSWorld's Ctrl+Alt+T opens one; `script` keeps what it shows for /terminal.
exec xterm -T Terminal -e script -qfc "bash -i" "{logs}/$$.log"
"""
KEYBIND = ('<keybind key="C-A-t"><action name="Execute"><command>{launcher}</command></action></keybind>')
_CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][A-Za-z0-9]|\x1b[=>]|\r")


def bind_keys(home: Path, folder: Path, env: dict[str, str]) -> Path:
    """Bind Ctrl+Alt+T in the session's openbox to a logged terminal; the folder of the logs."""
    logs = folder / "terminals"
    logs.mkdir(parents=True, exist_ok=True)
    launcher = folder / "troupe-terminal"
    launcher.write_text(LAUNCHER.format(logs=logs))
    launcher.chmod(0o755)
    openbox.write(home, KEYBIND.format(launcher=launcher))
    program = shutil.which("openbox")
    if program:
        subprocess.run([program, "--reconfigure"], env=env, timeout=10, capture_output=True)
    return logs


def _active_pid(display: str) -> int | None:
    conn = xdisplay.Display(display)
    try:
        root = conn.screen().root
        active = root.get_full_property(conn.intern_atom("_NET_ACTIVE_WINDOW"), X.AnyPropertyType)
        if not active or not active.value or not active.value[0]:
            return None
        window = conn.create_resource_object("window", active.value[0])
        pid = window.get_full_property(conn.intern_atom("_NET_WM_PID"), X.AnyPropertyType)
        return int(pid.value[0]) if pid and pid.value else None
    except xerror.XError:
        return None
    finally:
        conn.close()


def text(logs: Path, display: str) -> str | None:
    """The active terminal's text, or None when the active window is not one of ours."""
    pid = _active_pid(display)
    log = logs / f"{pid}.log" if pid is not None else None
    if log is None or not log.is_file():
        return None
    return _CONTROL.sub("", log.read_bytes().decode("utf-8", "replace")).rstrip()
