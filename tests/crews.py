"""The crews tests run episodes with (an Agent over a policy, an Evaluator over a checker and,
when the test wants change summaries, a Summarizer over a judge), and runners of them on nodes."""

from __future__ import annotations

import functools
from typing import Any, Callable

from actors.agent import Agent
from actors.episode import Outlets
from actors.evaluator import Evaluator
from actors.runner import CrewFactory, EpisodeRunner
from actors.summarizer import Summarizer
from bench.suites.sim.agent import SimJudge, SimPolicy
from bench.suites.sim.checker import SimChecker
from runtime.events import EventBus
from runtime.limits import Limits
from runtime.remote import run_local_node


def crew(policy: Callable[[], Any], checker: Callable[[], Any], judge: Callable[[], Any] | None = None) -> CrewFactory:
    """Each argument makes a fresh one when a worker's crew starts or restarts: a class, or
    `lambda: one` for an instance every crew shares."""
    return CrewFactory(agent=lambda: Agent(policy()), evaluator=lambda: Evaluator(checker()),
                       summarizer=None if judge is None else lambda: Summarizer(judge()))


def sim_crew(*, summaries: bool = True) -> CrewFactory:
    """The sim suite's scripted policy and checker, and its judge unless `summaries` is False."""
    return crew(SimPolicy, SimChecker, SimJudge if summaries else None)


def node_runner(crew: CrewFactory, app: str, bus: EventBus | None = None, *, call_seconds: float,
                ready_timeout: float = 60, **overrides: Any) -> EpisodeRunner:
    """An EpisodeRunner of two workers whose VM slots are node processes hosting `app` (a
    `module:function` node app), publishing on `bus`; `overrides` are the runner's own settings."""
    settings = dict(crew=crew, vm_slot=functools.partial(run_local_node, app, ready_timeout=ready_timeout),
                    limits=Limits(call_seconds=call_seconds), concurrency=2, outlets=Outlets(bus=bus))
    return EpisodeRunner(**{**settings, **overrides})
