"""What of a WAA task this project can run: setup step types, getters, functions.

A task is runnable when every `config` and `postconfig` step type has a
handler (actors/waa/setup.py), every `result`/`expected` type a getter
(actors/waa/getters.py) and every `func` a metric (actors/waa/metrics.py)
that knows every rule type the task's options ask of it.
The listing counts runnable tasks per domain and names what is missing, most
needed first, so the next piece of work is obvious.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from protocols import Task

from actors.waa.checker import functions, per_function
from actors.waa.getters import GETTERS, specs
from actors.waa.metrics import SUPPORTED_FUNCTIONS, unsupported_rules
from actors.waa.setup import STEPS


@dataclass(frozen=True)
class Missing:
    steps: frozenset[str] = frozenset()
    getters: frozenset[str] = frozenset()
    functions: frozenset[str] = frozenset()

    def __bool__(self) -> bool:
        return bool(self.steps or self.getters or self.functions)


def missing(task: Task) -> Missing:
    spec = task.evaluation_spec
    steps = [s["type"] for s in [*task.raw_config.get("config", []), *spec.get("postconfig", [])]]
    getters = [s["type"] for key in ("result", "expected") for s in specs(spec.get(key)) if s is not None]
    funcs = functions(spec)
    options = per_function(spec.get("options"), len(funcs))
    rules = set().union(*(unsupported_rules(f, o) for f, o in zip(funcs, options)))
    return Missing(
        steps=frozenset(steps) - STEPS.keys(),
        getters=frozenset(getters) - GETTERS.keys(),
        functions=(frozenset(funcs) - SUPPORTED_FUNCTIONS) | rules,
    )


@dataclass
class DomainCoverage:
    tasks: int = 0
    runnable: int = 0
    steps: Counter = field(default_factory=Counter)
    getters: Counter = field(default_factory=Counter)
    functions: Counter = field(default_factory=Counter)


def coverage(tasks: list[Task]) -> dict[str, DomainCoverage]:
    """Per domain, in the order the task list gives them; counts are of tasks needing each missing piece."""
    domains: dict[str, DomainCoverage] = {}
    for task in tasks:
        figures = domains.setdefault(task.domain, DomainCoverage())
        figures.tasks += 1
        gap = missing(task)
        figures.runnable += not gap
        figures.steps.update(gap.steps)
        figures.getters.update(gap.getters)
        figures.functions.update(gap.functions)
    return domains


def _most_needed(counts: Counter) -> str:
    return ", ".join(f"{name} ({n})" for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def report(tasks: list[Task], title: str) -> str:
    """Plain text: one line per domain, then what it misses, then the totals."""
    domains = coverage(tasks)
    lines = [title, f"{'domain':<20} {'tasks':>5} {'runnable':>8}"]
    total = DomainCoverage()
    for name, figures in domains.items():
        lines.append(f"{name:<20} {figures.tasks:>5} {figures.runnable:>8}")
        for label, counts, grand in (("step types", figures.steps, total.steps),
                                     ("getters", figures.getters, total.getters),
                                     ("functions", figures.functions, total.functions)):
            if counts:
                lines.append(f"    missing {label}: {_most_needed(counts)}")
            grand.update(counts)
        total.tasks += figures.tasks
        total.runnable += figures.runnable
    lines.append(f"{'all':<20} {total.tasks:>5} {total.runnable:>8}")
    for label, counts in (("step types", total.steps), ("getters", total.getters), ("functions", total.functions)):
        if counts:
            lines.append(f"missing {label} overall (tasks needing each): {_most_needed(counts)}")
    return "\n".join(lines)
