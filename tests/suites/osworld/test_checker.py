"""OSWorld's evaluate() rules, as troupe's checker applies them to what `inspect` read: a single
function, `conj` "and" and "or" with their early stops, a result getter that found no file, a getter
or metric that raises, an empty expected spec, infeasible tasks and a feasible one given up."""

from __future__ import annotations

import pytest

from bench.suites.osworld.checker import OSWorldChecker
from bench.suites.osworld.metrics import METRICS
from protocols import Click, Done, Evaluate, Fail, Point, StepRecord, Task
from runtime.errors import Refused

from tests.loop_watch import LoopWatch

pytestmark = pytest.mark.anyio

RULE = {"type": "rule", "rules": {"expected": "yes"}}
TWO = {"func": ["exact_match", "diff_text_file"], "result": [{"type": "vm_command_line"}, {"type": "vm_file"}],
       "expected": [RULE, {"type": "cloud_file"}]}


def evaluate(spec: dict, state: dict, last=None) -> Evaluate:
    steps = (StepRecord(episode_id="e", step=1, action=Click(point=Point(1, 1))),
             StepRecord(episode_id="e", step=2, action=last or Done()))
    return Evaluate(task=Task(task_id="d/t", instruction="-", evaluation_spec=spec), episode_id="e", steps=steps,
                    vm_state=state)


async def verdict(spec: dict, state: dict, last=None):
    return await OSWorldChecker().check(evaluate(spec, state, last))


async def test_one_function_compares_the_result_with_the_expected_rule():
    spec = {"func": "exact_match", "result": {"type": "vm_command_line"}, "expected": RULE}
    assert (await verdict(spec, {"result": ["yes"], "expected": [{"expected": "yes"}]})).score == 1.0
    assert (await verdict(spec, {"result": ["no"], "expected": [{"expected": "yes"}]})).score == 0.0


async def test_a_result_getter_that_found_no_file_scores_0_as_filenotfounderror_does():
    spec = {"func": "exact_match", "result": {"type": "vm_file"}, "expected": RULE}
    found = await verdict(spec, {"result": [None], "expected": [{"expected": "yes"}], "absent": ["result[0]"]})
    assert found.score == 0.0 and "found no file" in found.reason


async def test_and_takes_the_mean_and_stops_at_the_first_zero_without_reading_the_rest():
    state = {"result": ["yes", b"a\nb\n"], "expected": [{"expected": "yes"}, b"a\nc\n"]}
    assert (await verdict(TWO, state)).score == pytest.approx(0.75)  # 1 and a diff ratio of 0.5
    stopped = {"result": ["no"], "expected": [{"expected": "yes"}], "errors": ["result[1]: unreadable"]}
    decided = await verdict(TWO, stopped)
    assert decided.score == 0.0 and decided.reason == "exact_match=0"


async def test_or_stops_at_the_first_one_and_otherwise_takes_the_best():
    spec = {**TWO, "conj": "or"}
    assert (await verdict(spec, {"result": ["yes"], "expected": [{"expected": "yes"}],
                                 "errors": ["expected[1]: unreadable"]})).score == 1.0
    state = {"result": ["no", b"a\nb\n"], "expected": [{"expected": "yes"}, b"a\nc\n"]}
    assert (await verdict(spec, state)).score == pytest.approx(0.5)


async def test_under_or_a_missing_result_reuses_the_previous_one_and_for_the_first_raises():
    spec = {"func": ["exact_match", "exact_match"], "conj": "or", "result": [{"type": "a"}, {"type": "b"}],
            "expected": [RULE, {"type": "rule", "rules": {"expected": "no"}}]}
    state = {"result": ["no", None], "expected": [{"expected": "yes"}, {"expected": "no"}], "absent": ["result[1]"]}
    assert (await verdict(spec, state)).score == 1.0  # OSWorld's loop compares "no" again, against "no"
    with pytest.raises(Refused, match="first result getter found no file"):
        await verdict(spec, {**state, "absent": ["result[0]"]})


async def test_a_getter_or_metric_that_raises_leaves_no_score():
    spec = {"func": "exact_match", "result": {"type": "vm_command_line"}, "expected": RULE}
    with pytest.raises(Refused, match="could not read the VM state: result\\[0\\]: boom"):
        await verdict(spec, {"result": [None], "expected": [{"expected": "yes"}], "errors": ["result[0]: boom"]})
    with pytest.raises(Refused, match="exact_match: expected rules with `expected`"):
        await verdict(spec, {"result": ["yes"], "expected": [{"wanted": "yes"}]})
    with pytest.raises(Refused, match="metric check_include_exclude raised AttributeError"):
        await verdict({**spec, "func": "check_include_exclude"}, {"result": ["x"], "expected": [["x"]]})


async def test_an_empty_expected_entry_and_a_failed_postconfig_leave_no_score():
    spec = {**TWO, "expected": [RULE, {}]}
    with pytest.raises(Refused, match="expected\\[1\\] is empty"):
        await verdict(spec, {"result": ["yes", b"a"], "expected": [{"expected": "yes"}, None]})
    with pytest.raises(Refused, match="postconfig\\[0\\] \\(open\\): HTTP 404"):
        await verdict(TWO, {"postconfig_failed": "postconfig[0] (open): HTTP 404"})


async def test_infeasible_scores_1_only_on_fail_and_a_feasible_task_given_up_scores_0():
    assert (await verdict({"func": "infeasible"}, {}, Fail(reason="cannot"))).score == 1.0
    assert (await verdict({"func": "infeasible"}, {})).score == 0.0
    spec = {"func": "exact_match", "result": {"type": "vm_command_line"}, "expected": RULE}
    gave_up = await verdict(spec, {"result": ["yes"], "expected": [{"expected": "yes"}]}, Fail(reason="no"))
    assert gave_up.score == 0.0 and "declared a feasible task infeasible" in gave_up.reason


async def test_refused_setup_steps_are_named_in_the_reason():
    found = await verdict({"func": "infeasible"}, {"setup_errors": ["config[0] (launch) failed: HTTP 500"]},
                          Fail(reason="cannot"))
    assert found.success and "config[0] (launch) failed: HTTP 500" in found.reason



async def test_metrics_run_off_the_event_loop_so_other_episodes_go_on(monkeypatch):
    watch = LoopWatch()
    monkeypatch.setitem(METRICS, "exact_match", watch.metric)
    spec = {"func": "exact_match", "result": {"type": "vm_command_line"}, "expected": RULE}
    found = await watch.score(lambda: verdict(spec, {"result": ["yes"], "expected": [{"expected": "yes"}]}))
    assert found.score == 1.0
