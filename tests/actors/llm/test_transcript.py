"""What calls.jsonl keeps: the requests that got no usable answer (an agent error, a missing summary, a
missing classification) and the pictures the model was shown. A whole `bench.run` of one sim episode
against a local chat-completions server."""

import hashlib
import io
import json

import pytest
from PIL import Image

import bench
from actors.run_folder import episode_dir, read_calls, read_steps
from tests.fake_llm import FakeLLM, Reply, by_role, form_filler

pytestmark = pytest.mark.anyio

NOT_JSON = "I would rather not say."


def acts_once(body):
    """The agent: the first goal, then replies that are no action."""
    if "This is step 1 " in body["messages"][1]["content"][0]["text"]:
        return form_filler(body)
    return json.dumps({"action": {"type": "click", "target": {"node_id": "nowhere"}}})


async def one_episode(tmp_path, roles, **settings):
    """The result line, calls and steps of one sim episode run by the LLM roles `roles`."""
    line, folder = await one_episode_folder(tmp_path, roles, **settings)
    return line, read_calls(folder), read_steps(folder)


async def one_episode_folder(tmp_path, roles, summarizer="llm", **settings):
    with FakeLLM(roles) as server:
        run = await bench.run("sim", agent="llm", summarizer=summarizer, options={"episodes": 1, "scale": 0.001},
                              **{"analysis": "llm", "llm_base_url": server.url, "llm_model": "fake", "llm_retries": 0,
                                 "llm_max_bad_replies": 2, "max_steps": 4, "out": tmp_path / "run", **settings})
    (line,) = run.results
    return line, episode_dir(run.folder, line.result.task_id, line.result.attempt)


async def test_the_calls_of_an_agent_error_a_failed_summary_and_a_failed_classification_are_kept(tmp_path):
    roles = by_role(agent=acts_once, summarizer=lambda body: NOT_JSON, classifier=lambda body: NOT_JSON)
    line, calls, steps = await one_episode(tmp_path, roles)
    assert line.result.error_kind.value == "agent"
    assert "agent: 2 invalid replies in a row; last: there is no element with node_id 'nowhere'" in line.result.reason
    assert len(steps) == 1 and steps[0].summary is None  # the summary of step 1 failed

    by_role_of = {role: [c for c in calls if c.role == role] for role in ("agent", "summarizer", "classifier")}
    first, *failed = by_role_of["agent"]
    assert (first.step, first.rejected, first.gave_up) == (1, "", False)
    assert [(c.step, c.gave_up) for c in failed] == [(2, False), (2, True)]  # the decision that was never made
    assert all("there is no element with node_id 'nowhere'" in c.rejected and c.reply for c in failed)
    for role, step in (("summarizer", 1), ("classifier", 0)):
        assert [(c.step, c.gave_up) for c in by_role_of[role]] == [(step, False), (step, True)], role
        assert all(c.reply == NOT_JSON and c.rejected == "the reply contains no JSON object"
                   for c in by_role_of[role]), role
    assert "LLM classifier: 2 invalid replies in a row" in line.analysis


async def test_the_calls_of_a_summary_and_a_classification_the_model_service_failed_are_kept(tmp_path):
    roles = by_role(agent=acts_once, summarizer=lambda body: Reply(status=503),
                    classifier=lambda body: Reply(status=400))
    line, calls, steps = await one_episode(tmp_path, roles)
    assert steps[0].summary is None
    (summarizer,) = [c for c in calls if c.role == "summarizer"]
    assert summarizer.gave_up and "gave up after 1 attempts; last: HTTP 503" in summarizer.error
    (classifier,) = [c for c in calls if c.role == "classifier"]
    assert classifier.gave_up and "refused the request with HTTP 400" in classifier.error and not classifier.reply


async def test_a_reply_sent_back_is_marked_and_the_answer_after_it_is_not(tmp_path):
    def once_wrong(body):
        return NOT_JSON if len(body["messages"]) == 2 and "This is step 1 " in body["messages"][1]["content"][0][
            "text"] else form_filler(body)

    line, calls, _ = await one_episode(tmp_path, by_role(agent=once_wrong, summarizer=lambda body: NOT_JSON),
                                       analysis="signals")
    wrong, right = [c for c in calls if c.role == "agent" and c.step == 1]
    assert wrong.rejected == "the reply contains no JSON object" and not wrong.gave_up
    assert not right.rejected and not right.gave_up and "That reply is invalid" in right.messages[-1]["content"]


def waits_then_done(body):
    """Two steps that change nothing on the screen, the first asked twice (a reply sent back), then done."""
    text = body["messages"][1]["content"][0]["text"]
    if "This is step 1 " in text and len(body["messages"]) == 2:
        return NOT_JSON
    done = "This is step 3 " in text
    return json.dumps({"action": {"type": "done"} if done else {"type": "wait", "seconds": 0}})


def image_of(call):
    (image,) = [part for part in call.messages[1]["content"] if part["type"] == "image"]
    return image


@pytest.mark.parametrize("observation, screen", [("som", None), ("both", "640x400")])
async def test_the_picture_the_model_was_shown_is_a_file_named_in_the_transcript_and_stored_once(
        tmp_path, observation, screen):
    settings = {"llm_observation": observation, **({"llm_screen": screen} if screen else {})}
    line, folder = await one_episode_folder(tmp_path, by_role(agent=waits_then_done),
                                            summarizer="none", analysis="signals", **settings)
    assert line.result.steps == 3
    calls = read_calls(folder)
    assert [c.step for c in calls] == [1, 1, 2, 3] and not any(c.images for c in calls)
    images = [image_of(call) for call in calls]
    assert {image["file"] for image in images} == {"agent-001.png"}  # one screen, shown four times: one file
    assert sorted(p.name for p in folder.glob("agent-*")) == ["agent-001.png"]
    picture = (folder / "agent-001.png").read_bytes()
    assert hashlib.sha256(picture).hexdigest() == images[0]["sha256"]
    assert picture != (folder / "step-000.png").read_bytes()  # not the step's own screenshot
    shown = Image.open(io.BytesIO(picture)).convert("RGB")
    if screen:
        assert shown.size == (640, 400)
    else:  # the marks drawn on it
        assert shown.size == (1280, 800) and (220, 30, 30) in {color for _, color in shown.getcolors(1 << 16)}
