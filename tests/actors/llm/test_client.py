"""The chat-completions client against a real local HTTP server: retries, errors, cost, capacity."""

import hashlib
import json
import logging
from collections import Counter

import anyio
import pytest

from actors.agent import Agent
from actors.llm.agent import LLMPolicy
from actors.llm.client import (
    LLMAccessError, LLMBadResponse, LLMClient, LLMRequestError, LLMUnavailable, image_part, text_part,
)
from actors.llm.config import LLMConfig, Price
from protocols import Decide, Observation, Task
from runtime.actor import spawn
from runtime.capacity import Capacity
from tests.fake_llm import FakeLLM, Reply
from tests.fake_responses import lost
from tests.llm_crew import prompt_text

pytestmark = pytest.mark.anyio

HELLO = [{"role": "user", "content": "hello"}]


def client(server, **settings):
    settings = {"model": "test-model", "base_url": server.url, "timeout": 5.0, "max_retries": 3,
                "backoff": 0.01, **settings}
    capacity = settings.pop("capacity", None)
    return LLMClient(LLMConfig(**settings), capacity=capacity)


async def test_a_reply_comes_back_with_tokens_cost_and_latency():
    prices = {"test-model": Price(input=1.0, output=10.0)}
    with FakeLLM([Reply(content="hi", usage=(1000, 100), delay=0.05)]) as server:
        completion = await client(server, prices=prices).complete(
            [{"role": "user", "content": [text_part("look"), image_part(b"\x89PNG...")]}])
    assert completion.text == "hi"
    assert (completion.usage.input_tokens, completion.usage.output_tokens) == (1000, 100)
    assert completion.usage.cost == pytest.approx(1000 * 1e-6 + 100 * 1e-5)
    assert completion.usage.latency >= 0.05
    sent = server.requests[0]
    assert sent["model"] == "test-model"
    assert sent["messages"][0]["content"][1]["image_url"]["url"].startswith("data:image/png;base64,")
    call = completion.call  # the transcript's copy: the image by hash and size, the tokens and cost
    assert call.messages[0]["content"][1] == {"type": "image", "bytes": 7,
                                              "sha256": hashlib.sha256(b"\x89PNG...").hexdigest()}
    assert (call.input_tokens, call.output_tokens, call.cost, call.reply) == (1000, 100, completion.usage.cost, "hi")


async def test_price_of_a_dated_model_name_is_found_by_prefix_and_unknown_models_cost_nothing():
    config = LLMConfig(model="gpt-4o-2024-08-06")
    assert config.cost(1_000_000, 0) == pytest.approx(2.50)
    assert LLMConfig(model="llama3").cost(1_000_000, 1_000_000) == 0.0


async def test_429_is_retried_after_the_servers_retry_after():
    script = [Reply(status=429, retry_after="0.3"), Reply(content="ok")]
    with FakeLLM(script) as server:
        started = anyio.current_time()
        completion = await client(server).complete(HELLO)
        waited = anyio.current_time() - started
    assert completion.text == "ok" and completion.attempts == 2
    assert waited >= 0.3  # the backoff alone would have been ~0.01 s


async def test_500_and_a_dropped_connection_are_retried():
    script = [Reply(status=500), Reply(drop=True), Reply(status=503), Reply(content="ok")]
    with FakeLLM(script) as server:
        completion = await client(server).complete(HELLO)
    assert completion.text == "ok" and completion.attempts == 4
    assert len(server.requests) == 4
    retries = completion.call.retries  # the transcript says why each attempt failed
    assert retries[0] == "HTTP 500" and retries[1].startswith("connection error: ") and retries[2] == "HTTP 503"
    assert completion.call.reply == "ok" and completion.call.messages == HELLO


async def test_retries_give_up_with_the_last_failure_named():
    with FakeLLM([Reply(status=502)]) as server:
        with pytest.raises(LLMUnavailable, match=r"gave up after 3 attempts; last: HTTP 502") as caught:
            await client(server, max_retries=2).complete(HELLO)
    assert len(server.requests) == 3
    call = caught.value.call  # the failed call as the transcript keeps it
    assert call.retries == ("HTTP 502",) * 3 and call.error == str(caught.value) and call.messages == HELLO


async def test_400_is_not_retried_and_says_what_the_server_said():
    with FakeLLM([Reply(status=400)]) as server:
        with pytest.raises(LLMRequestError, match="HTTP 400: scripted HTTP 400") as caught:
            await client(server).complete(HELLO)
    assert caught.value.status == 400
    assert len(server.requests) == 1


async def test_a_404_naming_a_request_parameter_refuses_the_request_not_the_configuration():
    with FakeLLM([lost("resp_1", 404), Reply(status=404)]) as server:
        with pytest.raises(LLMRequestError, match=r"HTTP 404: Previous response with id 'resp_1' not found") as caught:
            await client(server).complete(HELLO)
        with pytest.raises(LLMAccessError, match=r"HTTP 404 \(check the model name and base URL\)"):
            await client(server).complete(HELLO)
    assert not isinstance(caught.value, LLMAccessError)
    assert (caught.value.code, caught.value.param) == ("previous_response_not_found", "previous_response_id")


async def test_a_wrong_key_is_a_401_naming_the_key_as_the_problem_and_the_key_is_never_logged(caplog):
    caplog.set_level(logging.DEBUG)
    with FakeLLM(["ok"], api_key="right-key") as server:
        with pytest.raises(LLMRequestError, match=r"HTTP 401 \(check the API key\): Incorrect API key") as caught:
            await client(server, api_key="sk-wrong-secret").complete(HELLO)
        assert (await client(server, api_key="right-key").complete(HELLO)).text == "ok"
    assert "sk-wrong-secret" not in str(caught.value) + caplog.text
    assert "sk-wrong-secret" not in repr(LLMConfig(model="m", api_key="sk-wrong-secret"))


async def test_a_call_past_its_timeout_is_retried_then_reported():
    with FakeLLM([Reply(content="late", delay=2.0)]) as server:
        with pytest.raises(LLMUnavailable, match=r"gave up after 2 attempts; last: no answer within 0.2 s"):
            await client(server, timeout=0.2, max_retries=1).complete(HELLO)
    assert len(server.requests) == 2


async def test_malformed_json_from_the_server_is_a_clear_error():
    with FakeLLM([Reply(raw=b"{not json")]) as server:
        with pytest.raises(LLMBadResponse, match="malformed JSON"):
            await client(server).complete(HELLO)
    with FakeLLM([Reply(raw=b'{"choices": []}')]) as server:
        with pytest.raises(LLMBadResponse, match=r"without choices\[0\].message.content"):
            await client(server).complete(HELLO)


async def test_a_refused_connection_is_retried_then_reported():
    with FakeLLM(["never"]) as server:
        url = server.url
    with pytest.raises(LLMUnavailable, match="connection error: ConnectError"):
        await LLMClient(LLMConfig(model="m", base_url=url, max_retries=1, backoff=0.01)).complete(HELLO)


async def test_a_shared_capacity_bounds_calls_in_flight_across_clients():
    shared = Capacity("llm", 2)
    with FakeLLM([Reply(content="ok", delay=0.1)]) as server:
        clients = [client(server, capacity=shared) for _ in range(3)]
        async with anyio.create_task_group() as tg:
            for each in clients * 2:
                tg.start_soon(each.complete, HELLO)
    assert len(server.requests) == 6
    assert server.peak == 2 and shared.peak == 2


async def test_an_llm_slot_is_held_per_http_attempt_so_another_decision_goes_through_during_a_backoff():
    shared = Capacity("llm", 1)
    asked = Counter()

    def respond(body):
        who = "slow" if "Task: slow" in prompt_text(body) else "fast"
        asked[who] += 1
        if who == "slow" and asked[who] == 1:
            return Reply(status=429, retry_after="1.5")
        return json.dumps({"action": {"type": "done"}})

    finished = {}

    async def decide(agent, who):
        request = Decide(task=Task(task_id=who, instruction=who), episode_id=who, step=1, max_steps=5,
                         observation=Observation())
        await agent.ask(request, timeout=5)
        finished[who] = anyio.current_time()

    with FakeLLM(respond) as server:
        llm = client(server, capacity=shared)
        async with anyio.create_task_group() as tg:
            slow, fast = await spawn(tg, Agent(LLMPolicy(llm))), await spawn(tg, Agent(LLMPolicy(llm)))
            started = anyio.current_time()
            async with anyio.create_task_group() as deciding:
                deciding.start_soon(decide, slow, "slow")
                while not asked["slow"]:
                    await anyio.sleep(0.01)
                deciding.start_soon(decide, fast, "fast")
            tg.cancel_scope.cancel()
    assert finished["slow"] - started >= 1.5  # it slept out the server's Retry-After ...
    assert finished["fast"] < finished["slow"]  # ... holding no slot, so the other decision went meanwhile
    assert shared.peak == 1 and shared.in_use == 0
