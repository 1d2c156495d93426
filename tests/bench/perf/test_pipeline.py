"""The pipeline benchmark's loops on tiny runs, from asyncio and trio: the sequential loop and
the runtime take the same steps, and the CPU figures it prints come out of both."""

import pytest

from bench.perf.pipeline import GOALS, cpu_per_step, run_runtime, run_sequential, tasks

pytestmark = pytest.mark.anyio


async def test_both_loops_take_the_same_steps_and_the_runtime_succeeds():
    episodes = tasks(3, 0.001)
    sequential = await run_sequential(episodes)
    wall, results = await run_runtime(episodes, 3)
    assert all(r.success for r in results), [r.reason for r in results]
    assert sequential.steps == [GOALS + 1] * 3 == sorted(r.steps for r in results)
    assert sequential.wall(3) == pytest.approx(sum(sequential.walls)) and sequential.wall(1) < sequential.wall(3)
    assert 0 < sequential.per_step(3) and 0 < wall


async def test_cpu_per_step_is_measured_for_both_loops_every_round():
    cpu = await cpu_per_step(4, rounds=2)
    assert cpu.steps == 4 * (GOALS + 1) and cpu.wall > 0
    assert len(cpu.runtime) == len(cpu.sequential) == 2 and all(s > 0 for s in cpu.runtime + cpu.sequential)
