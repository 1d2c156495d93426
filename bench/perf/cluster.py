"""Episodes per minute with VMs placed by Ray on one raylet vs two, and how long a node takes to come up.

    python -m bench.perf.cluster [--vms 4] [--episodes 32] [--scale 0.2] [--backend asyncio|trio]

A loopback Ray cluster (`runtime.ray_nodes.LoopbackCluster`: every Ray
process on 127.0.0.1) first has one raylet offering `--vms` VMs, then a
second one of the same capacity. Both times the same simulated episodes run
with twice `--vms` VM slots, so with one raylet half of the slots wait for a
VM and with two all of them get one. The episodes are latency-bound
(bench.perf.pipeline's realistic latencies times `--scale`: the Agent's LLM
dominates, the CPU is nearly idle), so the ratio shows what placement buys,
not this machine's cores. Printed:

- episodes per minute on one raylet and on two, from the run's start to its
  last result (Ray starting the nodes included), and from the moment its
  first VM was placed (no episode can start earlier; this leaves out one
  node's start-up, reported below); the ratios (target >= 1.8);
- the time from asking Ray for a node to its first observation, with the
  moments it was placed (Ray found a host and started the actor in a fresh
  worker process) and connected (the node listens and the websocket is
  open); observed is after a reset and one Observe over the websocket;
  medians of three fresh nodes.
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
from bench.perf.pipeline import tasks
from bench.suites.sim.agent import SimPolicy
from bench.suites.sim.checker import SimChecker
from protocols import Observe, Reset
from runtime.limits import Limits
from runtime.ray_nodes import VM_RESOURCE, LoopbackCluster, Placements, run_ray_node

SIM_APP = "actors.backends.sim.node:build"
TARGET_RATIO = 1.8


class _Rates:
    """When a run's results came, and how many VMs it had placed at once."""

    def __init__(self) -> None:
        self.placements = Placements(on_change=self._placed)
        self.most = 0
        self.first = 0.0  # when the run's first VM was placed: no episode can start before
        self.results: list[float] = []

    def _placed(self, placements: Placements) -> None:
        if placements.placed and not self.first:
            self.first = time.perf_counter()
        self.most = max(self.most, len(placements.placed))

    def finished(self, _result: object) -> None:
        self.results.append(time.perf_counter())


async def episodes_per_minute(episodes: int, slots: int, scale: float) -> tuple[float, float, int]:
    """Run `episodes` on `slots` Ray-placed VM slots. Episodes per minute from the start to the last result,
    the same from the first VM placed (so without the first node's start-up), and the most VMs at once."""
    rates = _Rates()
    runner = EpisodeRunner(
        crew=CrewFactory(agent=lambda: Agent(SimPolicy()), evaluator=lambda: Evaluator(SimChecker())),
        vm_slot=functools.partial(run_ray_node, SIM_APP, resources={VM_RESOURCE: 1}, num_cpus=0,
                                  placements=rates.placements),
        limits=Limits(call_seconds=600),
        concurrency=slots,
        on_result=rates.finished,
    )
    started = time.perf_counter()
    results = await runner.run(tasks(episodes, scale))
    failed = [r.reason for r in results if not r.success]
    assert not failed, failed
    last = rates.results[-1]
    return len(results) / (last - started) * 60, len(results) / (last - rates.first) * 60, rates.most


async def first_observation() -> dict[str, float]:
    """Seconds from asking Ray for a node to each stage of its coming up, for one fresh node."""
    stages: dict[str, float] = {}
    asked = time.perf_counter()

    def note(placements: Placements) -> None:
        if placements.placed and "placed" not in stages:
            stages["placed"] = time.perf_counter() - asked

    async with anyio.create_task_group() as tg:
        node = await tg.start(functools.partial(run_ray_node, SIM_APP, resources={VM_RESOURCE: 1}, num_cpus=0,
                                                placements=Placements(on_change=note)))
        stages["connected"] = time.perf_counter() - asked
        task = tasks(1, 0.0)[0]
        await node.ref("vm").ask(Reset(task=task, episode_id=f"{task.task_id}#1"))
        await node.ref("observer").ask(Observe(step=0, tree_timeout=10))
        stages["observed"] = time.perf_counter() - asked
        tg.cancel_scope.cancel()
    return stages


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.perf.cluster", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vms", type=int, default=4, help="VMs each raylet offers")
    parser.add_argument("--episodes", type=int, default=32)
    parser.add_argument("--scale", type=float, default=0.2, help="multiplies the realistic latencies")
    parser.add_argument("--backend", choices=["asyncio", "trio"], default="asyncio")
    args = parser.parse_args()
    run = functools.partial(anyio.run, backend=args.backend)
    print(f"sim episodes ({args.episodes}, latencies x{args.scale}), {2 * args.vms} VM slots, "
          f"{args.vms} VMs per raylet")
    with LoopbackCluster() as cluster:
        rates = []
        for raylets in (1, 2):
            # Ray starts raylets from the main thread only, so between runs; one CPU per VM, so that
            # the raylet keeps as many idle workers ready for actors.
            cluster.add_raylet(args.vms, cpus=args.vms)
            whole, placed, most = run(episodes_per_minute, args.episodes, 2 * args.vms, args.scale)
            rates.append((whole, placed))
            print(f"  {raylets} raylet{'s' if raylets > 1 else ' '}: {whole:6.1f} episodes/min, "
                  f"{placed:6.1f} from the first VM placed  (at most {most} VMs at once)")
        print(f"  ratio {rates[1][0] / rates[0][0]:.2f}, from the first VM placed {rates[1][1] / rates[0][1]:.2f}  "
              f"(target >= {TARGET_RATIO})")
        samples = [run(first_observation) for _ in range(3)]
    print("asking Ray for a node -> its first observation (median of 3 fresh nodes):")
    for stage in ("placed", "connected", "observed"):
        print(f"  {stage:>9}: {statistics.median(s[stage] for s in samples):.2f} s")


if __name__ == "__main__":
    main()
