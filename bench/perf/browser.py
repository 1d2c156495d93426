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

Where the time went, and what was tried (2026-11-23, the 2-core machine shared
with other sessions, load 3-14 during the runs: wall figures are noisy, ratios
are from one process, CPU seconds are the steadier measure):

- Before: the full `chromium --headless` browser, a reset of ~430 ms on the
  critical path (closing the old context 16 ms, a new context 39, a new page --
  a new renderer process -- 157, loading the MiniWoB page 121, starting the
  task 26, the first observation 37), ~1.4 CPU s per episode, ~200-290 MiB PSS
  per browser.
- The headless shell (Debian's `chromium-headless-shell`, which Playwright
  itself runs headless; `launch.py` prefers it): the same reset in ~130 ms,
  a screenshot in 18 ms instead of 31, 0.4-0.5 CPU s per episode, about half
  the memory. The largest single gain.
- The reset overlapped (`actors.backends.browser.ahead`): as soon as an
  episode has its environment, the node closes the last one and makes the
  next (a fresh context and page, and the page of the task it predicts,
  loaded but not started); the reset then only starts the task. Visible reset
  ~73-100 ms median at load 3-8, up to ~155 above that (from ~200 with the
  headless shell alone, ~460-530 before); the old contexts close before the
  next one is made (see Memory below: closing them meanwhile was once ~25 ms
  off the visible reset, and is within the noise now). At
  K = 1 with a zero-latency agent this run is CPU-bound (two cores, and the
  episode's own processes keep them busy), so the preparation competes with
  the steps it overlaps: a step took ~65-70 ms without preparation and
  ~85-120 ms with it; a whole episode went from ~270 to ~220-245 ms. With an
  agent that thinks (an LLM, seconds per step) the preparation fits in the
  agent's time and the whole reset comes off the critical path.
- Making only a blank context ahead (no page load) took the same time per
  episode as no preparation; loading the predicted page is what pays. The
  prediction is the last reset's page while the last two resets agreed, so a
  run whose consecutive tasks differ (K workers sharing one queue) only makes
  blank environments and loads nothing for nothing.
- Step: CDP replies taken from Playwright's implementation object instead of
  its public wrapper, which walked every AX tree and DOM snapshot value by
  value (~12 ms of the node's CPU per observation); the settle wait sleeps
  until the page would be quiet instead of polling every 5 ms (quiet window
  and bound unchanged: 30 ms, 2 s); an element in view is clicked without the
  scroll call. Act + settle ~50-55 ms (30 of them the quiet window), observe
  ~20-25 ms: 77-93 ms median in the scaling runs at K = 1. Tried and not kept:
  clicks as three pipelined CDP input events (3.5 ms against Playwright's 3.0),
  page.evaluate replaced by raw Runtime.evaluate (0.4 ms less a call), JPEG
  or WebP screenshots (slower to encode than the fastest PNG here).
- Against the baselines (`plain`): the gym-style loop, which does what
  BrowserGym's BrowserEnv does by default (a new browser at every reset, a
  0.5 s sleep after each action, then the DOM-loaded wait), runs 70-76
  episodes a minute and troupe 264-314: 3.49-4.19x (median 3.86x, target
  1.5x), about what the issue measured against BrowserGym itself (3.4-4.5x).
  Against the leanest loop (one browser, troupe's own settle-wait) troupe
  is 1.17-1.26x (0.8-1.4x in earlier runs at load up to 14): both do the
  same browser work; the plain loop's reset (~150-185 ms) is on its critical
  path and troupe's is not, but troupe pays for a node process, a websocket
  and a supervisor per step (~0.02 CPU s per episode more, by getrusage)
  and, on two cores that one fast episode stream already keeps busy, its
  overlap has little idle CPU to use.
- Node start-up: importing the MiniWoB node app imported all of `bench`
  (the API, every suite, the WAA suite's OpenCV and NumPy): 0.70 s of CPU per
  node start; with the packages' names resolved when asked, 0.10 s.
- Memory (PSS per browser, the live context and the one made ahead): 224 MiB
  with the headless shell; software compositing (--disable-gpu-compositing
  --disable-software-rasterizer, kept) takes the GPU process from 36 to 20 MiB:
  ~208 MiB with one browser, peaks of 220-280 (the closing context's renderer
  overlaps the next one's start). PSS splits shared pages, so K browsers cost
  less each: peaks of 163-173, 116-133 and 93-100 MiB per browser at K = 2, 4,
  8. Tried and not kept: --in-process-gpu alone (the GPU process's memory
  moves into the browser's; kept since, with two more switches: see Memory
  with one slot), NetworkServiceInProcess (no change: this Chromium's feature
  is NetworkServiceInProcess2, kept since), --no-zygote (renderers
  grow by 10 MiB each, no shared zygote pages), --single-process (crashes),
  V8's --lite-mode, --optimize-for-size and a 1 MiB semi-space,
  --num-raster-threads=1, --disable-site-isolation-trials (each within 3 MiB).
  One browser with a context per slot, measured first with one browser holding 2
  contexts (live and made ahead) per slot with a MiniWoB page each: 211, 121,
  77 and 54 MiB per slot for 1, 2, 4, 8 slots, against 208 and the peaks above
  with a browser per slot. Built (below), and the run's default.
- Memory with one slot (issue 15's 150 MiB, 2026-11-23, load 2-4). Where it
  went, PSS sampled every 0.1 s over the K = 1 run (24 episodes): the
  browser 46 MiB, the GPU process 19, the network service 30, two zygotes 24
  (one only for unsandboxed helpers: the GPU process), each renderer ~45-50;
  ~208 median with two renderers (live, made ahead), ~192 with one, and a
  third alive in 6-8 % of the samples (the old context closing while the
  next was made, or, at a change of task, the reset's own context made while
  the one made ahead for another page and the old one were still open): the
  peaks of 236-246. Of it, ~135 MiB are pages of the Chromium binary itself
  (220 MB; its code and read-only data, of which a renderer has ~85 MiB
  resident and the browser ~80, shared and so split among them), about the
  same whatever the number of processes; the heaps of all processes together
  are 55-85 MiB. (Those pages are shared with any other Chromium on the
  machine, which then takes its share of them: another session's browser
  running meanwhile lowers these figures.)
  Kept: (1) the GPU thread and the network service in the browser process
  (--in-process-gpu, NetworkServiceInProcess2) and no unsandboxed zygote
  (--no-unsandboxed-zygote), together -18 to -20 MiB
  (each process's own heap and copy of relocated data; alone
  --in-process-gpu saves ~4, with --no-unsandboxed-zygote ~10); the
  --enable-features repeats Playwright's own list, since Chromium keeps only
  the last of a repeated switch (launch.py, and a test). (2) Closing before
  making (`ahead`): the old contexts close before the next one is made, and
  one made ahead that does not fit the reset's task closes before the reset
  makes its own, so one slot never has more than two renderers. Visible
  reset on click-button at K = 1 (40 episodes, 3 runs each way, in turns):
  54-60 ms median against 57-61 closing meanwhile; with (1) against
  without, 58-68 against 59-86. `--ks 1,2`, twice each way in turns, plus
  `--ks 1` once: peak PSS at K = 1 201-220 MiB against
  236-240 (steady median ~190 against ~210), K = 2 122-128 MiB per slot
  sharing a browser against 137-142, 135 with a browser each against
  161-178; `plain --rounds 3` twice each way: visible reset medians 65-121 ms
  against 64-110 (the median of the six medians 94 against 79; the runs in
  turns above show no difference), step overhead 76-100 against 71-99
  (load 3-4.4), 0.169-0.175 CPU s per episode against 0.161-0.172;
  the gym-style loop, which launches a browser at every reset, went from
  66-76 to 69-74 episodes a minute, its reset from 240-349 ms to 266-301.
  The main job: 70/72 in 17.9 s. Tried and not kept:
  --enable-low-end-device-mode (within 2 MiB, with or without the above),
  V8 --jitless (-3 MiB, and all JavaScript interpreted),
  --disable-threaded-compositing (-6 MiB, but screenshots fail: "Unable to
  capture screenshot"), --no-zygote with the above (renderers +17 MiB each),
  V8 --single-threaded (within 2 MiB), --single-process (still crashes).
  So the target is NOT met with one slot: ~190 MiB median and 201-220 peak.
  With two renderers, the floor is the binary's ~135 MiB of mapped pages
  plus two renderers' and the browser's heaps; even one renderer (nothing
  made ahead, a visible reset of ~200 ms again) would be ~170-175. K = 2 and
  more meet it by sharing those pages (122-128 MiB per slot at K = 2).
- K scaling with a browser (node) per slot: in steady state (from the K-th
  episode's start to the last result), 95-100 %, 98-99 % and 94-98 % of the
  episodes per minute the CPU left by other sessions allows at K = 2, 4, 8,
  and K = 8 at 0.86-0.97x K = 1. The whole run at K = 8 is slower than at
  K = 1 on 24 episodes (0.56-0.72x; 0.45-0.68x in the runs below, at a higher
  load) because each of the 8 nodes costs ~0.7 CPU s to start (the
  Playwright driver 0.3, the node's Python 0.3, of it 0.2 imports, cut from
  0.7; the browser 0.1), more than a short run has to spare on two cores.
- One browser (node) for the K slots (`runtime.seats`: the node hosts a
  VMController and an Observer per seat, each pair over a backend of its own,
  with its own contexts and its own environment made ahead, all over one
  Chromium and one Playwright driver; the runner's slots take the seats;
  the browser's death ends every slot on it and their episodes are retried on
  a fresh one). Six runs of `scaling` (2026-11-23, four on asyncio, two on
  trio; load 2-17, other sessions ran meanwhile, one of them a CPU
  benchmark): the whole run at K = 2, 4, 8 at 1.05-1.44x, 1.00-1.41x and
  1.04-1.41x K = 1 (a browser per slot: 0.91-1.09x, 0.75-0.96x, 0.45-0.68x),
  steady state at 92-100 %, 98-100 % and 97-100 % of what the CPU allows, one
  start-up of 0.6-1.2 s whatever K (a browser per slot: 1.2-1.9, 1.5-3.9 and
  4.8-8.9 s). Peak PSS per slot 136-146, 91-97 and 61-72 MiB at K = 2, 4, 8
  (a browser per slot: 162-177, 122-126, 93-98); with one slot it is one
  browser, 228-241 MiB (278 once; 201-220 since, see Memory with one slot),
  and nothing to share. The steady CPU per
  episode is 0.36-0.42 s against 0.34-0.37 at K = 1 (one Python node and one
  driver serve every slot's calls). The default (`bench.fit`) is one browser
  for all the run's slots, as many slots as cores (2 here: with a
  zero-latency agent K = 2, 4 and 8 ran within noise of each other); an agent
  that waits for an LLM leaves the CPU idle and can use a larger
  `--concurrency`. The main job (`python -m bench.supervisor`, 72 episodes,
  K = 2), interleaved with the code before: 70/72 successes in every run,
  18.6-22.7 s wall before, 17.2-23.5 s after (load 2-11; 16.3 s on trio): at
  K = 2 on 72 episodes the one start-up saved is within the noise.
  `bench.chaos --suite miniwob --faults 20` (browser, renderer, node and
  supervisor kills, floods) with the shared browser: 72 of 72 results, none
  lost, duplicated or changed, no environment error. What it turned up, fixed:
  Playwright never answers a new page whose renderer, or whose browser, dies
  while it is made, and a reset waited for it for the whole call limit (60
  s; also with a browser per slot); and a page's failure under a live browser
  crashed the node, and with a shared browser every slot on it: it is
  refused now, and only its episode is retried.
- Trio runs lost their nodes: Linux sends the parent-death signal (the
  lifeline that stops a node whose supervisor was SIGKILLed) when the
  *thread* that started the node ends, and trio starts processes from worker
  threads that end after 10 idle seconds, so every node was stopped about 10 s
  after its start (the first trio run here retried every episode of K = 8
  with a browser per slot three times, 0.22x; the main job on trio, before,
  lost a node mid-run). `runtime.lifeline` now stops the node only when its
  parent process is gone.
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
