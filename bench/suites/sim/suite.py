"""The simulated suite: generated form-filling tasks for a simulated VM.

Deterministic from a seed, so a run, a test and a benchmark see the same
tasks. Each task fills some fields, ticks some boxes and clicks a button;
the instruction says so in sentences the simulated agent can ground in the
accessibility tree, and `evaluation_spec` holds the state the VM must reach.
Every step of a run is scored against the action its next goal asks for
(`bench.suites.sim.goals`).
"""

from __future__ import annotations

import random
from typing import Annotated, Any

import msgspec

from protocols import Task

from actors.backends.sim.node import build
from actors.episode import StepReference
from bench.config import RunConfig, option
from bench.suites.base import Suite, repeat_seed
from bench.suites.sim.checker import SimChecker
from bench.suites.sim.goals import step_reference

_FIELDS = ["Name", "Email", "City", "Phone", "Company", "Title"]
_BOXES = ["Subscribe", "Agree to terms", "Remember me", "Dark mode"]
_BUTTONS = ["Submit", "Save", "Apply", "Next"]
_VALUES = ["alice", "bob@example.org", "Lyon", "555-0100", "Acme", "engineer"]


def sim_tasks(
    count: int, *, seed: int = 0, sim: dict[str, Any] | None = None,
    goals: tuple[int, int] = (2, 6),
) -> list[Task]:
    """`count` tasks of `goals` (min, max) goals each, the last one a click;
    `sim` is merged into every task's simulation settings (latencies, scale,
    faults, agent_error_rate, ...)."""
    if not 2 <= goals[0] <= goals[1] <= len(_FIELDS) + len(_BOXES) + 1:
        raise ValueError(f"goals must lie within 2..{len(_FIELDS) + len(_BOXES) + 1}, got {goals}")
    rng = random.Random(seed)
    return [_task(index, rng, seed, sim or {}, rng.randint(*goals) - 1) for index in range(count)]


def _task(index: int, rng: random.Random, seed: int, sim: dict[str, Any], fills: int) -> Task:
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
        raw_config={"sim": {"layout": layout, "seed": seed, **sim}},
        evaluation_spec={"expect": {"fields": values, "checked": boxes, "clicked": [button]}},
    )


class SimOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    episodes: Annotated[int, option("sim: number of tasks to generate", ge=1, resumable=True)] = 24
    seed: Annotated[int, option("sim: seed of the generated tasks")] = 0
    scale: Annotated[float, option("sim: multiply the realistic latencies (act 0.2 s, tree 0.5 s, LLM 2 s, ...) "
                                   "by this: the speed of the simulation, as a machine's is, so a run may be resumed "
                                   "at another", ge=0, resumable=True)] = 0.05
    agent_error_rate: Annotated[float, option("sim: chance the simulated agent clicks a wrong element",
                                              ge=0, le=1)] = 0.15
    crash_rate: Annotated[float, option("sim: chance a VM crashes at a step", ge=0, le=1)] = 0.0


class SimSuite(Suite):
    """Generated form tasks on simulated VMs; `scale` shrinks the realistic latencies."""

    name = "sim"
    Options = SimOptions
    node_app = "actors.backends.sim.node:build"
    vm_cpus = 0.0  # a simulated VM sleeps; it takes no CPU worth reserving

    def __init__(self, tasks: list[Task]) -> None:
        self.tasks = tasks

    @classmethod
    def from_config(cls, config: RunConfig) -> SimSuite:
        options: SimOptions = config.options
        sim: dict[str, Any] = {"scale": options.scale, "agent_error_rate": options.agent_error_rate}
        if options.crash_rate:
            sim["faults"] = [{"kind": "crash", "rate": options.crash_rate}]
        return cls(sim_tasks(options.episodes, seed=options.seed, sim=sim))

    def list_tasks(self, domain: str | None = None) -> list[Task]:
        return [t for t in self.tasks if domain is None or t.domain == domain]

    def selection(self) -> list[Task]:
        return self.tasks

    def repeated(self, task: Task, repeat: int) -> Task:
        """Repeat R draws the simulated agent's and VM's chances from `repeat_seed(seed, R)`."""
        sim = task.raw_config["sim"]
        raw_config = {**task.raw_config, "sim": {**sim, "seed": repeat_seed(sim["seed"], repeat)}}
        return msgspec.structs.replace(task, repeat=repeat, raw_config=raw_config)

    def checker(self) -> SimChecker:
        return SimChecker()

    def step_reference(self) -> StepReference:
        return step_reference

    def vm_actors(self):
        return build
