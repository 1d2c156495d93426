"""Summarizer: judges each step (what changed, was the action right) off the critical path.

The episode asks it about step t and moves straight on to step t+1; the
summary is recorded against step t whenever it arrives.
"""

from __future__ import annotations

from typing import Any, Protocol

from protocols import ChangeSummary, Summarize, Summarized
from runtime.actor import Actor
from runtime.capacity import Capacity
from runtime.errors import Refused

NAME = "summarizer"


class Judge(Protocol):
    async def summarize(self, request: Summarize) -> ChangeSummary: ...


class Summarizer(Actor):
    def __init__(self, judge: Judge, *, capacity: Capacity | None = None, name: str = NAME) -> None:
        super().__init__(name)
        self.judge = judge
        self.capacity = capacity or Capacity.unlimited(name)

    async def handle(self, message: Any) -> Any:
        if not isinstance(message, Summarize):
            raise Refused(f"Summarizer does not handle {type(message).__name__}")
        async with self.capacity.slot():
            return Summarized(summary=await self.judge.summarize(message))
