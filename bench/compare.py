"""`python -m bench.compare RUN_A RUN_B [RUN_C ...]`: runs side by side.

Prints success and mean time per episode for each domain, each run next to
the first (the baseline) with its difference, then the tasks whose verdict
changed from one run to another. `compare` does the arithmetic on results
already read, with no I/O and no printing, so a viewer or a report can show
the same comparison its own way.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path
from statistics import mean
from typing import Iterable, Sequence

import msgspec
from rich.console import Console
from rich.table import Table

from actors.run_folder import ResultLine, ResultsError
from bench.frame import read_run
from protocols import EpisodeResult, ErrorKind

__all__ = ["ChangedTask", "Comparison", "DomainRow", "Figures", "compare", "main", "run_labels", "verdict"]

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
    """A task that did not get the same verdict in every run that ran it."""

    task_id: str
    domain: str
    verdicts: tuple[str | None, ...]
    """One per run (see `verdict`); None where the run has no result for the task."""


class Comparison(msgspec.Struct, frozen=True):
    runs: tuple[str, ...]
    """The runs' labels, the baseline first."""
    domains: tuple[DomainRow, ...]
    """One row per domain in any run, sorted, then one for ALL."""
    changed: tuple[ChangedTask, ...]
    """Sorted by task id."""
    not_in_every_run: int
    """Tasks some run has no result for; they are compared among the runs that have one."""


def verdict(result: EpisodeResult) -> str:
    """success, failure (the agent's), environment error, model service error or evaluation error
    (the harness's)."""
    return "success" if result.success else _VERDICTS[result.error_kind]


def compare(runs: Sequence[tuple[str, Iterable[ResultLine]]]) -> Comparison:
    """Compare (label, results.jsonl lines) pairs, the first being the baseline.
    A task with several lines in a run counts by its last."""
    results = [{line.result.task_id: line.result for line in lines} for _, lines in runs]
    domains = sorted({r.domain or "-" for run in results for r in run.values()})
    rows = [DomainRow(d, tuple(_figures([r for r in run.values() if (r.domain or "-") == d]) for run in results))
            for d in domains]
    rows.append(DomainRow(ALL, tuple(_figures(list(run.values())) for run in results)))
    changed, partial = [], 0
    for task_id in sorted(set().union(*results)):
        found = [run.get(task_id) for run in results]
        partial += None in found
        verdicts = tuple(None if r is None else verdict(r) for r in found)
        if len(set(verdicts) - {None}) > 1:
            domain = next(r.domain for r in found if r is not None) or "-"
            changed.append(ChangedTask(task_id, domain, verdicts))
    return Comparison(tuple(label for label, _ in runs), tuple(rows), tuple(changed), partial)


def _figures(results: list[EpisodeResult]) -> Figures | None:
    if not results:
        return None
    return Figures(len(results), sum(r.success for r in results), mean(r.timings.total for r in results))


def domain_table(comparison: Comparison) -> Table:
    """Success and seconds per episode of each run, later runs with their difference from the first."""
    table = Table(title="success and time per episode by domain")
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
            success = f"{figures.succeeded}/{figures.episodes} ({figures.success_rate:.0%})"
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
        table.add_row(task.task_id, task.domain, *(v or "-" for v in task.verdicts))
    return table


def run_labels(folders: list[str]) -> list[str]:
    """Folder names, or the paths as given when two runs share a name."""
    names = [Path(folder).resolve().name for folder in folders]
    return names if len(set(names)) == len(names) else folders


def main(argv: list[str] | None = None, prog: str = "python -m bench.compare") -> int:
    folders = sys.argv[1:] if argv is None else argv
    usage = f"usage: {prog} RUN_A RUN_B [RUN_C ...]"
    if any(arg in ("-h", "--help") for arg in folders):
        print(f"{usage}\n\nSuccess and time per episode by domain, each run against the first, "
              "and the tasks whose verdict changed.")
        return 0
    if len(folders) < 2 or any(arg.startswith("-") for arg in folders):
        print(f"{usage} (run folders only, at least two)", file=sys.stderr)
        return 2
    try:
        runs = [(label, read_run(folder)) for label, folder in zip(run_labels(folders), folders)]
    except ResultsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    comparison = compare(runs)
    console = Console()
    console.print(domain_table(comparison))
    if comparison.changed:
        console.print(changed_table(comparison))
    else:
        console.print("no task changed its verdict")
    if comparison.not_in_every_run:
        console.print(f"{comparison.not_in_every_run} tasks are not in every run; "
                      "they are compared among the runs that have them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
