"""The sim suite knows the right action of every step: each step of a live run is scored against it
(step and grounding accuracy), whoever chose the actions (an LLM by set-of-marks here; the simulated
agent in tests/actors/test_results_folder.py)."""

import json
import re

import pytest

import bench
from actors.backends.sim.world import VIEWPORT, World
from actors.run_folder import episode_dir, read_steps
from bench.suites.sim.goals import step_reference
from protocols import Click, Done, Key, Observation, Point, StepRecord, Target, Task, TypeText
from tests.fake_llm import FakeLLM, by_role, form_filler

TASK = Task(task_id="t", instruction="Type 'alice' into 'Name'. Check 'Subscribe'. Click 'Submit'. Press 'enter'.")
LAYOUT = [{"role": "textbox", "name": "Name"}, {"role": "checkbox", "name": "Subscribe"},
          {"role": "button", "name": "Submit"}]


def steps(*actions):
    return [StepRecord(episode_id="e", step=n, action=a) for n, a in enumerate(actions, start=1)]


def test_the_reference_is_the_next_goals_action_whichever_way_the_earlier_steps_reached_their_goals():
    screen = Observation(tree=World.from_layout(LAYOUT).tree(), viewport=VIEWPORT)
    name, subscribe, submit = screen.tree.children
    first = step_reference(TASK, screen, [])
    assert isinstance(first, TypeText) and first.text == "alice" and first.target.bbox == name.bbox
    typed = TypeText(text="alice", target=first.target)
    assert step_reference(TASK, screen, steps(typed)).target.node_id == subscribe.node_id
    wrong = Click(target=first.target)  # a click on the field reaches no goal
    assert step_reference(TASK, screen, steps(typed, wrong)).target.node_id == subscribe.node_id
    by_point = Click(point=Point(*subscribe.bbox.center))  # a point on the box reaches it
    by_norm = Click(point=Point(submit.bbox.center[0] / VIEWPORT.width, submit.bbox.center[1] / VIEWPORT.height,
                                unit="norm"))
    assert step_reference(TASK, screen, steps(typed, by_point)) == Click(target=Target(
        node_id=submit.node_id, bbox=submit.bbox, role="button", name="Submit"))
    assert step_reference(TASK, screen, steps(typed, by_point, by_norm)) == Key(key="enter")
    assert step_reference(TASK, screen, steps(typed, by_point, by_norm, Key(key="enter"))) == Done()
    assert step_reference(Task(task_id="t", instruction="Click 'Elsewhere'."), screen, []) is None  # not shown
    assert step_reference(TASK, Observation(), []) is None  # no tree: the element is not known


def marks_with_one_mistake(body):
    """form_filler by set-of-marks, except that step 2 clicks mark 1 (the first field) whatever it asks, and
    the next step does again the goal it missed."""
    part = body["messages"][1]["content"][0]
    step = int(re.search(r"This is step (\d+) ", part["text"])[1])
    if step == 2:
        return json.dumps({"action": {"type": "click", "target": {"mark": 1}}})
    part["text"] = part["text"].replace(f"This is step {step} ", f"This is step {step - (step > 2)} ")
    return form_filler(body)


@pytest.mark.anyio
async def test_an_llm_run_by_marks_reports_grounding_against_the_suites_right_elements(tmp_path):
    with FakeLLM(by_role(agent=marks_with_one_mistake)) as server:
        run = await bench.run("sim", agent="llm", summarizer="none", options={"episodes": 1, "scale": 0.001, "seed": 3},
                              llm_base_url=server.url, llm_model="fake", llm_observation="som", max_steps=6,
                              analysis="signals", out=tmp_path / "run")
    (line,) = run.results
    records = read_steps(episode_dir(run.folder, line.result.task_id, line.result.attempt))
    assert all(r.reference is not None for r in records)
    mistake = records[1]
    assert mistake.action.target.node_id != mistake.reference.target.node_id  # mark 1 was not the next goal
    pointed = [r for r in records if getattr(r.reference, "target", None) is not None]
    metrics = run.summary["metrics"]
    assert metrics["scored_steps"] == len(records) and metrics["grounded_steps"] == len(pointed)
    assert metrics["grounding_accuracy"] == (len(pointed) - 1) / len(pointed)
    assert metrics["step_accuracy"] == (len(records) - 1) / len(records) and line.result.success

