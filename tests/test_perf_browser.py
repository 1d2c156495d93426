"""The browser benchmark's figures on a tiny real run, from asyncio and trio: steady-state
timing, CPU by kind of process, and the settle time in the step records."""

import pytest

from bench.perf.browser import run
from bench.suites.miniwob.suite import miniwob_task

pytestmark = pytest.mark.anyio


async def test_a_small_run_reports_start_up_steady_state_cpu_and_settle():
    tasks = [miniwob_task("click-button", 1), miniwob_task("enter-text", 1)]
    figures = await run(tasks, 1)
    assert 0 < figures.ready < figures.last_finished <= figures.wall and figures.steady > 0
    assert figures.steps and all(t.settle is not None and 0 < t.settle <= t.act for t in figures.steps)
    assert figures.step_cpu and all(seconds > 0 for seconds in figures.step_cpu)
    assert {"browser", "renderer (exited)", "node (python)", "driver"} <= figures.cpu.keys(), figures.cpu
    assert figures.cpu_total == pytest.approx(sum(figures.cpu.values())) and figures.cpu_total > figures.cpu_at_ready > 0
    assert figures.peak > 0
