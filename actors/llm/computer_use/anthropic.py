"""Anthropic's Messages API with its computer-use tool (`--agent anthropic-cu`).

Each decision sends the whole conversation, as the API expects of a client: the task, then
per earlier step the model's `tool_use` (its reasoning as text before it) and a `tool_result`
saying how the step went, the latest result carrying the current screenshot. The conversation
is rebuilt from the `Decide` request each time (tool-use ids are troupe's own, one per step), so
the policy keeps nothing between calls and a restarted Agent asks exactly what the first one
would. Only the current screen is sent as a picture: earlier ones are told as text, which keeps
a long episode's requests small (Anthropic's own reference loop also drops old screenshots).
Parallel tool use is turned off: one reply, one action, one step.

Screens larger than the API's image limit (1568 pixels on the long edge, about 1.15
megapixels) are scaled down before they are sent, as Anthropic's documentation asks, and the
tool declares the scaled size; the model's coordinates are mapped back exactly
(`actors.llm.screen`). `--llm-screen` chooses the size instead.
"""

from __future__ import annotations

import base64
import math
from typing import Any, Literal

from protocols import (
    Action, Click, Decide, DoubleClick, Drag, Fail, Hotkey, Key, Move, Observation, Point, RightClick, Scroll,
    TripleClick, TypeText, Wait,
)

from actors.llm.client import LLMBadResponse, LLMClient
from actors.llm.computer_use.keys import key_action, key_names
from actors.llm.computer_use.loop import (
    FINISHING, HELD_SCROLL, ComputerUsePolicy, Turn, final_action, model_action, outcome, read_action,
)
from actors.llm.preflight import PREFLIGHT_PROMPT
from actors.llm.replies import ReplyError
from actors.llm.screen import ModelScreen, Scale, screen_size

__all__ = ["API_VERSION", "BETA", "AnthropicComputerUse", "SYSTEM_PROMPT", "ToolVersion", "action_of", "tool_input"]

API_VERSION = "2023-06-01"
ToolVersion = Literal["computer_20251124", "computer_20250124"]
BETA: dict[str, str] = {"computer_20251124": "computer-use-2025-11-24", "computer_20250124": "computer-use-2025-01-24"}
"""The beta header each tool version needs."""

LONG_EDGE = 1568
PIXELS = 1_150_000
MAX_TOKENS = 2048

SYSTEM_PROMPT = f"""\
You operate a computer through the computer tool to accomplish the user's task. Take one \
action at a time and look at the result before the next. Say briefly what you see and why \
you act before each action.
{FINISHING}"""

_POINTER = {
    "left_click": Click, "right_click": RightClick, "double_click": DoubleClick, "triple_click": TripleClick,
    "mouse_move": Move,
}
_KINDS = {*_POINTER, "left_click_drag", "type", "key", "scroll", "wait"}
_UNSUPPORTED = {
    "middle_click": "troupe has no middle click",
    "left_mouse_down": "troupe cannot hold the button between steps; use left_click_drag",
    "left_mouse_up": "troupe cannot hold the button between steps; use left_click_drag",
    "hold_key": "troupe cannot hold a key for a time; use key with the modifiers, e.g. shift+a",
    "cursor_position": "troupe does not report the pointer position; take a screenshot",
    "zoom": "zoom is not enabled; take a screenshot",
}


class AnthropicComputerUse(ComputerUsePolicy):
    def __init__(self, client: LLMClient, *, tool: ToolVersion = "computer_20251124", **settings: Any) -> None:
        super().__init__(client, **settings)
        self.tool = tool

    def endpoint(self) -> str:
        return self.client.config.base_url.rstrip("/") + "/messages"

    def headers(self) -> dict[str, str]:
        key = self.client.config.api_key
        return {"anthropic-version": API_VERSION, "anthropic-beta": BETA[self.tool],
                **({"x-api-key": key} if key else {})}

    def fit(self, observation: Observation) -> ModelScreen | None:
        size = screen_size(observation)
        if size is None:
            return None
        width, height = size
        factor = min(LONG_EDGE / max(width, height), math.sqrt(PIXELS / (width * height)))
        return None if factor >= 1 else ModelScreen(max(1, int(width * factor)), max(1, int(height * factor)))

    def body(self, conversation: list[Any], seen: Observation) -> dict[str, Any]:
        width, height = screen_size(seen) or (0, 0)
        return {
            "model": self.client.config.model, "max_tokens": MAX_TOKENS, "system": SYSTEM_PROMPT,
            "tools": [{"type": self.tool, "name": "computer", "display_width_px": width,
                       "display_height_px": height}],
            "tool_choice": {"type": "auto", "disable_parallel_tool_use": True},
            "messages": conversation,
        }

    def preflight_body(self) -> dict[str, Any]:
        return {"model": self.client.config.model, "max_tokens": 1,
                "messages": [{"role": "user", "content": PREFLIGHT_PROMPT}]}

    def transcript(self, conversation: list[Any]) -> list[Any]:
        return [{"role": "system", "content": SYSTEM_PROMPT}, *conversation]

    def opening(self, request: Decide, seen: Observation, scale: Scale | None) -> list[Any]:
        recent = request.history[-self.history:] if self.history else ()
        skipped = len(request.history) - len(recent)
        task = f"Task: {request.task.instruction}\nThis is step {request.step} of at most {request.max_steps}."
        if skipped:
            task += f"\nThe first {skipped} steps are not shown."
        if not recent:
            return [{"role": "user", "content": [_text(task), _image(seen.screenshot)]}]
        messages: list[Any] = [{"role": "user", "content": [_text(task)]}]
        for index, record in enumerate(recent):
            tool_id = f"toolu_troupe_{record.step:04d}"
            said = [_text(record.reasoning)] if record.reasoning else []
            use = {"type": "tool_use", "id": tool_id, "name": "computer",
                   "input": tool_input(model_action(record.action, scale))}
            result = [_text(outcome(record, self.summaries))]
            if index == len(recent) - 1:
                result.append(_image(seen.screenshot))
            messages += [{"role": "assistant", "content": [*said, use]},
                         {"role": "user", "content": [_result(tool_id, result, error=bool(record.error))]}]
        return messages

    def read(self, payload: Any) -> Turn:
        content = payload.get("content") if isinstance(payload, dict) else None
        if not isinstance(content, list):
            raise LLMBadResponse(f"{self.endpoint()} answered without a `content` list: {str(payload)[:200]!r}")
        text = "\n".join(str(block.get("text", "")) for block in content if block.get("type") == "text").strip()
        uses = [block for block in content if block.get("type") == "tool_use"]
        if not uses:
            if payload.get("stop_reason") == "max_tokens":
                raise ReplyError("the reply was cut off at max_tokens before it chose an action")
            if payload.get("stop_reason") == "refusal":
                return Turn(Fail(reason=f"the model refused: {text}" if text else "the model refused"), text)
            return Turn(final_action(text), text)
        use = uses[0]
        if use.get("name") != "computer":
            raise ReplyError(f"there is no tool {use.get('name')!r}; the one tool is `computer`")
        return Turn(action_of(use.get("input")), text)

    def reply(self, payload: Any) -> Any:
        return payload.get("content")

    def usage(self, payload: Any) -> tuple[int, int]:
        usage = payload.get("usage") or {}
        read = sum(int(usage.get(name) or 0) for name in
                   ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))
        return read, int(usage.get("output_tokens") or 0)

    def looked(self, conversation: list[Any], payload: Any, seen: Observation) -> list[Any]:
        return self._answer(conversation, payload, [_image(seen.screenshot)], error=False)

    def refused(self, conversation: list[Any], payload: Any, error: str, seen: Observation) -> list[Any]:
        return self._answer(conversation, payload, [_text(f"{error}. Choose another action.")], error=True)

    def _answer(self, conversation: list[Any], payload: Any, result: list[Any], *, error: bool) -> list[Any]:
        """The conversation with the model's reply and the user turn answering its tool use (or,
        for a reply without one, a plain message)."""
        content = payload["content"]
        uses = [block for block in content if block.get("type") == "tool_use"]
        answer = [_result(uses[0]["id"], result, error=error)] if uses else result
        return [*conversation, {"role": "assistant", "content": content}, {"role": "user", "content": answer}]


def action_of(tool_input: Any) -> Action | None:
    """The action a `computer` tool input asks for, in the model's frame; None for a screenshot."""
    if not isinstance(tool_input, dict):
        raise ReplyError("the computer tool's input must be an object")
    return read_action(tool_input.get("action"), tool_input, _action, _KINDS, _UNSUPPORTED)


def _action(kind: Any, given: dict[str, Any]) -> Action:
    if kind in _POINTER:
        held = key_action(given["text"].split("+")) if given.get("text") else None
        modifiers = tuple(key_names(held)) if held is not None else ()
        return _POINTER[kind](point=_point(given["coordinate"]), modifiers=modifiers)
    if kind == "left_click_drag":
        return Drag(point=_point(given["start_coordinate"]), end=_point(given["coordinate"]))
    if kind == "type":
        return TypeText(text=given["text"])
    if kind == "key":
        return key_action(str(given["text"]).split("+"))
    if kind == "scroll":
        if given.get("text"):
            raise ValueError(HELD_SCROLL)
        place = given.get("coordinate")
        return Scroll(direction=given["scroll_direction"], amount=int(given.get("scroll_amount", 3)),
                      point=None if place is None else _point(place))
    return Wait(seconds=float(given.get("duration", 1)))


def tool_input(action: Action) -> dict[str, Any]:
    """The `computer` tool input that asks for `action` (in the model's frame): how an earlier
    step is told back to the model."""
    if isinstance(action, tuple(_POINTER.values())):
        kind = next(name for name, type_ in _POINTER.items() if type_ is type(action))
        held = {"text": "+".join(action.modifiers)} if action.modifiers else {}
        return {"action": kind, "coordinate": _coordinate(action.point), **held}
    if isinstance(action, Drag):
        return {"action": "left_click_drag", "start_coordinate": _coordinate(action.point),
                "coordinate": _coordinate(action.end)}
    if isinstance(action, TypeText):
        return {"action": "type", "text": action.text}
    if isinstance(action, (Key, Hotkey)):
        return {"action": "key", "text": "+".join(key_names(action))}
    if isinstance(action, Scroll):
        place = {} if action.point is None else {"coordinate": _coordinate(action.point)}
        return {"action": "scroll", **place, "scroll_direction": action.direction, "scroll_amount": action.amount}
    if isinstance(action, Wait):
        return {"action": "wait", "duration": action.seconds}
    raise ValueError(f"no computer tool action asks for {type(action).__name__}")


def _point(value: Any) -> Point:
    if not (isinstance(value, (list, tuple)) and len(value) == 2):
        raise ValueError(f"a coordinate is [x, y], got {value!r}")
    return Point(float(value[0]), float(value[1]))


def _coordinate(point: Point | None) -> list[int]:
    if point is None:
        raise ValueError("the action has no point")
    return [round(point.x), round(point.y)]


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _image(png: bytes) -> dict[str, Any]:
    mime = "image/jpeg" if png.startswith(b"\xff\xd8") else "image/png"
    return {"type": "image", "source": {"type": "base64", "media_type": mime, "data": base64.b64encode(png).decode()}}


def _result(tool_id: str, content: list[Any], *, error: bool) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tool_id, "content": content, **({"is_error": True} if error else {})}

