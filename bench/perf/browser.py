"""The browser backend's cost, measured on real MiniWoB++ episodes in one run.

    python -m bench.perf.browser [--ks 1,2,4,8] [--episodes 16] [--backend asyncio|trio]

The scripted agent decides in microseconds, so everything a step takes is
the harness around the agent. Printed:

- per-step overhead (act, which includes waiting for the page to settle, plus
  observe, which takes screenshot and tree together), with K = 1: the median
  and its parts, against the 150 ms target;
- throughput with K concurrent browsers (one node each) on the same task
  list: episodes per minute for each K, and the ratio to K = 1, both for the
  whole run (node start-up, a browser launch per node, included, as a run has
  it) and in steady state (from when every node is ready, estimated as the
  mean start of the first K episodes, to the last finished episode);
- CPU seconds: per episode for each K (all processes below this one, read
  from /proc: node, Playwright driver, Chromium browser, renderers, GPU
  process, utilities, plus this process), split by kind for K = 1, and per
  step with K = 1 (CPU used between consecutive steps of one episode). With
  C cores, no K can do better than C / (CPU seconds per episode) episodes per
  second: that is the ceiling the K scaling runs into;
- peak memory (PSS, so shared pages count once) of all Chromium processes
  during the run with the largest K, divided by K: what one concurrent browser costs.

Where the CPU goes (measured 2026-11-21 on the 2-core machine, K = 1, 48 MiniWoB
episodes, about 1.5 action steps each; the machine was shared, load 7-13, so wall
figures are noisy and CPU seconds are the steadier measure):

- about 1.0 CPU s per episode, of which Chromium 0.9 (page renderers 0.52-0.56,
  browser process 0.27-0.29, GPU process 0.03, utilities 0.02), the Playwright
  driver 0.04, the node's Python 0.04, this process 0.06 (mostly its own /proc
  sampling for PSS). One K = 1 episode every ~0.6 s already keeps ~1.6 cores busy,
  so K > 1 has almost nothing left to use on 2 cores: the K scaling is flat or worse
  (more browsers also mean more start-up and contention), as the ceiling column shows.
- the reset is the largest part: a fresh context costs ~475-600 ms of Chromium CPU
  (new renderer process, page set-up, page load, task start, closing the old one);
  reusing one page and navigating it would cost ~125 ms, but a fresh context per
  episode is a requirement (no state leaks between episodes).
- a step costs ~150 ms of CPU in all: the click with settle ~75 ms, each observation
  ~60-80 ms (screenshot ~20-30 ms, AX tree + DOM snapshot ~30 ms, details).
- not worth changing (measured, A/B on two browsers side by side): the settle
  poll (5 ms in-page timer; an event-timed wait used the same CPU), Chromium flags
  --disable-site-isolation-trials, --renderer-process-limit=1, --in-process-gpu,
  disabling the spare renderer (-2 to -9 %, within noise, and it needs Playwright's
  whole --disable-features list repeated). Tree calls are made once per observation.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import resource
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass, field

import anyio

from actors.agent import Agent
from actors.backends.browser.processes import chromium_memory, cpu_by_process
from actors.episode import Outlets
from actors.evaluator import Evaluator
from actors.runner import CrewFactory, EpisodeRunner
from bench.perf.gym_loop import run_plain_loop
from bench.suites.miniwob.agent import ScriptedMiniWobAgent
from bench.suites.miniwob.suite import DEFAULT_TASKS, MiniWobChecker, miniwob_task
from protocols import EpisodeFinished, EpisodeStarted, StepTaken
from runtime.events import EventBus
from runtime.limits import Limits
from runtime.remote import run_local_node

TARGET_STEP_SECONDS = 0.080
TARGET_RESET_SECONDS = 0.100
TARGET_PLAIN_RATIO = 1.5
TARGET_MEMORY_MIB = 150
PLAIN_TASK = "click-button"
PLAIN_EPISODES = 20
SCALING_EPISODES = 24
SCALING_TASKS = 4
MEMORY_SECONDS = 0.25
"""How often memory is read. CPU is read at events (all nodes ready, each step with K = 1, each
finished episode): a process that exited counts in its parent's reaped-children time."""


class CpuMeter:
    """CPU seconds used by this process and every process below it since the meter was made,
    by kind of process, read from /proc.

    A process's own time counts under its kind; the time of the children it reaped under
    `exited <kind>'s children` (renderers of closed contexts are the zygote's children);
    nodes this process reaped under `exited nodes`."""

    def __init__(self) -> None:
        self._start = self._reaped_here()
        self.by_kind: dict[str, float] = {}

    @staticmethod
    def _reaped_here() -> tuple[float, float]:
        times = os.times()
        return time.process_time(), times.children_user + times.children_system

    def sample(self) -> float:
        """Read every process now; return the total so far (also kept by kind in `by_kind`)."""
        own, reaped = self._reaped_here()
        kinds: dict[str, float] = defaultdict(float)
        kinds["supervisor (this process)"] = own - self._start[0]
        kinds["exited nodes"] = reaped - self._start[1]
        for kind, seconds, children in cpu_by_process(os.getpid()).values():
            kinds[kind] += seconds
            if children:
                kinds["renderer (exited)" if kind == "zygote" else f"exited {kind}'s children"] += children
        self.by_kind = {kind: seconds for kind, seconds in kinds.items() if seconds > 0}
        return sum(kinds.values())


@dataclass
class Figures:
    wall: float = 0.0
    ready: float = 0.0
    """Seconds from the start until every node was ready (mean start of the first K episodes)."""
    last_finished: float = 0.0
    steps: list = field(default_factory=list)
    step_cpu: list = field(default_factory=list)
    """CPU seconds between consecutive non-terminal steps of one episode (meaningful for K = 1)."""
    cpu: dict[str, float] = field(default_factory=dict)
    cpu_at_ready: float = 0.0
    cpu_total: float = 0.0
    peak: int = 0
    resets: list = field(default_factory=list)
    """Visible reset of each episode: from its task handed to the VM slot to its first observation."""
    successes: int = 0

    @property
    def steady(self) -> float:
        return self.last_finished - self.ready


async def run(tasks, k: int, *, meters: bool = True) -> Figures:
    """Timings, step records, CPU and peak Chromium memory of running `tasks` on `k` browsers.

    The meters read /proc for every process on the machine, in this process's event loop, which
    the episodes share: `meters=False` leaves them out (and CPU and memory empty) where only
    time counts."""
    bus = EventBus()
    figures = Figures()
    meter = CpuMeter()
    runner = EpisodeRunner(
        crew=CrewFactory(agent=lambda: Agent(ScriptedMiniWobAgent()), evaluator=lambda: Evaluator(MiniWobChecker())),
        vm_slot=functools.partial(run_local_node, "bench.suites.miniwob.node:build", ready_timeout=60),
        limits=Limits(call_seconds=60), concurrency=k, outlets=Outlets(bus=bus),
    )
    started = anyio.current_time()
    first_starts: list[float] = []
    last_step: dict[str, float] = {}  # episode -> CPU total at its last non-terminal step

    async def collect() -> None:
        with bus.subscribe() as events:
            async for event in events:
                now = anyio.current_time() - started
                if isinstance(event, EpisodeStarted) and len(first_starts) < k:
                    first_starts.append(now)
                    if len(first_starts) == k:
                        figures.ready = statistics.fmean(first_starts)
                        figures.cpu_at_ready = meter.sample() if meters else 0.0
                elif isinstance(event, StepTaken) and not event.record.action.terminal:
                    figures.steps.append(event.record.timings)
                    if k == 1 and meters:
                        cpu = meter.sample()
                        if event.record.episode_id in last_step:
                            figures.step_cpu.append(cpu - last_step[event.record.episode_id])
                        last_step[event.record.episode_id] = cpu
                elif isinstance(event, EpisodeFinished):
                    figures.last_finished = now
                    figures.resets.append(event.result.timings.reset)
                    figures.successes += event.result.success
                    if meters:
                        meter.sample()

    async def weigh() -> None:
        while True:
            figures.peak = max(figures.peak, chromium_memory(os.getpid()))
            await anyio.sleep(MEMORY_SECONDS)

    async with anyio.create_task_group() as tg:
        tg.start_soon(collect)
        if meters:
            tg.start_soon(weigh)
        await anyio.sleep(0)
        started = anyio.current_time()
        results = await runner.run(tasks)
        figures.wall = anyio.current_time() - started
        tg.cancel_scope.cancel()
    # The reading at the last finished episode, with every node alive: a browser that is shut
    # down does not wait for all of its processes, so a later reading would lose some of them.
    figures.cpu = meter.by_kind
    figures.cpu_total = sum(meter.by_kind.values())
    if len(results) != len(tasks):
        raise RuntimeError(f"{len(tasks)} tasks gave {len(results)} results")
    return figures


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:6.1f} ms"


async def main(ks: list[int], episodes: int) -> None:
    # As a run orders them: each task's seeds together.
    names = DEFAULT_TASKS[:SCALING_TASKS]
    tasks = [miniwob_task(names[i % len(names)], i // len(names)) for i in range(episodes)]
    tasks.sort(key=lambda task: names.index(task.domain))
    figures: dict[int, Figures] = {}
    for k in ks:
        figures[k] = run_k = await run(tasks, k)
        print(f"K={k}: {episodes} episodes in {run_k.wall:.1f} s (nodes ready after {run_k.ready:.1f} s),"
              f" {run_k.cpu_total:.1f} CPU s to the last result", flush=True)

    first = figures[min(ks)]
    steps = first.steps
    overhead = statistics.median(t.act + t.observe for t in steps)
    print(f"\nper-step overhead, K={min(ks)}, {len(steps)} steps (median):")
    print(f"  act + settle     {_ms(statistics.median(t.act for t in steps))}"
          f"   (settle {_ms(statistics.median(t.settle or 0.0 for t in steps)).strip()})")
    print(f"  observe          {_ms(statistics.median(t.observe for t in steps))}"
          f"   (screenshot {_ms(statistics.median(t.screenshot for t in steps)).strip()},"
          f" tree {_ms(statistics.median(t.tree for t in steps)).strip()}, captured together)")
    print(f"  total            {_ms(overhead)}   = {overhead / TARGET_STEP_SECONDS:.2f}x the 80 ms target")
    if first.step_cpu:
        print(f"  CPU per step     {_ms(statistics.median(first.step_cpu))}   (all processes, median of"
              f" {len(first.step_cpu)})")

    cores = os.cpu_count() or 1
    base = figures[min(ks)]
    print(f"\nthroughput (the same {episodes} episodes, {cores} cores, load {os.getloadavg()[0]:.1f} at the end):")
    print("  K     whole run           steady state        CPU allows   steady/allowed   start-up"
          "   CPU s/episode   peak PSS/browser")
    for k, f in figures.items():
        whole, steady = episodes / f.wall * 60, episodes / f.steady * 60
        steady_cpu = (f.cpu_total - f.cpu_at_ready) / episodes
        allowed = cores * 60 / steady_cpu
        print(f"  K={k:<3} {whole:6.1f}/min {whole / (episodes / base.wall * 60):5.2f}x"
              f"   {steady:6.1f}/min {steady / (episodes / base.steady * 60):5.2f}x"
              f"   {allowed:6.1f}/min   {steady / allowed:6.0%}{' (target >= 90%)' if k > 1 else '':16}"
              f" {f.ready:5.1f} s   {steady_cpu:6.2f}          {f.peak / k / 2**20:5.0f} MiB")
    print(f"  (CPU allows: cores / steady-state CPU seconds per episode, the most any K can reach here;"
          f" peak PSS target <= {TARGET_MEMORY_MIB} MiB per browser)")
    if len(ks) > 1:
        k_max = max(ks)
        print(f"  K={k_max} against K={min(ks)}, whole run: {base.wall / figures[k_max].wall:.2f}x (target >= 1.00x)")

    print(f"\nCPU seconds per episode by process, K={min(ks)} (start-up included, shutdown not):")
    for kind, seconds in sorted(first.cpu.items(), key=lambda item: -item[1]):
        print(f"  {kind:28} {seconds / episodes:6.3f}")


@dataclass
class Side:
    """One side of the comparison with the plain loop: one run of the task list."""

    wall: float
    resets: list
    steps: list
    successes: int
    cpu: float
    """CPU seconds of this process and all its (reaped) children during the run."""


def _cpu_so_far() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


async def _side(name: str, tasks) -> Side:
    began = _cpu_so_far()
    if name == "troupe":
        figures = await run(tasks, 1, meters=False)
        side = (figures.wall, figures.resets, [t.act + t.observe for t in figures.steps], figures.successes)
    else:
        loop = await anyio.to_thread.run_sync(asyncio.run, run_plain_loop(tasks))
        side = (loop.wall, loop.resets, loop.steps, loop.successes)
    # Every process of the run has exited and been reaped by now (nodes, drivers, browsers).
    return Side(*side, cpu=_cpu_so_far() - began)


async def against_plain_loop(episodes: int, rounds: int) -> None:
    """troupe at K = 1 and the plain loop on the same click-button seeds, in turns, `rounds` times."""
    tasks = [miniwob_task(PLAIN_TASK, seed) for seed in range(episodes)]
    ratios = []
    print(f"{PLAIN_TASK} at K=1, {episodes} episodes, troupe (a browser node) and a plain Playwright loop"
          f" (in this process) in turns; browser start included", flush=True)
    for round_ in range(1, rounds + 1):
        order = ["troupe", "plain"] if round_ % 2 else ["plain", "troupe"]
        sides = {name: await _side(name, tasks) for name in order}
        troupe, plain = sides["troupe"], sides["plain"]
        rate = {name: episodes / side.wall * 60 for name, side in sides.items()}
        ratios.append(rate["troupe"] / rate["plain"])
        print(f"\nround {round_} (load {os.getloadavg()[0]:.1f}):")
        print(f"  {'':22} {'troupe':>12} {'plain loop':>12}")
        print(f"  {'episodes/min':22} {rate['troupe']:12.1f} {rate['plain']:12.1f}   ratio {ratios[-1]:.2f}x"
              f" (target >= {TARGET_PLAIN_RATIO:g}x)")
        for label, values, target in (("visible reset median", (troupe.resets, plain.resets), TARGET_RESET_SECONDS),
                                      ("step overhead median", (troupe.steps, plain.steps), TARGET_STEP_SECONDS)):
            mine, theirs = map(statistics.median, values)
            print(f"  {label:22} {_ms(mine):>12} {_ms(theirs):>12}   troupe {mine / target:.2f}x"
                  f" the {target * 1000:g} ms target")
        print(f"  {'CPU s per episode':22} {troupe.cpu / episodes:12.3f} {plain.cpu / episodes:12.3f}"
              f"   (all processes, start-up included)")
        print(f"  {'successes':22} {troupe.successes:12d} {plain.successes:12d}")
    print(f"\ntroupe / plain loop, episodes/min: {', '.join(f'{r:.2f}x' for r in ratios)}"
          f" (median {statistics.median(ratios):.2f}x)")


def cli() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.perf.browser", description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", nargs="?", choices=["scaling", "plain"], default="scaling",
                        help="scaling: K browsers, CPU and memory; plain: troupe against a plain Playwright loop")
    parser.add_argument("--ks", default="1,2,4,8", help="scaling: concurrent browsers to compare")
    parser.add_argument("--episodes", type=int, default=None,
                        help=f"episodes per run (scaling: {SCALING_EPISODES}, the first {SCALING_TASKS} default tasks,"
                             f" each with its seeds together;"
                             f" plain: {PLAIN_EPISODES}, {PLAIN_TASK} seeds)")
    parser.add_argument("--rounds", type=int, default=3, help="plain: troupe and the plain loop, in turns")
    parser.add_argument("--backend", choices=["asyncio", "trio"], default="asyncio")
    args = parser.parse_args()
    if args.mode == "plain":
        anyio.run(against_plain_loop, args.episodes or PLAIN_EPISODES, args.rounds, backend=args.backend)
    else:
        anyio.run(main, sorted(int(k) for k in args.ks.split(",")), args.episodes or SCALING_EPISODES,
                  backend=args.backend)


if __name__ == "__main__":
    cli()
