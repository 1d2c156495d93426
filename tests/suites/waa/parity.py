"""Runs one corpus case through WAA's metric function and troupe's, and keeps the tally per function.

An outcome is the score, or "no score" where the function raises: WAA's
`evaluate()` lets a metric's exception escape (its run records no score for
the task) and troupe's checker files an evaluation error, whatever the
exception. A WAA metric that returns something that is not a number scores
0, as `evaluate()` turns it. Two scores agree when they are within
`TOLERANCE`: troupe computes the media similarities (SSIM, MFCC distances)
on numpy where WAA calls scikit-image and librosa, which round differently
in the last digits.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from tests.suites.waa.corpus import Case, in_memory, on_disk

NO_SCORE = "no score"
TOLERANCE = 1e-6


@dataclass(frozen=True)
class Outcome:
    score: float | str
    detail: str = ""

    def agrees(self, other: Outcome) -> bool:
        if isinstance(self.score, float) and isinstance(other.score, float):
            return math.isclose(self.score, other.score, rel_tol=0.0, abs_tol=TOLERANCE)
        return self.score == other.score

    def __str__(self) -> str:
        return f"{self.score} ({self.detail})" if self.detail else str(self.score)


def waa_outcome(metric: Callable[..., Any], case: Case, folder: Path) -> Outcome:
    result, expected = on_disk(case.result, folder), on_disk(case.expected, folder)
    try:
        value = metric(result, expected, **case.options) if expected is not None else metric(result, **case.options)
    except Exception as exc:  # noqa: BLE001 - any exception is WAA's "no score"
        return Outcome(NO_SCORE, f"{type(exc).__name__}: {exc}"[:200])
    if isinstance(value, (float, int, bool)):
        return Outcome(float(value))
    return Outcome(0.0, f"evaluate() scores the non-number {value!r} 0")


def troupe_outcome(metric: Callable[..., float], case: Case) -> Outcome:
    try:
        return Outcome(float(metric(in_memory(case.result), in_memory(case.expected), **case.options)))
    except Exception as exc:  # noqa: BLE001 - the checker files any exception as an evaluation error
        return Outcome(NO_SCORE, f"{type(exc).__name__}: {exc}"[:200])


TALLY: dict[str, Counter] = {}
"""Per function: how many cases agreed and how many disagreed."""


def record(func: str, verdict: str) -> None:
    TALLY.setdefault(func, Counter())[verdict] += 1


def summary() -> list[str]:
    if not TALLY:
        return []
    lines = [f"{'function':<42} {'cases':>5} {'agree':>5} {'differ':>6}"]
    for func in sorted(TALLY):
        counts = TALLY[func]
        total = sum(counts.values())
        lines.append(f"{func:<42} {total:>5} {counts['agree']:>5} {counts['differ']:>6}")
    return lines
