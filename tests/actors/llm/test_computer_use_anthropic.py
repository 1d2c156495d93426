"""The Anthropic computer-use agent against a local server speaking the Messages API: its tool
actions mapped onto troupe's and back, the screen scaled as the API asks, bad and failed calls."""

import base64
import io
import json
import random
import re

import msgspec
import pytest
from PIL import Image

from actors.errors import ModelServiceError
from actors.llm.client import LLMAccessError, LLMBadResponse, LLMRequestTooLarge, LLMUnavailable
from actors.llm.computer_use.anthropic import AnthropicComputerUse, action_of, tool_input
from actors.errors import NoAnswer
from actors.llm.replies import ReplyError
from actors.llm.screen import ModelScreen
from bench.suites.sim.suite import sim_tasks
from protocols import (
    Answer, Click, Decide, Done, DoubleClick, Drag, Fail, Hotkey, Key, Move, Observation, Point, RightClick, Scroll,
    StepRecord, TripleClick, TypeText, Viewport, Wait,
)
from tests.fake_anthropic import FakeAnthropic, operator
from tests.fake_llm import Reply
from tests.llm_crew import llm_client

KEY = "sk-ant-test-0123456789"


@pytest.mark.parametrize("given, action", [
    ({"action": "left_click", "coordinate": [10, 20]}, Click(point=Point(10, 20))),
    ({"action": "left_click", "coordinate": [10, 20], "text": "ctrl+shift"},
     Click(point=Point(10, 20), modifiers=("ctrl", "shift"))),
    ({"action": "right_click", "coordinate": [1, 2]}, RightClick(point=Point(1, 2))),
    ({"action": "double_click", "coordinate": [3, 4]}, DoubleClick(point=Point(3, 4))),
    ({"action": "triple_click", "coordinate": [3, 4], "text": "shift"},
     TripleClick(point=Point(3, 4), modifiers=("shift",))),
    ({"action": "mouse_move", "coordinate": [5, 6]}, Move(point=Point(5, 6))),
    ({"action": "left_click_drag", "start_coordinate": [1, 1], "coordinate": [9, 9]},
     Drag(point=Point(1, 1), end=Point(9, 9))),
    ({"action": "type", "text": "hello"}, TypeText(text="hello")),
    ({"action": "key", "text": "Return"}, Key(key="enter")),
    ({"action": "key", "text": "ctrl+Page_Down"}, Key(key="pagedown", modifiers=("ctrl",))),
    ({"action": "key", "text": "a+b"}, Hotkey(keys=("a", "b"))),
    ({"action": "scroll", "coordinate": [7, 8], "scroll_direction": "down", "scroll_amount": 5},
     Scroll(direction="down", amount=5, point=Point(7, 8))),
    ({"action": "wait", "duration": 2}, Wait(seconds=2)),
])
def test_each_tool_action_is_one_troupe_action_and_back(given, action):
    assert action_of(given) == action
    assert action_of(tool_input(action)) == action


@pytest.mark.parametrize("given, said", [
    ({"action": "teleport", "coordinate": [1, 1]}, "the computer tool has no action 'teleport'"),
    ({"action": "middle_click", "coordinate": [1, 1]}, "'middle_click' cannot be carried out here: troupe has no "
                                                         "middle click"),
    ({"action": "left_click"}, "the 'left_click' action is malformed: `coordinate` is missing"),
    ({"action": "key", "text": "hyper+q"}, "unknown key name 'hyper'"),
    ({"action": "type", "text": ""}, "`text` must not be empty"),
    ({"action": "scroll", "coordinate": [1, 1], "scroll_direction": "down", "text": "shift"},
     "troupe cannot hold keys while scrolling"),
])
def test_an_action_troupe_cannot_take_is_a_reply_error_naming_it(given, said):
    with pytest.raises(ReplyError, match=re.escape(said)):
        action_of(given)


def screen(width: int, height: int) -> Observation:
    out = io.BytesIO()
    Image.new("RGB", (width, height), "white").save(out, format="PNG")
    return Observation(screenshot=out.getvalue(), viewport=Viewport(width, height))


def decide(observation: Observation, step: int = 1) -> Decide:
    return Decide(task=sim_tasks(1)[0], episode_id="e", step=step, max_steps=10, observation=observation)


def policy(server, **settings) -> AnthropicComputerUse:
    return AnthropicComputerUse(llm_client(server, api_key=KEY, max_retries=2), **settings)


@pytest.mark.anyio
async def test_a_large_screen_is_scaled_to_the_apis_limit_and_the_click_mapped_back(anyio_backend):
    with FakeAnthropic(operator, api_key=KEY) as server:
        decision = await policy(server).decide(decide(screen(1920, 1080)))
    first, second = server.requests
    tool = second["tools"][0]
    assert (tool["display_width_px"], tool["display_height_px"]) == (1429, 804)  # within 1568 px and 1.15 MP
    image = second["messages"][2]["content"][0]["content"][0]["source"]["data"]
    assert Image.open(io.BytesIO(base64.b64decode(image))).size == (1429, 804)
    assert second["messages"][1]["content"][0]["input"] == {"action": "screenshot"}  # it looked first
    assert first["messages"][0]["content"][1]["type"] == "image"
    x, y = 240 * 1429 / 1280, 100 * 804 / 800  # where the model clicked on what it saw
    assert decision.action == Click(point=Point(round(x) * 1920 / 1429, round(y) * 1080 / 804))
    assert [call.step for call in decision.calls] == [1, 1] and decision.usage.input_tokens == 200


@pytest.mark.anyio
async def test_llm_screen_chooses_the_size_the_model_sees(anyio_backend):
    with FakeAnthropic(operator, api_key=KEY) as server:
        decision = await policy(server, screen=ModelScreen(640, 400)).decide(decide(screen(1280, 800)))
    assert server.requests[-1]["tools"][0]["display_width_px"] == 640
    assert decision.action == Click(point=Point(240, 100))  # (120, 50) in the model's frame


@pytest.mark.anyio
async def test_an_unknown_tool_action_goes_back_as_the_tools_error_then_ends_the_decision(anyio_backend):
    teleport = [{"type": "tool_use", "id": "toolu_1", "name": "computer", "input": {"action": "teleport"}}]
    with FakeAnthropic(lambda body: teleport, api_key=KEY) as server:
        with pytest.raises(NoAnswer, match=r"^3 replies in a row named no action troupe can carry out; last: the "
                                           r"computer tool has no action 'teleport'") as caught:
            await policy(server).decide(decide(screen(1280, 800)))
    assert len(server.requests) == len(caught.value.calls) == 3
    feedback = server.requests[1]["messages"][-1]["content"][0]
    assert feedback["is_error"] and feedback["tool_use_id"] == "toolu_1"
    assert "has no action 'teleport'" in feedback["content"][0]["text"]
    assert all('"teleport"' in call.reply for call in caught.value.calls)


@pytest.mark.anyio
async def test_overloaded_answers_are_retried_and_recorded_then_a_service_that_stays_down_is_no_agent_error(
        anyio_backend):
    statuses = iter([529, 500])
    flapping = lambda body: Reply(status=status, retry_after="0") if (status := next(statuses, 0)) else operator(body)
    with FakeAnthropic(flapping, api_key=KEY) as server:
        decision = await policy(server).decide(decide(screen(1280, 800)))
    assert decision.calls[0].retries == ("HTTP 529", "HTTP 500")
    with FakeAnthropic(lambda body: Reply(status=529), api_key=KEY) as down:
        with pytest.raises(LLMUnavailable, match="gave up after 3 attempts; last: HTTP 529") as caught:
            await policy(down).decide(decide(screen(1280, 800)))
    assert isinstance(caught.value, ModelServiceError) and len(caught.value.calls) == 1
    with FakeAnthropic(operator, api_key=KEY) as server:
        with pytest.raises(LLMAccessError, match=r"HTTP 401 \(check the API key\): Incorrect API key provided"):
            await AnthropicComputerUse(llm_client(server, api_key="sk-wrong")).decide(decide(screen(1280, 800)))


def noise(width: int, height: int) -> Observation:
    """A screen that compresses badly, so its size in a request follows the size it is shown at."""
    out = io.BytesIO()
    Image.frombytes("RGB", (width, height), random.Random(7).randbytes(width * height * 3)).save(out, format="PNG")
    return Observation(screenshot=out.getvalue(), viewport=Viewport(width, height))


@pytest.mark.anyio
async def test_a_request_too_large_is_a_model_service_error_naming_the_setting_that_makes_it_smaller(anyio_backend):
    with FakeAnthropic(operator, api_key=KEY) as server:
        server.max_bytes = 100_000
        with pytest.raises(LLMRequestTooLarge) as caught:
            await policy(server).decide(decide(noise(640, 400)))
        decision = await policy(server, screen=ModelScreen(64, 40)).decide(decide(noise(640, 400)))
    assert isinstance(caught.value, ModelServiceError) and not isinstance(caught.value, NoAnswer)
    assert str(caught.value) == (
        f"{server.url}/messages refused the request with HTTP 413 (the request is too large for the service: "
        "--llm-screen WxH shows the model a smaller screenshot): Request exceeds the maximum allowed number of bytes.")
    (call,) = caught.value.calls
    assert call.gave_up and call.error == str(caught.value)
    assert isinstance(decision.action, Click)  # the smaller screen fits


@pytest.mark.anyio
async def test_a_triple_click_is_troupes_own_and_is_told_back_as_one(anyio_backend):
    triple = [{"type": "tool_use", "id": "toolu_1", "name": "computer",
               "input": {"action": "triple_click", "coordinate": [30, 40]}}]
    with FakeAnthropic(lambda body: triple, api_key=KEY) as server:
        decision = await policy(server).decide(decide(screen(1280, 800)))
        done = StepRecord(episode_id="e", step=1, action=decision.action)
        await policy(server).decide(msgspec.structs.replace(decide(screen(1280, 800), step=2), history=(done,)))
    assert decision.action == TripleClick(point=Point(30, 40))
    told = server.requests[-1]["messages"][1]["content"][-1]
    assert told["input"] == {"action": "triple_click", "coordinate": [30, 40]}


@pytest.mark.anyio
async def test_a_final_message_without_the_tool_ends_the_episode_and_the_call_is_priced(anyio_backend):
    with FakeAnthropic(lambda body: "The form is complete.\n**DONE**", api_key=KEY) as server:
        agent = AnthropicComputerUse(llm_client(server, api_key=KEY, model="claude-sonnet-4-5-20250929"))
        decision = await agent.decide(decide(screen(1280, 800)))
    assert decision.action == Done() and decision.reasoning == "The form is complete.\n**DONE**"
    assert decision.usage.cost == pytest.approx((100 * 3.00 + 20 * 15.00) / 1e6) == decision.calls[0].cost


@pytest.mark.anyio
async def test_a_refusal_gives_the_task_up_and_an_answer_answers_it(anyio_backend):
    refusal = Reply(raw=json.dumps({"id": "msg_1", "type": "message", "role": "assistant", "model": "m",
                                    "content": [], "stop_reason": "refusal", "usage": {"input_tokens": 5,
                                                                                       "output_tokens": 0}}).encode())
    with FakeAnthropic(lambda body: refusal, api_key=KEY) as server:
        refused = await policy(server).decide(decide(screen(1280, 800)))
    with FakeAnthropic(lambda body: "The total is shown.\nANSWER: 42", api_key=KEY) as server:
        answered = await policy(server).decide(decide(screen(1280, 800)))
    assert refused.action == Fail(reason="the model refused") and answered.action == Answer(text="42")


@pytest.mark.anyio
async def test_an_answer_that_is_no_message_is_a_model_service_error_keeping_its_call(anyio_backend):
    with FakeAnthropic(lambda body: Reply(raw=b'{"type": "message", "usage": {}}'), api_key=KEY) as server:
        with pytest.raises(LLMBadResponse, match=r"/messages answered without a `content` list") as caught:
            await policy(server).decide(decide(screen(1280, 800)))
    (call,) = caught.value.calls
    assert call.gave_up and call.role == "agent" and call.step == 1


@pytest.mark.anyio
async def test_the_conversation_is_rebuilt_from_the_request_so_a_fresh_policy_asks_the_same(anyio_backend):
    with FakeAnthropic(operator, api_key=KEY) as server:
        first = await policy(server).decide(decide(screen(1280, 800)))
        done = StepRecord(episode_id="e", step=1, action=first.action, reasoning=first.reasoning)
        later = msgspec.structs.replace(decide(screen(1280, 800), step=2), history=(done,))
        await policy(server).decide(later)
        await policy(server).decide(later)  # another instance, as a restarted Agent's
    asked, again = server.requests[-2:]
    assert asked == again
    use, result = asked["messages"][1]["content"][-1], asked["messages"][2]["content"][0]
    assert use["input"] == {"action": "left_click", "coordinate": [240, 100]} and use["id"] == result["tool_use_id"]
    assert [part["type"] for part in result["content"]] == ["text", "image"]  # "Done." and the screen now


@pytest.mark.anyio
async def test_a_long_episode_sends_one_screenshot_and_its_last_steps_so_requests_do_not_grow(anyio_backend):
    earlier = tuple(StepRecord(episode_id="e", step=n, action=Click(point=Point(10, 10))) for n in range(1, 41))
    with FakeAnthropic(lambda body: "DONE", api_key=KEY) as server:
        await policy(server).decide(msgspec.structs.replace(decide(screen(1280, 800), step=41), history=earlier))
    (asked,) = server.requests
    assert json.dumps(asked).count('"type": "image"') == 1  # the screen now; earlier ones are told as text
    assert len(asked["messages"]) == 1 + 2 * 5  # the task, then the last 5 steps (--llm-history)
    assert "The first 35 steps are not shown." in asked["messages"][0]["content"][0]["text"]
