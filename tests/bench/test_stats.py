"""bench.stats against published and hand-computed values."""

import math

import pytest

from bench.stats import (
    binomial_two_sided, clustered_wilson, mcnemar, paired_bootstrap, pass_at_k, pass_hat_k, sign_flip, spread, wilson,
)


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


def test_the_clustered_interval_is_wilsons_at_the_effective_episodes():
    # 4 tasks x 2 repeats, 1/2, 1/2, 2/2, 0/2: p = 0.5, residuals 0, 0, 1, -1, so
    # v = 4/3 * 2 / 8^2 = 1/24 and n_eff = 0.25 / (1/24) = 6: Wilson's interval of 3/6
    low, high, effective = clustered_wilson([(1, 2), (1, 2), (2, 2), (0, 2)])
    assert effective == pytest.approx(6.0)
    assert (low, high) == pytest.approx(wilson(3, 6))
    # 2 tasks x 3 repeats, 3/3 and 0/3: the repeats agree entirely, so the 6 episodes are worth 1:
    # v = 2 * (1.5^2 + 1.5^2) / 36 = 0.25, n_eff = 1, Wilson at p = 0.5, n = 1: 0.5 -+ 1.96 * 1.1002 / 4.8415
    low, high, effective = clustered_wilson([(3, 3), (0, 3)])
    assert effective == pytest.approx(1.0)
    assert (low, high) == pytest.approx((0.0546, 0.9454), abs=5e-5)


def test_the_clustered_interval_never_counts_more_than_the_episodes_nor_guesses_at_0_or_1():
    # repeats that disagree more than chance would (every task 1 of 2) estimate v = 0: n_eff is capped at N
    assert clustered_wilson([(1, 2)] * 5)[2] == 10
    assert clustered_wilson([(1, 2)] * 5)[:2] == pytest.approx(wilson(5, 10))
    # all solved, or one task: nothing estimates how alike repeats are, so each task counts once
    assert clustered_wilson([(3, 3)] * 4) == pytest.approx((*wilson(4, 4), 4.0))
    assert clustered_wilson([(2, 3)])[2] == 1.0
    assert clustered_wilson([]) == (0.0, 1.0, 0.0)
    with pytest.raises(ValueError, match="4 successes out of 3"):
        clustered_wilson([(4, 3)])


def test_pass_at_k_and_pass_hat_k_by_hand():
    # a task solved by 1 of 3 repeats: one draw solves it 1/3 of the time; two draws miss it only
    # if both are the 2 failures, C(2,2)/C(3,2) = 1/3; three always hit it. All k repeats solve it:
    # 1/3 for k = 1, never for more.
    assert [pass_at_k(3, 1, k) for k in (1, 2, 3)] == pytest.approx([1 / 3, 2 / 3, 1])
    assert [pass_hat_k(3, 1, k) for k in (1, 2, 3)] == pytest.approx([1 / 3, 0, 0])
    assert [pass_hat_k(5, 4, k) for k in (1, 2, 5)] == pytest.approx([4 / 5, 6 / 10, 0])
    assert pass_at_k(4, 0, 4) == 0 and pass_hat_k(4, 4, 4) == 1
    with pytest.raises(ValueError, match="k=4"):
        pass_at_k(3, 1, 4)


def test_the_sign_flip_test_on_verdicts_is_mcnemars_by_simulation():
    # 6 tasks only B solved, 1 only A, 3 alike: exact McNemar 16/128 = 0.125
    differences = [1] * 6 + [-1] + [0] * 3
    assert sign_flip(differences, resamples=20_000, seed=1) == pytest.approx(mcnemar(1, 6), abs=0.01)
    assert sign_flip(differences, seed=5) == sign_flip(differences, seed=5)
    assert sign_flip([0, 0]) == 1.0
    # means of repeats: +2/3 on 8 tasks, never worse, is far from chance (2/2^8 exactly)
    assert sign_flip([2 / 3] * 8, resamples=20_000) == pytest.approx(2 / 256, abs=0.003)
