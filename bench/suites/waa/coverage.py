"""What of a WAA task this project can run: setup step types, getters, functions.

A task is runnable when every `config` and `postconfig` step type has a
handler (setup.py), every `result`/`expected` type a getter
(getters.py) and every `func` a metric (metrics.py)
that knows every rule type the task's options ask of it.
The listing counts, per domain, the feasible tasks that can run and the
`infeasible` ones (which need no evaluator) apart, names what each task that
cannot run lacks, and the missing pieces overall, most needed first, so the
next piece of work is obvious.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from protocols import Task

from bench.suites.waa.checker import functions, per_function
from bench.suites.waa.getters import GETTERS, specs
from bench.suites.waa.metrics import INFEASIBLE, SUPPORTED_FUNCTIONS, unsupported_rules
from bench.suites.waa.setup import STEPS


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


def is_infeasible(task: Task) -> bool:
    """A task whose only function is `infeasible`: it needs no evaluator, only the agent saying so."""
    return functions(task.evaluation_spec) == [INFEASIBLE]


@dataclass
class DomainCoverage:
    tasks: int = 0
    runnable: int = 0
    infeasible: int = 0
    lacking: dict[str, Missing] = field(default_factory=dict)
    steps: Counter = field(default_factory=Counter)
    getters: Counter = field(default_factory=Counter)
    functions: Counter = field(default_factory=Counter)


def coverage(tasks: list[Task]) -> dict[str, DomainCoverage]:
    """Per domain, in the order the task list gives them: runnable feasible tasks and runnable
    infeasible ones apart, what each other task lacks, and how many tasks need each missing piece."""
    domains: dict[str, DomainCoverage] = {}
    for task in tasks:
        figures = domains.setdefault(task.domain, DomainCoverage())
        figures.tasks += 1
        gap = missing(task)
        if gap:
            figures.lacking[task.task_id] = gap
        elif is_infeasible(task):
            figures.infeasible += 1
        else:
            figures.runnable += 1
        figures.steps.update(gap.steps)
        figures.getters.update(gap.getters)
        figures.functions.update(gap.functions)
    return domains


def _most_needed(counts: Counter) -> str:
    return ", ".join(f"{name} ({n})" for name, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def _lacks(gap: Missing) -> str:
    parts = [(label, names) for label, names in (("step types", gap.steps), ("getters", gap.getters),
                                                 ("functions", gap.functions)) if names]
    return "; ".join(f"{label} {', '.join(sorted(names))}" for label, names in parts)


def report(tasks: list[Task], title: str) -> str:
    """Plain text: one line per domain (feasible tasks that can run, and infeasible ones, which
    need no evaluator, apart), then each task that cannot run with what it lacks, then the totals."""
    domains = coverage(tasks)
    lines = [title, f"{'domain':<20} {'tasks':>5} {'runnable':>8} {'infeasible':>10}"]
    total = DomainCoverage()
    for name, figures in domains.items():
        lines.append(f"{name:<20} {figures.tasks:>5} {figures.runnable:>8} {figures.infeasible:>10}")
        lines += [f"    cannot run {task_id}: lacks {_lacks(gap)}" for task_id, gap in figures.lacking.items()]
        for counts, grand in ((figures.steps, total.steps), (figures.getters, total.getters),
                              (figures.functions, total.functions)):
            grand.update(counts)
        total.tasks += figures.tasks
        total.runnable += figures.runnable
        total.infeasible += figures.infeasible
    lines.append(f"{'all':<20} {total.tasks:>5} {total.runnable:>8} {total.infeasible:>10}")
    for label, counts in (("step types", total.steps), ("getters", total.getters), ("functions", total.functions)):
        if counts:
            lines.append(f"missing {label} overall (tasks needing each): {_most_needed(counts)}")
    return "\n".join(lines)
