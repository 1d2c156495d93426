"""An episode's change summaries: asked of the Summarizer one at a time, in step order, off the critical path.

Step t's request is made when the step ends and waits here for its turn (the
Summarizer answers one request at a time anyway); the episode goes straight on
to step t+1. A request is posted with `ask_soon`: its answer comes back through
a function called in the Summarizer's own task, so nothing of the episode's
waits for it. A task kept to ask in turn, woken at every step and parked on
every reply, would cost ~8% of the runtime's CPU per step on trio
(docs/performance.md). A Ref that cannot take an ask so (a remote one, a
supervised child while it restarts) is asked by a task of the episode's group.

Each request's call limit counts from when its step asked, waiting for its
turn included: a request whose turn comes later is dropped, an answer that
comes later is ignored (as a timed-out ask's would be), and `finish` waits
for an answer no longer than that. A Summarizer that fails costs that one
summary (logged), never the episode; the model calls of an answer that holds
no summary (the judge gave up), or came past its limit, go to `spent`.
"""

from __future__ import annotations

import functools
import logging
from collections import deque
from typing import Callable

import msgspec

from protocols import ChangeSummary, ModelCall, Summarize, Summarized
from runtime.actor import Ref, ask_soon
from runtime.errors import ActorError, CallTimeout
from runtime.loop import TaskGroup, Waiter, loop_clock, wakeup_factory

__all__ = ["StepSummaries"]

logger = logging.getLogger(__name__)


class _Asking:
    """The request posted and not answered yet (told by identity: a late answer to one given up on is ignored)."""

    __slots__ = ("step", "asked", "deadline")

    def __init__(self, step: int, asked: float, deadline: float) -> None:
        self.step = step
        self.asked = asked
        self.deadline = deadline


class StepSummaries:
    """Asks `summarizer` for the summaries of one episode's steps; hands each, timestamped, to
    `answered(step, summary)`, and the model calls of an answer that made no summary to `spent(calls)`.

    Both are called in whichever task brings the answer, the Summarizer's
    as a rule: they must not block."""

    def __init__(self, summarizer: Ref, group: TaskGroup, call_seconds: float, *,
                 episode_id: str, answered: Callable[[int, ChangeSummary], None],
                 spent: Callable[[tuple[ModelCall, ...]], None] = lambda calls: None) -> None:
        self._summarizer = summarizer
        self._group = group  # for the asks a Ref cannot take with `ask_soon`
        self._call_seconds = call_seconds
        self._episode_id = episode_id
        self._answered = answered
        self._spent = spent
        self._now = loop_clock()
        self._waiting: deque[tuple[Summarize, float]] = deque()  # (request, asked), in step order
        self._asking: _Asking | None = None
        self._settled = Waiter(wakeup_factory())  # `finish` waits here for the answer to `_asking`
        self._abandoned = False

    def ask(self, request: Summarize) -> None:
        """Queue the request of a step that has just ended; the call limit counts from now."""
        if self._abandoned:
            return
        self._waiting.append((request, self._now()))
        if self._asking is None:
            self._ask_next()

    async def finish(self) -> None:
        """Return once every request has been answered or has passed its call limit."""
        while (asking := self._asking) is not None:
            if not await self._settled.wait(asking.deadline) and self._asking is asking:
                self._settle(asking, None, self._timed_out())

    def abandon(self) -> None:
        """Ask nothing more and ignore the answer still to come (the episode is over)."""
        self._abandoned = True
        self._waiting.clear()
        self._asking = None

    def _ask_next(self) -> None:
        while self._asking is None and self._waiting:
            request, asked = self._waiting.popleft()
            deadline = asked + self._call_seconds
            if self._now() >= deadline:
                self._missed(request.step, self._timed_out())  # its turn came too late
                continue
            asking = self._asking = _Asking(request.step, asked, deadline)
            if not ask_soon(self._summarizer, request, functools.partial(self._settle, asking)):
                self._group.start_soon(self._ask_waiting, request, asking)

    async def _ask_waiting(self, request: Summarize, asking: _Asking) -> None:
        try:
            reply = await self._summarizer.ask(request, timeout=max(0.0, asking.deadline - self._now()))
        except ActorError as error:
            self._settle(asking, None, error)
        else:
            self._settle(asking, reply, None)

    def _settle(self, asking: _Asking, reply: object, error: BaseException | None) -> None:
        if asking is not self._asking:
            return  # given up on already, or the episode is over
        self._asking = None
        answered_at = self._now()
        if error is None and answered_at > asking.deadline:
            error = self._timed_out()
        try:
            if not isinstance(reply, Summarized):
                self._missed(asking.step, error or TypeError(
                    f"{self._summarizer.name} answered {type(reply).__name__}, not Summarized"))
            elif error is None and reply.summary is not None:
                self._answered(asking.step, msgspec.structs.replace(
                    reply.summary, asked_at=asking.asked, answered_at=answered_at))
            else:
                self._missed(asking.step, error or reply.error)
                self._spent(reply.summary.calls if reply.summary is not None else reply.calls)
        finally:
            self._settled.wake()
            self._ask_next()

    def _timed_out(self) -> CallTimeout:
        return CallTimeout(self._summarizer.name, Summarize.__name__, self._call_seconds)

    def _missed(self, step: int, error: BaseException | str) -> None:
        logger.warning("episode %s step %d: no change summary: %s", self._episode_id, step, error)
