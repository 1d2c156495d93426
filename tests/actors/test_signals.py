"""Deterministic failure signals on constructed episodes (no LLM)."""

from actors.signals import categories_from_signals, deterministic_signals
from protocols import Click, Done, EpisodeResult, ErrorKind, Point, StepRecord

CLICK = Click(point=Point(x=10, y=10))


def step(n, action=CLICK, changed=True, error=None):
    return StepRecord(episode_id="e", step=n, action=action, changed=changed, error=error)


def result(**fields):
    return EpisodeResult(episode_id="e", task_id="t", **fields)


def test_the_same_action_repeated_without_effect_is_an_interaction_failure():
    steps = (step(1), step(2, changed=False), step(3, changed=False), step(4, changed=False), step(5, Done(), None))
    signals = deterministic_signals(result(error_kind=ErrorKind.AGENT), steps)
    assert "same action repeated 3 times without effect" in signals
    assert "screen unchanged after steps [2, 3, 4]" in signals
    assert categories_from_signals(result(error_kind=ErrorKind.AGENT), signals) == {"interaction_execution": 1.0}


def test_a_repeat_that_changes_the_screen_is_not_ineffective():
    steps = (step(1), step(2), step(3), step(4))
    assert deterministic_signals(result(), steps) == ()


def test_step_limit_and_failed_actions_are_named_with_their_steps():
    steps = (step(1, error="element gone"), step(2, changed=False), step(3, error="off screen"))
    failed = result(error_kind=ErrorKind.AGENT, reason="step limit of 3 reached; field empty")
    signals = deterministic_signals(failed, steps)
    assert signals == ("step limit reached", "screen unchanged after steps [2]", "actions failed at steps [1, 3]")
    assert categories_from_signals(failed, signals) == {"interaction_execution": 1.0, "navigation_planning": 1.0}


def test_environment_failures_are_system_errors_and_successes_are_successes():
    crashed = result(error_kind=ErrorKind.ENVIRONMENT, reason="failed on 3 VMs: Act failed")
    signals = deterministic_signals(crashed, ())
    assert signals == ("environment failure: failed on 3 VMs: Act failed",)
    assert categories_from_signals(crashed, signals) == {"system": 1.0}
    assert categories_from_signals(result(success=True), ()) == {"success": 1.0}
    assert categories_from_signals(result(error_kind=ErrorKind.EVALUATION), ()) == {"harness": 1.0}


def test_a_failure_no_signal_explains_gets_no_language_model_category():
    quiet = result(error_kind=ErrorKind.AGENT, reason="raw reward -1")
    signals = deterministic_signals(quiet, (step(1), step(2, Done())))
    assert signals == ()
    assert categories_from_signals(quiet, signals) == {}
