"""The browser backend's cost, measured on real MiniWoB++ episodes in one run.

    python -m bench.perf.browser plain [--episodes 20] [--rounds 3]
    python -m bench.perf.browser [scaling] [--ks 1,2,4,8] [--episodes 24] [--backend asyncio|trio]

The scripted agent decides in microseconds, so everything a step takes is
the harness around the agent.

`plain` runs click-button at K = 1 with troupe (a browser node, the
supervisor in this process) and with two baseline loops in this process
(`bench.perf.gym_loop`: a gym-style harness, one call after the other; the
gym-style loop does what BrowserGym does by default, a browser per episode
and a 0.5 s sleep after each action; the plain loop is the leanest such loop,
one browser and troupe's own settle-wait), in turns, `--rounds` times, and
prints for each: episodes per minute (browser start included) and troupe's
ratio to each baseline (target >= 1.5x the gym-style loop), the visible
reset (task handed to the VM slot -> first observation) and the step
overhead (act + wait + observe) medians against their targets, and CPU
seconds per episode.

`scaling` (the default) prints:

- per-step overhead with K = 1 (act, which includes waiting for the page to
  settle, plus observe, which takes screenshot and tree together): the median
  and its parts against the 80 ms target, CPU per step, and the visible reset;
- throughput with K concurrent VM slots on the issue's task list (4 MiniWoB
  tasks, each with its seeds together, as a run orders them), in two layouts
  run back to back for each K: a browser (node) per slot, and one browser
  (node) for the K slots, a context each (`runtime.seats`, the run's
  default): episodes per minute for each K and the ratio to K = 1, for the
  whole run (node start-ups and browser launches included, as a run has
  them) and in steady state (the episodes that finished from when every node
  was ready, i.e. the K-th episode started, to the last result); beside it
  what the CPU allows: cores / CPU seconds per episode, and the same with the
  CPU that other processes on this (shared) machine used meanwhile taken out
  (from /proc/stat), and the steady rate as a share of the latter; and the
  largest K against K = 1 for the whole run, in each layout;
- CPU seconds per episode by kind of process for K = 1 and, in each layout,
  the largest K (all processes below this one, read from /proc: node,
  Playwright driver, Chromium browser, renderers, GPU process, utilities,
  plus this process);
- peak memory (PSS, shared pages split among their sharers) of all Chromium
  processes during each run, divided by K: per slot.

docs/performance.md says where the time went and what was tried.
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
from contextlib import AsyncExitStack
from dataclasses import dataclass, field

import anyio

from actors.agent import Agent
from actors.backends.browser.processes import chromium_memory, cpu_by_process
from actors.episode import Outlets
from actors.evaluator import Evaluator
from actors.runner import CrewFactory, EpisodeRunner
from bench.perf.gym_loop import BROWSERGYM, LEAN, run_plain_loop
from bench.suites.miniwob.agent import ScriptedMiniWobAgent
from bench.suites.miniwob.suite import DEFAULT_TASKS, MiniWobChecker, miniwob_task
from protocols import EpisodeFinished, EpisodeStarted, StepTaken
from runtime.events import EventBus
from runtime.limits import Limits
from runtime.remote import run_local_node
from runtime.seats import SharedNodes

TARGET_STEP_SECONDS = 0.080
TARGET_RESET_SECONDS = 0.100
TARGET_PLAIN_RATIO = 1.5
TARGET_MEMORY_MIB = 150
PLAIN_TASK = "click-button"
PLAIN_EPISODES = 20
BASELINES = (BROWSERGYM, LEAN)
SCALING_EPISODES = 24
SCALING_TASKS = 4
_TICKS = os.sysconf("SC_CLK_TCK")
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


def machine_busy() -> float:
    """CPU seconds all processes on the machine have used since it booted (/proc/stat)."""
    with open("/proc/stat") as stat:
        fields = [int(value) for value in stat.readline().split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields[:8]
    return (user + nice + system + irq + softirq + steal) / _TICKS


@dataclass
class Figures:
    wall: float = 0.0
    ready: float = 0.0
    """Seconds from the start until every node was ready (the start of the K-th episode)."""
    finished_after_ready: int = 0
    last_finished: float = 0.0
    steps: list = field(default_factory=list)
    step_cpu: list = field(default_factory=list)
    """CPU seconds between consecutive non-terminal steps of one episode (meaningful for K = 1)."""
    cpu: dict[str, float] = field(default_factory=dict)
    cpu_at_ready: float = 0.0
    cpu_total: float = 0.0
    machine_at_ready: float = 0.0
    machine_total: float = 0.0
    """CPU seconds every process on the machine used since the run began (ours and others')."""
    peak: int = 0
    resets: list = field(default_factory=list)
    """Visible reset of each episode: from its task handed to the VM slot to its first observation."""
    successes: int = 0

    @property
    def steady(self) -> float:
        return self.last_finished - self.ready

    @property
    def steady_rate(self) -> float:
        """Episodes per minute from when every node was ready to the last result."""
        return self.finished_after_ready / self.steady * 60 if self.steady > 0 else 0.0

    @property
    def steady_cpu(self) -> float:
        """CPU seconds per episode finished in steady state."""
        return (self.cpu_total - self.cpu_at_ready) / max(self.finished_after_ready, 1)

    def allowed(self, cores: int) -> tuple[float, float]:
        """Episodes per minute the CPU allows in steady state: with every core, and with the cores
        other processes on the machine left (their CPU seconds meanwhile taken out)."""
        others = max(0.0, self.machine_total - self.machine_at_ready - (self.cpu_total - self.cpu_at_ready))
        return (cores * 60 / self.steady_cpu, (cores * self.steady - others) / self.steady * 60 / self.steady_cpu)


async def run(tasks, k: int, *, meters: bool = True, slots_per_browser: int = 1) -> Figures:
    """Timings, step records, CPU and peak Chromium memory of running `tasks` on `k` VM slots,
    `slots_per_browser` of them on each browser (node).

    The meters read /proc for every process on the machine, in this process's event loop, which
    the episodes share: `meters=False` leaves them out (and CPU and memory empty) where only
    time counts."""
    async with AsyncExitStack() as stack:
        vm_slot = functools.partial(run_local_node, "bench.suites.miniwob.node:build", ready_timeout=60)
        if slots_per_browser > 1:
            vm_slot = (await stack.enter_async_context(SharedNodes(vm_slot, seats=slots_per_browser))).slot
        return await _measured(tasks, k, vm_slot, meters)


async def _measured(tasks, k: int, vm_slot, meters: bool) -> Figures:
    bus = EventBus()
    figures = Figures()
    meter = CpuMeter()
    machine_start = machine_busy()
    runner = EpisodeRunner(
        crew=CrewFactory(agent=lambda: Agent(ScriptedMiniWobAgent()), evaluator=lambda: Evaluator(MiniWobChecker())),
        vm_slot=vm_slot, limits=Limits(call_seconds=60), concurrency=k, outlets=Outlets(bus=bus),
    )
    started = anyio.current_time()
    starts = 0
    last_step: dict[str, float] = {}  # episode -> CPU total at its last non-terminal step

    async def collect() -> None:
        nonlocal starts
        with bus.subscribe() as events:
            async for event in events:
                now = anyio.current_time() - started
                if isinstance(event, EpisodeStarted) and starts < k:
                    starts += 1
                    if starts == k:
                        figures.ready = now
                        figures.cpu_at_ready = meter.sample() if meters else 0.0
                        figures.machine_at_ready = machine_busy() - machine_start
                elif isinstance(event, StepTaken) and not event.record.action.terminal:
                    figures.steps.append(event.record.timings)
                    if k == 1 and meters:
                        cpu = meter.sample()
                        if event.record.episode_id in last_step:
                            figures.step_cpu.append(cpu - last_step[event.record.episode_id])
                        last_step[event.record.episode_id] = cpu
                elif isinstance(event, EpisodeFinished):
                    figures.last_finished = now
                    figures.finished_after_ready += starts == k
                    figures.machine_total = machine_busy() - machine_start
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


LAYOUTS = {"own": "a browser (node) per slot", "shared": "one browser (node) for the K slots"}
"""How the K slots of a scaling run get their browsers; with K = 1 both are the same run."""


async def main(ks: list[int], episodes: int) -> None:
    # As a run orders them: each task's seeds together.
    names = DEFAULT_TASKS[:SCALING_TASKS]
    tasks = [miniwob_task(names[i % len(names)], i // len(names)) for i in range(episodes)]
    tasks.sort(key=lambda task: names.index(task.domain))
    figures: dict[str, dict[int, Figures]] = {layout: {} for layout in LAYOUTS}
    for k in ks:  # both layouts of one K back to back: the machine's load drifts less between them
        for layout in LAYOUTS if k > 1 else ["own"]:
            figures[layout][k] = run_k = await run(tasks, k, slots_per_browser=k if layout == "shared" else 1)
            print(f"K={k} ({LAYOUTS[layout] if k > 1 else 'one browser'}): {episodes} episodes in {run_k.wall:.1f} s"
                  f" (nodes ready after {run_k.ready:.1f} s), {run_k.cpu_total:.1f} CPU s to the last result,"
                  f" load {os.getloadavg()[0]:.1f}", flush=True)
    base = figures["own"][min(ks)]
    if min(ks) == 1:
        figures["shared"][1] = base

    steps = base.steps
    overhead = statistics.median(t.act + t.observe for t in steps)
    print(f"\nper-step overhead, K={min(ks)}, {len(steps)} steps (median):")
    print(f"  act + settle     {_ms(statistics.median(t.act for t in steps))}"
          f"   (settle {_ms(statistics.median(t.settle or 0.0 for t in steps)).strip()})")
    print(f"  observe          {_ms(statistics.median(t.observe for t in steps))}"
          f"   (screenshot {_ms(statistics.median(t.screenshot for t in steps)).strip()},"
          f" tree {_ms(statistics.median(t.tree for t in steps)).strip()}, captured together)")
    print(f"  total            {_ms(overhead)}   = {overhead / TARGET_STEP_SECONDS:.2f}x the 80 ms target")
    if base.step_cpu:
        print(f"  CPU per step     {_ms(statistics.median(base.step_cpu))}   (all processes, median of"
              f" {len(base.step_cpu)})")
    reset = statistics.median(base.resets)
    print(f"  visible reset    {_ms(reset)}   = {reset / TARGET_RESET_SECONDS:.2f}x the 100 ms target"
          f" (task handed to the VM slot -> first observation, median of {len(base.resets)})")

    cores = os.cpu_count() or 1
    print(f"\nthroughput (the same {episodes} episodes, {cores} cores, load {os.getloadavg()[0]:.1f} at the end):")
    for layout, by_k in figures.items():
        print(f"  {LAYOUTS[layout]}:")
        print("  K     whole run           steady state        CPU allows (all cores, what others left)"
              "   steady/allowed   start-up   CPU s/episode   peak PSS/slot")
        for k, f in sorted(by_k.items()):
            whole, steady = episodes / f.wall * 60, f.steady_rate
            every_core, left = f.allowed(cores)
            print(f"  K={k:<3} {whole:6.1f}/min {whole / (episodes / base.wall * 60):5.2f}x"
                  f"   {steady:6.1f}/min {steady / base.steady_rate:5.2f}x"
                  f"   {every_core:6.1f}/min {left:6.1f}/min               {steady / left:5.0%}"
                  f"{' (target >= 90%)' if k > 1 else '                '}"
                  f" {f.ready:5.1f} s   {f.steady_cpu:6.2f}"
                  f"          {f.peak / k / 2**20:5.0f} MiB")
    print(f"  (CPU allows: cores / steady-state CPU seconds per episode, the most any K can reach here, and"
          f" the same with the CPU other processes on this shared machine took meanwhile taken out;"
          f" peak PSS target <= {TARGET_MEMORY_MIB} MiB per browser, here per slot)")
    if len(ks) > 1:
        k_max = max(ks)
        for layout, by_k in figures.items():
            print(f"  K={k_max} against K={min(ks)}, whole run, {LAYOUTS[layout]}:"
                  f" {base.wall / by_k[k_max].wall:.2f}x (target >= 1.00x)")

    k_max = max(ks)
    columns = {f"K={min(ks)}": base, **({f"K={k_max} {layout}": figures[layout][k_max] for layout in LAYOUTS}
                                        if k_max > min(ks) else {})}
    print("\nCPU seconds per episode by process (start-up included, shutdown not):")
    print(f"  {'':28}" + "".join(f" {name:>12}" for name in columns))
    kinds = sorted({kind for f in columns.values() for kind in f.cpu}, key=lambda kind: -base.cpu.get(kind, 0.0))
    for kind in kinds:
        print(f"  {kind:28}" + "".join(f" {f.cpu.get(kind, 0.0) / episodes:12.3f}" for f in columns.values()))


@dataclass
class Side:
    """One side of the comparison with the plain loop: one run of the task list."""

    wall: float
    ready: float
    """Seconds from the start until the browser was ready for episodes."""
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
        side = (figures.wall, figures.ready, figures.resets, [t.act + t.observe for t in figures.steps],
                figures.successes)
    else:
        harness = next(h for h in BASELINES if h.name == name)
        loop = await anyio.to_thread.run_sync(asyncio.run, run_plain_loop(tasks, harness))
        side = (loop.wall, loop.ready, loop.resets, loop.steps, loop.successes)
    # Every process of the run has exited and been reaped by now (nodes, drivers, browsers).
    return Side(*side, cpu=_cpu_so_far() - began)


async def against_plain_loop(episodes: int, rounds: int) -> None:
    """troupe at K = 1 and the baseline loops on the same click-button seeds, in turns, `rounds` times."""
    tasks = [miniwob_task(PLAIN_TASK, seed) for seed in range(episodes)]
    names = ["troupe"] + [h.name for h in BASELINES]
    ratios: dict[str, list[float]] = {h.name: [] for h in BASELINES}
    print(f"{PLAIN_TASK} at K=1, {episodes} episodes, troupe (a browser node) and, in this process,"
          f" {' and '.join(f'the {h.name}' for h in BASELINES)} (bench.perf.gym_loop), in turns;"
          f" browser start included", flush=True)
    for round_ in range(1, rounds + 1):
        shift = round_ % len(names)
        sides = {name: await _side(name, tasks) for name in names[shift:] + names[:shift]}
        sides = {name: sides[name] for name in names}
        rate = {name: episodes / side.wall * 60 for name, side in sides.items()}
        ready = {name: episodes / (side.wall - side.ready) * 60 for name, side in sides.items()}
        for harness in BASELINES:
            ratios[harness.name].append(rate["troupe"] / rate[harness.name])
        print(f"\nround {round_} (load {os.getloadavg()[0]:.1f}):")
        print(f"  {'':22}" + "".join(f" {name:>15}" for name in names))
        print(f"  {'episodes/min':22}" + "".join(f" {rate[name]:15.1f}" for name in names))
        print(f"  {'  once started':22}" + "".join(f" {ready[name]:15.1f}" for name in names)
              + "   (start-up " + ", ".join(f"{side.ready:.1f} s" for side in sides.values()) + ")")
        for harness in BASELINES:
            print(f"  troupe / {harness.name:13} {ratios[harness.name][-1]:.2f}x episodes/min,"
                  f" {ready['troupe'] / ready[harness.name]:.2f}x once started")
        for label, target, pick in (("visible reset median", TARGET_RESET_SECONDS, lambda side: side.resets),
                                    ("step overhead median", TARGET_STEP_SECONDS, lambda side: side.steps)):
            medians = {name: statistics.median(pick(side)) for name, side in sides.items()}
            print(f"  {label:22}" + "".join(f" {_ms(medians[name]):>15}" for name in names)
                  + f"   troupe {medians['troupe'] / target:.2f}x the {target * 1000:g} ms target")
        print(f"  {'CPU s per episode':22}" + "".join(f" {sides[name].cpu / episodes:15.3f}" for name in names)
              + "   (all processes, start-up included)")
        print(f"  {'successes':22}" + "".join(f" {sides[name].successes:15d}" for name in names))
    print()
    for harness in BASELINES:
        values = ratios[harness.name]
        print(f"troupe / {harness.name}, episodes/min: {', '.join(f'{r:.2f}x' for r in values)}"
              f" (median {statistics.median(values):.2f}x"
              f"{f', target >= {TARGET_PLAIN_RATIO:g}x' if harness is BROWSERGYM else ''})")


def cli() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.perf.browser", description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", nargs="?", choices=["scaling", "plain"], default="scaling",
                        help="scaling: K VM slots, a browser each and one browser for all, CPU and memory; "
                             "plain: troupe against a plain Playwright loop")
    parser.add_argument("--ks", default="1,2,4,8", help="scaling: concurrent VM slots to compare")
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
