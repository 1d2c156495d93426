"""An async client for OpenAI-compatible chat completions, on httpx (asyncio and trio).

Transient failures (429, 5xx, dropped or refused connections, timeouts) are
retried with jittered exponential backoff, or as long as the server asks
(`actors.llm.rate_limits`: Retry-After, retry-after-ms, rate-limit resets, x-should-retry);
a 4xx is raised at once with the server's own message. What the agent did
not cause, a service that stays unreachable or failing, a refused key (401,
403), an unknown model (404) or a request too large for the service (413: the
harness built it) is a `ModelServiceError` (`LLMUnavailable`, `LLMAccessError`,
`LLMRequestTooLarge`, `LLMBadResponse`): the episode ends as a model-service
error, not an agent failure. Every call reports its tokens, cost and latency as a `Usage`.

Each call opens its own httpx client and closes it before returning: no
connection pool outlives the call that owns it, so there is nothing to close
at shutdown and a client object can be used from any event loop. The TLS
context, the costly part, is built once per client.

The LLM capacity rule of a run, stated here only: every LLM role (agent,
change summarizer, classifier) calls through a client given the run's
shared `Capacity`, and a slot is held for one HTTP attempt, never across a
backoff sleep, a retry of a bad reply, or the rest of a decision. The
actors themselves hold none.
"""

from __future__ import annotations

import base64
import logging
import random
import time
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import anyio
import httpx

from protocols import ModelCall, Usage, TroupeError
from runtime.backoff import Backoff
from runtime.capacity import Capacity

from actors.errors import ModelServiceError
from actors.llm.config import LLMConfig
from actors.llm.rate_limits import should_retry, wait_asked
from actors.llm.transcript import without_images

logger = logging.getLogger(__name__)


class LLMError(TroupeError):
    """Base of every failure of a chat-completions call."""

    call: ModelCall | None = None
    """The call as the transcript keeps it, `error` saying why it got no answer."""


class LLMRequestError(LLMError):
    """The server refused the request (a 4xx): retrying would not help. `code` and `param` are
    the error object's (OpenAI's names the request parameter it refused), "" when it gave none."""

    def __init__(self, status: int, message: str, *, code: str = "", param: str = "") -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.param = param


class LLMAccessError(LLMRequestError, ModelServiceError):
    """The key was refused (401, 403) or the model does not exist (404): the run's
    configuration is wrong, whatever the agent asks."""


class LLMRequestTooLarge(LLMRequestError, ModelServiceError):
    """The service refused the request's size (413). The harness built that request, its size set
    by settings such as the screen size the model is shown, so no decision of the agent caused it."""


class LLMUnavailable(LLMError, ModelServiceError):
    """Every attempt failed transiently (429, 5xx, connection error, timeout)."""


class LLMBadResponse(LLMError, ModelServiceError):
    """The server answered 200 with something that is not a chat completion."""


@dataclass(frozen=True)
class Completion:
    text: str
    usage: Usage
    call: ModelCall
    """The call as the transcript keeps it (the caller adds its role and step)."""

    @property
    def attempts(self) -> int:
        return len(self.call.retries) + 1


@dataclass(frozen=True)
class Exchange:
    """A decoded answer, how long it took in all and why each attempt before it failed."""

    payload: Any
    latency: float
    retries: tuple[str, ...]


class _Transient(Exception):
    """One failed attempt worth retrying; `retry_after` is the server's wish, if any."""

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


def text_part(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def image_part(image: bytes) -> dict[str, Any]:
    """A PNG or JPEG screenshot as a base64 data-URL content part."""
    mime = "image/jpeg" if image.startswith(b"\xff\xd8") else "image/png"
    return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{base64.b64encode(image).decode()}"}}


class LLMClient:
    def __init__(
        self,
        config: LLMConfig,
        *,
        capacity: Capacity | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.config = config
        self.capacity = capacity or Capacity.unlimited("llm")
        self._transport = transport
        self._rng = rng or random.Random()
        self.url = config.base_url.rstrip("/") + "/chat/completions"

    @cached_property
    def _tls(self) -> Any:
        return httpx.create_ssl_context()

    def _tls_for(self, url: str) -> Any:
        return self._tls if url.startswith("https://") else False

    async def complete(
        self, messages: list[dict[str, Any]], *, max_tokens: int | None = None, temperature: float | None = 0.0,
    ) -> Completion:
        """One chat completion: the assistant's text and what it cost."""
        body: dict[str, Any] = {"model": self.config.model, "messages": messages}
        if max_tokens is not None:
            body["max_tokens"] = max_tokens
        if temperature is not None:
            body["temperature"] = temperature
        headers = {"Authorization": f"Bearer {self.config.api_key}"} if self.config.api_key else {}
        exchange = await self.exchange(self.url, body, headers=headers, transcript=messages)
        return self._completion(exchange.payload, messages, exchange.latency, exchange.retries)

    async def exchange(self, url: str, body: dict[str, Any], *, headers: dict[str, str],
                       transcript: list[dict[str, Any]]) -> Exchange:
        """POST `body` as JSON to `url` with `headers` and return the decoded answer, retrying
        transient failures; `transcript` is the request as a failed call's record keeps it.
        Every API a policy speaks (chat completions, a provider's own) goes through here, so
        retries, backoff, capacity and the model-service classification are the same for all."""
        started = time.monotonic()
        retries: list[str] = []
        async with httpx.AsyncClient(
            timeout=self.config.timeout, transport=self._transport, verify=self._tls_for(url), headers=headers,
        ) as http:
            for attempt in range(1, self.config.max_retries + 2):
                try:
                    payload = self._check(await self._post(http, url, body), url)
                    return Exchange(payload, time.monotonic() - started, tuple(retries))
                except _Transient as exc:
                    if attempt > self.config.max_retries:
                        error = LLMUnavailable(f"{url}: gave up after {attempt} attempts; last: {exc}")
                        raise _noting(error, transcript, started, (*retries, str(exc))) from None
                    retries.append(str(exc))
                    delay = self._delay(attempt, exc.retry_after)
                    logger.warning("LLM call to %s failed (%s); retry %d in %.2f s", url, exc, attempt, delay)
                    await anyio.sleep(delay)
                except LLMError as exc:
                    raise _noting(exc, transcript, started, tuple(retries))
        raise AssertionError("unreachable")

    async def _post(self, http: httpx.AsyncClient, url: str, body: dict[str, Any]) -> httpx.Response:
        try:
            async with self.capacity.slot():
                return await http.post(url, json=body)
        except httpx.TimeoutException:
            raise _Transient(f"no answer within {self.config.timeout:g} s") from None
        except httpx.TransportError as exc:
            raise _Transient(f"connection error: {type(exc).__name__}: {exc}") from None

    def _check(self, response: httpx.Response, url: str) -> Any:
        status, retry = response.status_code, should_retry(response.headers)
        if status >= 400 and (retry or retry is None and (status == 429 or status >= 500)):
            raise _Transient(f"HTTP {status}", wait_asked(response.headers))
        if retry is False and (status == 429 or status >= 500):
            raise LLMUnavailable(f"{url} answered HTTP {status} and asks not to be retried (x-should-retry: "
                                 f"false): {_ServerError.of(response).message}")
        if status >= 400:
            refused = _ServerError.of(response)
            hint = _ACCESS_HINTS.get(status, "") if refused.param in ("", "model") else ""
            if status in (401, 403) and not self.config.api_key:
                hint = " (no API key is set)"
            error = LLMAccessError if hint else LLMRequestError
            if status == 413:
                error, hint = LLMRequestTooLarge, _TOO_LARGE_HINT
            raise error(status, f"{url} refused the request with HTTP {status}{hint}: {refused.message}",
                        code=refused.code, param=refused.param)
        try:
            return response.json()
        except ValueError:
            raise LLMBadResponse(f"{url} answered with malformed JSON: {response.text[:200]!r}") from None

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        """The server's Retry-After if it gave one, else exponential backoff with
        jitter (half fixed, half random, so retries of many callers spread out)."""
        if retry_after is not None:
            return min(retry_after, self.config.backoff_max)
        ceiling = Backoff(self.config.backoff, 2.0, self.config.backoff_max).delay(attempt)
        return ceiling / 2 + self._rng.uniform(0, ceiling / 2)

    def _completion(self, payload: Any, messages: list[dict[str, Any]], latency: float,
                    retries: tuple[str, ...]) -> Completion:
        try:
            text = payload["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise LLMBadResponse(f"{self.url} answered without choices[0].message.content: "
                                 f"{str(payload)[:200]!r}") from None
        usage = payload.get("usage") or {}
        input_tokens = int(usage.get("prompt_tokens") or 0)
        output_tokens = int(usage.get("completion_tokens") or 0)
        text = text if isinstance(text, str) else ""
        cost = self.config.cost(input_tokens, output_tokens)
        images: dict[str, bytes] = {}
        return Completion(
            text=text,
            usage=Usage(input_tokens=input_tokens, output_tokens=output_tokens, cost=cost, latency=latency),
            call=ModelCall(messages=without_images(messages, images), reply=text, input_tokens=input_tokens,
                           output_tokens=output_tokens, cost=cost, latency=latency, retries=retries, images=images),
        )


def _noting(error: LLMError, messages: list[dict[str, Any]], started: float, retries: tuple[str, ...]) -> LLMError:
    """`error`, carrying the call that failed as the transcript keeps it."""
    images: dict[str, bytes] = {}
    error.call = ModelCall(messages=without_images(messages, images), latency=time.monotonic() - started,
                           retries=retries, error=str(error), images=images)
    return error


_ACCESS_HINTS = {401: " (check the API key)", 403: " (check the API key)",
                 404: " (check the model name and base URL)"}
"""The refusals that mean the configuration is wrong rather than the request (`LLMAccessError`),
unless the error names a request parameter other than the model (a 404 for an unknown
`previous_response_id` is about that response, not the configuration)."""


_TOO_LARGE_HINT = (" (the request is too large for the service: --llm-screen WxH shows the model a smaller "
                   "screenshot)")
"""What makes a request large: its screenshots, whose size `--llm-screen` sets."""


@dataclass(frozen=True)
class _ServerError:
    message: str
    code: str = ""
    param: str = ""

    @classmethod
    def of(cls, response: httpx.Response) -> _ServerError:
        """The `error` object of an OpenAI-style error body, else the start of the body as its message."""
        try:
            error = response.json().get("error")
        except (ValueError, AttributeError):
            error = None
        if isinstance(error, dict) and error.get("message"):
            return cls(str(error["message"]), str(error.get("code") or ""), str(error.get("param") or ""))
        return cls(response.text[:200] or response.reason_phrase)


def add_usage(a: Usage, b: Usage) -> Usage:
    return Usage(input_tokens=a.input_tokens + b.input_tokens, output_tokens=a.output_tokens + b.output_tokens,
                 cost=a.cost + b.cost, latency=a.latency + b.latency)
