"""Summarizer: judges each step (what changed, was the action right) off the critical path.

The episode asks it about step t and moves straight on to step t+1; the
summary is recorded against step t whenever it arrives. A judge that fails
costs that one summary (see `actors.answers`), never the episode.
"""

from __future__ import annotations

from typing import Any, Protocol

from protocols import ChangeSummary, Summarize, Summarized
from runtime.actor import Actor
from runtime.errors import Refused

from actors.answers import answer

NAME = "summarizer"


class Judge(Protocol):
    async def summarize(self, request: Summarize) -> ChangeSummary: ...


class Summarizer(Actor):
    def __init__(self, judge: Judge, *, name: str = NAME) -> None:
        super().__init__(name)
        self.judge = judge

    async def handle(self, message: Any) -> Any:
        if not isinstance(message, Summarize):
            raise Refused(f"Summarizer does not handle {type(message).__name__}")
        return Summarized(summary=await answer("judge", self.judge.summarize(message), ChangeSummary))
