"""One episode, as time flows: reset, then observe → decide → act, until done or a limit.

The critical path of a step is Agent + act + observe (screenshot and tree
captured together by the Observer). The Summarizer's judgement of step t is
asked by a side task (one per episode, the steps' requests in turn) and runs
while the Agent already decides step t+1; records go to the ResultSink and the event bus by `tell`/`publish`, which
return at once.

A failure on the VM side (crash, hang, lost node) raises
`EnvironmentFailure`: the episode cannot be judged, and whoever runs it
retries on a fresh VM. A limit (steps, wall time, an Agent call timeout)
ends the steps with its reason recorded, and the episode is still evaluated.
"""

from __future__ import annotations

import functools
import itertools
import logging
from collections import deque
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

import anyio
import msgspec

from protocols import (
    Act, Acted, ChangeSummary, Decide, Decision, EpisodeResult, EpisodeStarted, EpisodeTimings,
    ErrorKind, Evaluate, Inspect, Inspected, Observation, Observe, Observed, Reset,
    StepRecord, StepSummarized, StepTaken, StepTimings, Summarize, Summarized, Task, TaskAdopted, Verdict,
)
from runtime.actor import Ref
from runtime.errors import ActorError, CallTimeout, LimitExceeded, TroupeError
from runtime.events import EventBus
from runtime.limits import Limits, StepLimit
from runtime.loop import TaskGroup, Waiter, cancel_scope, loop_clock, task_group, wakeup_factory

from actors.screen_change import screen_changed

logger = logging.getLogger(__name__)


class EnvironmentFailure(TroupeError):
    """The VM side failed; the episode must be retried on a fresh VM."""


class AgentFailed(TroupeError):
    """The Agent could not decide (its policy failed, or the actor crashed):
    the episode ends with an agent error, the reason recorded, and is still evaluated."""


@dataclass(frozen=True)
class Outlets:
    """Where events go: the event bus (viewers; a slow one loses old events)
    and the ResultSink (told, so nothing is ever dropped). Both optional."""

    sink: Ref | None = None
    bus: EventBus | None = None

    async def emit(self, event: Any) -> None:
        if self.bus is not None:
            self.bus.publish(event)
        if self.sink is not None:
            await self.sink.tell(event)


@dataclass
class Crew:
    """The actors one episode talks to, and where its events go."""

    vm: Ref
    observer: Ref
    agent: Ref
    evaluator: Ref
    summarizer: Ref | None = None
    outlets: Outlets = Outlets()


@dataclass(frozen=True)
class EpisodeOutcome:
    result: EpisodeResult
    steps: tuple[StepRecord, ...]
    final: Observation | None


async def run_episode(task: Task, crew: Crew, limits: Limits, *, episode_id: str, attempt: int = 1) -> EpisodeOutcome:
    return await _Episode(task, crew, limits, episode_id, attempt).run()


class _Episode:
    def __init__(self, task: Task, crew: Crew, limits: Limits, episode_id: str, attempt: int) -> None:
        self.task = task
        self.crew = crew
        self.limits = limits
        self.episode_id = episode_id
        self.attempt = attempt
        self.records: list[StepRecord] = []
        self.summaries: dict[int, ChangeSummary] = {}
        # The records again, each with its change summary once that has arrived:
        # kept up to date as summaries come, not rebuilt for every Decide.
        self.history: list[StepRecord] = []
        self.now = loop_clock()  # anyio.current_time(), without finding the loop again at each call
        self.ended_by = ""

    async def run(self) -> EpisodeOutcome:
        started = self.now()
        await self.crew.outlets.emit(EpisodeStarted(
            episode_id=self.episode_id, task_id=self.task.task_id, attempt=self.attempt, at=started, task=self.task,
        ))
        await self._vm(self.crew.vm, Reset(task=self.task, episode_id=self.episode_id, attempt=self.attempt))
        observation = await self._observe(0)
        if observation.instruction and observation.instruction != self.task.instruction:
            # The environment generated the goal at reset (a page that draws its task from a seed).
            self.task = msgspec.structs.replace(self.task, instruction=observation.instruction)
            await self.crew.outlets.emit(TaskAdopted(episode_id=self.episode_id, task=self.task))
        reset_done = self.now()

        failure: EnvironmentFailure | None = None
        with cancel_scope() as summarizing:
            async with task_group() as group:
                summaries = _InTurn(group)
                try:
                    with self.limits.time.enforce():
                        observation = await self._steps(observation, summaries)
                except (LimitExceeded, AgentFailed) as exc:
                    self.ended_by = str(exc)
                except EnvironmentFailure as exc:
                    failure = exc  # raised bare below, not wrapped in the summaries' group
                    summarizing.cancel()
                finally:
                    summaries.close()
        if failure is not None:
            raise failure
        steps_done = self.now()

        verdict, error_kind = await self._evaluate(observation)
        finished = self.now()
        records = self._history()
        result = EpisodeResult(
            episode_id=self.episode_id,
            task_id=self.task.task_id,
            domain=self.task.domain,
            attempt=self.attempt,
            success=verdict.success,
            score=verdict.score,
            steps=len(records),
            error_kind=error_kind,
            reason=self._reason(verdict),
            timings=EpisodeTimings(
                reset=reset_done - started, steps=steps_done - reset_done,
                evaluate=finished - steps_done, total=finished - started,
            ),
            input_tokens=sum(r.input_tokens for r in records),
            output_tokens=sum(r.output_tokens for r in records),
            cost=sum(r.cost for r in records),
        )
        return EpisodeOutcome(result=result, steps=records, final=observation)

    async def _steps(self, observation: Observation, summaries: _InTurn) -> Observation:
        step_limit = StepLimit(self.limits.max_steps)
        for step in itertools.count(1):
            step_limit.check(step - 1)
            began = self.now()
            decision = await self._decide(step, observation)
            decided = self.now()
            if decision.action.terminal:
                await self._record(StepRecord(
                    episode_id=self.episode_id, step=step, action=decision.action,
                    reasoning=decision.reasoning, reference=observation.reference, started_at=began,
                    timings=StepTimings(agent=decided - began, total=decided - began), **_spend(decision),
                ), observation, observation)
                return observation
            acted: Acted = await self._vm(self.crew.vm, Act(step=step, action=decision.action))
            act_done = self.now()
            after = await self._observe(step)
            done = self.now()
            await self._record(StepRecord(
                episode_id=self.episode_id, step=step, action=decision.action, reasoning=decision.reasoning,
                error=acted.error, changed=screen_changed(observation, after, decision.action), started_at=began,
                reference=observation.reference,
                timings=StepTimings(
                    agent=decided - began, act=act_done - decided, observe=done - act_done,
                    screenshot=after.timings.screenshot, tree=after.timings.tree, total=done - began,
                    settle=acted.settle,
                ), **_spend(decision),
            ), after, observation)
            if self.crew.summarizer is not None:
                request = self._summary_request(step, decision, observation, after)
                summaries.add(functools.partial(self._summarize, request, asked=self.now()))
            observation = after
            if acted.ended:
                self.ended_by = acted.ended
                return observation

    def _history(self) -> tuple[StepRecord, ...]:
        """The steps so far, each with its change summary if that has arrived."""
        return tuple(self.history)

    async def _decide(self, step: int, observation: Observation) -> Decision:
        request = Decide(
            task=self.task, episode_id=self.episode_id, step=step, max_steps=self.limits.max_steps,
            observation=observation, history=self._history(),
        )
        try:
            return await self.crew.agent.ask(request, timeout=self.limits.call_seconds)
        except CallTimeout:
            raise  # the call limit, recorded as the limit that ended the episode
        except ActorError as exc:
            raise AgentFailed(str(exc)) from exc

    async def _observe(self, step: int) -> Observation:
        request = Observe(step=step, tree_timeout=self.limits.tree_seconds)
        observed: Observed = await self._vm(self.crew.observer, request)
        return observed.observation

    async def _vm(self, ref: Ref, request: Any) -> Any:
        """Ask a VM-side actor; any failure of it is an environment failure."""
        try:
            return await ref.ask(request, timeout=self.limits.call_seconds)
        except (ActorError, OSError) as exc:
            raise EnvironmentFailure(f"{type(request).__name__} failed: {exc}") from exc

    async def _record(self, record: StepRecord, after: Observation, before: Observation) -> None:
        self.records.append(record)
        self.history.append(record)
        await self.crew.outlets.emit(StepTaken(record=record, screenshot=after.screenshot, before=before))

    def _summary_request(self, step: int, decision: Decision, before: Observation, after: Observation) -> Summarize:
        return Summarize(
            task=self.task, episode_id=self.episode_id, step=step, action=decision.action,
            reasoning=decision.reasoning, before=before, after=after,
            earlier=tuple(self.summaries[s] for s in sorted(self.summaries)),
        )

    async def _summarize(self, request: Summarize, *, asked: float) -> None:
        """Ask for one step's change summary; the call limit counts from when the step asked."""
        assert self.crew.summarizer is not None
        step = request.step
        timeout = max(0.0, asked + self.limits.call_seconds - self.now())
        try:
            reply: Summarized = await self.crew.summarizer.ask(request, timeout=timeout)
        except ActorError as exc:
            logger.warning("episode %s step %d: no change summary: %s", self.episode_id, step, exc)
            return
        summary = msgspec.structs.replace(reply.summary, asked_at=asked, answered_at=self.now())
        self.summaries[step] = summary
        self.history[step - 1] = msgspec.structs.replace(self.history[step - 1], summary=summary)
        await self.crew.outlets.emit(StepSummarized(episode_id=self.episode_id, summary=summary))

    async def _evaluate(self, final: Observation) -> tuple[Verdict, ErrorKind]:
        inspected: Inspected = await self._vm(self.crew.vm, Inspect(spec=self.task.evaluation_spec))
        request = Evaluate(
            task=self.task, episode_id=self.episode_id, steps=tuple(self.records), final=final,
            vm_state=inspected.state, ended_by=self.ended_by,
        )
        try:
            verdict: Verdict = await self.crew.evaluator.ask(request, timeout=self.limits.call_seconds)
        except ActorError as exc:
            return Verdict(success=False, reason=f"evaluation failed: {exc}"), ErrorKind.EVALUATION
        return verdict, ErrorKind.NONE if verdict.success else ErrorKind.AGENT

    def _reason(self, verdict: Verdict) -> str:
        if verdict.success or not self.ended_by:
            return verdict.reason
        return f"{self.ended_by}; {verdict.reason}"


def _spend(decision: Decision) -> dict[str, Any]:
    """The step's share of tokens and cost, from the Agent's reply."""
    usage = decision.usage
    return {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens, "cost": usage.cost}


class _InTurn:
    """Makes calls one after another in one task of `group`, started with the first call.

    For the change summaries of an episode: the Summarizer answers one request
    at a time anyway, and a task per step (its spawn, its cancel scope) was a
    twentieth of the runtime's CPU per step with 1,000 concurrent episodes
    (bench/perf/pipeline). Each request is made and timestamped when its step
    ends, as before; it now waits for its turn here instead of in the
    Summarizer's mailbox."""

    def __init__(self, group: TaskGroup) -> None:
        self._group = group
        self._calls: deque[Callable[[], Awaitable[None]]] = deque()
        self._ready = Waiter(wakeup_factory())  # the task waits for a call, or for the close
        self._running = False
        self._closed = False

    def add(self, call: Callable[[], Awaitable[None]]) -> None:
        self._calls.append(call)
        if not self._running:
            self._running = True
            self._group.start_soon(self._run)
        self._ready.wake()

    def close(self) -> None:
        """No more calls: the task ends once it has made the ones queued."""
        self._closed = True
        self._ready.wake()

    async def _run(self) -> None:
        while True:
            while self._calls:
                await self._calls.popleft()()
            if self._closed:
                return
            await self._ready.wait()
