"""The LLM agent through real episodes: a sim VM, the actors, and a local chat-completions server."""

import base64
import dataclasses
import io
import itertools
import json
import re

import anyio
import pytest

from actors.agent import Agent
from actors.episode import run_episode
from actors.llm.agent import LLMPolicy, parse_action
from actors.llm.marks import marks_of
from actors.llm.observation import MARKS_HEADING
from actors.llm.replies import ReplyError
from actors.llm.screen import ModelScreen
from PIL import Image
from actors.llm import agent as agent_prompt, summarizer as summarizer_prompt
from tests.fake_llm import FakeLLM, Reply, by_role, form_filler
from bench.suites.sim.suite import sim_tasks
from protocols import (
    ACTION_TYPES, BBox, Done, Drag, ErrorKind, Observation, Point, StepSummarized, Target, UIElement, Viewport,
)
from runtime.actor import spawn
from runtime.events import EventBus
from runtime.limits import Limits
from tests.llm_crew import SUMMARY, llm_client, llm_crew, prompt_text, role_requests

pytestmark = pytest.mark.anyio

LIMITS = Limits(call_seconds=10)


def task(**sim):
    (one,) = sim_tasks(1, seed=3, sim={"scale": 0.001, **sim}, goals=(3, 3))
    return one


async def episode(server, the_task=None, **crew):
    async with anyio.create_task_group() as tg:
        outcome = await run_episode(the_task or task(), await llm_crew(tg, server, **crew), LIMITS, episode_id="e1")
        tg.cancel_scope.cancel()
    return outcome


async def test_the_llm_agent_solves_a_task_with_the_summaries_in_its_prompt():
    def thinking(body):  # slower than the summarizer, so summaries are in by the next-but-one decision
        return Reply(content=form_filler(body), delay=0.1)

    with FakeLLM(by_role(agent=thinking, summarizer=lambda body: SUMMARY)) as server:
        outcome = await episode(server)
    assert outcome.result.success, outcome.result.reason
    assert isinstance(outcome.steps[-1].action, Done)
    typed = outcome.steps[0].action
    assert typed.target.bbox is not None and typed.target.role == "textbox"  # grounded in the tree
    assert outcome.steps[0].reasoning == "goal 1\nPlan: one goal per step"
    assert all(r.summary.changes == "the field shows the text" for r in outcome.steps if not r.action.terminal)
    agent_calls = role_requests(server, agent_prompt)
    assert "[w0] textbox" in prompt_text(agent_calls[0])
    assert "step 1: " in prompt_text(agent_calls[-1])
    # the summary of step 1 is in a later prompt (the last one: summaries overlap the next decision)
    assert "observer: the field shows the text; judged correct" in prompt_text(agent_calls[-1])
    assert len(role_requests(server, summarizer_prompt)) == len(outcome.steps) - 1


async def test_summaries_can_be_left_out_of_the_prompt_and_a_screenshot_sent_instead_of_the_tree():
    with FakeLLM(by_role(agent=form_filler, summarizer=lambda body: SUMMARY)) as server:
        outcome = await episode(server, summaries=False, observation="both")
    assert outcome.result.success
    last = role_requests(server, agent_prompt)[-1]
    assert "observer:" not in prompt_text(last)
    parts = last["messages"][1]["content"]
    assert "[w0] textbox" in prompt_text(last)
    assert [p["type"] for p in parts] == ["text", "text", "image_url"]


async def test_a_reply_that_is_not_an_action_goes_back_to_the_model_and_it_recovers():
    def agent(body):
        if len(body["messages"]) == 2 and "step 1 " in prompt_text(body):
            return "I would click the Name field."
        if len(body["messages"]) == 4:
            return json.dumps({"action": {"type": "click"}})  # a click with nowhere to click
        return form_filler(body)

    with FakeLLM(by_role(agent=agent, summarizer=lambda body: SUMMARY)) as server:
        outcome = await episode(server, max_bad_replies=3)
    assert outcome.result.success, outcome.result.reason
    first_step = role_requests(server, agent_prompt)[:3]
    assert "That reply is invalid: the reply contains no JSON object" in prompt_text(first_step[1])
    assert "`action` is not a valid action: click needs `point` or `target`" in prompt_text(first_step[2])


async def test_n_bad_replies_in_a_row_end_the_episode_with_an_agent_error_that_is_still_evaluated():
    with FakeLLM(by_role(agent=lambda body: json.dumps({"action": {"type": "click", "target": {"node_id": "nope"}}}),
                         summarizer=lambda body: SUMMARY)) as server:
        outcome = await episode(server, max_bad_replies=2)
    result = outcome.result
    assert result.error_kind is ErrorKind.AGENT and not result.success and result.steps == 0
    assert "agent: 2 invalid replies in a row; last: there is no element with node_id 'nope'" in result.reason
    assert result.reason.endswith("is not clicked")  # the verdict's reason follows: it was evaluated
    assert len(role_requests(server, agent_prompt)) == 2


async def test_an_unreachable_llm_ends_the_episode_as_a_model_service_error_unevaluated():
    with FakeLLM([Reply(status=503)]) as server:
        outcome = await episode(server, summarizer=False)
    result = outcome.result
    assert result.error_kind is ErrorKind.MODEL_SERVICE and not result.success and result.steps == 0
    assert result.reason.startswith("model service error: LLMUnavailable: ") and "last: HTTP 503" in result.reason
    assert "is not clicked" not in result.reason  # not evaluated: the agent never had its chance


@pytest.mark.parametrize("server_settings, client_settings, said", [
    ({"api_key": "sk-right"}, {"api_key": "sk-wrong"}, "HTTP 401 (check the API key): Incorrect API key"),
    ({"api_key": "sk-right"}, {}, "HTTP 401 (no API key is set)"),
    ({"models": ["gpt-x"]}, {}, "HTTP 404 (check the model name and base URL): The model `fake` does not exist."),
])
async def test_a_refused_key_or_an_unknown_model_is_a_model_service_error(server_settings, client_settings, said):
    with FakeLLM(by_role(agent=form_filler), **server_settings) as server:
        outcome = await episode(server, summarizer=False, client=llm_client(server, **client_settings))
    assert outcome.result.error_kind is ErrorKind.MODEL_SERVICE
    assert outcome.result.reason.startswith("model service error: LLMAccessError: ") and said in outcome.result.reason


async def test_a_flapping_server_within_the_retries_is_no_error_at_all():
    calls = itertools.count()
    flaps = itertools.cycle([Reply(status=502), Reply(drop=True)])

    def flapping(body):  # every other request fails, a 502 or a dropped connection
        return next(flaps) if next(calls) % 2 == 0 else form_filler(body)

    with FakeLLM(by_role(agent=flapping)) as server:
        outcome = await episode(server, summarizer=False, client=llm_client(server, max_retries=1))
    assert outcome.result.success and outcome.result.error_kind is ErrorKind.NONE
    assert len(role_requests(server, agent_prompt)) == 2 * outcome.result.steps


async def test_late_summaries_are_recorded_against_their_own_steps():
    def slow_summary(body):
        step = int(prompt_text(body).split("Step ", 1)[1].split(".", 1)[0])
        return Reply(content=json.dumps({"changes": f"change of step {step}", "correct": True}), delay=0.3)

    bus = EventBus()
    with FakeLLM(by_role(agent=form_filler, summarizer=slow_summary)) as server, bus.subscribe() as events:
        outcome = await episode(server, bus=bus)
        bus.close()
        summarized = [e async for e in events if isinstance(e, StepSummarized)]
    assert outcome.result.success
    action_steps = [r for r in outcome.steps if not r.action.terminal]
    assert [r.summary.changes for r in action_steps] == [f"change of step {r.step}" for r in action_steps]
    # every summary arrived after the agent had already moved on: no prompt could include one
    assert not any("observer:" in prompt_text(b) for b in role_requests(server, agent_prompt))
    assert sorted(e.summary.step for e in summarized) == [r.step for r in action_steps]


async def test_the_prompt_states_the_runs_step_budget():
    with FakeLLM(by_role(agent=form_filler, summarizer=lambda body: SUMMARY)) as server:
        async with anyio.create_task_group() as tg:
            crew = await llm_crew(tg, server, summarizer=False)
            await run_episode(task(), crew, Limits(max_steps=5, call_seconds=10), episode_id="e1")
            tg.cancel_scope.cancel()
    prompts = [prompt_text(body) for body in role_requests(server, agent_prompt)]
    assert [f"This is step {n} of at most 5." in prompt for n, prompt in enumerate(prompts, start=1)] == [True] * 4


class FreshPolicyEachStep:
    """A new LLMPolicy for every decision, as a restarted Agent would have."""

    def __init__(self, client) -> None:
        self.client = client

    async def decide(self, request):
        return await LLMPolicy(self.client).decide(request)


async def test_a_fresh_policy_answering_step_n_writes_the_prompt_of_the_one_that_saw_steps_before_it():
    prompts = {}
    for fresh in (False, True):
        with FakeLLM(by_role(agent=form_filler, summarizer=lambda body: SUMMARY)) as server:
            async with anyio.create_task_group() as tg:
                crew = await llm_crew(tg, server, summarizer=False)
                if fresh:
                    crew = dataclasses.replace(crew, agent=await spawn(tg, Agent(FreshPolicyEachStep(llm_client(server)))))
                outcome = await run_episode(task(), crew, LIMITS, episode_id="e1")
                tg.cancel_scope.cancel()
        assert outcome.result.success, outcome.result.reason
        prompts[fresh] = [prompt_text(body) for body in role_requests(server, agent_prompt)]
    assert len(prompts[True]) == 4 and prompts[True] == prompts[False]
    assert "- step 1: " in prompts[True][1] and "- step 3: " in prompts[True][3]


async def test_set_of_marks_numbers_the_elements_on_the_screenshot_and_actions_name_them_by_mark():
    with FakeLLM(by_role(agent=form_filler)) as server:
        outcome = await episode(server, summarizer=False, observation="som")
    assert outcome.result.success, outcome.result.reason
    first = role_requests(server, agent_prompt)[0]
    text = prompt_text(first)
    assert MARKS_HEADING in text and '[1] textbox "' in text and "[root]" not in text  # marks, not the tree
    (image,) = [p for p in first["messages"][1]["content"] if p["type"] == "image_url"]
    marked = Image.open(io.BytesIO(base64.b64decode(image["image_url"]["url"].split(",", 1)[1]))).convert("RGB")
    box = outcome.steps[0].action.target.bbox  # the element mark 1 named, grounded in the tree
    assert marked.getpixel((round(box.x), round(box.y + box.height / 2))) == (220, 30, 30)  # its drawn box
    assert isinstance(outcome.steps[0].action.target.node_id, str) and outcome.steps[0].action.target.role == "textbox"


def test_a_mark_is_grounded_in_its_element_and_a_mark_the_screen_lacks_goes_back_to_the_model():
    ok = UIElement("b1", "button", "OK", bbox=BBox(10, 10, 50, 20))
    tree = UIElement("root", "window", children=(UIElement("t", "text", "Hello", bbox=BBox(0, 0, 9, 9)), ok))
    marks = marks_of(Observation(tree=tree))
    assert [(m.number, m.element.node_id) for m in marks] == [(1, "b1")]  # static text gets no mark
    action, _ = parse_action(json.dumps({"action": {"type": "click", "target": {"mark": 1}}}), tree, marks)
    assert action.target == Target(node_id="b1", bbox=ok.bbox, role="button", name="OK")
    for target, said in (({"mark": 2}, "there is no mark 2 on this screen (marks are 1 to 1)"),
                         ({"mark": "one"}, "there is no mark 'one' on this screen"), ):
        with pytest.raises(ReplyError, match=re.escape(said)):
            parse_action(json.dumps({"action": {"type": "click", "target": target}}), tree, marks)
    with pytest.raises(ReplyError, match="this screen has no marks"):
        parse_action(json.dumps({"action": {"type": "click", "target": {"mark": 1}}}), tree, [])


async def test_the_tree_text_keeps_to_its_token_budget_and_says_what_it_left_out():
    done = json.dumps({"action": {"type": "done"}})
    with FakeLLM(by_role(agent=lambda body: done)) as server:
        await episode(server, summarizer=False, tree_tokens=100)
    text = prompt_text(role_requests(server, agent_prompt)[0])
    tree = text.split("Application: sim\n", 1)[1]  # the screen's header, then its tree
    assert "element(s), over the budget" in tree
    assert len("\n".join(line for line in tree.splitlines() if "over the budget" not in line)) <= 100 * 4


async def test_a_screen_scaled_for_the_model_maps_its_points_back_exactly():
    replies = iter([json.dumps({"action": {"type": "click", "point": {"x": 320, "y": 203}}}),
                    json.dumps({"action": {"type": "done"}})])
    with FakeLLM(by_role(agent=lambda body: next(replies))) as server:
        outcome = await episode(server, summarizer=False, observation="both", screen=ModelScreen(640, 400))
    assert outcome.steps[0].action.point == Point(640, 406)  # the sim's screen is 1280x800
    first = role_requests(server, agent_prompt)[0]
    assert '[root] window "Simulated form" @(0,0 640x400)' in prompt_text(first)  # the tree in the model's frame
    (image,) = [p for p in first["messages"][1]["content"] if p["type"] == "image_url"]
    assert Image.open(io.BytesIO(base64.b64decode(image["image_url"]["url"].split(",", 1)[1]))).size == (640, 400)
    second = prompt_text(role_requests(server, agent_prompt)[1])
    assert '"point":{"x":320.0,"y":203.0' in second.replace(" ", "")  # its own step, told in its own frame


def test_a_screen_size_is_width_x_height_and_mapping_there_and_back_is_exact():
    assert ModelScreen.parse("1024x768") == ModelScreen(1024, 768)
    for bad in ("1024", "0x768", "1024x", "big"):
        with pytest.raises(ValueError, match="expected WIDTHxHEIGHT in pixels, e.g. 1280x800"):
            ModelScreen.parse(bad)
    scale = ModelScreen(1000, 700).scale(Observation(viewport=Viewport(1920, 1080)))
    drag = Drag(point=Point(500, 350), end=Point(1, 7), end_target=Target(bbox=BBox(10, 7, 100, 70)))
    assert scale.to_screen(drag) == Drag(point=Point(960, 540), end=Point(1920 / 1000, 1080 * 7 / 700),
                                         end_target=Target(bbox=BBox(19.2, 10.8, 192, 108)))
    assert scale.to_model(scale.to_screen(drag)).point == Point(500, 350)


def test_the_prompt_names_every_action_type_a_reply_may_take():
    tags = {action.__struct_config__.tag for action in ACTION_TYPES}
    assert {tag for tag in tags if f'"{tag}"' not in agent_prompt.SYSTEM_PROMPT} == set()
