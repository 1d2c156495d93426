"""OpenAI's Responses API with its computer tool (`--agent openai-cu`).

The tool is the one the model takes: `computer_use_preview` (with the display size and an
environment, browser when the screen has a URL, else linux) for `computer-use-preview` models,
the built-in `computer` tool for the others. The Responses API keeps the conversation on the
server (the model's reasoning items are opaque to the client), so each step continues the
episode's previous response (`previous_response_id`) with a `computer_call_output` carrying
the new screenshot. That id, the call to answer, and the actions of a batch not taken yet are
the policy's memory of an episode: the built-in tool may ask for several actions in one call,
and troupe takes one per step, so the rest are handed out on the next steps (without a model
call) and the screenshot goes back when the batch is done or an action of it failed. A policy
that has no memory of the episode (a restarted Agent) starts a new response that tells the
earlier steps as text, as the chat agent does. So does a policy whose previous response the API
no longer has (it expired or was deleted: 400 or 404, `previous_response_not_found`, naming
`previous_response_id`), as OpenAI's documentation advises: the request goes again, once, with
the episode's own record in full and no `previous_response_id` (`ComputerUsePolicy.restart`).

Safety checks the API raises on a call (`pending_safety_checks`) are acknowledged in the next
output, as an unattended benchmark must, and written into the step's reasoning, so a run's
records show every one.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import Any

from protocols import (
    Action, Click, Decide, DoubleClick, Drag, Hotkey, Key, Move, Observation, Point, RightClick, Scroll, TypeText,
    Wait,
)

from actors.llm.client import LLMBadResponse, LLMClient, LLMError, LLMRequestError
from actors.llm.computer_use.keys import key_action, key_names
from actors.llm.computer_use.loop import (
    FINISHING, HELD_SCROLL, ComputerUsePolicy, Turn, final_action, model_action, outcome, read_action,
)
from actors.llm.preflight import PREFLIGHT_PROMPT
from actors.llm.replies import ReplyError
from actors.llm.screen import Scale, screen_size

__all__ = ["OpenAIComputerUse", "SYSTEM_PROMPT", "action_of", "tool_action"]

PREVIEW = "computer-use-preview"
LOST = "previous_response_not_found"
"""The error code of a request continuing a response the API no longer has."""
SCROLL_STEP = 100
"""Pixels of the API's scroll distances per wheel click (troupe scrolls by clicks)."""
MEMORY = 64
"""Episodes a policy remembers; an Agent serves one at a time, so older ones are over."""

SYSTEM_PROMPT = f"""\
You operate a computer through the computer tool to accomplish the user's task. Look at the \
result of your actions before going on.
{FINISHING}"""

_POINTER = {"click": Click, "double_click": DoubleClick, "move": Move}
_KINDS = {*_POINTER, "drag", "keypress", "type", "scroll", "wait"}


@dataclass
class _Thread:
    """What the policy remembers of an episode: the response to continue, the call to answer,
    the safety checks to acknowledge, the batch's actions still to take, and the step it is at."""

    response: str
    call: str
    checks: list[dict[str, Any]]
    step: int
    then: list[Action] = field(default_factory=list)
    batch: int = 1


class OpenAIComputerUse(ComputerUsePolicy):
    def __init__(self, client: LLMClient, **settings: Any) -> None:
        super().__init__(client, **settings)
        self._threads: dict[str, _Thread] = {}

    @property
    def preview(self) -> bool:
        return self.client.config.model.startswith(PREVIEW)

    def endpoint(self) -> str:
        return self.client.config.base_url.rstrip("/") + "/responses"

    def headers(self) -> dict[str, str]:
        key = self.client.config.api_key
        return {"Authorization": f"Bearer {key}"} if key else {}

    def tool(self, seen: Observation | None) -> dict[str, Any]:
        if not self.preview:
            return {"type": "computer"}
        width, height = (screen_size(seen) if seen is not None else None) or (1024, 768)
        environment = "browser" if seen is not None and seen.url else "linux"
        return {"type": "computer_use_preview", "display_width": width, "display_height": height,
                "environment": environment}

    def body(self, conversation: Any, seen: Observation) -> dict[str, Any]:
        summary = {"reasoning": {"summary": "concise"}} if self.preview else {}  # as OpenAI's examples ask it
        return {"model": self.client.config.model, "instructions": SYSTEM_PROMPT, "tools": [self.tool(seen)],
                "truncation": "auto", **summary, **conversation}

    def preflight_body(self) -> dict[str, Any]:
        return {"model": self.client.config.model, "input": PREFLIGHT_PROMPT, "max_output_tokens": 16,
                "tools": [self.tool(None)], "truncation": "auto"}

    def transcript(self, conversation: Any) -> list[Any]:
        earlier = ([{"role": "system", "content": f"continues response {conversation['previous_response_id']}"}]
                   if "previous_response_id" in conversation else [])
        return [{"role": "system", "content": SYSTEM_PROMPT}, *earlier, *conversation["input"]]

    def queued(self, request: Decide) -> Turn | None:
        thread = self._thread(request)
        if thread is None or not thread.then or (request.history and request.history[-1].error):
            return None
        thread.step = request.step
        action = thread.then.pop(0)
        done = thread.batch - len(thread.then)
        return Turn(action, f"action {done} of the {thread.batch} the model asked for at step "
                            f"{request.step - done + 1}")

    def opening(self, request: Decide, seen: Observation, scale: Scale | None) -> Any:
        thread = self._thread(request)
        if thread is None:
            return {"input": [{"role": "user", "content": [
                {"type": "input_text", "text": self._story(request, scale)}, _image("input_image", seen)]}]}
        failed = request.history[-1].error if request.history else ""
        dropped = f" The {len(thread.then)} actions after it were not taken." if thread.then else ""
        told = [{"role": "user", "content": f"The action failed: {failed}.{dropped}"}] if failed else []
        return {"previous_response_id": thread.response, "input": [_output(thread.call, thread.checks, seen), *told]}

    def read(self, payload: Any) -> Turn:
        output = payload.get("output") if isinstance(payload, dict) else None
        if not isinstance(output, list) or payload.get("status") == "failed":
            raise LLMBadResponse(f"{self.endpoint()} answered without an `output` list: {str(payload)[:200]!r}")
        said = [part.get("text", "") for item in output if item.get("type") == "message"
                for part in item.get("content") or [] if part.get("type") == "output_text"]
        thought = [part.get("text", "") for item in output if item.get("type") == "reasoning"
                   for part in item.get("summary") or []]
        calls = [item for item in output if item.get("type") == "computer_call"]
        text = "\n".join([*thought, *said]).strip()
        if not calls:
            if not said:
                raise ReplyError("the reply has neither a computer call nor a message")
            return Turn(final_action("\n".join(said)), text)
        call = calls[0]
        asked = call.get("actions") if call.get("actions") is not None else [call.get("action")]
        actions = [action for action in (action_of(given) for given in asked) if action is not None]
        checks = [f"safety check acknowledged: {check.get('code')}: {check.get('message')}"
                  for check in call.get("pending_safety_checks") or []]
        text = "\n".join([text, *checks]).strip()
        return Turn(actions[0], text, tuple(actions[1:])) if actions else Turn(None, text)

    def decided(self, request: Decide, turn: Turn, payload: Any) -> None:
        if turn.action is not None and turn.action.terminal:
            self._threads.pop(request.episode_id, None)
            return
        call = next(item for item in payload["output"] if item.get("type") == "computer_call")
        self._remember(request.episode_id, _Thread(
            response=payload["id"], call=call["call_id"], checks=call.get("pending_safety_checks") or [],
            step=request.step, then=list(turn.then), batch=1 + len(turn.then)))

    def reply(self, payload: Any) -> Any:
        return payload.get("output")

    def usage(self, payload: Any) -> tuple[int, int]:
        usage = payload.get("usage") or {}
        return int(usage.get("input_tokens") or 0), int(usage.get("output_tokens") or 0)

    def looked(self, conversation: Any, payload: Any, seen: Observation) -> Any:
        return self._answer(payload, seen, [])

    def refused(self, conversation: Any, payload: Any, error: str, seen: Observation) -> Any:
        return self._answer(payload, seen, [{"role": "user", "content": f"{error}. Choose another action."}])

    def restart(self, conversation: Any, error: LLMError, request: Decide, seen: Observation,
                scale: Scale | None) -> Any | None:
        lost = (isinstance(error, LLMRequestError) and error.status in (400, 404)
                and (error.code == LOST or error.param == "previous_response_id"))
        if not lost or "previous_response_id" not in conversation:
            return None
        self._threads.pop(request.episode_id, None)
        return self.opening(request, seen, scale)

    def _answer(self, payload: Any, seen: Observation, told: list[Any]) -> Any:
        """The next request of the conversation: the answer to the reply's computer call, if it
        made one, and what the model is told."""
        call = next((item for item in payload.get("output") or [] if item.get("type") == "computer_call"), None)
        answered = [] if call is None else [
            _output(call["call_id"], call.get("pending_safety_checks") or [], seen)]
        return {"previous_response_id": payload["id"], "input": [*answered, *told]}

    def _thread(self, request: Decide) -> _Thread | None:
        """The episode's memory, if it is of the step before this one."""
        thread = self._threads.get(request.episode_id)
        return thread if thread is not None and thread.step == request.step - 1 else None

    def _remember(self, episode: str, thread: _Thread) -> None:
        self._threads.pop(episode, None)
        self._threads[episode] = thread
        while len(self._threads) > MEMORY:
            self._threads.pop(next(iter(self._threads)))

    def _story(self, request: Decide, scale: Scale | None) -> str:
        """The task and the earlier steps as text: how a new response starts."""
        lines = [f"Task: {request.task.instruction}",
                 f"This is step {request.step} of at most {request.max_steps}."]
        recent = request.history[-self.history:] if self.history else ()
        if len(request.history) > len(recent):
            lines.append(f"The first {len(request.history) - len(recent)} steps are not shown.")
        if recent:
            lines.append("Your earlier steps, oldest first:")
        for record in recent:
            said = json.dumps(tool_action(model_action(record.action, scale)))
            lines.append(f"Step {record.step}: {said} -> {outcome(record, self.summaries)}")
        return "\n".join(lines)


def action_of(given: Any) -> Action | None:
    """The action one computer-call action asks for, in the model's frame; None for a screenshot."""
    if not isinstance(given, dict):
        raise ReplyError("a computer call's action must be an object")
    return read_action(given.get("type"), given, _action, _KINDS)


def _action(kind: str, given: dict[str, Any]) -> Action:
    held = tuple(key_names(key_action(given["keys"]))) if kind != "keypress" and given.get("keys") else ()
    if kind == "click":
        button = given.get("button", "left")
        if button not in ("left", "right"):
            raise ValueError(f"troupe clicks the left or right button, not {button!r}")
        return (Click if button == "left" else RightClick)(point=_point(given), modifiers=held)
    if kind in _POINTER:
        return _POINTER[kind](point=_point(given), modifiers=held)
    if kind == "drag":
        path = given["path"]
        if len(path) < 2:
            raise ValueError("a drag's path needs a start and an end")
        return Drag(point=_point(path[0]), end=_point(path[-1]), modifiers=held)
    if kind == "keypress":
        return key_action(given["keys"])
    if kind == "type":
        return TypeText(text=given["text"])
    if kind == "scroll":
        if held:
            raise ValueError(HELD_SCROLL)
        dx, dy = int(given.get("scroll_x") or 0), int(given.get("scroll_y") or 0)
        if not dx and not dy:
            raise ValueError("the scroll distance is 0")
        direction = ("down" if dy > 0 else "up") if abs(dy) >= abs(dx) else ("right" if dx > 0 else "left")
        amount = max(1, round(max(abs(dx), abs(dy)) / SCROLL_STEP))
        return Scroll(direction=direction, amount=amount, point=_point(given))
    return Wait(seconds=2.0)


def tool_action(action: Action) -> dict[str, Any]:
    """The computer-call action that asks for `action` (in the model's frame): how an earlier step is told."""
    held = {"keys": [name.upper() for name in action.modifiers]} if getattr(action, "modifiers", ()) else {}
    if isinstance(action, (Click, RightClick)):
        button = "left" if isinstance(action, Click) else "right"
        return {"type": "click", "button": button, **_xy(action.point), **held}
    if isinstance(action, (DoubleClick, Move)):
        return {"type": "double_click" if isinstance(action, DoubleClick) else "move", **_xy(action.point), **held}
    if isinstance(action, Drag):
        return {"type": "drag", "path": [_xy(action.point), _xy(action.end)], **held}
    if isinstance(action, (Key, Hotkey)):
        return {"type": "keypress", "keys": [name.upper() for name in key_names(action)]}
    if isinstance(action, TypeText):
        return {"type": "type", "text": action.text}
    if isinstance(action, Scroll):
        distance = action.amount * SCROLL_STEP * (1 if action.direction in ("down", "right") else -1)
        sideways = action.direction in ("left", "right")
        place = _xy(action.point) if action.point is not None else {"x": 0, "y": 0}
        return {"type": "scroll", **place, "scroll_x": distance if sideways else 0,
                "scroll_y": 0 if sideways else distance}
    if isinstance(action, Wait):
        return {"type": "wait"}
    raise ValueError(f"no computer-call action asks for {type(action).__name__}")


def _point(given: Any) -> Point:
    return Point(float(given["x"]), float(given["y"]))


def _xy(point: Point | None) -> dict[str, int]:
    if point is None:
        raise ValueError("the action has no point")
    return {"x": round(point.x), "y": round(point.y)}


def _output(call: str, checks: list[dict[str, Any]], seen: Observation) -> dict[str, Any]:
    """The answer to computer call `call`: the screen now, its safety `checks` acknowledged."""
    acknowledged = {"acknowledged_safety_checks": checks} if checks else {}
    return {"type": "computer_call_output", "call_id": call, "output": _image("computer_screenshot", seen),
            **acknowledged}


def _image(kind: str, seen: Observation) -> dict[str, Any]:
    mime = "image/jpeg" if seen.screenshot.startswith(b"\xff\xd8") else "image/png"
    return {"type": kind, "image_url": f"data:{mime};base64,{base64.b64encode(seen.screenshot).decode()}"}
