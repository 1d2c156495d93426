"""Many episodes through supervised VM slots: retries, environment errors, escalation."""

import functools
from collections import Counter

import pytest

from actors.agent import Agent
from actors.errors import ConfigError
from actors.episode import Outlets
from actors.evaluator import Evaluator
from actors.runner import CrewFactory, EpisodeRunner
from bench.suites.sim.checker import SimChecker
from bench.suites.sim.agent import SimPolicy
from actors.backends.browser import node as browser_node
from actors.backends.sim.node import build
from bench.suites.sim.suite import sim_tasks
from protocols import Click, Decision, EpisodeFinished, ErrorKind, Target
from runtime.actor import Actor
from runtime.events import EventBus
from runtime.host import run_local_host
from runtime.limits import Limits
from runtime.supervisor import Intensity
from tests.crews import crew, sim_crew

pytestmark = pytest.mark.anyio



def runner(**overrides):
    settings = dict(
        crew=sim_crew(),
        vm_slot=functools.partial(run_local_host, build),
        limits=Limits(call_seconds=2),
        concurrency=3,
    )
    settings.update(overrides)
    return EpisodeRunner(**settings)


def one_result_per_task(results, tasks):
    assert Counter(r.task_id for r in results) == Counter(t.task_id for t in tasks)


async def test_concurrent_episodes_each_yield_one_successful_result():
    tasks = sim_tasks(7, sim={"scale": 0.001})
    results = await runner().run(tasks)
    one_result_per_task(results, tasks)
    assert all(r.success and r.attempt == 1 for r in results)


async def test_crashed_vm_is_restarted_and_the_episode_retried_on_the_fresh_one():
    tasks = sim_tasks(3, sim={"scale": 0.001, "faults": [{"kind": "crash", "step": 2, "attempts": [1]}]})
    run = runner()
    results = await run.run(tasks)
    one_result_per_task(results, tasks)
    assert all(r.success and r.attempt == 2 for r in results)


async def test_hanging_vm_is_killed_after_the_call_timeout_and_the_episode_retried():
    tasks = sim_tasks(2, sim={"scale": 0.001, "faults": [{"kind": "hang", "step": 1, "attempts": [1]}]})
    results = await runner(limits=Limits(call_seconds=0.2)).run(tasks)
    one_result_per_task(results, tasks)
    assert all(r.success and r.attempt == 2 for r in results)


async def test_vm_failing_on_every_attempt_is_an_environment_error_not_an_agent_failure():
    bad = sim_tasks(1, seed=1, sim={"scale": 0.001, "faults": [{"kind": "crash", "step": 1}]})
    good = sim_tasks(2, seed=2, sim={"scale": 0.001})
    results = await runner(max_attempts=2).run(bad + good)
    one_result_per_task(results, bad + good)
    (failed,) = [r for r in results if r.task_id == bad[0].task_id]
    assert failed.error_kind is ErrorKind.ENVIRONMENT and not failed.success
    assert failed.attempt == 2
    assert failed.reason.startswith("failed on 2 VMs: Act failed:") and "simulated VM crashed at step 1" in failed.reason
    assert all(r.success for r in results if r.task_id != bad[0].task_id)


async def test_exceeded_restart_intensity_escalates_records_the_episode_and_the_run_goes_on():
    bad = sim_tasks(1, seed=1, sim={"scale": 0.001, "faults": [{"kind": "crash", "step": 1}]})
    good = sim_tasks(2, seed=2, sim={"scale": 0.001})
    run = runner(concurrency=1, max_attempts=10, vm_intensity=Intensity(max_restarts=2, within_seconds=60))
    results = await run.run(bad + good)
    one_result_per_task(results, bad + good)
    (failed,) = [r for r in results if r.task_id == bad[0].task_id]
    assert failed.error_kind is ErrorKind.ENVIRONMENT
    assert failed.reason.startswith("VM restart intensity exceeded:")
    assert failed.attempt == 3
    assert all(r.success for r in results if r.task_id != bad[0].task_id)


class WrongType:
    async def decide(self, request):
        return "click"


class Raising:
    async def decide(self, request):
        raise KeyError("no plan for this screen")


class NotAnAction:
    async def decide(self, request):
        return Decision(action={"type": "click"})


class InvalidAction:
    async def decide(self, request):
        return Decision(action=Click(target=Target(node_id=7)))


@pytest.mark.parametrize("policy, reason, trace", [
    (WrongType, "agent: policy returned str, not a Decision", "actors.answers.Returned: 'click'"),
    (Raising, "agent: policy raised KeyError: 'no plan for this screen'",
     'in decide\n    raise KeyError("no plan for this screen")\nKeyError: \'no plan for this screen\''),
    (NotAnAction, "agent: policy returned an invalid Decision: click needs `point` or `target` - at `$.action`",
     "actors.answers.Returned: Decision(action={'type': 'click'}"),
    (InvalidAction, "agent: policy returned an invalid Decision: Expected `str | null`, got `int` - "
                    "at `$.action.target.node_id`", "actors.answers.Returned: Decision(action=Click("),
])
async def test_a_broken_policy_fails_each_episode_as_an_agent_error_and_the_run_goes_on(policy, reason, trace):
    """The episode keeps what went wrong in the policy: its traceback, or what it returned."""
    tasks = sim_tasks(4, sim={"scale": 0.001})
    results = await runner(crew=crew(policy, SimChecker),
                           concurrency=2).run(tasks)
    one_result_per_task(results, tasks)
    for result in results:
        assert result.error_kind is ErrorKind.AGENT and not result.success and result.steps == 0
        assert result.reason.startswith(reason + "; "), result.reason
        assert trace in result.traceback, result.traceback


class RaisingJudge:
    async def summarize(self, request):
        raise RuntimeError("judge bug")


class WrongVerdict:
    async def check(self, request):
        return "looks fine"


class RaisingAnalyst:
    async def analyze(self, request, deterministic):
        raise RuntimeError("analyst bug")


async def test_a_judge_that_always_raises_costs_only_the_summaries():
    tasks = sim_tasks(6, sim={"scale": 0.001})
    results = await runner(crew=crew(SimPolicy, SimChecker, RaisingJudge)).run(tasks)
    one_result_per_task(results, tasks)
    assert all(r.success for r in results)


async def test_a_checker_that_answers_no_verdict_makes_each_episode_an_evaluation_error_and_the_run_goes_on():
    tasks = sim_tasks(6, sim={"scale": 0.001})
    results = await runner(crew=crew(SimPolicy, WrongVerdict)).run(tasks)
    one_result_per_task(results, tasks)
    for result in results:
        assert result.error_kind is ErrorKind.EVALUATION and not result.success
        assert result.reason == "evaluation failed: evaluator: checker returned str, not a Verdict"


async def test_an_analyst_that_raises_leaves_the_deterministic_analysis():
    tasks = sim_tasks(4, sim={"scale": 0.001, "agent_error_rate": 1.0})
    bus = EventBus()
    analysed = CrewFactory(agent=lambda: Agent(SimPolicy()),
                           evaluator=lambda: Evaluator(SimChecker(), analyst=RaisingAnalyst()))
    with bus.subscribe() as events:
        results = await runner(crew=analysed, limits=Limits(max_steps=3, call_seconds=2), outlets=Outlets(bus=bus)).run(tasks)
        bus.close()
        finished = [e async for e in events if isinstance(e, EpisodeFinished)]
    one_result_per_task(results, tasks)
    assert len(finished) == 4 and all(e.analysis is not None and e.analysis.signals for e in finished)


def no_restarts(caplog):
    return not [r for r in caplog.records if "restarting" in r.getMessage() or "failed to start" in r.getMessage()]


class WrongLoop(Actor):
    starts = 0

    async def on_start(self):
        WrongLoop.starts += 1
        raise ConfigError("this backend needs asyncio; host it in a node process")

    async def handle(self, message):
        raise AssertionError("never started")


@pytest.mark.parametrize("slot, message", [
    ("ws://127.0.0.1:1", "vm_slot must be a VMSlot (a start function), got str"),
    (build, "vm_slot build cannot be called as a VMSlot (build() got an unexpected keyword argument 'task_status'); "
            "pass a start function such as functools.partial(run_local_host, build)"),
    (lambda task_status: None, "vm_slot <lambda> returned NoneType, not an awaitable: a VMSlot is an async function"),
])
async def test_a_vm_slot_that_is_not_a_start_function_stops_the_run_before_any_episode(slot, message, caplog):
    run = runner(vm_slot=slot)
    with pytest.raises(ConfigError) as raised:
        await run.run(sim_tasks(3, sim={"scale": 0.001}))
    assert str(raised.value) == message
    assert run.results == [] and no_restarts(caplog)


async def test_a_configuration_error_at_vm_start_stops_the_run_with_one_error_and_no_retries(caplog):
    WrongLoop.starts = 0
    run = runner(vm_slot=functools.partial(run_local_host, lambda: [WrongLoop("vm")]), concurrency=3)
    with pytest.raises(ConfigError, match="^this backend needs asyncio; host it in a node process$"):
        await run.run(sim_tasks(5, sim={"scale": 0.001}))
    assert run.results == [] and no_restarts(caplog)
    assert WrongLoop.starts == 3  # once per worker, never retried


async def test_the_browser_in_process_under_trio_stops_the_run_naming_what_to_change(anyio_backend, caplog):
    if anyio_backend == "asyncio":
        pytest.skip("Playwright runs in-process on asyncio")
    run = runner(vm_slot=functools.partial(run_local_host, browser_node.build))
    with pytest.raises(ConfigError, match="^the browser backend drives Playwright, which needs asyncio, not trio: "
                                                 r"host it in a node process \(--vm node"):
        await run.run(sim_tasks(2, sim={"scale": 0.001}))
    assert run.results == [] and no_restarts(caplog)
