"""The uncertainty of a run's figures, with the standard library only.

A success rate over a few hundred tasks moves by several points from one run
to the next, so every rate troupe shows comes with an interval and every
comparison with a test. Pure functions on counts and lists: no I/O, no
scipy (not a dependency of the harness), and the bootstrap is seeded so the
same runs always give the same interval.

- `wilson`: a 95% Wilson score interval for a proportion; it stays inside
  [0, 1] and is sensible at 0 or n successes, where the normal one is not.
- `clustered_wilson`: the same for episodes that come in clusters (a task's
  repeats, which are alike, not independent): Wilson's interval at the
  effective number of episodes the clusters are worth.
- `pass_at_k`, `pass_hat_k`: of a task run n times and solved c, the chance
  that at least one of k repeats solves it, and that all k do.
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

__all__ = ["CONFIDENCE", "RESAMPLES", "binomial_two_sided", "clustered_wilson", "mcnemar", "paired_bootstrap",
           "pass_at_k", "pass_hat_k", "sign_flip", "spread", "wilson"]

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
    return _wilson_at(successes / n, n, confidence)


def _wilson_at(p: float, n: float, confidence: float) -> tuple[float, float]:
    """Wilson's interval for a rate `p` observed on `n` (possibly effective, not whole) trials."""
    z = _z(confidence)
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    low = 0.0 if p == 0 else max(0.0, centre - half)
    high = 1.0 if p == 1 else min(1.0, centre + half)
    return low, high


def clustered_wilson(clusters: Sequence[tuple[int, int]],
                     confidence: float = CONFIDENCE) -> tuple[float, float, float]:
    """(low, high, effective episodes) of the success rate S/N of episodes in clusters, each
    (successes, episodes): a task and its repeats.

    A task's repeats tend to agree, so N episodes of T tasks say less than N independent ones:
    the interval is Wilson's at the effective number of episodes n_eff = p(1-p)/v (Korn and
    Graubard's effective sample size), where v is the cluster-robust variance of p = S/N over the
    tasks, v = T/(T-1) * sum((s_i - p n_i)^2) / N^2. n_eff is at most N (repeats never make a
    figure surer than independent episodes); when v cannot be estimated (one task) or says
    nothing (p is 0 or 1), n_eff is T: each task counts once, the most its repeats can be alike."""
    if not clusters:
        return 0.0, 1.0, 0.0
    for successes, episodes in clusters:
        if not 0 <= successes <= episodes or episodes == 0:
            raise ValueError(f"clustered_wilson: {successes} successes out of {episodes} is not a cluster")
    tasks = len(clusters)
    total = sum(episodes for _, episodes in clusters)
    p = sum(successes for successes, _ in clusters) / total
    variance = 0.0 if tasks == 1 else (
        tasks / (tasks - 1) * sum((s - p * n) ** 2 for s, n in clusters) / total ** 2)
    if tasks == 1 or p in (0.0, 1.0):
        effective = float(tasks)
    elif variance == 0:
        effective = float(total)
    else:
        effective = min(float(total), p * (1 - p) / variance)
    return *_wilson_at(p, effective, confidence), effective


def pass_at_k(n: int, c: int, k: int) -> float:
    """The chance that at least one of `k` of a task's `n` repeats, drawn without replacement,
    solved it, when `c` did: 1 - C(n-c, k) / C(n, k) (the unbiased pass@k estimator of Chen et
    al., 2021)."""
    _check_k(n, c, k)
    return 1 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """The chance that all `k` of a task's `n` repeats, drawn without replacement, solved it, when
    `c` did: C(c, k) / C(n, k) (pass^k, Yao et al.'s tau-bench, 2024): how reliably the agent
    solves it, where pass@k says whether it can."""
    _check_k(n, c, k)
    return math.comb(c, k) / math.comb(n, k)


def _check_k(n: int, c: int, k: int) -> None:
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"pass@k: needs 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")


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


def sign_flip(differences: Sequence[float], *, resamples: int = RESAMPLES, seed: int = 0) -> float:
    """Two-sided p-value of a paired sign-flip (permutation) test that the mean of `differences`
    (one per task: a task's mean success in one run minus the other's) is 0: how often flipping
    each task's sign at random gives a mean at least as far from 0, from `resamples` draws of
    `random.Random(seed)` ((hits + 1) / (resamples + 1)). On 0/1 verdicts it is McNemar's test
    by simulation; on means of repeats it keeps each task's repeats together."""
    nonzero = [d for d in differences if d]
    if not nonzero:
        return 1.0
    observed = abs(sum(nonzero)) - 1e-9 * len(nonzero)
    rng = random.Random(seed)
    hits = sum(abs(sum(d if rng.random() < 0.5 else -d for d in nonzero)) >= observed for _ in range(resamples))
    return (hits + 1) / (resamples + 1)


def spread(values: Sequence[float]) -> tuple[float, float]:
    """(mean, sample standard deviation); the deviation is 0 for fewer than two values."""
    if not values:
        return 0.0, 0.0
    return mean(values), stdev(values) if len(values) > 1 else 0.0
