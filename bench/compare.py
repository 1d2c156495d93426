"""`python -m bench.compare RUN_A RUN_B [RUN_C ...]`: runs side by side, and whether they differ.

Prints success and mean time per episode for each domain, each run next to
the first (the baseline) with its difference; then, in words, whether each
later run differs from the first on the tasks both ran: the difference in
success with its 95% interval (a seeded paired bootstrap over tasks) and an
exact McNemar test on the per-task verdicts, per domain and overall; then the
tasks whose verdict changed.

Runs with repeats (`--repeats`) are paired by task and repeat (repeat R of a
task has the same seed in both runs), and the task stays the unit of the
analysis: each task's difference is the mean over its paired repeats, the
interval a paired bootstrap over tasks of those means, and the test a paired
sign-flip test over tasks (`bench.stats.sign_flip`), McNemar's by simulation;
the success intervals in the domain table count tasks as clusters
(`bench.stats.clustered_wilson`), as the run's summary does. Two runs of different suites or task sets are
refused unless `--allow-different-tasks` is given, since a difference in
tasks would pass for a difference in agents. `compare` does the arithmetic on
results already read, with no I/O and no printing, so a viewer or a report
can show the same comparison its own way.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from statistics import mean
from typing import Iterable, NoReturn, Sequence

import msgspec
from rich.table import Table

from actors.run_folder import ResultLine, ResultsError
from bench import terminal
from bench.frame import read_run
from actors.run_folder import episode_label
from bench.stats import RESAMPLES, clustered_wilson, mcnemar, paired_bootstrap, sign_flip, wilson
from bench.summary import rate_cell
from protocols import EpisodeResult, ErrorKind

__all__ = ["ChangedTask", "Comparison", "DomainRow", "Figures", "Paired", "compare", "main", "method", "run_labels",
           "statements", "task_set_difference", "verdict"]

ALL = "all"

_VERDICTS = {
    ErrorKind.NONE: "failure",
    ErrorKind.AGENT: "failure",
    ErrorKind.ENVIRONMENT: "environment error",
    ErrorKind.MODEL_SERVICE: "model service error",
    ErrorKind.EVALUATION: "evaluation error",
}


class Figures(msgspec.Struct, frozen=True):
    """One run's episodes in one domain."""

    episodes: int
    succeeded: int
    mean_seconds: float
    """Mean wall time of an episode, reset and evaluation included."""
    success_interval: tuple[float, float] = (0.0, 1.0)
    """The success rate's 95% Wilson interval (over tasks as clusters when a task has repeats)."""
    clustered: bool = False
    """Whether some task has several episodes (repeats), so `success_interval` is clustered."""

    @property
    def success_rate(self) -> float:
        return self.succeeded / self.episodes


class DomainRow(msgspec.Struct, frozen=True):
    """A domain (or ALL) in every run; None where a run has no episode of it."""

    domain: str
    figures: tuple[Figures | None, ...]

    def deltas(self, run: int) -> tuple[float, float] | None:
        """Run `run` against the first: (success rate, mean seconds) differences,
        or None when either run has no episode here."""
        base, other = self.figures[0], self.figures[run]
        if base is None or other is None:
            return None
        return other.success_rate - base.success_rate, other.mean_seconds - base.mean_seconds


class ChangedTask(msgspec.Struct, frozen=True):
    """A task (a repeat of one, in runs with repeats) that did not get the same verdict in every
    run that ran it."""

    task_id: str
    domain: str
    verdicts: tuple[str | None, ...]
    """One per run (see `verdict`); None where the run has no result for the task."""
    repeat: int = 1


class Paired(msgspec.Struct, frozen=True):
    """A later run against the first over the tasks both judged, in one domain (or ALL).

    Only episodes with a success or an agent failure in both runs are paired, by task and repeat:
    a harness error (environment, model service, evaluation) says nothing about the agent. A task
    is paired when one of its repeats is."""

    domain: str
    tasks: int
    """Tasks paired."""
    only_first: int
    """Episodes (a task's repeat) the first run solved and this one did not."""
    only_this: int
    """Episodes this run solved and the first did not."""
    difference: float
    """This run's success rate minus the first's: the mean over paired tasks of each task's mean
    difference over its paired repeats (over paired tasks, without repeats)."""
    low: float
    high: float
    """The difference's 95% percentile interval from a paired bootstrap over the tasks."""
    p_value: float
    """Exact two-sided McNemar test on `only_first` and `only_this`; with repeats, a paired sign-flip
    test over the tasks' mean differences (`test`)."""
    episodes: int = 0
    """Episodes paired: `tasks` without repeats."""
    test: str = "mcnemar"
    """"mcnemar", or "sign-flip" when some task has more than one paired repeat."""

    def words(self, first: str, this: str) -> str:
        """"b solves 6 more tasks than a (of 75 paired: 7 only b, 1 only a), +8 pp [+2, +14], p = 0.03";
        with repeats, episodes: "b solves 9 more episodes than a (of 75 tasks x 3 repeats paired: ...)"."""
        more = self.only_this - self.only_first
        unit = "episode" if self.test == "sign-flip" else "task"
        units = unit if abs(more) == 1 else unit + "s"
        solves = (f"{more} more {units} than" if more > 0 else f"{-more} fewer {units} than" if more < 0
                  else f"as many {unit}s as")
        paired = (f"{self.episodes} episodes of {self.tasks} tasks paired" if self.test == "sign-flip"
                  else f"{self.tasks} paired")
        p = "p < 0.001" if self.p_value < 0.001 else f"p = {self.p_value:.2g}"
        return (f"{this} solves {solves} {first} (of {paired}: {self.only_this} only {this}, "
                f"{self.only_first} only {first}), {self.difference * 100:+.0f} pp "
                f"[{self.low * 100:+.0f}, {self.high * 100:+.0f}], {p}")


class Comparison(msgspec.Struct, frozen=True):
    runs: tuple[str, ...]
    """The runs' labels, the baseline first."""
    domains: tuple[DomainRow, ...]
    """One row per domain in any run, sorted, then one for ALL."""
    changed: tuple[ChangedTask, ...]
    """Sorted by task id."""
    not_in_every_run: int
    """Tasks some run has no result for; they are compared among the runs that have one."""
    paired: tuple[tuple[Paired, ...], ...] = ()
    """For each run after the first, against the first: one per domain with a paired task, then ALL."""
    resamples: int = RESAMPLES
    seed: int = 0
    """The bootstrap's resamples and seed."""


def verdict(result: EpisodeResult) -> str:
    """success, failure (the agent's), environment error, model service error or evaluation error
    (the harness's)."""
    return "success" if result.success else _VERDICTS[result.error_kind]


Episode = tuple[str, int]
"""An episode of a run: (task id, repeat)."""


def compare(runs: Sequence[tuple[str, Iterable[ResultLine]]], *, resamples: int = RESAMPLES,
            seed: int = 0) -> Comparison:
    """Compare (label, results.jsonl lines) pairs, the first being the baseline.
    An episode (task and repeat) with several lines in a run counts by its last."""
    results = [_last_per_episode(lines) for _, lines in runs]
    domains = sorted({r.domain or "-" for run in results for r in run.values()})
    rows = [DomainRow(d, tuple(_figures([r for r in run.values() if (r.domain or "-") == d]) for run in results))
            for d in domains]
    rows.append(DomainRow(ALL, tuple(_figures(list(run.values())) for run in results)))
    changed, partial = [], 0
    for task_id, repeat in sorted(set().union(*results)):
        found = [run.get((task_id, repeat)) for run in results]
        partial += None in found
        verdicts = tuple(None if r is None else verdict(r) for r in found)
        if len(set(verdicts) - {None}) > 1:
            domain = next(r.domain for r in found if r is not None) or "-"
            changed.append(ChangedTask(task_id, domain, verdicts, repeat))
    paired = tuple(_paired(results[0], other, resamples, seed) for other in results[1:])
    return Comparison(tuple(label for label, _ in runs), tuple(rows), tuple(changed), partial, paired,
                      resamples, seed)


def _last_per_episode(lines: Iterable[ResultLine]) -> dict[Episode, EpisodeResult]:
    return {(line.result.task_id, line.result.repeat): line.result for line in lines}


def _judged(result: EpisodeResult | None) -> bool:
    return result is not None and verdict(result) in ("success", "failure")


def _paired(first: dict[Episode, EpisodeResult], this: dict[Episode, EpisodeResult], resamples: int,
            seed: int) -> tuple[Paired, ...]:
    by_task: dict[str, list[Episode]] = defaultdict(list)
    for episode in sorted(first):
        if _judged(first[episode]) and _judged(this.get(episode)):
            by_task[episode[0]].append(episode)
    by_domain: dict[str, list[list[Episode]]] = defaultdict(list)
    for episodes in by_task.values():
        by_domain[first[episodes[0]].domain or "-"].append(episodes)
    groups = [*sorted(by_domain.items()), (ALL, list(by_task.values()))] if by_task else []
    return tuple(_paired_figures(domain, [[(first[e].success, this[e].success) for e in task] for task in tasks],
                                 resamples, seed) for domain, tasks in groups)


def _paired_figures(domain: str, tasks: list[list[tuple[bool, bool]]], resamples: int, seed: int) -> Paired:
    """The figures of a domain's tasks, each a list of (first, this) verdicts: one per paired repeat."""
    pairs = [pair for task in tasks for pair in task]
    only_first = sum(a and not b for a, b in pairs)
    only_this = sum(b and not a for a, b in pairs)
    first = [mean(a for a, _ in task) for task in tasks]
    this = [mean(b for _, b in task) for task in tasks]
    difference, low, high = paired_bootstrap(first, this, resamples=resamples, seed=seed)
    repeated = len(pairs) > len(tasks)
    p_value = (sign_flip([b - a for a, b in zip(first, this)], resamples=resamples, seed=seed) if repeated
               else mcnemar(only_first, only_this))
    return Paired(domain, len(tasks), only_first, only_this, difference, low, high, p_value, len(pairs),
                  "sign-flip" if repeated else "mcnemar")


def statements(comparison: Comparison) -> list[tuple[str, list[str]]]:
    """For each later run, ("b against a", ["forms: b solves ...", ..., "all: ..."]); the lines are
    empty when no task was judged by both runs."""
    first = comparison.runs[0]
    return [(f"{label} against {first}", [f"{figures.domain}: {figures.words(first, label)}" for figures in paired])
            for label, paired in zip(comparison.runs[1:], comparison.paired)]


def method(comparison: Comparison) -> str:
    """How the paired figures were computed, said once under them."""
    repeated = any(figures.test == "sign-flip" for paired in comparison.paired for figures in paired)
    test = ("p: paired sign-flip test over the tasks' mean differences (McNemar's by simulation), "
            f"{comparison.resamples} draws" if repeated else
            "p: exact two-sided McNemar on the tasks one run solved and the other did not")
    unit = ("repeats paired by task and repeat (same seed), a task's difference the mean over its repeats; "
            if repeated else "")
    return (f"pp = percentage points; {unit}95% interval: percentile paired bootstrap over tasks, "
            f"{comparison.resamples} resamples, seed {comparison.seed}; {test}; "
            f"{'episodes' if repeated else 'tasks'} with a harness error in either run are not paired")


def task_set_difference(labels: Sequence[str], runs: Sequence[Iterable[ResultLine]],
                        suites: Sequence[str | None]) -> str | None:
    """Why these runs are not runs of the same tasks (other suites, or other task ids than the
    first's), or None when they are. A suite of None (no run.json) is not compared."""
    known = {suite for suite in suites if suite is not None}
    if len(known) > 1:
        return "runs of different suites: " + ", ".join(
            f"{label} ran {suite}" for label, suite in zip(labels, suites) if suite is not None)
    tasks = [_task_ids(lines) for lines in runs]
    for label, other in zip(labels[1:], tasks[1:]):
        if other != tasks[0]:
            return (f"runs of different task sets: {label} has {len(other - tasks[0])} tasks {labels[0]} has not "
                    f"and lacks {len(tasks[0] - other)} of its {len(tasks[0])}")
    return None


def _task_ids(lines: Iterable[ResultLine]) -> set[str]:
    return {line.result.task_id for line in lines}


def _figures(results: list[EpisodeResult]) -> Figures | None:
    if not results:
        return None
    succeeded = sum(r.success for r in results)
    seconds = mean(r.timings.total for r in results)
    by_task: dict[str, list[bool]] = defaultdict(list)
    for result in results:
        by_task[result.task_id].append(result.success)
    if len(by_task) == len(results):
        return Figures(len(results), succeeded, seconds, wilson(succeeded, len(results)))
    low, high, _ = clustered_wilson([(sum(verdicts), len(verdicts)) for verdicts in by_task.values()])
    return Figures(len(results), succeeded, seconds, (low, high), clustered=True)


def domain_table(comparison: Comparison) -> Table:
    """Success and seconds per episode of each run, later runs with their difference from the first."""
    clustered = any(f is not None and f.clustered for row in comparison.domains for f in row.figures)
    interval = "95% interval, tasks as clusters" if clustered else "95% Wilson interval"
    table = Table(title=f"success [{interval}] and time per episode by domain")
    table.add_column("domain")
    for label in comparison.runs:
        table.add_column(f"{label} success", justify="right")
        table.add_column(f"{label} s/episode", justify="right")
    for row in comparison.domains:
        cells = [row.domain]
        for run, figures in enumerate(row.figures):
            if figures is None:
                cells += ["-", "-"]
                continue
            success = rate_cell(figures.succeeded, figures.episodes, figures.success_interval)
            seconds = f"{figures.mean_seconds:.3f}"
            deltas = row.deltas(run) if run else None
            if deltas is not None:
                success += f" {deltas[0] * 100:+.0f} pp"
                seconds += f" {deltas[1]:+.3f}"
            cells += [success, seconds]
        table.add_row(*cells)
    return table


def changed_table(comparison: Comparison) -> Table:
    """The tasks whose verdict changed, with the verdict in each run."""
    table = Table(title=f"tasks whose verdict changed ({len(comparison.changed)})")
    table.add_column("task")
    table.add_column("domain")
    for label in comparison.runs:
        table.add_column(label)
    for task in comparison.changed:
        table.add_row(episode_label(task.task_id, task.repeat), task.domain, *(v or "-" for v in task.verdicts))
    return table


def run_labels(folders: list[str]) -> list[str]:
    """Folder names, or the paths as given when two runs share a name."""
    names = [Path(folder).resolve().name for folder in folders]
    return names if len(set(names)) == len(names) else folders


class _Parser(argparse.ArgumentParser):
    """argparse whose mistakes are one line: the usage with what was wrong."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{' '.join(self.format_usage().split())} ({message})\n")


def _parser(prog: str) -> _Parser:
    parser = _Parser(prog=prog, description="Success and time per episode by domain, each run against the first; "
                     "whether each later run differs from the first (paired bootstrap interval, exact McNemar "
                     "test); and the tasks whose verdict changed.")
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run folders, the first being the baseline")
    parser.add_argument("--allow-different-tasks", action="store_true",
                        help="compare runs of different suites or task sets on the tasks every run has")
    parser.add_argument("--resamples", type=int, default=RESAMPLES, help=f"bootstrap resamples ({RESAMPLES})")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (0)")
    return parser


def _suite_of(folder: str) -> str | None:
    """The suite run.json names, or None for a folder without run.json."""
    path = Path(folder) / "run.json"
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text())["config"]["suite"]
    except (ValueError, KeyError, TypeError) as exc:
        raise ResultsError(f"{path}: not a run.json with config.suite ({type(exc).__name__}: {exc})") from None


def main(argv: list[str] | None = None, prog: str = "python -m bench.compare") -> int:
    args = _parser(prog).parse_args(sys.argv[1:] if argv is None else argv)
    if len(args.runs) < 2:
        _parser(prog).error("at least two run folders")
    if args.resamples < 1:
        _parser(prog).error(f"--resamples must be at least 1, not {args.resamples}")
    labels = run_labels(args.runs)
    try:
        lines = [read_run(folder) for folder in args.runs]
        suites = [_suite_of(folder) for folder in args.runs]
    except ResultsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    console = terminal.console()
    different = task_set_difference(labels, lines, suites)
    if different and not args.allow_different_tasks:
        print(f"error: {different}; --allow-different-tasks compares the tasks every run has", file=sys.stderr)
        return 2
    if different:
        common = set.intersection(*(_task_ids(run) for run in lines))
        lines = [[line for line in run if line.result.task_id in common] for run in lines]
        console.print(f"{different}; comparing the {len(common)} tasks every run has")
    comparison = compare(list(zip(labels, lines)), resamples=args.resamples, seed=args.seed)
    console.print(domain_table(comparison))
    for heading, lines in statements(comparison):
        console.print(f"{heading}:" if lines else f"{heading}: no task both runs judged", highlight=False)
        for line in lines:
            console.print(f"  {line}", highlight=False)
    console.print(f"[{method(comparison)}]", highlight=False, markup=False)
    if comparison.changed:
        console.print(changed_table(comparison))
    else:
        console.print("no task changed its verdict")
    return 0

if __name__ == "__main__":
    sys.exit(main())
