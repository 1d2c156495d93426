"""Static benchmarks: recorded trajectories scored step by step, with no VM.

A static suite gives, per task, the recorded steps: the observation the
recording agent saw, the action it took (the reference) and the screen after
it. The `StaticRunner` shows each recorded observation to the agent under
test (teacher forcing: the next step starts from the recorded screen, not
from wherever the agent's action would have led) and the suite's checker
scores its actions against the references. Events go to the same outlets as
interactive runs, so the result sink, the viewer and the report work alike,
and a static run's folder is itself a replayable dataset.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass, field
from typing import Callable, Sequence

import anyio

from protocols import (
    Action, Decide, Decision, EpisodeFinished, EpisodeResult, EpisodeStarted, EpisodeTimings, ErrorKind, Evaluate,
    Observation, StepRecord, StepTaken, StepTimings, Task, Verdict,
)
from runtime.actor import Actor, spawn
from runtime.errors import ActorError
from runtime.limits import CallTimeout

from actors.episode import Outlets
from bench.scoring import grounded, step_matches
from bench.suites.base import Suite


@dataclass(frozen=True)
class RecordedStep:
    observation: Observation
    """What the recording agent saw before acting."""
    reference: Action
    after: bytes = b""
    """The recorded screenshot after the reference action."""


class StaticSuite(Suite):
    interactive = False

    @abstractmethod
    def trajectory(self, task: Task) -> list[RecordedStep]:
        """The recorded steps of `task` (blocking: reads files)."""

    def checker(self) -> ReferenceChecker:
        return ReferenceChecker()


class ReferenceChecker:
    """Success when every step matches its reference; the score is the step accuracy."""

    async def check(self, request: Evaluate) -> Verdict:
        viewport = request.final.viewport if request.final else None
        scored = [r for r in request.steps if r.reference is not None]
        if not scored:
            return Verdict(success=False, reason="no reference actions to score against")
        matched = sum(step_matches(r.action, r.reference, viewport) for r in scored)
        hits = [grounded(r.action, r.reference, viewport) for r in scored]
        boxes = [hit for hit in hits if hit is not None]
        reason = f"{matched}/{len(scored)} steps match the reference"
        if boxes:
            reason += f"; {sum(boxes)}/{len(boxes)} pointer actions inside the reference element"
        return Verdict(success=matched == len(scored), score=matched / len(scored), reason=reason)


@dataclass
class StaticRunner:
    """Runs a static suite's tasks, `concurrency` at a time, each worker with its own Agent and Evaluator."""

    suite: StaticSuite
    agent: Callable[[], Actor]
    evaluator: Callable[[], Actor]
    concurrency: int = 1
    call_seconds: float = 60.0
    outlets: Outlets = Outlets()
    on_result: Callable[[EpisodeResult], None] | None = None
    results: list[EpisodeResult] = field(default_factory=list)

    async def run(self, tasks: Sequence[Task]) -> list[EpisodeResult]:
        send, receive = anyio.create_memory_object_stream[Task](len(tasks) or 1)
        for task in tasks:
            send.send_nowait(task)
        send.close()
        async with receive, anyio.create_task_group() as tg:
            for _ in range(min(self.concurrency, len(tasks))):
                tg.start_soon(self._worker, receive.clone())
        return self.results

    async def _worker(self, queue) -> None:
        async with queue, anyio.create_task_group() as tg:
            agent = await spawn(tg, self.agent())
            evaluator = await spawn(tg, self.evaluator())
            async for task in queue:
                result = await self._episode(task, agent, evaluator)
                self.results.append(result)
                if self.on_result is not None:
                    self.on_result(result)
                await self.outlets.emit(EpisodeFinished(result=result))
            tg.cancel_scope.cancel()

    async def _episode(self, task: Task, agent, evaluator) -> EpisodeResult:
        episode_id = f"{task.task_id}#1"
        started = anyio.current_time()
        await self.outlets.emit(EpisodeStarted(episode_id=episode_id, task_id=task.task_id, attempt=1, at=started,
                                               task=task))
        recorded = await anyio.to_thread.run_sync(self.suite.trajectory, task)
        loaded = anyio.current_time()
        records: list[StepRecord] = []
        error = ""
        for number, step in enumerate(recorded, start=1):
            began = anyio.current_time()
            request = Decide(task=task, episode_id=episode_id, step=number, observation=step.observation)
            try:
                decision: Decision = await agent.ask(request, timeout=self.call_seconds)
            except (ActorError, CallTimeout) as exc:
                error = f"agent failed at step {number}: {exc}"
                break
            spent = anyio.current_time() - began
            record = StepRecord(
                episode_id=episode_id, step=number, action=decision.action, reasoning=decision.reasoning,
                reference=step.reference, started_at=began, timings=StepTimings(agent=spent, total=spent),
                input_tokens=decision.usage.input_tokens, output_tokens=decision.usage.output_tokens,
                cost=decision.usage.cost,
            )
            records.append(record)
            await self.outlets.emit(StepTaken(record=record, screenshot=step.after, before=step.observation))
        stepped = anyio.current_time()
        final = recorded[-1].observation if recorded else None
        try:
            verdict: Verdict = await evaluator.ask(
                Evaluate(task=task, episode_id=episode_id, steps=tuple(records), final=final),
                timeout=self.call_seconds)
            kind = ErrorKind.AGENT if error or not verdict.success else ErrorKind.NONE
        except (ActorError, CallTimeout) as exc:
            verdict, kind = Verdict(success=False, reason=f"evaluation failed: {exc}"), ErrorKind.EVALUATION
        finished = anyio.current_time()
        return EpisodeResult(
            episode_id=episode_id, task_id=task.task_id, domain=task.domain, success=verdict.success and not error,
            score=verdict.score, steps=len(records), error_kind=kind,
            reason="; ".join(filter(None, [error, verdict.reason])),
            timings=EpisodeTimings(reset=loaded - started, steps=stepped - loaded, evaluate=finished - stepped,
                                   total=finished - started),
            input_tokens=sum(r.input_tokens for r in records), output_tokens=sum(r.output_tokens for r in records),
            cost=sum(r.cost for r in records),
        )
