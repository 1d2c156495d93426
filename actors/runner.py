"""Many episodes at once: workers, each with its own crew and a supervised VM slot.

Each of `concurrency` workers takes tasks from a shared queue. A worker owns
two supervisors: one for its crew (Agent, Summarizer, Evaluator), one for its
VM slot (a host of VMController and Observer: in-process, or a node process).
When an episode fails on the VM side, the slot is recycled and the episode
retried on the fresh VM, up to `max_attempts`; after that, or when the slot's
restart intensity is exceeded, the episode is recorded as an environment
error. Every task yields exactly one result.

The error analysis of a finished episode runs as a side task of the worker,
overlapping the reset of its next episode.
"""

from __future__ import annotations

import inspect
import logging
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Mapping, Protocol, Sequence

import anyio
from anyio.abc import TaskStatus

from protocols import Analyze, Analyzed, EpisodeFinished, EpisodeResult, ErrorKind, Task
from runtime.actor import Actor, Ref
from runtime.limits import Limits
from runtime.errors import ActorError, ActorStopped, first_error
from runtime.loop import start, task_group
from runtime.supervisor import ChildSpec, Intensity, RestartIntensityExceeded, Supervisor, actor_child

from actors import agent, evaluator, observer, summarizer, vm_controller
from actors.episode import Crew, EnvironmentFailure, EpisodeOutcome, Outlets, StepReference, run_episode
from actors.errors import ConfigError
from actors.run_folder import episode_name

logger = logging.getLogger(__name__)

VM_SLOT = "vm"


class VMHost(Protocol):
    """What a started VM slot hands out: its actors (VMController, Observer) by name."""

    def ref(self, name: str, /) -> Ref: ...


class VMSlot(Protocol):
    """Starts one VM and runs it: a supervisor child start function.

    Called with `task_status=` only; calls `task_status.started(host)` once
    the VM's actors are up, then runs until cancelled. Raising is a crash:
    the slot's supervisor starts it again (a fresh VM), unless the error is a
    `ConfigError`, which stops the run. Ready-made:
    `functools.partial(run_local_host, build)` (in this process),
    `functools.partial(run_local_node, app)` (a node process),
    `functools.partial(connect_node, url, token)` (a node already running),
    `functools.partial(connect_seat, url, token, seat)` (a seat of a running node
    started with `--seats N`; `runtime.seats.seat_slots` makes one per seat).
    """

    def __call__(self, *, task_status: TaskStatus[VMHost]) -> Awaitable[None]: ...


@dataclass(frozen=True)
class CrewFactory:
    """Builds a worker's non-VM actors; each call gives fresh ones (restarts)."""

    agent: Callable[[], Actor]
    evaluator: Callable[[], Actor]
    summarizer: Callable[[], Actor] | None = None
    reference: StepReference | None = None
    """How the suite knows the right action of a live step (`Crew.reference`); not an actor."""

    def children(self) -> list[ChildSpec]:
        specs = [actor_child(agent.NAME, self.agent), actor_child(evaluator.NAME, self.evaluator)]
        if self.summarizer is not None:
            specs.append(actor_child(summarizer.NAME, self.summarizer))
        return specs


@dataclass
class EpisodeRunner:
    """`vm_slot` is one `VMSlot` for every worker, or a sequence of them, one per
    worker (nodes already running elsewhere); then `concurrency` is the sequence's length.

    `run` raises `ConfigError` before any episode when a slot cannot
    work whatever the retries: one that is not a VMSlot, or whose start raises
    ConfigError (a backend that cannot run on this event loop)."""

    crew: CrewFactory
    vm_slot: VMSlot | Sequence[VMSlot]
    limits: Limits = Limits()
    concurrency: int = 1
    max_attempts: int = 3
    vm_intensity: Intensity = Intensity(max_restarts=5, within_seconds=30.0)
    outlets: Outlets = Outlets()
    results: list[EpisodeResult] = field(default_factory=list)
    on_result: Callable[[EpisodeResult], None] | None = None
    earlier_attempts: Mapping[tuple[str, int], int] = field(default_factory=dict)
    """Attempts an episode (task id, repeat) already had in the run folder (an episode run again on
    resume): its attempts go on from there, so the earlier attempt's episode folder is kept, not
    overwritten."""

    async def run(self, tasks: Sequence[Task]) -> list[EpisodeResult]:
        slots = self.vm_slot if isinstance(self.vm_slot, Sequence) else [self.vm_slot] * self.concurrency
        for slot in slots:
            _check_slot(slot)
        send, receive = anyio.create_memory_object_stream[Task](len(tasks) or 1)
        for task in tasks:
            send.send_nowait(task)
        send.close()
        stop = _RunStop()
        with stop.scope:
            async with receive, task_group() as tg:
                for index, slot in enumerate(slots[: max(1, len(tasks))]):
                    tg.start_soon(self._worker, index, stop.guard(slot), receive.clone())
        if stop.error is not None:
            raise stop.error
        return self.results

    async def _worker(self, index: int, vm_slot: VMSlot, queue) -> None:
        children = self.crew.children()
        crew_supervisor = Supervisor(children, name=f"crew-{index}")
        async with queue, task_group() as tg:
            await start(tg, crew_supervisor.run)
            refs = {child.id: crew_supervisor.ref(child.id) for child in children}
            async with task_group() as finishing:
                worker = _Worker(self, index, vm_slot, refs, finishing)
                await worker.serve(queue)
            await crew_supervisor.stop()  # rather than cancelling tg: no cancellation to deliver through it

    def _record(self, result: EpisodeResult) -> None:
        self.results.append(result)
        if self.on_result is not None:
            self.on_result(result)


def _check_slot(slot: Any) -> None:
    if not callable(slot):
        raise ConfigError(f"vm_slot must be a VMSlot (a start function), got {type(slot).__name__}")


async def _start_slot(slot: VMSlot, task_status: TaskStatus[VMHost]) -> None:
    """Run `slot`; the ways it can fail to be a VMSlot at all are ConfigErrors."""
    name = getattr(slot, "__qualname__", None) or repr(slot)
    try:
        started = slot(task_status=task_status)
    except TypeError as exc:
        raise ConfigError(f"vm_slot {name} cannot be called as a VMSlot ({exc}); "
                                 "pass a start function such as functools.partial(run_local_host, build)") from None
    if not inspect.isawaitable(started):
        raise ConfigError(f"vm_slot {name} returned {type(started).__name__}, not an awaitable: "
                                 "a VMSlot is an async function")
    await started


class _RunStop:
    """Stops the whole run on the first ConfigError any slot raises, and keeps it for `run` to raise."""

    def __init__(self) -> None:
        self.scope = anyio.CancelScope()  # around the workers
        self.error: ConfigError | None = None

    def guard(self, slot: VMSlot) -> VMSlot:
        async def start(*, task_status: TaskStatus[VMHost]) -> None:
            try:
                await _start_slot(slot, task_status)
                return
            except* ConfigError as group:
                self._stop(group.exceptions[0])
            # Not a crash for the slot's supervisor to log and restart: wait for the run's cancellation.
            await anyio.sleep_forever()

        return start

    def _stop(self, error: ConfigError) -> None:
        if self.error is None:
            self.error = error
        self.scope.cancel()


class _SlotExhausted(Exception):
    """The VM slot's supervisor gave up; the worker builds a new slot."""


async def _from_slot(call: Awaitable[Any]) -> Any:
    """Await a call on the slot supervisor; its escalation (seen here, or as its
    having stopped because `run` escalated first) means the slot is exhausted."""
    try:
        return await call
    except (RestartIntensityExceeded, ActorStopped) as exc:
        raise _SlotExhausted(str(exc)) from exc


class _Worker:
    def __init__(self, runner: EpisodeRunner, index: int, vm_slot: VMSlot, refs: dict[str, Ref],
                 finishing) -> None:
        self.runner = runner
        self.index = index
        self.vm_slot = vm_slot
        self.refs = refs
        self.finishing = finishing
        self.in_flight: Task | None = None
        self.attempt = 0

    async def serve(self, queue) -> None:
        """Run tasks from `queue` until it is empty, rebuilding the VM slot whenever it escalates."""
        while True:
            slot = Supervisor(
                [ChildSpec(VM_SLOT, self.vm_slot)],
                intensity=self.runner.vm_intensity, name=f"vm-slot-{self.index}",
            )
            try:
                async with task_group() as tg:
                    await start(tg, slot.run)
                    await self._serve_slot(queue, slot)
                    await slot.stop()
                return
            except* (RestartIntensityExceeded, _SlotExhausted) as group:
                escalations, _ = group.split(RestartIntensityExceeded)
                reason = f"VM restart intensity exceeded: {first_error(escalations or group)}"
            logger.error("worker %d: %s", self.index, reason)
            if self.in_flight is not None:
                self._give_up(self.in_flight, self.attempt, reason)
                continue
            # The slot failed before it could take a task (a node that cannot be
            # reached): charge the next task with it, so every escalation makes progress.
            try:
                task = queue.receive_nowait()
            except (anyio.EndOfStream, anyio.WouldBlock):
                return
            self._give_up(task, self.runner.earlier_attempts.get((task.task_id, task.repeat), 0) + 1, reason)

    async def _serve_slot(self, queue, slot: Supervisor) -> None:
        async for task in queue:
            self.in_flight = task
            await self._attempts(task, slot)
            self.in_flight = None

    async def _attempts(self, task: Task, slot: Supervisor) -> None:
        reason = ""
        before = self.runner.earlier_attempts.get((task.task_id, task.repeat), 0)
        for attempt in range(before + 1, before + self.runner.max_attempts + 1):
            self.attempt = attempt
            host = await _from_slot(slot.handle(VM_SLOT))
            crew = Crew(
                vm=host.ref(vm_controller.NAME), observer=host.ref(observer.NAME),
                agent=self.refs[agent.NAME], evaluator=self.refs[evaluator.NAME],
                summarizer=self.refs.get(summarizer.NAME), outlets=self.runner.outlets,
                reference=self.runner.crew.reference,
            )
            episode_id = episode_name(task.task_id, task.repeat, attempt)
            try:
                outcome = await run_episode(task, crew, self.runner.limits, episode_id=episode_id, attempt=attempt)
            except EnvironmentFailure as exc:
                reason = str(exc)
                logger.warning("worker %d: %s attempt %d: %s", self.index, task.task_id, attempt, reason)
                await _from_slot(slot.restart(VM_SLOT, reason, if_handle=host))
                continue
            self.finishing.start_soon(self._finish, task, outcome)
            return
        self._give_up(task, self.attempt, f"failed on {self.runner.max_attempts} VMs: {reason}")

    def _give_up(self, task: Task, attempts: int, reason: str) -> None:
        result = EpisodeResult(
            episode_id=episode_name(task.task_id, task.repeat, attempts), task_id=task.task_id, domain=task.domain,
            attempt=attempts, repeat=task.repeat, error_kind=ErrorKind.ENVIRONMENT, reason=reason,
        )
        self.in_flight = None
        self.finishing.start_soon(self._finish, task, EpisodeOutcome(result=result, steps=(), final=None))

    async def _finish(self, task: Task, outcome: EpisodeOutcome) -> None:
        analysis = None
        try:
            reply: Analyzed = await self.refs[evaluator.NAME].ask(
                Analyze(task=task, result=outcome.result, steps=outcome.steps, final=outcome.final),
                timeout=self.runner.limits.call_seconds,
            )
            analysis = reply.analysis
        except ActorError as exc:
            logger.warning("episode %s: no analysis: %s", outcome.result.episode_id, exc)
        self.runner._record(outcome.result)
        await self.runner.outlets.emit(EpisodeFinished(result=outcome.result, analysis=analysis))
