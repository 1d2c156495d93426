"""A local OpenAI-compatible chat-completions server with scripted replies.

It lets the LLM paths run end to end without a network or a key: a real
socket on 127.0.0.1, real HTTP, and misbehaviour on demand (latency, 429
with Retry-After, 5xx, dropped connections, malformed bodies, a wrong key,
an unknown model).
It runs in threads of its own, so the code under test can use either event
loop, and a slow reply never blocks another.
"""

from __future__ import annotations

import itertools
import json
import re
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any, Callable, Iterable

from actors.llm import agent as agent_module, analysis, summarizer as summarizer_module
from actors.llm.observation import MARKS_HEADING
from actors.llm.preflight import PREFLIGHT_PROMPT
from bench.suites.sim.goals import parse_goals
from runtime.http_server import LoopbackHTTPServer, QuietHandler, send_reply


@dataclass(frozen=True)
class Reply:
    """One scripted answer. `content` is the assistant's text (what the API answers with: a
    list of content blocks or output items for the computer-use fakes); `raw` replaces
    the whole body; `drop` closes the connection without answering."""

    content: Any = ""
    status: int = 200
    delay: float = 0.0
    retry_after: str | None = None
    drop: bool = False
    raw: bytes | None = None
    usage: tuple[int, int] = (100, 20)
    headers: tuple[tuple[str, str], ...] = ()
    """More response headers (rate-limit state, x-should-retry)."""


Responder = Callable[[dict[str, Any]], "Reply | str"]


class FakeLLM:
    """`responder` maps a request body to a reply, or is a sequence of replies
    served in order (the last one repeats). With `api_key`, any other key gets 401; with
    `models`, any other model gets 404 as OpenAI answers it (code `model_not_found`).
    A subclass speaking another API changes `route`, `authorized`, `invalid`, `render` and `error`."""

    route = "/chat/completions"

    def __init__(self, responder: Responder | Iterable[Reply | str], *, api_key: str | None = None,
                 models: Iterable[str] | None = None) -> None:
        if callable(responder):
            self._respond: Responder = responder
        else:
            script = list(responder)
            cursor = itertools.count()
            self._respond = lambda body: script[min(next(cursor), len(script) - 1)]
        self.api_key = api_key
        self.models = None if models is None else set(models)
        self.requests: list[dict[str, Any]] = []
        self.active = 0
        self.peak = 0
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._server = LoopbackHTTPServer(_handler(self), name="fake-llm")

    @property
    def url(self) -> str:
        return f"{self._server.url}/v1"

    def __enter__(self) -> FakeLLM:
        self._server.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._closing.set()
        self._server.close()

    def _serve(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        body = json.loads(handler.rfile.read(length) or b"{}")
        with self._lock:
            self.requests.append(body)
            self.active += 1
            self.peak = max(self.peak, self.active)
        try:
            if self.api_key is not None and not self.authorized(handler):
                reply = Reply(status=401, raw=self.error("Incorrect API key provided.", 401))
            elif self.models is not None and body.get("model") not in self.models:
                reply = Reply(status=404, raw=self.error(f"The model `{body.get('model')}` does not exist.", 404))
            elif (problem := self.invalid(handler, body)) is not None:
                reply = problem if isinstance(problem, Reply) else Reply(status=400, raw=self.error(problem, 400))
            else:
                answer = self._respond(body)
                reply = answer if isinstance(answer, Reply) else Reply(content=answer)
            self._closing.wait(reply.delay)
            if reply.drop:
                handler.close_connection = True
                return
            self.send(handler, reply, body)
        finally:
            with self._lock:
                self.active -= 1

    def authorized(self, handler: BaseHTTPRequestHandler) -> bool:
        return handler.headers.get("Authorization") == f"Bearer {self.api_key}"

    def invalid(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> str | Reply | None:
        """What the real API would refuse (400, or the refusal itself) about a request it accepted the
        key and model of."""
        return None

    def send(self, handler: BaseHTTPRequestHandler, reply: Reply, body: dict[str, Any]) -> None:
        if reply.raw is not None:
            data = reply.raw
        elif reply.status != 200:
            data = self.error(f"scripted HTTP {reply.status}", reply.status)
        else:
            data = json.dumps(self.render(reply, body)).encode()
        retry_after = [] if reply.retry_after is None else [("Retry-After", reply.retry_after)]
        send_reply(handler, reply.status, "application/json", data, [*retry_after, *reply.headers])

    def render(self, reply: Reply, body: dict[str, Any]) -> Any:
        """The body of a 200 answer carrying `reply` to the request `body`."""
        return {
            "id": "chatcmpl-fake", "object": "chat.completion", "model": body.get("model", ""),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": reply.content}}],
            "usage": {"prompt_tokens": reply.usage[0], "completion_tokens": reply.usage[1],
                      "total_tokens": sum(reply.usage)},
        }

    def error(self, message: str, status: int) -> bytes:
        return _error(message)


def _handler(server: FakeLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(QuietHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            if not self.path.endswith(server.route):
                server.send(self, Reply(status=404, raw=server.error(f"no route {self.path}", 404)), {})
                return
            server._serve(self)

    return Handler


def _error(message: str) -> bytes:
    return json.dumps({"error": {"message": message, "type": "invalid_request_error"}}).encode()


def by_role(*, agent: Responder, summarizer: Responder | None = None, classifier: Responder | None = None) -> Responder:
    """One server for every LLM role of a run, told apart by their system prompts (and the
    run's preflight check by its prompt)."""
    roles = {agent_module.SYSTEM_PROMPT: agent, summarizer_module.SYSTEM_PROMPT: summarizer,
             analysis.SYSTEM_PROMPT: classifier, PREFLIGHT_PROMPT: lambda body: "OK"}

    def respond(body: dict[str, Any]) -> Reply | str:
        responder = roles.get(body["messages"][0]["content"])
        if responder is None:
            return Reply(status=400, raw=_error("no scripted reply for this role"))
        return responder(body)

    return respond


_TREE_LINE = re.compile(r'^\s*\[(?P<id>[^\]]+)\] \w+ "(?P<name>[^"]*)"', re.MULTILINE)
_STEP = re.compile(r"This is step (\d+) ")


def form_filler(body: dict[str, Any]) -> str:
    """A model that solves simulated form tasks: goal k of the instruction at step k,
    grounded by name in the tree text of the prompt (or its list of marks), then `done`."""
    prompt = body["messages"][1]["content"]
    text = "\n".join(part["text"] for part in prompt if part["type"] == "text")
    instruction = text.split("\n", 1)[0].removeprefix("Task: ")
    goals = parse_goals(instruction)
    index = int(_STEP.search(text)[1]) - 1
    if index >= len(goals):
        return json.dumps({"thought": "every goal is done", "action": {"type": "done"}})
    goal = goals[index]
    if goal["key"] is not None:
        return json.dumps({"thought": f"press {goal['key']}", "action": {"type": "key", "key": goal["key"]}})
    ids = {m["name"]: m["id"] for m in _TREE_LINE.finditer(text)}
    by_mark = MARKS_HEADING in text  # set-of-marks: the listed ids are mark numbers
    element = (lambda name: {"mark": int(ids[name])}) if by_mark else (lambda name: {"node_id": ids[name]})
    if goal["text"] is not None:
        action = {"type": "type", "text": goal["text"], "target": element(goal["field"])}
    else:
        action = {"type": "click", "target": element(goal["name"])}
    return json.dumps({"thought": f"goal {index + 1}", "plan": "one goal per step", "action": action})
