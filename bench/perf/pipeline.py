"""Per-step time of the actor runtime against a plain sequential loop, same episodes.

    python -m bench.perf.pipeline [--scale 0.05] [--ks 1,4,16,64] [--backend asyncio,trio]

The simulated suite runs with realistic latencies (act 0.2 s, screenshot
0.05 s, tree 0.5 s, Agent LLM 2.0 s, Summarizer LLM 1.5 s, reset 1.0 s), all
multiplied by `--scale` so the benchmark is quick. For each event loop named
by `--backend`, printed, all measured in this one process:

- per-step time of the sequential loop (reset, observe, act, summarize, one
  thing after another, one episode at a time) and of the runtime; a step
  runs from the Agent's call to the capture after the action (reset and
  evaluation are the same in both and not part of a step);
- the critical-path bound per step (act + max(screenshot, tree) + Agent),
  from the latencies as this event loop really sleeps them (timers
  overshoot), and runtime / bound (target <= 1.10, K = 64 included);
- the speed-up: per step for K = 1 (target >= 1.5), and for K concurrent
  episodes the sequential loop's wall time over the runtime's for the same
  K episodes (target >= 0.9·K, K up to 64);
- with every latency at zero and 1,000 concurrent episodes: the CPU time per
  step of the runtime (target <= 0.3 ms) and of the sequential loop on the
  same work, median and best of `--cpu-rounds` runs (a shared machine is
  noisy; CPU time, not wall time, so other processes count less);
- at the end, every target with its ratio, per event loop.

Where the runtime's CPU went (issue 15), profiled with py-spy and cProfile on
the 1,000-episode run, and with valgrind's instruction counts (deterministic
on a loaded machine) to compare changes. Before: 0.73-0.92 ms per step on
asyncio, 0.84-1.0 on trio, against 0.06 for the sequential loop.

- Scheduling rounds: an anyio memory stream yields to the loop on every send
  and receive, even when nobody waits; with an anyio Event per letter and
  one per receive, an ask cost ~80 us. The actor's mailbox (runtime.actor)
  now posts without yielding when there is room and the actor waits only
  on an empty mailbox: ~22 us.
- Finding the loop: anyio looks the running loop up on every call
  (current_time, every cancel scope's enter and exit, every Event); on
  CPython 3.11 asyncio that is `get_running_loop()`, which makes a getpid
  system call, 64 per step, each a microsecond or more on a busy VM. The
  hot path now reads the loop's clock looked up once (runtime.loop) and
  waits on the loop's own one-shot wake-up (a Future, a parked trio task).
- Cancel scopes for timeouts: every ask set up one (a supervised ask two).
  A deadline is now the wake-up's, and a supervised ask sets up none while
  its child runs. A timer handle per deadline (asyncio compares them in its
  heap with a Python `__lt__`) or a trio cancel scope per deadline still cost
  ~3 and ~8 us an ask; every deadline is now an entry in one heap of tuples
  per loop, woken by one timer (runtime.loop._Deadlines): an ask with a
  deadline 8.5 -> 6.9 us on asyncio, 17 -> 9.5 on trio.
- The step's `changed` flag (actors.screen_change) matched the two trees'
  elements through dicts and sets: 68 us a sim step. Trees whose ids come in
  the same order (nearly every step) are now paired in order, and the first
  real difference answers: 30 us.
- Tasks: anyio builds a handle, a cancel scope and an event per task. The
  Observer's three captures now run in the loop's own task group
  (then `runtime.loop.alongside`, since replaced by side tasks: below; a sim capture ~65 -> ~32 us on asyncio), and an
  episode's change summaries are asked in turn by one side task instead of
  a task per step.
- Teardown: a worker cancelled the task group around its supervisors, and
  anyio delivered that cancellation through every nested scope on every
  loop pass (~115 deliveries per episode); it now stops them (~27).
- Per-step dict churn: the Decide history was rebuilt with every summary
  merged in at each step; it is kept up to date as summaries arrive.
- Stopping actors (2026-11-23, second pass): a supervisor cancelled every
  child it stopped, and delivering a cancellation to an idle task costs
  ~50-60 us on either loop, five times per episode. An idle actor (waiting
  for a letter) is now ended by closing its mailbox (`close_if_idle`, and a
  `LocalHost` of idle actors likewise); only a busy one is cancelled. An
  idle supervisor's `stop` is a message to its deciding task instead of a
  cancellation, its mail a deque with the loop's wake-up instead of an anyio
  memory stream, and the deciding task waits for a child to start and to
  end on wake-ups with a deadline instead of anyio events and a cancel scope.
  A 3-actor supervisor's start and stop: 380 -> 257 us on asyncio, 500 ->
  379 on trio. `spawn` of an actor without `on_start` starts a plain task
  instead of `TaskGroup.start` (which costs twice as much).
- The Observer's tree time limit was an anyio cancel scope at every step; it
  is now a deadline of the loop's heap checked once the screenshot is taken
  (then `alongside(..., limit=)`): a sim capture 51 -> 41 us on asyncio. trio's
  clock is read from the run's clock object, and the Observer looks its
  clock up once (each lookup of the running asyncio loop is a getpid call).
- The simulated work itself (also the sequential loop's): a seeded generator
  was made at every agent and judge step (~6.5 us each) though most steps
  draw nothing, the instruction was parsed at every step, a plain frame was
  an RGB image: 0.096 -> 0.072 ms per step. Runtime instructions per step
  -10% (callgrind, 300 episodes).
- Not measured: drawing the simulated screen. The tasks ask for plain frames
  (`screens: plain`, one colour per screen state, tens of us) because a drawn
  frame costs ~3 ms of CPU, ten times the whole per-step target.
- Not the cost: msgspec (in-process messages are never encoded; validating
  a policy's Decision is ~2 us), the event bus and the ResultSink (none in
  this run; publish with no subscriber is a counter), logging (nothing on
  the hot path logs), the garbage collector (under its tuned thresholds
  there are almost no cycles to collect; disabling it changed asyncio by
  ~1%, trio by up to ~9% in noisy runs), the Python version (3.12: the same
  figures within noise).

- The per-episode structure (2026-11-24): with 1,000 workers each starts and
  stops two supervisors, five actors and a host for its one episode, and
  anyio's task group (since 4.14) wraps every task in a handle with a cancel
  scope and an event, and its `start` opens a nursery of its own on trio
  (an anyio task ~41 us on asyncio and ~61 on trio against ~9 and ~21 in the
  loop's own group, 1,000 at once). Supervisors, hosts, the runner's workers
  and an episode's summaries now run in the loop's own task group
  (`runtime.loop.task_group`, `start`); a supervisor's `stop` waits on a
  wake-up, not an anyio Event. A worker's start and stop (its crew and VM
  slot supervisors, 1,000 workers at once, CPU per worker) 857 -> 494 us on
  asyncio, 1,337 -> 723 on trio; instructions per step -14% and -12%
  (callgrind, 300 episodes). The simulated screen's fingerprint is encoded
  by msgspec instead of `repr` and computed once per screenshot (the
  sequential loop: 0.071 -> 0.055 ms per step).

- The Observer's side captures (2026-11-24, second pass): a trio nursery, two
  new tasks and a cancel scope at every capture were 17% of trio's
  instructions per step and 10% of asyncio's. The tree and the details are
  now captured in two side tasks that live as long as the Observer
  (`runtime.side_task`, held open by `Actor.lifetime`): a capture begins a
  call in each and finishes it, the tree's time limit is a deadline of the
  loop's heap, and its cancel scope is made anew only after a cancellation.
  Instructions per step (callgrind, 300 episodes) trio 1.644M -> 1.518M,
  asyncio 1.293M -> 1.269M.
- Cancel scopes: anyio's on trio finds the backend and makes trio's scope
  twice over (its `__new__` picks the backend's class, whose `__init__`
  Python then runs again), ten times per worker; `runtime.loop.cancel_scope`
  is trio's own under trio. The loop is told by the name trio gives sniffio
  instead of by asyncio's `get_running_loop()` raising. A worker's start and
  stop on trio: crew 1.696M -> 1.565M instructions, VM slot 2.027M -> 1.896M.
- The change flag walked both trees whole at every step (15.5 us a sim
  step); a subtree equal in both (msgspec's equality, in C) is now passed
  over (7.6 us): instructions per step -4% on trio, -5% on asyncio.
- The garbage collector: with 1,000 episodes in flight it walked their
  observations and records at every collection, 11.7% of trio's CPU in a
  round after a warm-up (gen0 0.29 s, and a gen1 pass of 0.23 s in one
  round of three). Protocol structs are frozen and acyclic and now
  `gc=False` (protocols' docstring): 4% (gen0 0.16 s, no gen1 pass).

After the second pass (2026-11-24): asyncio 0.286 ms per step (best 0.277),
trio 0.329 (best 0.309) on a machine then ~4% slower than in the first pass.
Instructions per step (callgrind, 300 episodes): trio 1.644M -> 1.421M,
asyncio 1.293M -> 1.205M. trio took ~16 task switches per step, three of them
the Observer's concurrency (its side captures run, it waits once) and two or
three the change summaries (a task of the episode's that asked for them in
turn). A wake-up round trip measured alone costs about the same on both
loops (a task woken, its waker yielding once: 10.6 us on trio, 9.8 on
asyncio); what a trio switch costs beyond it is its run loop's Python (its
scheduler, traps and outcomes were ~27% of the samples, asyncio's ~19%).
A worker's start and stop, with 1,000 workers for 1,000 episodes, is a fifth
of trio's instructions per step (two supervisors, five actors, the
Observer's side tasks: 3.46M instructions each). The await chains are deep
(an episode's ask waits 15 frames down) but each frame costs ~0.07 us a
round trip.

- The change summaries (2026-11-24, third pass): the episode's task that
  asked for them in turn was woken at every step and parked on every
  reply. A request is now posted with `ask_soon` and its answer handed to a
  function in the Summarizer's own task (`actors.step_summaries`): trio
  15.8 -> 14.0 task switches per step, instructions per step 1.415M ->
  1.346M on trio, 1.205M -> 1.157M on asyncio. Tried first as an upper
  bound: the summaries told and never answered, 1.311M.

Now (2026-11-24, a quiet machine, load < 1; the code before the third pass,
run in turns with it, gave trio 0.294-0.298 and asyncio 0.251-0.253 ms, so
this machine was ~10% faster than in the second pass): asyncio 0.229-0.234 ms per
step, trio 0.269-0.281 (`--cpu-rounds 7`: 0.234 and 0.281, best 0.229 and 0.273),
both under the 0.3 ms target. The sequential loop on the same work: 0.053.
Not done: the Observer's details captured in the tree's side task (one
switch a step less, -4% instructions) would cost the browser ~1 ms a step
(screenshot, tree and details together 30.6 ms median on four MiniWoB
tasks; details then tree beside the screenshot 31.6; details after the
screenshot 34.4).
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time
from dataclasses import dataclass

import anyio

from actors.agent import Agent
from actors.evaluator import Evaluator
from actors.runner import CrewFactory, EpisodeRunner
from bench.suites.sim.checker import SimChecker
from bench.suites.sim.agent import SimJudge, SimPolicy
from actors.backends.sim.node import build
from actors.backends.sim.vm import SimVM
from actors.summarizer import Summarizer
from bench.suites.sim.suite import sim_tasks
from bench.tuning import tune_gc
from protocols import Decide, EpisodeResult, Evaluate, Observation, StepRecord, Summarize, Task
from runtime.host import run_local_host
from runtime.limits import Limits

REALISTIC = {"reset": 1.0, "act": 0.2, "screenshot": 0.05, "tree": 0.5, "agent": 2.0, "summarizer": 1.5}
GOALS = 11  # every episode: 11 actions and `done`, so concurrent episodes end together


def tasks(count: int, scale: float) -> list[Task]:
    latencies = {name: {"mean": seconds} for name, seconds in REALISTIC.items()}
    return sim_tasks(count, seed=7, sim={"scale": scale, "latencies": latencies, "screens": "plain"}, goals=(GOALS, GOALS))


async def calibrate(scale: float, rounds: int = 20) -> dict[str, float]:
    """What each simulated latency really lasts on this event loop (timers overshoot
    by up to a millisecond), so the bound is the one this machine can reach."""
    measured = {}
    for name, seconds in REALISTIC.items():
        samples = []
        for _ in range(rounds):
            started = time.perf_counter()
            await anyio.sleep(seconds * scale)
            samples.append(time.perf_counter() - started)
        measured[name] = statistics.median(samples)
    return measured


# --- the plain sequential loop (what today's harnesses do) ---------------------


async def sequential_episode(task: Task) -> tuple[int, float]:
    """Reset, observe, decide, act, summarize, in strict order.

    Returns the steps taken and the seconds they took (reset and evaluation,
    the same in both loops, are not part of a step)."""
    vm, policy, judge = SimVM(), SimPolicy(), SimJudge()
    episode_id = f"{task.task_id}#1"  # the runtime's id, so the seeded agent decides the same

    async def observe() -> Observation:
        screenshot, viewport = await vm.screenshot()
        return Observation(screenshot=screenshot, viewport=viewport, tree=await vm.tree())

    await vm.reset(task, 1)
    observation = await observe()
    started = time.perf_counter()
    max_steps = Limits().max_steps
    history: list[StepRecord] = []  # what the stateless policy reads its progress from, as in the runtime
    for step in range(1, max_steps + 1):
        decision = await policy.decide(Decide(task=task, episode_id=episode_id, step=step, max_steps=max_steps,
                                              observation=observation, history=tuple(history)))
        if decision.action.terminal:
            break
        history.append(StepRecord(episode_id=episode_id, step=step, action=decision.action))
        await vm.act(step, decision.action)
        after = await observe()
        await judge.summarize(Summarize(task=task, episode_id=episode_id, step=step, action=decision.action,
                                        before=observation, after=after))
        observation = after
    seconds = time.perf_counter() - started
    await SimChecker().check(Evaluate(task=task, episode_id=episode_id, steps=(), vm_state=await vm.inspect({})))
    return step, seconds


@dataclass(frozen=True)
class Sequential:
    """The sequential loop's figures, per episode in order (the K-episode runs
    are prefixes of one run: `tasks(k)` are the first k of `tasks(n)`)."""

    walls: list[float]
    steps: list[int]
    step_seconds: list[float]

    def wall(self, k: int) -> float:
        return sum(self.walls[:k])

    def per_step(self, k: int) -> float:
        return statistics.mean(s / n for n, s in zip(self.steps[:k], self.step_seconds[:k]))


async def run_sequential(episodes: list[Task]) -> Sequential:
    """`episodes` one after another."""
    walls, steps, seconds = [], [], []
    for task in episodes:
        started = time.perf_counter()
        n, spent = await sequential_episode(task)
        walls.append(time.perf_counter() - started)
        steps.append(n)
        seconds.append(spent)
    return Sequential(walls, steps, seconds)


# --- the actor runtime --------------------------------------------------------------


async def run_runtime(episodes: list[Task], concurrency: int) -> tuple[float, list[EpisodeResult]]:
    runner = EpisodeRunner(
        crew=CrewFactory(agent=lambda: Agent(SimPolicy()), evaluator=lambda: Evaluator(SimChecker()),
                         summarizer=lambda: Summarizer(SimJudge())),
        vm_slot=functools.partial(run_local_host, build),
        limits=Limits(call_seconds=600),
        concurrency=concurrency,
    )
    started = time.perf_counter()
    results = await runner.run(episodes)
    return time.perf_counter() - started, results


def bound_per_step(results: list[EpisodeResult], r: dict[str, float]) -> float:
    """The critical path per step: act + max(screenshot, tree) + Agent, except
    the last step, which is only the Agent's `done`."""
    capture = max(r["screenshot"], r["tree"])
    return statistics.mean(((res.steps - 1) * (r["agent"] + r["act"] + capture) + r["agent"]) / res.steps
                           for res in results)


@dataclass(frozen=True)
class CPUPerStep:
    runtime: list[float]
    sequential: list[float]
    steps: int
    wall: float


async def cpu_per_step(episodes: int, rounds: int) -> CPUPerStep:
    """CPU seconds per step with `episodes` concurrent zero-latency episodes, each round
    the sequential loop on the same episodes first."""
    runtime, sequential = [], []
    for _ in range(rounds):
        work = tasks(episodes, 0.0)
        cpu = time.process_time()
        seq = await run_sequential(work)
        sequential.append((time.process_time() - cpu) / sum(seq.steps))
        cpu = time.process_time()
        wall, results = await run_runtime(work, episodes)
        steps = sum(r.steps for r in results)
        runtime.append((time.process_time() - cpu) / steps)
    return CPUPerStep(runtime, sequential, steps, wall)


TARGET_BOUND = 1.10
TARGET_CPU = 0.3e-3


async def main(scale: float, ks: list[int], overhead_episodes: int, cpu_rounds: int) -> list[str]:
    """Print this event loop's figures; return its line of the targets' summary."""
    print(f"sim pipeline, latencies x{scale} (per step: act {0.2*scale*1e3:.1f} ms, tree {0.5*scale*1e3:.1f} ms, "
          f"agent {2.0*scale*1e3:.1f} ms, summarizer {1.5*scale*1e3:.1f} ms)")
    tune_gc()  # as bench.supervisor does; both loops run under it
    latencies = await calibrate(scale)
    sequential = await run_sequential(tasks(max(ks), scale))
    print(f"{'K':>4} {'seq s/step':>11} {'rt s/step':>10} {'bound':>8} {'rt/bound':>9} {'target':>7} "
          f"{'speedup':>8} {'target':>7}")
    at_largest = 0.0
    for k in ks:
        rt_wall, results = await run_runtime(tasks(k, scale), k)
        assert all(r.success for r in results), [r.reason for r in results if not r.success]
        assert sum(r.steps for r in results) == sum(sequential.steps[:k]), "the loops took different steps"
        bound = bound_per_step(results, latencies)
        per_step_rt = statistics.mean(r.timings.steps / r.steps for r in results)
        speedup = sequential.per_step(k) / per_step_rt if k == 1 else sequential.wall(k) / rt_wall
        target = 1.5 if k == 1 else 0.9 * k
        at_largest = per_step_rt / bound
        print(f"{k:>4} {sequential.per_step(k):>11.4f} {per_step_rt:>10.4f} {bound:>8.4f} {at_largest:>9.3f} "
              f"{TARGET_BOUND:>7.2f} {speedup:>8.2f} {target:>7.2f}   "
              f"(whole episodes: {sequential.wall(k):.2f} s vs {rt_wall:.2f} s)")

    cpu = await cpu_per_step(overhead_episodes, cpu_rounds)
    runtime, best = statistics.median(cpu.runtime), min(cpu.runtime)
    seq = statistics.median(cpu.sequential)
    print(f"{overhead_episodes} concurrent episodes, zero latency, {cpu_rounds} rounds ({cpu.steps} steps, "
          f"last in {cpu.wall:.2f} s): CPU per step, median (best), runtime {runtime * 1e3:.3f} ms "
          f"({best * 1e3:.3f}) vs target {TARGET_CPU * 1e3:.1f} ms: {runtime / TARGET_CPU:.2f}x the target "
          f"({best / TARGET_CPU:.2f}x); sequential loop {seq * 1e3:.3f} ms, runtime / sequential "
          f"{runtime / seq:.1f}x, beyond it {(runtime - seq) * 1e3:.3f} ms")
    return [f"K = {max(ks)} per step / bound {at_largest:.3f} (target <= {TARGET_BOUND:.2f}: "
            f"{'met' if at_largest <= TARGET_BOUND else 'not met'})",
            f"CPU per step {runtime * 1e3:.3f} ms, best {best * 1e3:.3f} = {runtime / TARGET_CPU:.2f}x "
            f"({best / TARGET_CPU:.2f}x) the {TARGET_CPU * 1e3:.1f} ms target "
            f"({'met' if runtime <= TARGET_CPU else 'best met' if best <= TARGET_CPU else 'not met'})"]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.perf.pipeline", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=0.05)
    parser.add_argument("--ks", default="1,4,16,64")
    parser.add_argument("--overhead-episodes", type=int, default=1000)
    parser.add_argument("--cpu-rounds", type=int, default=3)
    parser.add_argument("--backend", default="asyncio,trio", help="event loops, comma-separated")
    args = parser.parse_args()
    summary = {}
    for backend in args.backend.split(","):
        print(f"== {backend} ==")
        summary[backend] = anyio.run(main, args.scale, [int(k) for k in args.ks.split(",")], args.overhead_episodes,
                                     args.cpu_rounds, backend=backend)
    print("== targets ==")
    for backend, lines in summary.items():
        for line in lines:
            print(f"{backend:>8}: {line}")
