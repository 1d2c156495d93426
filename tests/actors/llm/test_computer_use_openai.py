"""The OpenAI computer-use agent against a local server speaking the Responses API: its actions
mapped onto troupe's and back, a batch taken one step at a time, a response continued or, by a
policy that does not know the episode, started again, and bad and failed calls."""

import re

import pytest

from actors.llm.client import LLMAccessError
from actors.llm.computer_use.loop import ConversationLost
from actors.llm.computer_use.openai import OpenAIComputerUse, action_of, tool_action
from actors.errors import NoAnswer
from actors.llm.replies import ReplyError
from protocols import (
    Click, Decide, DoubleClick, Drag, Hotkey, Key, Move, Point, RightClick, Scroll, StepRecord, TypeText, Wait,
)
from bench.suites.sim.suite import sim_tasks
from tests.actors.llm.test_computer_use_anthropic import screen
from tests.fake_llm import Reply
from tests.fake_responses import FakeResponses, Operator, lost
from tests.llm_crew import llm_client

KEY = "sk-test-0123456789"
TASK = sim_tasks(1)[0]  # Type '555-0100' into 'Name'. Type 'Lyon' into 'City'. ...


@pytest.mark.parametrize("given, action", [
    ({"type": "click", "button": "left", "x": 1, "y": 2}, Click(point=Point(1, 2))),
    ({"type": "click", "button": "right", "x": 1, "y": 2, "keys": ["CTRL"]},
     RightClick(point=Point(1, 2), modifiers=("ctrl",))),
    ({"type": "double_click", "x": 3, "y": 4}, DoubleClick(point=Point(3, 4))),
    ({"type": "move", "x": 5, "y": 6}, Move(point=Point(5, 6))),
    ({"type": "drag", "path": [{"x": 1, "y": 1}, {"x": 4, "y": 4}, {"x": 9, "y": 9}]},
     Drag(point=Point(1, 1), end=Point(9, 9))),
    ({"type": "keypress", "keys": ["CTRL", "SHIFT", "T"]}, Key(key="t", modifiers=("ctrl", "shift"))),
    ({"type": "keypress", "keys": ["ENTER"]}, Key(key="enter")),
    ({"type": "keypress", "keys": ["A", "B"]}, Hotkey(keys=("a", "b"))),
    ({"type": "type", "text": "hi"}, TypeText(text="hi")),
    ({"type": "scroll", "x": 7, "y": 8, "scroll_x": 0, "scroll_y": 300}, Scroll(direction="down", amount=3,
                                                                               point=Point(7, 8))),
    ({"type": "scroll", "x": 7, "y": 8, "scroll_x": -100, "scroll_y": 0}, Scroll(direction="left", amount=1,
                                                                                point=Point(7, 8))),
    ({"type": "wait"}, Wait(seconds=2)),
])
def test_each_computer_call_action_is_one_troupe_action_and_back(given, action):
    assert action_of(given) == action
    assert action_of(tool_action(action)) == action


@pytest.mark.parametrize("given, said", [
    ({"type": "teleport"}, "the computer tool has no action 'teleport'"),
    ({"type": "click", "button": "wheel", "x": 1, "y": 1}, "troupe clicks the left or right button, not 'wheel'"),
    ({"type": "drag", "path": [{"x": 1, "y": 1}]}, "a drag's path needs a start and an end"),
    ({"type": "keypress", "keys": ["HYPER"]}, "unknown key name 'hyper'"),
    ({"type": "move", "x": 1}, "`y` is missing"),
    ({"type": "scroll", "x": 1, "y": 1, "scroll_x": 0, "scroll_y": 100, "keys": ["SHIFT"]},
     "troupe cannot hold keys while scrolling"),
])
def test_an_action_troupe_cannot_take_is_a_reply_error_naming_it(given, said):
    with pytest.raises(ReplyError, match=re.escape(said)):
        action_of(given)


def decide(step: int, *history: StepRecord) -> Decide:
    return Decide(task=TASK, episode_id="e#1", step=step, max_steps=10, observation=screen(1280, 800),
                  history=history)


def record(step: int, action, error: str | None = None) -> StepRecord:
    return StepRecord(episode_id="e#1", step=step, action=action, error=error)


def policy(server, model: str = "gpt-test") -> OpenAIComputerUse:
    return OpenAIComputerUse(llm_client(server, api_key=KEY, model=model, max_retries=2))


@pytest.mark.anyio
async def test_a_batch_is_taken_one_step_at_a_time_then_the_response_is_continued(anyio_backend):
    with FakeResponses(Operator(safety=True), api_key=KEY) as server:
        agent = policy(server)
        first = await agent.decide(decide(1))
        second = await agent.decide(decide(2, record(1, first.action)))
        assert len(server.requests) == 1 and not second.calls  # the batch's second action: no call
        third = await agent.decide(decide(3, record(1, first.action), record(2, second.action)))
    assert first.action == Click(point=Point(240, 100)) and second.action == TypeText(text="555-0100")
    assert "safety check acknowledged: malicious_instructions" in first.reasoning
    assert second.reasoning == "action 2 of the 2 the model asked for at step 1"
    assert third.action == Click(point=Point(240, 196))  # 'City'
    continued = server.requests[1]
    assert continued["previous_response_id"] == "resp_0001" and "reasoning" not in continued
    (output,) = continued["input"]
    assert output["type"] == "computer_call_output" and output["acknowledged_safety_checks"][0]["id"] == "cu_sc_1"


@pytest.mark.anyio
async def test_a_failed_action_drops_the_rest_of_its_batch_and_is_told(anyio_backend):
    with FakeResponses(Operator(), api_key=KEY) as server:
        agent = policy(server)
        first = await agent.decide(decide(1))
        again = await agent.decide(decide(2, record(1, first.action, error="nothing there")))
    assert again.calls and "previous_response_id" in server.requests[1]
    told = server.requests[1]["input"][1]
    assert told == {"role": "user", "content": "The action failed: nothing there. The 1 actions after it were "
                                               "not taken."}


@pytest.mark.anyio
async def test_a_policy_that_does_not_know_the_episode_starts_a_response_telling_the_steps(anyio_backend):
    with FakeResponses(Operator(), api_key=KEY) as server:
        first = await policy(server).decide(decide(1))
        fresh = await policy(server).decide(decide(2, record(1, first.action)))  # a restarted Agent's
    assert "previous_response_id" not in server.requests[1]
    story = server.requests[1]["input"][0]["content"][0]["text"]
    assert 'Step 1: {"type": "click", "button": "left", "x": 240, "y": 100} -> Done.' in story
    assert fresh.action == TypeText(text="555-0100")


@pytest.mark.anyio
async def test_a_response_the_api_no_longer_has_is_told_again_from_the_episode_once(anyio_backend):
    with FakeResponses(Operator(), api_key=KEY) as server:
        agent = policy(server)
        first = await agent.decide(decide(1))
        second = await agent.decide(decide(2, record(1, first.action)))
        server.expired.add("resp_0001")
        steps = record(1, first.action), record(2, second.action)
        third = await agent.decide(decide(3, *steps))
        fourth = await agent.decide(decide(4, *steps, record(3, third.action)))
    assert third.action == Click(point=Point(240, 196)) and fourth.action == TypeText(text="Lyon")
    refused, resent = third.calls
    assert refused.error.endswith("HTTP 400: Previous response with id 'resp_0001' not found.") and not refused.gave_up
    assert resent.restarted.startswith("the provider no longer has the conversation (") and not resent.error
    assert server.requests[1]["previous_response_id"] == "resp_0001"
    assert "previous_response_id" not in server.requests[2]  # the task and steps 1-2 told, with the screen
    story = server.requests[2]["input"][0]["content"][0]["text"]
    assert 'Step 2: {"type": "type", "text": "555-0100"} -> Done.' in story
    assert not fourth.calls  # the new response's batch goes on, its thread remembered


@pytest.mark.anyio
async def test_a_lost_response_refused_again_is_a_model_service_error_naming_the_provider(anyio_backend):
    operator = Operator()
    refusing = lambda body: lost("resp_0001") if "Step 1: " in str(body["input"]) else operator(body)
    with FakeResponses(refusing, api_key=KEY) as server:
        agent = policy(server)
        first = await agent.decide(decide(1))
        server.expired.add("resp_0001")
        with pytest.raises(ConversationLost, match=r"no longer has the conversation .*, and refused it sent again "
                                                   r"without it: .*HTTP 400: Previous response with id 'resp_0001' "
                                                   r"not found\.$") as caught:
            await agent.decide(decide(2, record(1, first.action, error="nothing there")))
    assert [(bool(call.error), call.gave_up) for call in caught.value.calls] == [(True, False), (True, True)]
    assert len(server.requests) == 3


@pytest.mark.anyio
async def test_an_unknown_action_goes_back_with_the_screenshot_then_ends_the_decision(anyio_backend):
    teleport = [{"type": "computer_call", "id": "cu_1", "call_id": "call_1", "action": {"type": "teleport"},
                 "pending_safety_checks": [], "status": "completed"}]
    with FakeResponses(lambda body: teleport, api_key=KEY) as server:
        with pytest.raises(NoAnswer, match=r"^3 replies in a row named no action troupe can carry out; last: the "
                                           r"computer tool has no action 'teleport'") as caught:
            await policy(server, "computer-use-preview").decide(decide(1))
    assert len(server.requests) == len(caught.value.calls) == 3
    assert server.requests[0]["reasoning"] == {"summary": "concise"}  # the preview model's summaries, as documented
    output, told = server.requests[1]["input"]
    assert output["call_id"] == "call_1" and output["output"]["type"] == "computer_screenshot"
    assert "has no action 'teleport'" in told["content"]


@pytest.mark.anyio
async def test_server_errors_are_retried_and_a_refused_key_is_a_model_service_error(anyio_backend):
    statuses = iter([503, 500])
    flapping = lambda body: Reply(status=s, retry_after="0") if (s := next(statuses, 0)) else Operator()(body)
    with FakeResponses(flapping, api_key=KEY) as server:
        decision = await policy(server).decide(decide(1))
        assert decision.calls[0].retries == ("HTTP 503", "HTTP 500")
        with pytest.raises(LLMAccessError, match=r"HTTP 401 \(check the API key\): Incorrect API key provided"):
            await OpenAIComputerUse(llm_client(server, api_key="sk-wrong")).decide(decide(1))
