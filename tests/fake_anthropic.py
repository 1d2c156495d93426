"""A local server speaking Anthropic's Messages API with the computer-use tool, as documented.

It checks what the real API checks of a computer-use request (the version and beta headers,
`max_tokens`, alternating roles, each `tool_use` answered by a `tool_result` in the next user
turn, a display size on the tool), refusing a malformed one with a 400 and one over `max_bytes`
with a 413 `request_too_large` in Anthropic's error shape; it answers with content blocks, a stop reason and usage. `operator` is a model that
solves simulated form tasks through the tool (`tests.computer_use_model`).
"""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any

from actors.llm.computer_use.anthropic import BETA
from actors.llm.preflight import PREFLIGHT_PROMPT
from tests.computer_use_model import plan, skipped
from tests.fake_llm import FakeLLM, Reply

_ERRORS = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
           404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error", 529: "overloaded_error"}


class FakeAnthropic(FakeLLM):
    """`responder` maps a request body to the reply's content blocks (or a `Reply`)."""

    route = "/v1/messages"
    max_bytes = 32_000_000
    """The request size the API accepts (32 MB for the Messages API); a test sets a smaller one."""

    def authorized(self, handler: BaseHTTPRequestHandler) -> bool:
        return handler.headers.get("x-api-key") == self.api_key

    def invalid(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> str | Reply | None:
        if int(handler.headers.get("Content-Length") or 0) > self.max_bytes:
            return Reply(status=413, raw=self.error("Request exceeds the maximum allowed number of bytes.", 413))
        if handler.headers.get("anthropic-version") != "2023-06-01":
            return "anthropic-version: header is required"
        tools = [tool.get("type") for tool in body.get("tools") or []]
        for tool in tools:
            if tool in BETA and BETA[tool] not in handler.headers.get("anthropic-beta", "").split(","):
                return f"tools.0: the {tool} tool needs the beta header anthropic-beta: {BETA[tool]}"
        return check_request(body)

    def render(self, reply: Reply, body: dict[str, Any]) -> Any:
        content = reply.content if isinstance(reply.content, list) else [{"type": "text", "text": reply.content}]
        uses = any(block["type"] == "tool_use" for block in content)
        return {"id": "msg_fake", "type": "message", "role": "assistant", "model": body.get("model", ""),
                "content": content, "stop_reason": "tool_use" if uses else "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": reply.usage[0], "output_tokens": reply.usage[1]}}

    def error(self, message: str, status: int) -> bytes:
        return json.dumps({"type": "error", "error": {"type": _ERRORS.get(status, "api_error"), "message": message}}
                          ).encode()


def check_request(body: dict[str, Any]) -> str | None:
    """What the real API would refuse about this request body: None when it is well formed."""
    if not isinstance(body.get("max_tokens"), int):
        return "max_tokens: Field required"
    messages = body.get("messages") or []
    for index, message in enumerate(messages):
        if message["role"] != ("user", "assistant")[index % 2]:
            return f"messages.{index}: roles must alternate, starting with user"
        previous = messages[index - 1]["content"] if index else []
        asked = {b["id"] for b in previous if isinstance(b, dict) and b.get("type") == "tool_use"}
        content = message["content"] if isinstance(message["content"], list) else []
        answered = {b["tool_use_id"] for b in content if b.get("type") == "tool_result"}
        if asked != answered:
            return (f"messages.{index}: `tool_use` ids were found without `tool_result` blocks immediately "
                    f"after: {sorted(asked - answered)}")
    for tool in body.get("tools") or []:
        if tool.get("type") in BETA and not (tool.get("display_width_px") and tool.get("display_height_px")):
            return "tools.0.display_width_px: Field required"
    return None


def operator(body: dict[str, Any]) -> Reply | list[dict[str, Any]]:
    """A model solving a simulated form task through the computer tool: it looks at the screen
    first, then takes the plan's steps one by one, and says DONE when none is left."""
    messages = body["messages"]
    if messages[0]["content"] == PREFLIGHT_PROMPT:
        return [{"type": "text", "text": "OK"}]
    tool = body["tools"][0]
    uses = [block["input"] for message in messages if message["role"] == "assistant"
            for block in message["content"] if block["type"] == "tool_use"]
    if not uses and len(messages) == 1:
        return [_use(len(messages), {"action": "screenshot"})]
    task = messages[0]["content"][0]["text"]
    steps = plan(task, tool["display_width_px"], tool["display_height_px"])
    done = [use for use in uses if use["action"] != "screenshot"]
    done = [None] * skipped(task) + done
    if len(done) >= len(steps):
        return [{"type": "text", "text": "Every field is filled and the button clicked.\nDONE"}]
    kind, *args = steps[len(done)]
    tool_input = ({"action": "left_click", "coordinate": list(args)} if kind == "click"
                  else {"action": "type", "text": args[0]} if kind == "type" else {"action": "key", "text": args[0]})
    return [{"type": "text", "text": f"step {len(done) + 1} of the plan"}, _use(len(messages), tool_input)]


def _use(number: int, tool_input: dict[str, Any]) -> dict[str, Any]:
    return {"type": "tool_use", "id": f"toolu_fake_{number:04d}", "name": "computer", "input": tool_input}
