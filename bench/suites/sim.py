"""The simulated suite: generated form-filling tasks for a simulated VM.

Deterministic from a seed, so a run, a test and a benchmark see the same
tasks. Each task fills some fields, ticks some boxes and clicks a button;
the instruction says so in sentences the simulated agent can ground in the
accessibility tree, and `evaluation_spec` holds the state the VM must reach.
"""

from __future__ import annotations

import argparse
import random
from typing import Any

from protocols import Task

from actors.sim.checker import SimChecker
from actors.sim.node import build
from bench.suites.base import Suite

_FIELDS = ["Name", "Email", "City", "Phone", "Company", "Title"]
_BOXES = ["Subscribe", "Agree to terms", "Remember me", "Dark mode"]
_BUTTONS = ["Submit", "Save", "Apply", "Next"]
_VALUES = ["alice", "bob@example.org", "Lyon", "555-0100", "Acme", "engineer"]


def sim_tasks(
    count: int, *, seed: int = 0, sim: dict[str, Any] | None = None, max_steps: int = 15,
    goals: tuple[int, int] = (2, 6),
) -> list[Task]:
    """`count` tasks of `goals` (min, max) goals each, the last one a click;
    `sim` is merged into every task's simulation settings (latencies, scale,
    faults, agent_error_rate, ...)."""
    if not 2 <= goals[0] <= goals[1] <= len(_FIELDS) + len(_BOXES) + 1:
        raise ValueError(f"goals must lie within 2..{len(_FIELDS) + len(_BOXES) + 1}, got {goals}")
    rng = random.Random(seed)
    return [_task(index, rng, seed, sim or {}, max_steps, rng.randint(*goals) - 1) for index in range(count)]


def _task(index: int, rng: random.Random, seed: int, sim: dict[str, Any], max_steps: int, fills: int) -> Task:
    """`fills` fields and boxes to fill before the closing click."""
    n_fields = rng.randint(max(0, fills - len(_BOXES)), min(fills, len(_FIELDS)))
    fields = rng.sample(_FIELDS, n_fields)
    boxes = rng.sample(_BOXES, fills - n_fields)
    button = rng.choice(_BUTTONS)
    values = {name: rng.choice(_VALUES) for name in fields}
    layout = [{"role": "textbox", "name": n} for n in _FIELDS] + [{"role": "checkbox", "name": n} for n in _BOXES]
    layout += [{"role": "button", "name": n} for n in _BUTTONS]
    sentences = [f"Type '{values[n]}' into '{n}'." for n in fields]
    sentences += [f"Check '{n}'." for n in boxes] + [f"Click '{button}'."]
    return Task(
        task_id=f"sim-{seed}-{index:04d}",
        instruction=" ".join(sentences),
        domain=("forms", "settings", "signup")[index % 3],
        time_limit_steps=max_steps,
        raw_config={"sim": {"layout": layout, "seed": seed, **sim}},
        evaluation_spec={"expect": {"fields": values, "checked": boxes, "clicked": [button]}},
    )


class SimSuite(Suite):
    """Generated form tasks on simulated VMs; `--scale` shrinks the realistic latencies."""

    name = "sim"
    node_app = "actors.sim.node:build"

    def __init__(self, tasks: list[Task]) -> None:
        self.tasks = tasks

    @classmethod
    def add_arguments(cls, group: argparse._ArgumentGroup) -> None:
        group.add_argument("--seed", type=int, default=0, help="sim: seed of the generated tasks")
        group.add_argument("--scale", type=float, default=0.05,
                           help="sim: multiply the realistic latencies (act 0.2 s, tree 0.5 s, LLM 2 s, ...) by this")
        group.add_argument("--agent-error-rate", type=float, default=0.15,
                           help="sim: chance the simulated agent clicks a wrong element")
        group.add_argument("--crash-rate", type=float, default=0.0, help="sim: chance a VM crashes at a step")

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> SimSuite:
        sim: dict[str, Any] = {"scale": args.scale, "agent_error_rate": args.agent_error_rate}
        if args.crash_rate:
            sim["faults"] = [{"kind": "crash", "rate": args.crash_rate}]
        return cls(sim_tasks(args.episodes, seed=args.seed, sim=sim, max_steps=args.max_steps))

    def list_tasks(self, domain: str | None = None) -> list[Task]:
        return [t for t in self.tasks if domain is None or t.domain == domain]

    def selection(self, args: argparse.Namespace) -> list[Task]:
        return self.tasks

    def checker(self) -> SimChecker:
        return SimChecker()

    def vm_actors(self):
        return build
