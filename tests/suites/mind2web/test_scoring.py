"""Mind2Web's metric definitions on hand-made pages: operation F1, what an action predicts, and the figures."""

import pytest

from bench.suites.mind2web.page import Candidate, Page
from bench.suites.mind2web.scoring import (
    Prediction, StepScore, TaskScore, figures, label, operation_f1, predict, score_step, score_task,
)
from bench.stats import clustered_wilson, wilson
from protocols import BBox, Click, Done, Key, Point, RightClick, Target, TripleClick, TypeText, Viewport


@pytest.mark.parametrize("predicted, labelled, f1", [
    ("CLICK ", "CLICK", 1.0),
    ("TYPE New York", "TYPE New York", 1.0),
    ("TYPE new york", "TYPE New York", 1 / 3),  # case is kept: only TYPE is shared, P = R = 1/3
    ("TYPE New York City", "TYPE New York", 2 * (3 / 4) * 1 / (3 / 4 + 1)),  # P 3/4, R 1: 6/7
    ("TYPE York New", "TYPE New York", 1.0),  # sets of tokens: order does not count
    ("TYPE New New York", "TYPE New York", 1.0),  # nor repetition
    ("CLICK ", "TYPE New York", 0.0),  # nothing shared
    ("SELECT ( Economy )", "SELECT Economy", 1.0),  # a punctuation token is dropped
    ("SELECT () Economy", "SELECT Economy", 1.0),  # "()" occurs in string.punctuation as written: dropped
    ("SELECT )( Economy", "SELECT Economy", 2 * (2 / 3) * 1 / (2 / 3 + 1)),  # ")(" does not: kept, P 2/3
    (" ", "CLICK", 0.0),  # no prediction against a label
    ("! ?", ". ,", 1.0),  # both empty once punctuation is dropped
])
def test_operation_f1_is_mind2web_token_f1(predicted, labelled, f1):
    assert operation_f1(predicted, labelled) == pytest.approx(f1)


SELECT = Candidate("40", "select", "combobox", "cabin", BBox(0, 100, 100, 20), options=("First", "Economy"))
PAGE = Page(
    action_uid="u", op="TYPE", value="New York", positives=("20",),
    candidates=(Candidate("10", "a", "link", "One-way", BBox(0, 0, 200, 50)),
                Candidate("20", "input", "textbox", "From", BBox(10, 10, 50, 20)),
                Candidate("30", "div", "clickable", "Hidden", None), SELECT),
    viewport=Viewport(400, 200),
)


@pytest.mark.parametrize("action, prediction", [
    (Click(target=Target(node_id="10")), Prediction("10", "CLICK")),
    (RightClick(target=Target(node_id="10")), Prediction("10", "CLICK")),
    (TripleClick(target=Target(node_id="10")), Prediction("10", "CLICK")),
    (Click(point=Point(20, 20)), Prediction("20", "CLICK")),  # the smallest box holding the point
    (Click(point=Point(0.5, 0.1, unit="norm")), Prediction("10", "CLICK")),  # (200, 20) on a 400x200 screen
    (Click(point=Point(300, 190)), Prediction(None, "CLICK")),  # on no candidate
    (Click(target=Target(node_id="99", bbox=BBox(15, 15, 2, 2))), Prediction("20", "CLICK")),  # unknown id: its box
    (TypeText(text="New York", target=Target(node_id="20")), Prediction("20", "TYPE", "New York")),
    (TypeText(text="New York"), Prediction(None, "TYPE", "New York")),  # the focused element is not known
    (TypeText(text="Economy", target=Target(node_id="40")), Prediction("40", "SELECT", "Economy")),
    (Click(target=Target(node_id="40/option/2")), Prediction("40", "SELECT", "Economy")),
    (Click(target=Target(node_id="40/option/3")), Prediction(None, "CLICK")),  # no third option: no element
    (Key(key="enter"), Prediction(None)),
    (Done(), Prediction(None)),
    (None, Prediction(None)),
])
def test_what_an_action_predicts(action, prediction):
    assert predict(action, PAGE) == prediction


def test_a_step_is_right_with_a_positive_element_and_the_whole_operation():
    assert label(PAGE) == "TYPE New York"
    assert score_step(TypeText(text="New York", target=Target(node_id="20")), PAGE) == StepScore(True, 1.0)
    assert score_step(TypeText(text="New York", target=Target(node_id="20")), PAGE).success
    assert score_step(Click(target=Target(node_id="20")), PAGE) == StepScore(True, 0.0)
    assert score_step(TypeText(text="New York", target=Target(node_id="10")), PAGE) == StepScore(False, 1.0)
    nobody = Page(action_uid="v", op="CLICK", value="", positives=(), candidates=PAGE.candidates)
    assert label(nobody) == "CLICK"
    assert score_step(Click(target=Target(node_id="10")), nobody) == StepScore(False, 1.0)  # no positive: wrong


def test_steps_not_reached_score_zero():
    scored = score_task([TypeText(text="New York", target=Target(node_id="20"))], [PAGE, PAGE, PAGE],
                        task_id="t", split="test_task", website="w", domain="d")
    assert scored.steps == (StepScore(True, 1.0), StepScore(False, 0.0), StepScore(False, 0.0))
    assert not scored.success


def test_figures_are_macro_over_tasks_with_micro_beside_and_per_website_and_domain():
    right, half, wrong = StepScore(True, 1.0), StepScore(True, 0.5), StepScore(False, 0.0)
    tasks = [TaskScore("t1", "test_task", "a", "Travel", (right, right, right, wrong)),  # 3/4 right
             TaskScore("t2", "test_task", "b", "Travel", (right,)),
             TaskScore("t3", "test_domain", "c", "Info", (half, wrong))]
    found = figures(tasks)
    split = found["splits"]["test_task"]
    assert split["tasks"] == split["episodes"] == 2 and split["steps"] == 5 and split["episodes_succeeded"] == 1
    assert split["element_accuracy"] == pytest.approx((3 / 4 + 1) / 2)
    assert split["step_success_rate"] == pytest.approx((3 / 4 + 1) / 2)
    assert split["micro"]["step_success_rate"] == pytest.approx(4 / 5)  # a long task weighs more per step
    assert split["task_success_rate"] == 0.5 and split["task_success_interval"] == pytest.approx([0.0945, 0.9055],
                                                                                                   abs=1e-4)
    assert set(split["websites"]) == {"a", "b"} and split["websites"]["a"]["step_success_rate"] == 0.75
    assert split["domains"]["Travel"]["tasks"] == 2
    other = found["splits"]["test_domain"]
    assert other["element_accuracy"] == 0.5 and other["operation_f1"] == 0.25 and other["step_success_rate"] == 0.0
    overall = found["overall"]
    assert overall["tasks"] == 3 and overall["task_success_rate"] == pytest.approx(1 / 3)
    assert overall["operation_f1"] == pytest.approx((3 / 4 + 1 + 0.25) / 3)


def test_a_task_with_repeats_is_one_task_scored_as_the_mean_of_its_episodes():
    right, wrong = StepScore(True, 1.0), StepScore(False, 0.0)
    episodes = [TaskScore("t1", "test_task", "a", "Travel", (right, right)),  # repeat 1: a success
                TaskScore("t1", "test_task", "a", "Travel", (right, wrong)),  # repeat 2: half the steps
                TaskScore("t2", "test_task", "a", "Travel", (wrong,)),
                TaskScore("t2", "test_task", "a", "Travel", (wrong,))]
    block = figures(episodes)["overall"]
    assert block["tasks"] == 2 and block["episodes"] == 4 and block["steps"] == 6
    assert block["step_success_rate"] == pytest.approx(((1 + 1 / 2) / 2 + 0) / 2)
    assert block["task_success_rate"] == pytest.approx((1 / 2 + 0) / 2)
    # tasks as clusters: the interval of 1 success in 4 episodes of 2 tasks is wider than Wilson's of 1 in 4
    low, high = block["task_success_interval"]
    assert (low, high) == pytest.approx(clustered_wilson([(1, 2), (0, 2)])[:2])
    assert high - low > wilson(1, 4)[1] - wilson(1, 4)[0]
