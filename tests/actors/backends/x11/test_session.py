"""A desktop session ends what it started, also what left the spawned processes' tree, and deletes its
home and the folders it owns."""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from actors.backends.x11.session import Session
from runtime.process_tree import alive, descendants


def test_closing_a_session_ends_a_process_a_launcher_left_behind():
    """As xdg-open starts LibreOffice and exits, leaving it to init: the session finds it by its HOME."""
    session = Session.start(320, 240, window_manager=False, accessibility=False)
    try:
        pid_file = session.home / "stray.pid"
        session.spawn(["sh", "-c", f"sleep 300 & echo $! > {pid_file}"])
        deadline = time.monotonic() + 10
        while not (pid_file.is_file() and pid_file.read_text().strip()) and time.monotonic() < deadline:
            time.sleep(0.05)
        stray = int(pid_file.read_text())
        assert alive(stray)
    finally:
        session.close()
    assert not alive(stray), f"process {stray} outlived its desktop session"


def test_closing_a_session_deletes_the_folders_it_owns_and_ends_its_reaper():
    session = Session.start(320, 240, window_manager=False, accessibility=False)
    folder = Path(tempfile.mkdtemp(prefix="troupe-test-owned-"))
    session.owns(folder)
    watchers = [pid for pid, argv in descendants(os.getpid()).items() if b"troupe-reaper" in argv]
    assert len(watchers) == 1
    session.close()
    assert not folder.exists() and not session.home.exists() and not alive(watchers[0])
