"""bench.stats against published and hand-computed values."""

import math

import pytest

from bench.stats import binomial_two_sided, mcnemar, paired_bootstrap, spread, wilson


@pytest.mark.parametrize(("successes", "n", "low", "high"), [
    (81, 263, 0.2553, 0.3662),  # Wilson (1927) as worked in Wikipedia's "Binomial proportion confidence interval"
    (0, 10, 0.0, 0.2775),       # Newcombe (1998), Table I: 0/10 -> 0 to 0.2775
    (10, 10, 0.7225, 1.0),
    (1, 29, 0.0061, 0.1718),    # Newcombe (1998), Table I: 1/29 -> 0.0061 to 0.1718
])
def test_wilson_matches_published_intervals(successes, n, low, high):
    assert wilson(successes, n) == pytest.approx((low, high), abs=5e-5)


def test_wilson_without_episodes_knows_nothing_and_refuses_an_impossible_count():
    assert wilson(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError, match="11 successes out of 10"):
        wilson(11, 10)


def test_mcnemar_is_the_exact_binomial_on_the_discordant_pairs():
    # 1 task only A solved, 6 only B: P(X <= 1 | n=7, 1/2) = 8/128, doubled
    assert mcnemar(1, 6) == pytest.approx(16 / 128)
    assert mcnemar(6, 1) == mcnemar(1, 6)
    assert mcnemar(0, 10) == pytest.approx(2 / 1024)
    assert mcnemar(3, 3) == 1.0 and mcnemar(0, 0) == 1.0
    assert binomial_two_sided(2, 12) == pytest.approx(2 * (1 + 12 + 66) / 4096)


def test_the_bootstrap_is_the_same_for_a_seed():
    a = [0, 1, 0, 1, 1, 0, 0, 1, 0, 0] * 3
    b = [1, 1, 0, 1, 1, 1, 0, 1, 1, 0] * 3
    first = paired_bootstrap(a, b, seed=7, resamples=2000)
    assert first == paired_bootstrap(a, b, seed=7, resamples=2000)
    assert first[0] == pytest.approx(0.3) and first[1] < 0.3 < first[2]


def test_a_clear_improvement_has_an_interval_that_excludes_zero_and_no_change_one_that_holds_it():
    a = [0] * 30 + [1] * 20
    b = [1] * 30 + [1] * 20
    difference, low, high = paired_bootstrap(a, b, seed=0, resamples=2000)
    assert difference == 0.6 and 0 < low < 0.6 <= high
    same = paired_bootstrap(a, a[::-1], seed=0, resamples=2000)
    assert same[1] < 0 < same[2]


def test_the_bootstrap_refuses_unpaired_values():
    with pytest.raises(ValueError, match="same number"):
        paired_bootstrap([1, 0], [1])


def test_spread_is_the_mean_and_sample_deviation():
    assert spread([2, 4, 4, 4, 5, 5, 7, 9]) == (5, pytest.approx(math.sqrt(32 / 7)))
    assert spread([3]) == (3, 0.0) and spread([]) == (0.0, 0.0)
