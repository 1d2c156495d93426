"""Limits as first-class objects.

A limit is a value that can be passed around, checked, and, when hit, raises
`LimitExceeded` carrying which limit it was. An episode that hits one ends
with that reason recorded and is still evaluated; the limit is never an
anonymous timeout somewhere in the stack.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

import anyio

from runtime.errors import StepLimitExceeded, TimeLimitExceeded
from runtime.loop import cancel_scope_at

__all__ = ["Limits", "StepLimit", "TimeLimit"]


@dataclass(frozen=True)
class StepLimit:
    max_steps: int

    def check(self, steps_taken: int) -> None:
        if steps_taken >= self.max_steps:
            raise StepLimitExceeded(f"step limit of {self.max_steps} reached")


@dataclass(frozen=True)
class TimeLimit:
    """Wall time for a whole block (an episode)."""

    seconds: float

    @contextmanager
    def enforce(self) -> Iterator[None]:
        """Cancel the block after `seconds` (not counting stalls of this process: `runtime.stalls`)
        and raise TimeLimitExceeded in its place."""
        with cancel_scope_at(anyio.current_time() + self.seconds) as scope:
            yield
        if scope.cancelled_caught:
            raise TimeLimitExceeded(f"time limit of {self.seconds:g} s reached")


@dataclass(frozen=True)
class Limits:
    """The limits of one episode: steps, wall time, the timeout of each actor
    call, and how long a tree capture may hold up an observation (the one
    place that says so: every Observe carries it to the Observer)."""

    max_steps: int = 15
    episode_seconds: float = math.inf
    call_seconds: float = math.inf
    tree_seconds: float = 30.0

    @property
    def time(self) -> TimeLimit:
        return TimeLimit(self.episode_seconds)
