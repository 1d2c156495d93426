"""Many episodes through supervised VM slots: retries, environment errors, escalation."""

import functools
from collections import Counter

import pytest

from actors.agent import Agent
from actors.evaluator import Evaluator
from actors.runner import CrewFactory, EpisodeRunner
from actors.sim.checker import SimChecker
from actors.sim.llm import SimJudge, SimPolicy
from actors.sim.node import build
from actors.summarizer import Summarizer
from bench.suites.sim import sim_tasks
from protocols import ErrorKind
from runtime.host import run_local_host
from runtime.limits import Limits
from runtime.supervisor import Intensity

pytestmark = pytest.mark.anyio



def runner(**overrides):
    settings = dict(
        crew=CrewFactory(agent=lambda: Agent(SimPolicy()), evaluator=lambda: Evaluator(SimChecker()),
                         summarizer=lambda: Summarizer(SimJudge())),
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
