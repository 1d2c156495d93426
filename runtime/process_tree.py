"""Processes below a process, read from /proc (Linux), and ending the ones that outlive their owner.

What a run starts must end with it: Chromium helpers under a node, the Ray
processes under the head a run started (its raylet's agents outlived it).
A process found now is ended seconds later, when it may have exited and the
kernel may have given its pid to an unrelated process: so what is ended is a
`Process`, its pid with its start time, and a pid whose start time changed
is left alone.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["Process", "alive", "descendants", "end_processes", "found", "processes_with_environ", "start_time"]


@dataclass(frozen=True)
class Process:
    """One process for its whole life: its pid and when it started (`started`). A pid alone names
    whichever process holds it now, which after an exit may be an unrelated one."""

    pid: int
    started: int

    def running(self) -> bool:
        """True while this very process runs (not a zombie, its pid not passed on to another)."""
        state = _state(self.pid)
        return state is not None and state[0] != "Z" and state[1] == self.started

    def signal(self, signum: int) -> bool:
        """Send `signum` to this very process; False (nothing sent) if it is gone, its pid another's.
        The pidfd is opened before the start time is read, so it holds the process whose start time
        matched: a pid passed on between check and signal cannot receive it."""
        try:
            pidfd = os.pidfd_open(self.pid)
        except ProcessLookupError:
            return False
        try:
            if start_time(self.pid) != self.started:
                return False
            signal.pidfd_send_signal(pidfd, signum)
            return True
        except ProcessLookupError:
            return False
        finally:
            os.close(pidfd)


def _state(pid: int) -> tuple[str, int] | None:
    """`pid`'s state letter and start time (clock ticks after boot) from /proc/<pid>/stat; None if
    no process has that pid."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()  # after the command, which may hold spaces
        return fields[0], int(fields[19])  # fields 3 and 22 of proc(5)
    except (OSError, IndexError, ValueError):
        return None


def start_time(pid: int) -> int | None:
    """When the process now holding `pid` started, in clock ticks after boot; None if none does."""
    state = _state(pid)
    return state and state[1]


def found(pids: Iterable[int]) -> list[Process]:
    """`pids` as the processes holding them now (those gone already left out)."""
    return [Process(pid, start) for pid in pids if (start := start_time(pid)) is not None]


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
    state = _state(pid)
    return state is not None and state[0] != "Z"


def end_processes(processes: Iterable[Process], grace: float, reaped_within: float = 5.0) -> list[int]:
    """Give `processes` `grace` seconds to exit by themselves, then SIGKILL the rest and wait (at
    most `reaped_within` seconds) until they are gone: a SIGKILL is delivered, not awaited, and a
    loaded machine may run its target again before it dies. One that exited, its pid now another
    process's, is not touched. The pids killed."""
    waiting = set(processes)
    deadline = time.monotonic() + grace
    while waiting and time.monotonic() < deadline:
        waiting = {process for process in waiting if process.running()}
        time.sleep(0.05)
    killed = [process for process in sorted(waiting, key=lambda process: process.pid)
              if process.running() and process.signal(signal.SIGKILL)]
    deadline = time.monotonic() + reaped_within
    while any(process.running() for process in killed) and time.monotonic() < deadline:
        time.sleep(0.02)
    return [process.pid for process in killed]
