"""What a desktop session leaves when its owner is killed: ended and deleted all the same.

PR_SET_PDEATHSIG ends the processes a session starts when its owner dies,
but not what they start in turn (AT-SPI's bus launcher forks its own
dbus-daemon; xdg-open hands LibreOffice to init), and a SIGKILLed owner
deletes no folder. So each session starts a watcher (`WATCHER`, a shell
that costs a few hundred KiB while it waits) in a process session of its own,
holding the read end of a pipe (its stdin) whose write end only the owner holds. The
owner sends the folders it wants deleted with the home, one a line, and
"done" when it has closed the session itself. When the pipe ends without
"done" (the owner died, however), the watcher runs `python -m
actors.backends.x11.reaper HOME [FOLDER...]`: every process whose
environment names that HOME (a folder mkdtemp made for this session alone,
so each of them is the session's) gets SIGTERM, then SIGKILL after a grace,
and the home and the folders are deleted.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import sys
import tempfile
from pathlib import Path

from runtime.process_tree import end_processes, found, processes_with_environ

GRACE = 2.0
"""Seconds the session's processes get to exit after SIGTERM."""
DONE = "done"
WATCHER = """
while read -r line; do
  case "$line" in {done}) exit 0 ;; *) set -- "$@" "$line" ;; esac
done
exec {python} -m actors.backends.x11.reaper "$@"
"""
"""The watcher's shell program, reading the pipe as its stdin; its arguments are the home, and each line
read is one more folder."""


def watcher(home: Path) -> list[str]:
    """The watcher's command line."""
    program = WATCHER.format(done=DONE, python=shlex.quote(sys.executable))
    return ["/bin/sh", "-c", program, "troupe-reaper", str(home)]


def reap(home: Path, folders: list[Path]) -> None:
    processes = found(pid for pid in processes_with_environ(b"HOME", {os.fsencode(home)}) if pid != os.getpid())
    for process in processes:
        process.signal(signal.SIGTERM)
    end_processes(processes, grace=GRACE)
    for folder in (home, *folders):
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m actors.backends.x11.reaper HOME [FOLDER...]", file=sys.stderr)
        return 2
    home = Path(argv[0])
    if home.parent != Path(tempfile.gettempdir()) or not home.name.startswith("troupe-home-"):
        print(f"reaper: {home} is not a session's home (a troupe-home-* folder in {tempfile.gettempdir()})",
              file=sys.stderr)
        return 2
    reap(home, [Path(folder) for folder in argv[1:]])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
