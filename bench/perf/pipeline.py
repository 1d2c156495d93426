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

docs/performance.md says where the runtime's CPU went, what was changed
and tried, and the figures over time.
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
