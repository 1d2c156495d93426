"""The change summarizer: what visibly changed after an action, and was the action right.

It sees the goal, the agent's reasoning, the action, the earlier summaries and
the difference between the observations before and after (see
`actors.llm.observation`: only the changed lines unless most of the screen
changed). In screenshot modes the two screenshots go along when they differ.
"""

from __future__ import annotations

import time
from typing import Any

import msgspec

from protocols import ChangeSummary, Summarize, to_json

from actors.llm.client import LLMClient, image_part, text_part
from actors.llm.observation import DIFF_THRESHOLD, Mode, diff_observations
from actors.llm.tree_text import TREE_TOKENS
from actors.llm.replies import ask, decode_reply

SYSTEM_PROMPT = """\
You review one step of an agent that operates a graphical interface. You are given the \
agent's goal, its reasoning, the action it took, your judgements of its earlier steps and \
what changed on the screen (a line diff of the accessibility tree, `-` removed and `+` added, \
or the whole screen after the action when most of it changed, and/or screenshots before and after).

Say what visibly changed, and whether the action was a correct step towards the goal. \
An action with no visible effect is rarely correct. Reply with one JSON object and nothing else:
{"changes": "<what visibly changed, or that nothing did>", "correct": true or false, \
"reason": "<why the action was or was not right for the goal>", \
"suggestion": "<when incorrect: what the agent should do instead; else empty>"}"""


class _Reply(msgspec.Struct):
    changes: str
    correct: bool | None = None
    reason: str = ""
    suggestion: str = ""


def parse_summary(text: str, step: int) -> ChangeSummary:
    reply = decode_reply(text, _Reply)
    return ChangeSummary(step=step, changes=reply.changes, correct=reply.correct, reason=reply.reason,
                         suggestion=reply.suggestion)


class LLMJudge:
    def __init__(self, client: LLMClient, *, observation: Mode = "tree", threshold: float = DIFF_THRESHOLD,
                 max_bad_replies: int = 2, tree_tokens: int = TREE_TOKENS) -> None:
        self.client = client
        self.observation = observation
        self.threshold = threshold
        self.max_bad_replies = max_bad_replies
        self.tree_tokens = tree_tokens

    async def summarize(self, request: Summarize) -> ChangeSummary:
        started = time.monotonic()
        messages = [{"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": self.prompt(request)}]
        summary, _, calls = await ask(self.client, messages, lambda text: parse_summary(text, request.step),
                                      attempts=self.max_bad_replies, role="summarizer", step=request.step)
        return msgspec.structs.replace(summary, latency=time.monotonic() - started, calls=calls)

    def prompt(self, request: Summarize) -> list[dict[str, Any]]:
        diff = diff_observations(request.before, request.after, threshold=self.threshold,
                                 tree_tokens=self.tree_tokens)
        lines = [f"Goal: {request.task.instruction}", f"Step {request.step}."]
        if request.reasoning:
            lines.append(f"Agent's reasoning: {request.reasoning}")
        lines.append(f"Action: {to_json(request.action).decode()}")
        if request.earlier:
            lines.append("Your judgements of earlier steps:")
            lines += [f"- step {s.step}: {s.changes} (correct: {s.correct})" for s in request.earlier]
        screenshots = self.observation != "tree" and diff.screenshot_changed and request.after.screenshot
        if diff.kind == "unchanged":
            lines.append("The accessibility tree and window did not change."
                         + (" The screenshot did; compare the two images." if screenshots else ""))
        elif diff.kind == "diff":
            lines.append(f"Changed lines of the screen ({diff.changed:.0%} of it):\n{diff.text}")
        else:
            lines.append(f"Most of the screen changed ({diff.changed:.0%}); the screen after the action:\n{diff.text}")
        parts = [text_part("\n".join(lines))]
        if screenshots:
            parts += [text_part("Before:"), image_part(request.before.screenshot),
                      text_part("After:"), image_part(request.after.screenshot)]
        return parts
