"""The browser backend's cost, measured on real MiniWoB++ episodes in one run.

    python -m bench.perf.browser [--ks 1,2,4,8] [--episodes 16] [--backend asyncio|trio]

The scripted agent decides in microseconds, so everything a step takes is
the harness around the agent. Printed:

- per-step overhead (act, which includes waiting for the page to settle, plus
  observe, which takes screenshot and tree together), with K = 1: the median
  and its parts, against the 150 ms target;
- throughput with K concurrent browsers (one node each) on the same task
  list: episodes per minute for each K, and the ratio to K = 1;
- peak memory (PSS, so shared pages count once) of all Chromium processes
  during the run with the largest K, divided by K: what one concurrent browser costs.

Numbers include node start-up (a browser launch per node), as a run has it.
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics

import anyio

from actors.agent import Agent
from actors.browser.processes import chromium_memory
from actors.episode import Outlets
from actors.evaluator import Evaluator
from actors.runner import CrewFactory, EpisodeRunner
from bench.baseline.miniwob_agent import ScriptedMiniWobAgent
from bench.suites.miniwob import DEFAULT_TASKS, MiniWobChecker, miniwob_task
from protocols import StepTaken
from runtime.events import EventBus
from runtime.limits import Limits
from runtime.remote import run_local_node

TARGET_STEP_SECONDS = 0.150


async def run(tasks, k: int) -> tuple[float, list, int]:
    """Wall seconds, step records and peak Chromium memory of running `tasks` on `k` browsers."""
    bus = EventBus()
    steps: list = []
    peak = 0
    runner = EpisodeRunner(
        crew=CrewFactory(agent=lambda: Agent(ScriptedMiniWobAgent()), evaluator=lambda: Evaluator(MiniWobChecker())),
        vm_slot=functools.partial(run_local_node, "actors.browser.node:build", ready_timeout=60),
        limits=Limits(call_seconds=60), concurrency=k, outlets=Outlets(bus=bus),
    )

    async def collect() -> None:
        with bus.subscribe() as events:
            async for event in events:
                if isinstance(event, StepTaken) and not event.record.action.terminal:
                    steps.append(event.record.timings)

    async def weigh() -> None:
        nonlocal peak
        while True:
            peak = max(peak, chromium_memory(os.getpid()))
            await anyio.sleep(0.25)

    async with anyio.create_task_group() as tg:
        tg.start_soon(collect)
        tg.start_soon(weigh)
        await anyio.sleep(0)
        started = anyio.current_time()
        results = await runner.run(tasks)
        wall = anyio.current_time() - started
        tg.cancel_scope.cancel()
    if len(results) != len(tasks):
        raise RuntimeError(f"{len(tasks)} tasks gave {len(results)} results")
    return wall, steps, peak


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:6.1f} ms"


async def main(ks: list[int], episodes: int) -> None:
    tasks = [miniwob_task(DEFAULT_TASKS[i % len(DEFAULT_TASKS)], i // len(DEFAULT_TASKS)) for i in range(episodes)]
    figures = {}
    for k in ks:
        figures[k] = await run(tasks, k)
        print(f"K={k}: {episodes} episodes in {figures[k][0]:.1f} s", flush=True)

    _, steps, _ = figures[min(ks)]
    overhead = statistics.median(t.act + t.observe for t in steps)
    print(f"\nper-step overhead, K={min(ks)}, {len(steps)} steps (median):")
    print(f"  act + settle     {_ms(statistics.median(t.act for t in steps))}")
    print(f"  observe          {_ms(statistics.median(t.observe for t in steps))}"
          f"   (screenshot {_ms(statistics.median(t.screenshot for t in steps)).strip()},"
          f" tree {_ms(statistics.median(t.tree for t in steps)).strip()}, captured together)")
    print(f"  total            {_ms(overhead)}   = {overhead / TARGET_STEP_SECONDS:.2f}x the 150 ms target")

    base = episodes / figures[min(ks)][0] * 60
    print("\nthroughput (same task list):")
    for k in ks:
        rate = episodes / figures[k][0] * 60
        print(f"  K={k:<3} {rate:6.1f} episodes/min   {rate / base:5.2f}x K={min(ks)}")

    k_max = max(ks)
    peak = figures[k_max][2]
    print(f"\npeak Chromium memory (PSS) with K={k_max}: {peak / 2**20:.0f} MiB in all,"
          f" {peak / k_max / 2**20:.0f} MiB per browser")


def cli() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.perf.browser", description=__doc__.split("\n\n")[0])
    parser.add_argument("--ks", default="1,2,4,8", help="concurrent browsers to compare")
    parser.add_argument("--episodes", type=int, default=16, help="episodes per K (MiniWoB default tasks, seeds)")
    parser.add_argument("--backend", choices=["asyncio", "trio"], default="asyncio")
    args = parser.parse_args()
    anyio.run(main, sorted(int(k) for k in args.ks.split(",")), args.episodes, backend=args.backend)


if __name__ == "__main__":
    cli()
