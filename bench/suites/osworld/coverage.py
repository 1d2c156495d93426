"""What `--list` says of an OSWorld task folder: per domain, what runs here and what each other task lacks.

A task runs here when this machine gives it everything it needs from
outside (needs.py: the cache's files, the live web, a Google account, with no
VM a GNOME session and VS Code) and troupe has every step type, getter and metric it
names, and the Python packages its metrics need that troupe does not depend
on are installed (image_text.py's easyocr). Infeasible tasks (func "infeasible") need no evaluator and are
counted apart. What is missing overall is totalled, most needed first, so
the next piece of work is obvious.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from protocols import Task

from bench.suites.osworld.checker import functions
from bench.suites.osworld.getters import GETTERS
from bench.suites.osworld.image_text import PYTHON_PACKAGES, importable
from bench.suites.osworld.metrics import INFEASIBLE, SUPPORTED_FUNCTIONS, unsupported_rules
from bench.suites.osworld.needs import Outside, getter_specs, outside, steps
from bench.suites.osworld.setup import STEPS


Installed = Callable[[str], bool]
"""Whether a program is on this machine's PATH (shutil.which), for tasks that run on its desktop."""


def troupe_lacks(task: Task) -> list[str]:
    """The step types, getters and metrics the task names that troupe does not have, one each."""
    spec = task.evaluation_spec
    funcs = functions(spec)
    several = isinstance(spec.get("func"), list)
    expected = (spec.get("expected") if several else [spec.get("expected")]) or [None] * len(funcs)
    options = (spec.get("options") if several else [spec.get("options")]) or [None] * len(funcs)
    rules = set().union(*(unsupported_rules(f, e, o) for f, e, o in zip(funcs, expected, options)))
    missing = [("step", {s["type"] for s in steps(task)} - STEPS.keys()),
               ("getter", {s["type"] for s in getter_specs(task)} - GETTERS.keys()),
               ("metric", (set(funcs) - SUPPORTED_FUNCTIONS) | rules)]
    return [f"{kind} {name}" for kind, names in missing for name in sorted(names)]


def packages_lacking(task: Task) -> dict[str, str]:
    """The Python packages the task's metrics need that are not installed here -> how to install each."""
    wanted = (PYTHON_PACKAGES[func] for func in functions(task.evaluation_spec) if func in PYTHON_PACKAGES)
    return {package: hint for package, hint in wanted if not importable(package)}


@dataclass(frozen=True)
class Gap:
    """What one task lacks: from outside this machine, of troupe, and Python packages its metrics need."""

    outside: Outside
    troupe: tuple[str, ...]
    packages: tuple[tuple[str, str], ...] = ()
    """(package, how to install it) for each that is not installed."""

    def __bool__(self) -> bool:
        return bool(self.outside or self.troupe or self.packages)

    def named(self) -> str:
        return "; ".join([*self.outside.reasons(), *(f"troupe's {piece}" for piece in self.troupe),
                          *(f"{package} (a Python package: {hint})" for package, hint in self.packages)])

    def counted(self) -> list[str]:
        """As totalled overall: the cache as one need, each missing piece of troupe and package apart."""
        return [*self.outside.kinds(), *self.troupe, *(package for package, _ in self.packages)]


def gap(task: Task, cache: Path | None, installed: Installed | None = None, web: bool = False,
        on_vm: bool = False, google: bool = False) -> Gap:
    return Gap(outside(task, cache, installed, web, on_vm, google), tuple(troupe_lacks(task)),
               tuple(packages_lacking(task).items()))


def is_infeasible(task: Task) -> bool:
    return task.evaluation_spec.get("func") == INFEASIBLE


@dataclass
class DomainCoverage:
    tasks: int = 0
    runnable: int = 0
    infeasible: int = 0
    lacking: dict[str, Gap] = field(default_factory=dict)


def coverage(tasks: list[Task], cache: Path | None, installed: Installed | None = None,
             web: bool = False, on_vm: bool = False, google: bool = False) -> dict[str, DomainCoverage]:
    """Per domain, in the task list's order: runnable feasible tasks, runnable infeasible ones, the rest's gaps
    (`installed`: which programs this machine has, where tasks run on its desktop; `web`: whether the
    desktop reaches the live web; `on_vm`: they run on an OSWorld VM; `google`: a Google account is given)."""
    domains: dict[str, DomainCoverage] = {}
    for task in tasks:
        figures = domains.setdefault(task.domain, DomainCoverage())
        figures.tasks += 1
        found = gap(task, cache, installed, web, on_vm, google)
        if found:
            figures.lacking[task.task_id] = found
        elif is_infeasible(task):
            figures.infeasible += 1
        else:
            figures.runnable += 1
    return domains


def report(tasks: list[Task], cache: Path | None, title: str, installed: Installed | None = None,
           web: bool = False, on_vm: bool = False, google: bool = False) -> str:
    """Plain text: a line per domain, each task that cannot run with what it lacks, the totals."""
    domains = coverage(tasks, cache, installed, web, on_vm, google)
    lines = [title, f"{'domain':<20} {'tasks':>5} {'runnable':>8} {'infeasible':>10}"]
    total = DomainCoverage()
    needed: Counter = Counter()
    for name, figures in domains.items():
        lines.append(f"{name:<20} {figures.tasks:>5} {figures.runnable:>8} {figures.infeasible:>10}")
        lines += [f"    cannot run {task_id}: lacks {found.named()}" for task_id, found in figures.lacking.items()]
        total.tasks += figures.tasks
        total.runnable += figures.runnable
        total.infeasible += figures.infeasible
        needed.update(need for found in figures.lacking.values() for need in found.counted())
    lines.append(f"{'all':<20} {total.tasks:>5} {total.runnable:>8} {total.infeasible:>10}"
                 "   (runnable: feasible tasks that can run here; infeasible: runnable ones whose answer is Fail)")
    if needed:
        lines.append("what the other tasks lack (tasks lacking each): "
                     + ", ".join(f"{name} ({n})" for name, n in sorted(needed.items(), key=lambda kv: (-kv[1], kv[0]))))
    return "\n".join(lines)
