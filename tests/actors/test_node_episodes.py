"""Episodes on VMs hosted in node processes: a node killed with SIGKILL is restarted
and its episode retried on the fresh node."""

from collections import Counter

import pytest

from bench.suites.sim.suite import sim_tasks
from protocols import ErrorKind
from runtime.events import EventBus
from tests.faults import descendants, run_killing_after_first_step
from tests.crews import node_runner, sim_crew

pytestmark = pytest.mark.anyio


def sim_node_runner(bus, **overrides):
    return node_runner(sim_crew(), "actors.backends.sim.node:build", bus, call_seconds=10, **overrides)


async def test_node_killed_with_sigkill_mid_episode_is_restarted_and_its_episode_retried():
    tasks = sim_tasks(3, seed=5, sim={"scale": 0.02}, goals=(6, 6))
    bus = EventBus()
    # One slot: with two, the first step can come while the other slot's node still starts, and
    # killing that one retries no episode.
    results, killed = await run_killing_after_first_step(
        sim_node_runner(bus, concurrency=1), bus, tasks, victim=lambda: descendants(b"runtime.node")[0])
    assert Counter(r.task_id for r in results) == Counter(t.task_id for t in tasks)
    assert all(r.success for r in results), [r.reason for r in results]
    assert sorted(r.attempt for r in results) == [1, 1, 2]  # exactly one episode ran twice
    assert descendants(b"runtime.node") == []  # every node reaped and stopped with the run


async def test_node_that_dies_on_every_attempt_ends_as_an_environment_error():
    tasks = sim_tasks(1, seed=5, sim={"scale": 0.001, "faults": [{"kind": "crash", "step": 2}]})
    results = await sim_node_runner(EventBus(), max_attempts=2).run(tasks)
    (result,) = results
    assert result.error_kind is ErrorKind.ENVIRONMENT and result.attempt == 2
    assert result.reason == "failed on 2 VMs: Act failed: vm: SimCrash: simulated VM crashed at step 2 (attempt 2)"
