"""A local server speaking OpenAI's Responses API with its computer tool, as documented.

It keeps every response it gave, as the real service does, so a request may continue one
(`previous_response_id`), until a test makes it forget one (`expired`, as a response past its
retention is); it refuses (400, in OpenAI's error shape) what the real API refuses of a
computer-use conversation: an unknown previous response (with the documented `param` and
`code`), a computer call left without its `computer_call_output`, a pending safety check not
acknowledged, a `computer_use_preview` tool without its display and environment or a preview
model without `truncation: auto`.
`Operator` is a model that solves simulated form tasks through the tool
(`tests.computer_use_model`): with the built-in `computer` tool it batches a field's click and
typing into one call, with the preview tool it asks for one action at a time.
"""

from __future__ import annotations

import base64
import io
import itertools
import json
import re
from http.server import BaseHTTPRequestHandler
from typing import Any

from PIL import Image

from actors.llm.preflight import PREFLIGHT_PROMPT
from tests.computer_use_model import plan, skipped
from tests.fake_llm import FakeLLM, Reply

ENVIRONMENTS = ("windows", "mac", "linux", "ubuntu", "browser")
SAFETY_CHECK = {"id": "cu_sc_1", "code": "malicious_instructions", "message": "The page may hold instructions."}


class FakeResponses(FakeLLM):
    """`responder` maps a request body to the response's output items (or a `Reply`); the body it
    is given holds `conversation` too: every item of the responses it continues, then its input."""

    route = "/v1/responses"

    def __init__(self, responder, **settings) -> None:
        super().__init__(responder, **settings)
        self.stored: dict[str, dict[str, Any]] = {}
        self.expired: set[str] = set()
        """Responses the server no longer has, though it made them."""
        self._ids = itertools.count(1)
        respond = self._respond
        self._respond = lambda body: respond({**body, "conversation": self.conversation(body)})

    def conversation(self, body: dict[str, Any]) -> list[Any]:
        chain, previous = [], body.get("previous_response_id")
        while previous is not None:
            stored = self.stored[previous]
            chain[:0] = [*_items(stored["input"]), *stored["output"]]
            previous = stored["previous"]
        return [*chain, *_items(body.get("input"))]

    def invalid(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> str | Reply | None:
        for tool in body.get("tools") or []:
            if tool.get("type") == "computer_use_preview" and not (
                    tool.get("display_width") and tool.get("display_height")
                    and tool.get("environment") in ENVIRONMENTS):
                return "tools[0]: computer_use_preview needs display_width, display_height and environment"
        if str(body.get("model")).startswith("computer-use-preview") and body.get("truncation") != "auto":
            return "The model computer-use-preview requires the truncation parameter to be set to 'auto'."
        previous = body.get("previous_response_id")
        if previous is None:
            return None
        if previous not in self.stored or previous in self.expired:
            return lost(previous)
        outputs = {item["call_id"]: item for item in _items(body.get("input")) if item.get("type") ==
                   "computer_call_output"}
        for call in self.stored[previous]["output"]:
            if call.get("type") != "computer_call":
                continue
            output = outputs.get(call["call_id"])
            if output is None:
                return f"No tool output found for computer call {call['call_id']}."
            if output["output"].get("type") != "computer_screenshot" or not output["output"].get(
                    "image_url", "").startswith("data:image/"):
                return "input: a computer_call_output's output must be a computer_screenshot"
            acknowledged = {check["id"] for check in output.get("acknowledged_safety_checks") or []}
            if any(check["id"] not in acknowledged for check in call["pending_safety_checks"]):
                return f"Safety checks of computer call {call['call_id']} were not acknowledged."
        return None

    def render(self, reply: Reply, body: dict[str, Any]) -> Any:
        output = reply.content if isinstance(reply.content, list) else [_message(reply.content)]
        with self._lock:
            response = f"resp_{next(self._ids):04d}"
            self.stored[response] = {"previous": body.get("previous_response_id"), "input": body.get("input"),
                                     "output": output}
        return {"id": response, "object": "response", "status": "completed", "model": body.get("model", ""),
                "output": output, "usage": {"input_tokens": reply.usage[0], "output_tokens": reply.usage[1],
                                            "total_tokens": sum(reply.usage)}}


def lost(response: str, status: int = 400) -> Reply:
    """OpenAI's answer to a request continuing `response` when it does not have it (any more)."""
    error = {"message": f"Previous response with id '{response}' not found.", "type": "invalid_request_error",
             "param": "previous_response_id", "code": "previous_response_not_found"}
    return Reply(status=status, raw=json.dumps({"error": error}).encode())


def _items(given: Any) -> list[Any]:
    return [{"role": "user", "content": given}] if isinstance(given, str) else list(given or [])


def _message(text: str) -> dict[str, Any]:
    return {"type": "message", "id": "msg_fake", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


class Operator:
    """The fake model; `safety` raises one safety check on its first action."""

    def __init__(self, *, safety: bool = False) -> None:
        self.safety = safety

    def __call__(self, body: dict[str, Any]) -> list[Any]:
        if body.get("input") == PREFLIGHT_PROMPT:
            return [_message("OK")]
        items = body["conversation"]
        task = next(part["text"] for part in items[0]["content"] if part["type"] == "input_text")
        width, height = _display(body["tools"][0], items)
        steps = plan(task, width, height)
        calls = [item for item in items if item.get("type") == "computer_call"]
        taken = [action for call in calls for action in (call.get("actions") or [call["action"]])]
        told = len(re.findall(r"^Step \d+: ", task, re.MULTILINE))  # a new response telling earlier steps
        done = skipped(task) + told + sum(action["type"] != "screenshot" for action in taken)
        preview = body["tools"][0]["type"] == "computer_use_preview"
        number = len(items)
        if preview and not calls and done == skipped(task):
            return [_call(number, [{"type": "screenshot"}], preview, [])]
        if done >= len(steps):
            return [_message("Every goal is met.\nDONE")]
        batch = steps[done:done + (1 if preview or steps[done][0] != "click" else 2)]
        checks = [SAFETY_CHECK] if self.safety and done == skipped(task) else []
        reasoning = {"type": "reasoning", "id": f"rs_{number}", "summary": [
            {"type": "summary_text", "text": f"step {done + 1} of the plan"}]}
        return [reasoning, _call(number, [_action(step) for step in batch], preview, checks)]


def _display(tool: dict[str, Any], items: list[Any]) -> tuple[int, int]:
    """The size of the screen the model sees: the preview tool's display, else the last screenshot's."""
    if tool["type"] == "computer_use_preview":
        return tool["display_width"], tool["display_height"]
    urls = re.findall(r'"image_url": "data:image/png;base64,([^"]+)"', json.dumps(items))
    return Image.open(io.BytesIO(base64.b64decode(urls[-1]))).size


def _action(step: tuple) -> dict[str, Any]:
    kind, *args = step
    if kind == "click":
        return {"type": "click", "button": "left", "x": args[0], "y": args[1]}
    if kind == "type":
        return {"type": "type", "text": args[0]}
    return {"type": "keypress", "keys": [args[0].upper()]}


def _call(number: int, actions: list[dict[str, Any]], preview: bool, checks: list[Any]) -> dict[str, Any]:
    asked = {"action": actions[0]} if preview else {"actions": actions}
    return {"type": "computer_call", "id": f"cu_{number}", "call_id": f"call_{number}", **asked,
            "pending_safety_checks": checks, "status": "completed"}
