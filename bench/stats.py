"""The uncertainty of a run's figures, with the standard library only.

A success rate over a few hundred tasks moves by several points from one run
to the next, so every rate troupe shows comes with an interval and every
comparison with a test. Pure functions on counts and lists: no I/O, no
scipy (not a dependency of the harness), and the bootstrap is seeded so the
same runs always give the same interval.

- `wilson`: a 95% Wilson score interval for a proportion; it stays inside
  [0, 1] and is sensible at 0 or n successes, where the normal one is not.
- `mcnemar`: the exact (binomial) McNemar test on paired verdicts: only the
  tasks one run solved and the other did not carry evidence.
- `paired_bootstrap`: the difference of two runs' means over the same tasks,
  with a percentile interval from resampling tasks (pairs kept together).
- `spread`: mean and sample standard deviation, for steps and seconds.
"""

from __future__ import annotations

import math
import random
from statistics import NormalDist, mean, stdev
from typing import Sequence

__all__ = ["CONFIDENCE", "RESAMPLES", "binomial_two_sided", "mcnemar", "paired_bootstrap", "spread", "wilson"]

CONFIDENCE = 0.95
RESAMPLES = 10_000
"""Bootstrap resamples: the interval's ends then move by well under a point between seeds."""


def _z(confidence: float) -> float:
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson(successes: int, n: int, confidence: float = CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval for `successes` out of `n`; (0, 1) when there is nothing to count."""
    if not 0 <= successes <= n:
        raise ValueError(f"wilson: {successes} successes out of {n} is not a proportion")
    if n == 0:
        return 0.0, 1.0
    z = _z(confidence)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


def binomial_two_sided(k: int, n: int) -> float:
    """Exact two-sided p-value of `k` successes in `n` fair coin flips: twice the smaller tail, at most 1."""
    low = min(k, n - k)
    tail = sum(math.comb(n, i) for i in range(low + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def mcnemar(only_a: int, only_b: int) -> float:
    """Exact McNemar p-value from the discordant pairs: tasks only A solved, tasks only B solved.
    With no discordant pair there is no evidence of a difference: 1."""
    return binomial_two_sided(only_b, only_a + only_b)


def paired_bootstrap(a: Sequence[float], b: Sequence[float], *, resamples: int = RESAMPLES, seed: int = 0,
                     confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """mean(b) - mean(a) over paired values (one pair per task), and its percentile interval from
    `resamples` resamples of the tasks with replacement, drawn from `random.Random(seed)`."""
    if len(a) != len(b) or not a:
        raise ValueError(f"paired_bootstrap: needs the same number of values on both sides, not {len(a)} "
                         f"and {len(b)}, and at least one")
    differences = [y - x for x, y in zip(a, b)]
    n = len(differences)
    rng = random.Random(seed)
    means = sorted(sum(rng.choices(differences, k=n)) / n for _ in range(resamples))
    tail = (1 - confidence) / 2
    low = means[int(tail * resamples)]
    high = means[min(resamples - 1, math.ceil((1 - tail) * resamples) - 1)]
    return sum(differences) / n, low, high


def spread(values: Sequence[float]) -> tuple[float, float]:
    """(mean, sample standard deviation); the deviation is 0 for fewer than two values."""
    if not values:
        return 0.0, 0.0
    return mean(values), stdev(values) if len(values) > 1 else 0.0
