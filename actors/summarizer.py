"""Summarizer: judges each step (what changed, was the action right) off the critical path.

The episode asks it about step t and moves straight on to step t+1; the
summary is recorded against step t whenever it arrives. A judge that fails
costs that one summary (see `actors.answers`), never the episode; one whose
model gave no usable judgement, or whose model service failed, answers with
no summary, saying why, and the calls that tried go to the transcript.
"""

from __future__ import annotations

from typing import Any, Protocol

from protocols import ChangeSummary, Summarize, Summarized
from runtime.actor import Actor
from runtime.errors import Refused

from actors.answers import answer
from actors.errors import ModelServiceError, NoAnswer

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
        try:
            return Summarized(summary=await answer("judge", self._judged(message), ChangeSummary))
        except NoAnswer as exc:
            return Summarized(error=str(exc), calls=exc.calls)

    async def _judged(self, request: Summarize) -> ChangeSummary:
        try:
            return await self.judge.summarize(request)
        except ModelServiceError as exc:
            raise NoAnswer(f"model service error: {type(exc).__name__}: {exc}", exc.calls) from exc
