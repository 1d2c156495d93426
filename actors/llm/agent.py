"""The LLM agent policy: a prompt from the task and the screen, one action back as strict JSON.

The prompt holds the instruction, the step budget, the current observation
(tree text and/or screenshot), the last few steps with their errors and, when
enabled, the Summarizer's judgement of them (or, on a recorded screen that
states the actions that led to it, those instead: the agent's own did not make
it), all taken from the `Decide` request: the policy keeps nothing between calls, so a fresh instance (a
restarted Agent) writes the same prompt for a step as the one that saw the
steps before it. The reply is parsed into a protocol
`Action` and grounded in the tree (a `node_id` must exist; its box, role
and name are filled in so every backend can act on it). An invalid reply
goes back to the model with the reason; `max_bad_replies` in a row end the
episode with an agent error (see `actors.llm.replies`).
"""

from __future__ import annotations

from typing import Any, Sequence

import msgspec

from protocols import Action, Decide, Decision, Observation, StepRecord, Target, UIElement, to_json
from protocols.keys import MODIFIERS

from actors.llm.client import LLMClient, text_part
from actors.llm.marks import Mark, marks_of
from actors.llm.observation import Mode, observation_parts
from actors.llm.screen import ModelScreen, Scale
from actors.llm.tree_text import TREE_TOKENS
from actors.llm.replies import ReplyError, ask, decode_reply

SYSTEM_PROMPT = f"""\
You operate a computer's graphical interface to accomplish a task. Each turn you see \
the task, the current screen (an accessibility tree with one element per line, \
`[id] role "name" @(x,y widthxheight)`, and/or a screenshot) and your previous steps. \
You choose exactly one next action.

Reply with one JSON object and nothing else:
{{"thought": "<what you see and why this action>", "plan": "<the remaining steps, briefly>", "action": ACTION}}

ELEMENT is {{"node_id": "<id from the tree>"}}. POINT is {{"x": 120, "y": 45}} in screen pixels, \
or {{"x": 0.5, "y": 0.2, "unit": "norm"}} as fractions of the screen.
ACTION is one of:
  {{"type": "click", "target": ELEMENT}} or {{"type": "click", "point": POINT}} \
(also "double_click", "triple_click", "right_click", "move"; optional "modifiers")
  {{"type": "type", "text": "...", "target": ELEMENT}}   (without target: types into the focused element)
  {{"type": "key", "key": "enter", "modifiers": ["ctrl"]}}
  {{"type": "hotkey", "keys": ["ctrl", "c"]}}
  {{"type": "scroll", "direction": "up" | "down" | "left" | "right", "amount": 3}}
  {{"type": "drag", "point": POINT, "end": POINT}}   (or "target" / "end_target" ELEMENTs)
  {{"type": "wait", "seconds": 1}}
  {{"type": "answer", "text": "..."}}   the answer, when the task asks a question
  {{"type": "done"}}   when the task is complete
  {{"type": "fail", "reason": "..."}}   when the task cannot be done
Modifiers are {sorted(MODIFIERS)}. Keys are lowercase names: enter, tab, escape, backspace, \
up, down, pageup, f5, a, 1, ...
Prefer elements from the tree over raw points. Do not repeat an action that had no effect."""

class _Reply(msgspec.Struct):
    action: dict[str, Any]
    thought: str = ""
    plan: str = ""


class LLMPolicy:
    """`observation` chooses what the model sees (`tree_tokens` bounds its tree text); `history` how
    many earlier steps it is told about; `summaries` whether the Summarizer's judgements go in."""

    def __init__(
        self, client: LLMClient, *, observation: Mode = "tree", history: int = 5, summaries: bool = True,
        max_bad_replies: int = 3, tree_tokens: int = TREE_TOKENS, screen: ModelScreen | None = None,
    ) -> None:
        if max_bad_replies < 1:
            raise ValueError(f"max_bad_replies must be at least 1, got {max_bad_replies}")
        self.client = client
        self.observation = observation
        self.history = history
        self.summaries = summaries
        self.max_bad_replies = max_bad_replies
        self.tree_tokens = tree_tokens
        self.screen = screen

    async def decide(self, request: Decide) -> Decision:
        scale = self.screen.scale(request.observation) if self.screen is not None else None
        seen = request.observation if scale is None else scale.observation(request.observation)
        messages = [{"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": self.prompt(request, seen, scale)}]
        marks = marks_of(seen) if self.observation == "som" else []

        def parse(text: str) -> tuple[Action, str]:
            action, reasoning = parse_action(text, request.observation.tree, marks)
            return (action if scale is None else scale.to_screen(action)), reasoning

        (action, reasoning), usage, calls = await ask(
            self.client, messages, parse, attempts=self.max_bad_replies, role="agent", step=request.step,
        )
        return Decision(action=action, reasoning=reasoning, usage=usage, calls=calls)

    def prompt(self, request: Decide, seen: Observation | None = None,
               scale: Scale | None = None) -> list[dict[str, Any]]:
        """The user turn, showing `seen` (the request's observation as the model is shown it, scaled by
        `scale`: `actors.llm.screen`; by default the observation itself)."""
        lines = [f"Task: {request.task.instruction}", f"This is step {request.step} of at most {request.max_steps}."]
        recorded = request.observation.previous_actions[-self.history:] if self.history else ()
        recent = request.history[-self.history:] if self.history else ()
        if recorded:
            lines.append("The actions taken before this screen, oldest first (this screen follows from them):")
            lines += [f"- {action}" for action in recorded]
        elif recent:
            lines.append("Your previous steps, oldest first:")
            lines += [self._describe(record, scale) for record in recent]
        seen = request.observation if seen is None else seen
        return [text_part("\n".join(lines)), *observation_parts(seen, self.observation, "Current screen", self.tree_tokens)]

    def _describe(self, record: StepRecord, scale: Scale | None) -> str:
        action = record.action if scale is None else scale.to_model(record.action)
        line = f"- step {record.step}: {to_json(action).decode()}"
        if record.reasoning:
            line += f" (you thought: {record.reasoning})"
        if record.error:
            line += f"\n  the action failed: {record.error}"
        summary = record.summary if self.summaries else None
        if summary is not None:
            verdict = {True: "correct", False: "incorrect", None: "unclear"}[summary.correct]
            line += f"\n  observer: {summary.changes}; judged {verdict}"
            if summary.reason:
                line += f" ({summary.reason})"
            if summary.suggestion:
                line += f"; suggestion: {summary.suggestion}"
        return line


def parse_action(text: str, tree: UIElement | None, marks: Sequence[Mark] = ()) -> tuple[Action, str]:
    """The action of a reply, grounded in `tree` (an element named by one of `marks` too), and the
    reasoning given with it."""
    reply = decode_reply(text, _Reply)
    try:
        action = msgspec.convert(_unmarked(reply.action, marks), Action)
    except msgspec.ValidationError as exc:
        raise ReplyError(f"`action` is not a valid action: {exc}") from None
    reasoning = reply.thought + (f"\nPlan: {reply.plan}" if reply.plan else "")
    return _ground(action, tree), reasoning


def _unmarked(action: dict[str, Any], marks: Sequence[Mark]) -> dict[str, Any]:
    """`action` with each target named by mark (`{"mark": 3}`) named by its element's node_id."""
    changes = {}
    for field in ("target", "end_target"):
        target = action.get(field)
        if isinstance(target, dict) and "mark" in target:
            number = target["mark"]
            if not marks:
                raise ReplyError("this screen has no marks; name an element by node_id or use a point")
            if not isinstance(number, int) or not 1 <= number <= len(marks):
                raise ReplyError(f"there is no mark {number!r} on this screen (marks are 1 to {len(marks)})")
            changes[field] = {"node_id": marks[number - 1].element.node_id}
    return {**action, **changes}


def _ground(action: Action, tree: UIElement | None) -> Action:
    """Fill targets named by node_id with the element's box, role and name."""
    changes = {field: _element(getattr(action, field), tree) for field in ("target", "end_target")
               if getattr(action, field, None) is not None}
    return msgspec.structs.replace(action, **changes) if changes else action


def _element(target: Target, tree: UIElement | None) -> Target:
    if target.node_id is None:
        return target
    element = tree.find(target.node_id) if tree is not None else None
    if element is None:
        if target.bbox is not None:
            return target
        where = "the accessibility tree" if tree is not None else "this observation (it has no tree; use a point)"
        raise ReplyError(f"there is no element with node_id {target.node_id!r} in {where}")
    return Target(node_id=element.node_id, bbox=element.bbox or target.bbox, role=element.role, name=element.name)
