"""One episode, as time flows: reset, then observe → decide → act, until done or a limit.

The critical path of a step is Agent + act + observe (screenshot and tree
captured together by the Observer). The Summarizer's judgement of step t is
asked without waiting (`actors.step_summaries`, the steps' requests in turn)
and runs while the Agent already decides step t+1; records go to the ResultSink
and the event bus by `tell`/`publish`, which return at once. A summary is
published when it arrives, and told to the ResultSink with the next record
(the task it arrives in must not wait on the sink's mailbox).

Each step is recorded with the action it is scored against, where that is
known: a replayed recording's (`Observation.reference`), or what the suite
knows is right on this screen (`Crew.reference`); step and grounding
accuracy follow from it, whoever chose the action.

A failure on the VM side (crash, hang, lost node) raises
`EnvironmentFailure`: the episode cannot be judged, and whoever runs it
retries on a fresh VM. A limit (steps, wall time, an Agent call timeout)
ends the steps with its reason recorded, and the episode is still evaluated.
"""

from __future__ import annotations

import itertools
import traceback
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import msgspec

from protocols import (
    Act, Acted, Action, ChangeSummary, Decide, Decision, EpisodeResult, EpisodeStarted, EpisodeTimings,
    ErrorKind, Evaluate, Inspect, Inspected, ModelCall, ModelCalled, Observation, Observe, Observed, Reset,
    StepRecord, StepSummarized, StepTaken, StepTimings, Summarize, Task, TaskAdopted, Verdict,
)
from runtime.actor import Ref
from runtime.errors import ActorError, CallTimeout, LimitExceeded, TroupeError
from runtime.events import EventBus
from runtime.limits import Limits, StepLimit
from runtime.loop import TaskGroup, cancel_scope, loop_clock, task_group

from actors.screen_change import screen_changed
from actors.step_summaries import StepSummaries


class EnvironmentFailure(TroupeError):
    """The VM side failed; the episode must be retried on a fresh VM."""


class ModelServiceFailed(TroupeError):
    """The Agent's model service failed (its `Decision.model_error`): the episode ends at once,
    unevaluated, as a `model_service` error, to be run again rather than blamed on the agent."""


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
        self.publish(event)
        await self.record(event)

    def publish(self, event: Any) -> None:
        """To the event bus only: returns at once, whatever task calls it."""
        if self.bus is not None:
            self.bus.publish(event)

    async def record(self, event: Any) -> None:
        """To the ResultSink only (waits while its mailbox is full)."""
        if self.sink is not None:
            await self.sink.tell(event)


StepReference = Callable[[Task, Observation, Sequence[StepRecord]], "Action | None"]
"""What a suite knows is the right action on a live screen, from the task, the screen and the steps
before it; None where it does not know. Called once a step, on the episode's critical path: cheap."""


@dataclass
class Crew:
    """The actors one episode talks to, where its events go, and how its steps are scored."""

    vm: Ref
    observer: Ref
    agent: Ref
    evaluator: Ref
    summarizer: Ref | None = None
    outlets: Outlets = Outlets()
    reference: StepReference | None = None


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
        self.ended_trace = ""
        self.model_error = ""
        self.latest: Observation | None = None  # the screen after the last step taken, however the steps end
        self.unrecorded: deque[StepSummarized | ModelCalled] = deque()  # published, not yet told to the ResultSink

    async def run(self) -> EpisodeOutcome:
        started = self.now()
        await self.crew.outlets.emit(EpisodeStarted(
            episode_id=self.episode_id, task_id=self.task.task_id, attempt=self.attempt, at=started, task=self.task,
            repeat=self.task.repeat,
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
                summaries = self._summaries(group)
                try:
                    try:
                        self.latest = observation
                        with self.limits.time.enforce():
                            await self._steps(observation, summaries)
                    except (LimitExceeded, AgentFailed) as exc:
                        self.ended_by, self.ended_trace = str(exc), root_trace(exc)
                    except ModelServiceFailed as exc:
                        self.model_error = str(exc)
                    observation = self.latest
                    if summaries is not None:
                        await summaries.finish()
                except EnvironmentFailure as exc:
                    failure = exc  # raised bare below, not wrapped in the summaries' group
                    summarizing.cancel()
                finally:
                    if summaries is not None:
                        summaries.abandon()
        await self._record_summaries()
        if failure is not None:
            raise failure
        steps_done = self.now()

        if self.model_error:
            verdict, error_kind = Verdict(success=False, reason=self.model_error), ErrorKind.MODEL_SERVICE
        else:
            verdict, error_kind = await self._evaluate(observation)
        finished = self.now()
        records = self._history()
        result = EpisodeResult(
            episode_id=self.episode_id,
            task_id=self.task.task_id,
            domain=self.task.domain,
            attempt=self.attempt,
            repeat=self.task.repeat,
            success=verdict.success,
            score=verdict.score,
            steps=len(records),
            error_kind=error_kind,
            reason=self._reason(verdict),
            traceback=self.ended_trace,
            timings=EpisodeTimings(
                reset=reset_done - started, steps=steps_done - reset_done,
                evaluate=finished - steps_done, total=finished - started,
            ),
            input_tokens=sum(r.input_tokens for r in records),
            output_tokens=sum(r.output_tokens for r in records),
            cost=sum(r.cost for r in records),
        )
        return EpisodeOutcome(result=result, steps=records, final=observation)

    async def _steps(self, observation: Observation, summaries: StepSummaries | None) -> None:
        """Step from `observation` until the agent ends the episode or the environment does (a limit or a
        failure raises); `self.latest` follows the screen."""
        step_limit = StepLimit(self.limits.max_steps)
        for step in itertools.count(1):
            step_limit.check(step - 1)
            began = self.now()
            decision = await self._decide(step, observation)
            if decision.model_error or decision.agent_error:
                if decision.calls:
                    await self.crew.outlets.emit(ModelCalled(episode_id=self.episode_id, calls=decision.calls))
                if decision.agent_error:
                    raise AgentFailed(f"{self.crew.agent.name}: {decision.agent_error}")
                raise ModelServiceFailed(f"model service error: {decision.model_error}")
            decided = self.now()
            reference = self._reference(observation)
            if decision.action.terminal:
                await self._record(StepRecord(
                    episode_id=self.episode_id, step=step, action=decision.action,
                    reasoning=decision.reasoning, reference=reference, started_at=began,
                    timings=StepTimings(agent=decided - began, total=decided - began), **_spend(decision),
                ), observation, observation, decision.calls)
                return
            acted: Acted = await self._vm(self.crew.vm, Act(step=step, action=decision.action))
            act_done = self.now()
            after = await self._observe(step)
            done = self.now()
            await self._record(StepRecord(
                episode_id=self.episode_id, step=step, action=decision.action, reasoning=decision.reasoning,
                error=acted.error, changed=screen_changed(observation, after, decision.action), started_at=began,
                reference=reference,
                timings=StepTimings(
                    agent=decided - began, act=act_done - decided, observe=done - act_done,
                    screenshot=after.timings.screenshot, tree=after.timings.tree, total=done - began,
                    settle=acted.settle,
                ), **_spend(decision),
            ), after, observation, decision.calls)
            if summaries is not None:
                summaries.ask(self._summary_request(step, decision, observation, after))
            observation = self.latest = after
            if acted.ended:
                self.ended_by = acted.ended
                return

    def _reference(self, observation: Observation) -> Action | None:
        """The action the step on `observation` is scored against: the recording's, else the suite's."""
        if observation.reference is not None or self.crew.reference is None:
            return observation.reference
        return self.crew.reference(self.task, observation, self.records)

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

    async def _record(self, record: StepRecord, after: Observation, before: Observation,
                      calls: tuple[ModelCall, ...]) -> None:
        self.records.append(record)
        self.history.append(record)
        if self.unrecorded:
            await self._record_summaries()
        await self.crew.outlets.emit(StepTaken(record=record, screenshot=after.screenshot, before=before, calls=calls))

    def _summaries(self, group: TaskGroup) -> StepSummaries | None:
        if self.crew.summarizer is None:
            return None
        return StepSummaries(self.crew.summarizer, group, self.limits.call_seconds,
                             episode_id=self.episode_id, answered=self._summarized, spent=self._unsummarized)

    def _summarized(self, step: int, summary: ChangeSummary) -> None:
        """Step `step`'s summary has arrived (in the Summarizer's task): into the history, out to the bus
        (its model calls apart, for the transcript)."""
        calls, summary = summary.calls, msgspec.structs.replace(summary, calls=())
        self.summaries[step] = summary
        self.history[step - 1] = msgspec.structs.replace(self.history[step - 1], summary=summary)
        self._later(StepSummarized(episode_id=self.episode_id, summary=summary, calls=calls))

    def _unsummarized(self, calls: tuple[ModelCall, ...]) -> None:
        """The model calls of a summary that failed or came too late (in the Summarizer's task): for the
        transcript."""
        if calls:
            self._later(ModelCalled(episode_id=self.episode_id, calls=calls))

    def _later(self, event: StepSummarized | ModelCalled) -> None:
        """Out to the bus now, to the ResultSink with the next step's record (this must not block)."""
        self.crew.outlets.publish(event)
        if self.crew.outlets.sink is not None:
            self.unrecorded.append(event)

    async def _record_summaries(self) -> None:
        """Tell the ResultSink the summaries (and failed summaries' calls) that arrived since the last record."""
        while self.unrecorded:
            await self.crew.outlets.record(self.unrecorded.popleft())

    def _summary_request(self, step: int, decision: Decision, before: Observation, after: Observation) -> Summarize:
        return Summarize(
            task=self.task, episode_id=self.episode_id, step=step, action=decision.action,
            reasoning=decision.reasoning, before=before, after=after,
            earlier=tuple(self.summaries[s] for s in sorted(self.summaries)),
        )

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


def root_trace(exc: BaseException, limit: int = 20_000) -> str:
    """The traceback of the first cause of `exc` (what the agent's code raised, under the refusal
    and the failure that carried it here), at most `limit` characters; "" when nothing caused it."""
    root = exc
    while root.__cause__ is not None:
        root = root.__cause__
    if root is exc:
        return ""
    return "".join(traceback.format_exception(root))[-limit:]


def _spend(decision: Decision) -> dict[str, Any]:
    """The step's share of tokens and cost, from the Agent's reply."""
    usage = decision.usage
    return {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens, "cost": usage.cost}
