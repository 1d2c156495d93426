"""Running a static benchmark: recorded observations shown to an agent, with no VM.

The `StaticRunner` shows each recorded observation to the agent under test
(teacher forcing: the next step starts from the recorded screen, not from
wherever the agent's action would have led) and the suite's checker scores
its actions against the references. Events go to the same outlets as
interactive runs, so the result sink, the viewer and the report work alike,
and a static run's folder is itself a replayable dataset.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import anyio

from protocols import (
    Decide, Decision, EpisodeFinished, EpisodeResult, EpisodeStarted, EpisodeTimings, ErrorKind, Evaluate,
    StepRecord, StepTaken, StepTimings, Task, Verdict,
)
from runtime.actor import Actor, spawn
from runtime.errors import ActorError
from runtime.limits import CallTimeout

from actors.episode import Outlets
from bench.suites.static import StaticSuite


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
