"""A shared capacity limit for costly resources (LLM calls, VM slots).

Every actor of a run that spends the resource borrows from the same
`Capacity`, so a run with 64 episodes still makes at most N LLM calls at once.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import AsyncIterator

import math

import anyio

__all__ = ["Capacity"]


class Capacity:
    def __init__(self, name: str, total: float) -> None:
        if total < 1:
            raise ValueError(f"capacity {name!r} needs at least 1 slot, got {total}")
        self.name = name
        self._limiter = anyio.CapacityLimiter(total)
        self.peak = 0

    @classmethod
    def unlimited(cls, name: str) -> Capacity:
        """For an actor run on its own: the same code path, no limit."""
        return cls(name, math.inf)

    @property
    def total(self) -> float:
        return self._limiter.total_tokens

    @property
    def in_use(self) -> int:
        return self._limiter.borrowed_tokens

    @property
    def waiting(self) -> int:
        return self._limiter.statistics().tasks_waiting

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold one unit for the duration of the block; waits when all are in use."""
        async with self._limiter:
            self.peak = max(self.peak, self._limiter.borrowed_tokens)
            yield
