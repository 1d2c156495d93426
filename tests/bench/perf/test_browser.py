"""The browser benchmark's figures on tiny real runs, from asyncio and trio: steady-state
timing, CPU by kind of process, the settle time in the step records and the visible resets;
and the plain Playwright loop it compares troupe with."""

import asyncio

import anyio
import pytest

from bench.perf.browser import run
from bench.perf.gym_loop import BROWSERGYM, LEAN, run_plain_loop
from bench.suites.miniwob.suite import miniwob_task

pytestmark = pytest.mark.anyio


async def test_a_small_run_reports_start_up_steady_state_cpu_settle_and_resets():
    tasks = [miniwob_task("click-button", 1), miniwob_task("enter-text", 1)]
    figures = await run(tasks, 1)
    assert 0 < figures.ready < figures.last_finished <= figures.wall and figures.steady > 0
    assert figures.steps and all(t.settle is not None and 0 < t.settle <= t.act for t in figures.steps)
    assert figures.step_cpu and all(seconds > 0 for seconds in figures.step_cpu)
    assert {"browser", "renderer (exited)", "node (python)", "driver"} <= figures.cpu.keys(), figures.cpu
    assert figures.cpu_total == pytest.approx(sum(figures.cpu.values())) and figures.cpu_total > figures.cpu_at_ready > 0
    assert figures.peak > 0
    assert len(figures.resets) == 2 and all(0 < seconds < figures.wall for seconds in figures.resets)
    assert figures.successes == 2 and figures.finished_after_ready == 2 and figures.steady_rate > 0


@pytest.mark.parametrize("harness", [LEAN, BROWSERGYM], ids=lambda harness: harness.name)
async def test_the_baseline_loops_run_each_episode_to_its_reward(harness):
    tasks = [miniwob_task("click-button", 1), miniwob_task("click-button", 2)]
    loop = await anyio.to_thread.run_sync(asyncio.run, run_plain_loop(tasks, harness))  # Playwright: its own asyncio
    assert loop.successes == 2 and len(loop.resets) == 2 and len(loop.steps) == 2
    assert 0 < loop.ready and loop.ready + sum(loop.resets) + sum(loop.steps) < loop.wall
    # The gym-style loop sleeps half a second after each action, as BrowserGym does by default.
    assert all((step >= 0.5) == (harness is BROWSERGYM) for step in loop.steps), loop.steps
