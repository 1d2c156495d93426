"""Processes below a process, read from /proc (Linux), and ending the ones that outlive their owner.

What a run starts must end with it: Chromium helpers under a node, the Ray
processes under the head a run started (its raylet's agents outlived it).
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterable

__all__ = ["alive", "descendants", "end_processes", "processes_with_environ"]


def descendants(root: int) -> dict[int, list[bytes]]:
    """Every process below `root`, with its argv."""
    parents, commands = {}, {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parents[int(entry)] = int(stat.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                argv = cmdline.read().rstrip(b"\0").split(b"\0")
            if len(argv) == 1 and b" --" in argv[0]:
                argv = argv[0].split(b" ")  # Chromium rewrites its helpers' argv as one spaced string
            commands[int(entry)] = argv
        except OSError:
            continue

    def below(pid: int) -> bool:
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == root:
                return True
        return False

    return {pid: argv for pid, argv in commands.items() if below(pid)}


def processes_with_environ(name: bytes, values: set[bytes]) -> list[int]:
    """The processes (of this user: others' environments are not readable) whose environment sets
    `name` to one of `values`."""
    wanted = {name + b"=" + value for value in values}
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/environ", "rb") as environ:
                variables = environ.read().split(b"\0")
        except OSError:
            continue
        if wanted.intersection(variables):
            found.append(int(entry))
    return found


def alive(pid: int) -> bool:
    """True while `pid` runs (a zombie, dead but not yet reaped, does not count)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def end_processes(pids: Iterable[int], grace: float, reaped_within: float = 5.0) -> list[int]:
    """Give `pids` `grace` seconds to exit by themselves, then SIGKILL the rest and wait (at most
    `reaped_within` seconds) until they are gone: a SIGKILL is delivered, not awaited, and a loaded
    machine may run its target again before it dies. The pids killed."""
    waiting = set(pids)
    deadline = time.monotonic() + grace
    while waiting and time.monotonic() < deadline:
        waiting = {pid for pid in waiting if alive(pid)}
        time.sleep(0.05)
    killed = []
    for pid in sorted(pid for pid in waiting if alive(pid)):
        try:
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + reaped_within
    while any(alive(pid) for pid in killed) and time.monotonic() < deadline:
        time.sleep(0.02)
    return killed
