"""Differential tests: WAA's own metric functions (../shared/waa/reference) and troupe's, on the same
files, must give the same score or both no score. The corpus (corpus*.py) sits on each function's
edge cases; the session's summary prints the agreement per function."""

from __future__ import annotations

import contextlib
import json
from collections import defaultdict

import pytest

from bench.suites.waa.metrics import INFEASIBLE, METRICS
from tests.suites.waa import corpus, parity, reference


@pytest.fixture(scope="session")
def cases_by_function() -> dict[str, list[corpus.Case]]:
    by_function: dict[str, list[corpus.Case]] = defaultdict(list)
    for case in corpus.build():
        by_function[case.func].append(case)
    return by_function


def used_functions() -> set[str]:
    """Every metric function a task of the shared WAA data names."""
    used: set[str] = set()
    for path in (reference.TASKS / "examples").glob("*/*.json"):
        func = json.loads(path.read_text())["evaluator"]["func"]
        used.update([func] if isinstance(func, str) else func)
    return used


def test_every_function_a_task_uses_has_cases(cases_by_function):
    if not reference.TASKS.is_dir():
        pytest.skip(f"the shared WAA tasks are not at {reference.TASKS}")
    used = used_functions() - {INFEASIBLE}  # decided by the checker from the agent's last action, not a file
    assert len(used) >= 44
    assert sorted(used - set(METRICS)) == []
    assert sorted(used - set(cases_by_function)) == []


@pytest.mark.parametrize("func", sorted(METRICS))
def test_troupe_scores_as_waa_does(func, cases_by_function, tmp_path_factory):
    metric = getattr(reference.metrics(), func)
    cases = cases_by_function.get(func)
    if not cases:
        pytest.skip(f"{func}: no task uses it, so the corpus has no cases for it")
    folder = tmp_path_factory.mktemp(func)
    differ = []
    for case in cases:
        with contextlib.chdir(folder):  # WAA's compare_zip_files writes temp.pdf where it runs
            waa = parity.waa_outcome(metric, case, folder / case.name)
        ours = parity.troupe_outcome(METRICS[func], case)
        if waa.agrees(ours):
            parity.record(func, "agree")
        else:
            parity.record(func, "differ")
            differ.append(f"{case.name}: WAA {waa}, troupe {ours}")
    if differ:
        pytest.fail(f"{len(differ)} of {len(cases)} cases score differently:\n" + "\n".join(differ), pytrace=False)


def test_a_different_score_or_an_exception_on_one_side_is_a_disagreement(tmp_path):
    case = corpus.Case("exact_match", "true", "true", {"expected": "true"})
    waa = parity.waa_outcome(reference.metrics().exact_match, case, tmp_path)
    assert waa.agrees(parity.Outcome(1.0 + parity.TOLERANCE / 2))
    assert not waa.agrees(parity.troupe_outcome(lambda result, expected, **options: 0.0, case))
    raising = parity.troupe_outcome(lambda result, expected, **options: 1 / 0, case)
    assert raising.score == parity.NO_SCORE and not waa.agrees(raising)
