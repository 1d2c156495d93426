"""The change summarizer: the observation diff and its threshold, the prompt, reply parsing."""

import json

import pytest

from actors.llm.observation import diff_observations
from actors.llm.replies import ReplyError
from actors.llm.summarizer import LLMJudge, parse_summary
from tests.fake_llm import FakeLLM, Reply
from protocols import BBox, Click, Observation, Summarize, Target, Task, UIElement
from tests.llm_crew import llm_client, prompt_text


def screen(*texts: str, url: str = "http://form", shot: bytes = b"png-1") -> Observation:
    children = tuple(UIElement(node_id=f"n{i}", role="textbox", name=f"Field {i}", text=text,
                               bbox=BBox(0, 40 * i, 200, 30)) for i, text in enumerate(texts))
    return Observation(screenshot=shot, url=url, tree=UIElement(node_id="root", role="window", name="Form",
                                                                 children=children))


TEN = ("",) * 10


def test_an_unchanged_observation_is_reported_as_such():
    diff = diff_observations(screen(*TEN), screen(*TEN))
    assert (diff.kind, diff.text, diff.changed, diff.screenshot_changed) == ("unchanged", "", 0.0, False)
    assert diff_observations(screen(*TEN), screen(*TEN, shot=b"png-2")).screenshot_changed


def test_a_small_change_sends_only_the_changed_lines():
    after = ("alice",) + TEN[1:]
    diff = diff_observations(screen(*TEN), screen(*after))
    assert diff.kind == "diff" and 0 < diff.changed < 0.2
    changed = [line for line in diff.text.splitlines() if line.startswith(("-", "+"))]
    assert changed == ['-  [n0] textbox "Field 0" @(0,0 200x30)',
                       '+  [n0] textbox "Field 0" text="alice" @(0,0 200x30)']
    assert "Field 5" not in diff.text  # far from the change: left out


def test_a_change_past_the_threshold_sends_the_full_current_observation():
    after = tuple(f"value {i}" for i in range(10))
    diff = diff_observations(screen(*TEN), screen(*after, url="http://next"))
    assert diff.kind == "full" and diff.changed > 0.5
    assert diff.text.startswith("URL: http://next") and diff.text.count("\n") == 11
    # the same change under a higher threshold is still a diff
    assert diff_observations(screen(*TEN), screen(*after, url="http://next"), threshold=0.99).kind == "diff"


def request(before, after):
    return Summarize(task=Task(task_id="t", instruction="Fill the form."), episode_id="e", step=2,
                     action=Click(target=Target(node_id="n0")), reasoning="start with the name",
                     before=before, after=after)


def test_the_prompt_holds_goal_reasoning_action_and_the_diff_and_images_only_when_asked():
    after = ("alice",) + TEN[1:]
    judge = LLMJudge(client=None)
    parts = judge.prompt(request(screen(*TEN), screen(*after, shot=b"png-2")))
    text = "\n".join(p["text"] for p in parts if p["type"] == "text")
    assert "Goal: Fill the form." in text and "Agent's reasoning: start with the name" in text
    assert '"type":"click"' in text and "Changed lines of the screen" in text
    assert [p["type"] for p in parts] == ["text"]
    with_images = LLMJudge(client=None, observation="both").prompt(request(screen(*TEN), screen(*TEN, shot=b"png-2")))
    assert [p["type"] for p in with_images] == ["text", "text", "image_url", "text", "image_url"]
    assert "The screenshot did; compare the two images." in with_images[0]["text"]


def test_summary_replies_are_parsed_or_refused_with_the_field_named():
    summary = parse_summary('```json\n{"changes": "x", "correct": false, "suggestion": "click Submit"}\n```', 4)
    assert (summary.step, summary.correct, summary.suggestion) == (4, False, "click Submit")
    with pytest.raises(ReplyError, match="missing required field `changes`"):
        parse_summary('{"correct": true}', 1)
    with pytest.raises(ReplyError, match="Expected `bool | null`, got `str` - at `\\$.correct`"):
        parse_summary('{"changes": "x", "correct": "yes"}', 1)


@pytest.mark.anyio
async def test_the_judge_asks_again_after_an_invalid_reply_and_records_its_latency():
    good = json.dumps({"changes": "the name field shows alice", "correct": True})
    with FakeLLM(["no idea", Reply(content=good, delay=0.05)]) as server:
        summary = await LLMJudge(llm_client(server)).summarize(request(screen(*TEN), screen("alice", *TEN[1:])))
    assert summary.changes == "the name field shows alice" and summary.step == 2
    assert summary.latency >= 0.05
    assert "That reply is invalid: the reply contains no JSON object" in prompt_text(server.requests[1])
