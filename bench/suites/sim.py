"""The simulated suite: generated form-filling tasks for a simulated VM.

Deterministic from a seed, so a run, a test and a benchmark see the same
tasks. Each task fills some fields, ticks some boxes and clicks a button;
the instruction says so in sentences the simulated agent can ground in the
accessibility tree, and `evaluation_spec` holds the state the VM must reach.
"""

from __future__ import annotations

import random
from typing import Any

from protocols import Task

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
