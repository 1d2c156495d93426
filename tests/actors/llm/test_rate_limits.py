"""Waiting as long as a model service asks, and not retrying what it says not to retry."""

import datetime
import time

import pytest

from actors.llm.client import LLMClient, LLMUnavailable
from actors.llm.config import LLMConfig
from actors.llm.rate_limits import should_retry, wait_asked
from tests.fake_llm import FakeLLM, Reply

HELLO = [{"role": "user", "content": "hi"}]


def soon(seconds: float) -> str:
    moment = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=seconds)
    return moment.isoformat().replace("+00:00", "Z")


@pytest.mark.parametrize("headers, seconds", [
    ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
    ({"retry-after": "3"}, 3.0),
    ({"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "6m0s",
      "x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "1.5s"}, 360.0),
    ({"x-ratelimit-remaining-requests": "12", "x-ratelimit-reset-requests": "6m0s",
      "x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "20ms"}, 0.02),
    ({"x-ratelimit-remaining-requests": "12", "x-ratelimit-reset-requests": "1s"}, None),
    ({"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "soon"}, None),
    ({}, None),
])
def test_the_wait_asked_for(headers, seconds):
    assert wait_asked(headers) == seconds


def test_anthropics_reset_time_is_a_wait_until_then():
    waited = wait_asked({"anthropic-ratelimit-tokens-remaining": "0", "anthropic-ratelimit-tokens-reset": soon(30)})
    assert 28 < waited <= 30
    assert wait_asked({"anthropic-ratelimit-tokens-remaining": "5",
                       "anthropic-ratelimit-tokens-reset": soon(30)}) is None
    assert [should_retry(h) for h in ({"x-should-retry": "true"}, {"x-should-retry": "False"}, {})] == [
        True, False, None]


def client(server) -> LLMClient:
    return LLMClient(LLMConfig(model="m", base_url=server.url, max_retries=2, backoff=0.01))


@pytest.mark.anyio
async def test_a_429_is_retried_when_its_exhausted_limit_resets_and_not_when_told_not_to(anyio_backend):
    limited = Reply(status=429, headers=(("x-ratelimit-remaining-requests", "0"),
                                         ("x-ratelimit-reset-requests", "300ms")))
    with FakeLLM([limited, "fine"]) as server:
        started = time.monotonic()
        completion = await client(server).complete(HELLO)
    assert completion.text == "fine" and completion.call.retries == ("HTTP 429",)
    assert time.monotonic() - started >= 0.3  # as long as the limit asked, not the 10 ms backoff
    with FakeLLM([Reply(status=429, headers=(("x-should-retry", "false"),)), "fine"]) as server:
        with pytest.raises(LLMUnavailable, match=r"HTTP 429 and asks not to be retried \(x-should-retry: false\): "
                                                 r"scripted HTTP 429"):
            await client(server).complete(HELLO)
        assert len(server.requests) == 1
    with FakeLLM([Reply(status=409, headers=(("x-should-retry", "true"),)), "fine"]) as server:
        assert (await client(server).complete(HELLO)).call.retries == ("HTTP 409",)
