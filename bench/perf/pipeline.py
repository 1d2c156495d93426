"""Per-step time of the actor runtime against a plain sequential loop, same episodes.

    python -m bench.perf.pipeline [--scale 0.05] [--ks 1,4,16,64] [--backend asyncio|trio]

The simulated suite runs with realistic latencies (act 0.2 s, screenshot
0.05 s, tree 0.5 s, Agent LLM 2.0 s, Summarizer LLM 1.5 s, reset 1.0 s), all
multiplied by `--scale` so the benchmark is quick. Printed, all measured in
this one process:

- per-step time of the sequential loop (reset, observe, act, summarize, one
  thing after another, one episode at a time) and of the runtime; a step
  runs from the Agent's call to the capture after the action (reset and
  evaluation are the same in both and not part of a step);
- the critical-path bound per step (act + max(screenshot, tree) + Agent),
  from the latencies as this event loop really sleeps them (timers
  overshoot), and runtime / bound (target <= 1.10);
- the speed-up: per step for K = 1 (target >= 1.5), and for K concurrent
  episodes the sequential loop's wall time over the runtime's for the same
  K episodes (target >= 0.9·K, K up to 64);
- with every latency at zero and 1,000 concurrent episodes: the runtime's
  CPU time per step beyond what the sequential loop spends on the same work.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time

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
    return sim_tasks(count, seed=7, sim={"scale": scale, "latencies": latencies}, goals=(GOALS, GOALS))


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


async def run_sequential(episodes: list[Task]) -> tuple[float, int, float]:
    """Wall time, steps, and mean per-step time over `episodes`, one after another."""
    started = time.perf_counter()
    per_step = []
    for task in episodes:
        steps, seconds = await sequential_episode(task)
        per_step.append((steps, seconds))
    return time.perf_counter() - started, sum(n for n, _ in per_step), statistics.mean(s / n for n, s in per_step)


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


async def main(scale: float, ks: list[int], overhead_episodes: int) -> None:
    print(f"sim pipeline, latencies x{scale} (per step: act {0.2*scale*1e3:.1f} ms, tree {0.5*scale*1e3:.1f} ms, "
          f"agent {2.0*scale*1e3:.1f} ms, summarizer {1.5*scale*1e3:.1f} ms)")
    tune_gc()  # as bench.supervisor does; both loops run under it
    latencies = await calibrate(scale)
    print(f"{'K':>4} {'seq s/step':>11} {'rt s/step':>10} {'bound':>8} {'rt/bound':>9} {'speedup':>7} {'target':>7}")
    for k in ks:
        episodes = tasks(k, scale)
        seq_wall, seq_steps, per_step_seq = await run_sequential(episodes)
        rt_wall, results = await run_runtime(episodes, k)
        rt_steps = sum(r.steps for r in results)
        assert all(r.success for r in results), [r.reason for r in results if not r.success]
        assert rt_steps == seq_steps, (rt_steps, seq_steps)
        bound = bound_per_step(results, latencies)
        per_step_rt = statistics.mean(r.timings.steps / r.steps for r in results)
        speedup = per_step_seq / per_step_rt if k == 1 else seq_wall / rt_wall
        target = 1.5 if k == 1 else 0.9 * k
        print(f"{k:>4} {per_step_seq:>11.4f} {per_step_rt:>10.4f} {bound:>8.4f} "
              f"{per_step_rt / bound:>9.3f} {speedup:>7.2f} {target:>7.2f}   "
              f"(whole episodes: {seq_wall:.2f} s vs {rt_wall:.2f} s)")

    episodes = tasks(overhead_episodes, 0.0)
    cpu = time.process_time()
    _, seq_steps, _ = await run_sequential(episodes)
    seq_cpu = time.process_time() - cpu
    cpu = time.process_time()
    wall, results = await run_runtime(episodes, overhead_episodes)
    rt_cpu = time.process_time() - cpu
    steps = sum(r.steps for r in results)
    print(f"{overhead_episodes} concurrent episodes, zero latency: {steps} steps in {wall:.2f} s; CPU per step "
          f"sequential {seq_cpu / seq_steps * 1e3:.3f} ms, runtime {rt_cpu / steps * 1e3:.3f} ms, "
          f"runtime overhead {(rt_cpu / steps - seq_cpu / seq_steps) * 1e3:.3f} ms (target < 1 ms)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=0.05)
    parser.add_argument("--ks", default="1,4,16,64")
    parser.add_argument("--overhead-episodes", type=int, default=1000)
    parser.add_argument("--backend", choices=["asyncio", "trio"], default="asyncio")
    args = parser.parse_args()
    anyio.run(main, args.scale, [int(k) for k in args.ks.split(",")], args.overhead_episodes, backend=args.backend)
