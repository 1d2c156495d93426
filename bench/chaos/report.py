"""What a chaos run found: the run's results held against a fault-free reference run.

Same tasks, same seeds, same deterministic agent: every task of the reference
must have exactly one result in the chaos run (none lost, none duplicated)
with the same verdict. Environment errors are shown next to the reference's,
and what the faults themselves saw (processes a killed supervisor left
running, what flooded ports answered) is reported as measured.
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence

import msgspec

from actors.run_folder import ResultLine
from bench.chaos.faults import KINDS, Strike
from bench.compare import verdict
from protocols import ErrorKind

__all__ = ["ChaosReport", "Differing", "render", "tally"]


class Differing(msgspec.Struct, frozen=True):
    task_id: str
    reference: str
    chaos: str


class ChaosReport(msgspec.Struct, frozen=True):
    suite: str
    planned: int
    """Faults the schedule asked for; those struck are in `strikes`."""
    strikes: tuple[Strike, ...]
    episodes: int
    """Tasks of the reference run: the results the chaos run owes."""
    results: int
    """Lines in the chaos run's results.jsonl."""
    lost: tuple[str, ...]
    duplicated: tuple[str, ...]
    """One task id per extra line."""
    differing: tuple[Differing, ...]
    environment_errors: int
    reference_environment_errors: int
    supervisor_starts: int
    unexpected_exits: tuple[int, ...]
    """Exit statuses of supervisor runs that ended unfinished without being killed by the chaos run."""
    orphans: int
    """Processes still running 3 s after their supervisor was killed (then killed by the chaos run)."""
    timed_out: bool = False

    @property
    def by_kind(self) -> dict[str, int]:
        counts = Counter(strike.kind for strike in self.strikes)
        return {kind: counts[kind] for kind in KINDS if counts[kind]}

    @property
    def injected(self) -> int:
        return sum(strike.injected for strike in self.strikes)

    @property
    def clean(self) -> bool:
        """The target: every fault asked for really injected, nothing lost, nothing duplicated,
        no verdict changed, the run finished."""
        return self.injected >= self.planned and not (self.lost or self.duplicated or self.differing or self.timed_out)


def tally(suite: str, planned: int, strikes: Sequence[Strike], reference: Sequence[ResultLine],
          chaos: Sequence[ResultLine], *, supervisor_starts: int, unexpected_exits: Sequence[int],
          orphans: int, timed_out: bool = False) -> ChaosReport:
    expected = {line.result.task_id: line.result for line in reference}
    counts = Counter(line.result.task_id for line in chaos)
    got = {line.result.task_id: line.result for line in chaos}
    return ChaosReport(
        suite=suite, planned=planned, strikes=tuple(strikes), episodes=len(expected), results=len(chaos),
        lost=tuple(sorted(set(expected) - set(got))),
        duplicated=tuple(task for task, n in sorted(counts.items()) for _ in range(n - 1)),
        differing=tuple(Differing(task, verdict(expected[task]), verdict(got[task]))
                        for task in sorted(set(expected) & set(got))
                        if verdict(expected[task]) != verdict(got[task])),
        environment_errors=sum(line.result.error_kind is ErrorKind.ENVIRONMENT for line in chaos),
        reference_environment_errors=sum(r.error_kind is ErrorKind.ENVIRONMENT for r in expected.values()),
        supervisor_starts=supervisor_starts, unexpected_exits=tuple(unexpected_exits), orphans=orphans,
        timed_out=timed_out,
    )


def render(report: ChaosReport) -> str:
    """The report as the lines `python -m bench.chaos` prints."""
    kinds = ", ".join(f"{kind} {n}" for kind, n in report.by_kind.items()) or "none"
    missed = len(report.strikes) - report.injected
    floods = [strike.flood for strike in report.strikes if strike.flood is not None]
    lines = [
        f"faults injected: {report.injected} of {report.planned} ({kinds}"
        + (f"; {missed} flood(s) reached no live process" if missed else "") + ")",
        *([f"wrong-token handshakes that reached a live port: {sum(f.reached for f in floods)} of "
           f"{sum(f.reached + f.unanswered for f in floods)}"] if floods else []),
        f"episodes: {report.episodes} (results written: {report.results})",
        f"results lost: {len(report.lost)}" + _names(report.lost),
        f"results duplicated: {len(report.duplicated)}" + _names(report.duplicated),
        f"environment errors: {report.environment_errors} (reference run: {report.reference_environment_errors})",
        f"verdicts differing from the reference: {len(report.differing)}"
        + _names([f"{d.task_id} {d.reference} -> {d.chaos}" for d in report.differing]),
        f"supervisor runs: {report.supervisor_starts}; exits it did not ask for: "
        + (", ".join(map(str, report.unexpected_exits)) or "none"),
        f"processes a killed supervisor left running: {report.orphans}",
    ]
    for strike in report.strikes:
        if strike.flood is not None:
            f = strike.flood
            lines.append(f"{strike.kind} on port {f.port}: {f.opened} idle connections held ({f.not_opened} not "
                         f"opened); wrong-token handshakes: {f.reached} reached the live port ({f.refused} "
                         f"refused, {f.other_answers} answered otherwise), {f.unanswered} unanswered; "
                         + ("still listening after" if f.listening_after else "not listening after (its process had ended)"))
    if report.timed_out:
        lines.append("the chaos run timed out before the run finished")
    return "\n".join(lines)


def _names(items: Sequence[str], shown: int = 5) -> str:
    if not items:
        return ""
    more = f", ... ({len(items) - shown} more)" if len(items) > shown else ""
    return ": " + ", ".join(items[:shown]) + more
