"""Stalls: spans in which this process did not run (stopped, suspended, starved), and the time
limits they must not count against.

A limit measures an actor or a VM; when the process that keeps the time is
itself not running (SIGSTOP, a laptop lid, a VM migration, a starved
container) the limit still passes on the monotonic clock, and a reply that
was on time would be filed as late. The loop's deadline keeper
(`runtime.loop`) wakes at least every `HEARTBEAT` seconds while deadlines are
pending, so a wake-up more than `STALL_SECONDS` later than planned is a stall
of about that length: the keeper moves every pending deadline later by it
before any waiter sees the time that passed; the calls' deadlines and the
time limits' (`runtime.loop.cancel_scope_at`) are all in its heap. Each
stall is recorded (`seen`) for the run folder to say.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

__all__ = ["HEARTBEAT", "STALL_SECONDS", "Stall", "record", "seen"]

HEARTBEAT = 0.25
"""The longest the deadline keeper sleeps while deadlines are pending: the error of a stall's measure."""
STALL_SECONDS = 1.0
"""A wake-up this much later than planned is a stall, not scheduling noise."""


@dataclass(frozen=True)
class Stall:
    ended: float
    """Wall-clock time (time.time()) the process ran again."""
    seconds: float


_seen: list[Stall] = []


def seen() -> tuple[Stall, ...]:
    """Every stall this process has recorded, oldest first."""
    return tuple(_seen)


def record(seconds: float) -> None:
    """A stall of `seconds` just ended."""
    _seen.append(Stall(time.time(), seconds))
