"""Episode error analysis: an LLM files a failed episode under the error taxonomy.

Multi-label, with a score in [0, 1] per category, an explanation and a
one-line summary, from the goal, the verdict, the plan and action history
(with each action's error), the change summaries, the deterministic signals
and the final observation. Successes and environment failures are already
certain from the verdict and the runner, so they keep the deterministic
analysis and cost no call. When the classifier cannot answer, the
deterministic analysis stands, with the reason noted.
"""

from __future__ import annotations

from typing import Any

import msgspec

from protocols import Analyze, EpisodeAnalysis, ErrorKind, ModelCall, StepRecord, to_json

from actors.errors import ModelServiceError, NoAnswer
from actors.llm.client import LLMClient, text_part
from actors.llm.observation import Mode, observation_parts
from actors.llm.tree_text import TREE_TOKENS
from actors.llm.replies import ReplyError, ask, decode_reply

TAXONOMY: dict[str, str] = {
    "navigation_planning": "agent error: a wrong or missing plan, lost its way, steps in the wrong order, "
                           "stopped before the task was complete",
    "interaction_execution": "agent error: the right intention carried out wrongly (missed click, text in the "
                             "wrong field, a scroll or key that did not take effect)",
    "information_processing": "agent error: misread, missed or mis-copied information that was on the screen",
    "observation_action": "agent error: acted on something not on the screen, or an action that does not "
                          "match what the observation showed",
    "task_understanding": "language-model error: misunderstood what the task asks",
    "reasoning": "language-model error: faulty logic, a hallucinated fact or a wrong conclusion",
    "system": "environment error: the VM, browser or a tool crashed, hung, timed out or failed",
    "benchmark_design": "benchmark error: an ambiguous or infeasible task, or an evaluator that judged wrongly",
    "success": "the task was accomplished",
}

SYSTEM_PROMPT = """\
You analyse why a GUI agent's episode on a benchmark task failed. You are given the goal, \
the benchmark's verdict, failure signals computed from the records, every step (the agent's \
reasoning and plan, its action, the action's error, whether the screen changed, and a \
reviewer's judgement of the step) and the final screen.

Classify the episode with this taxonomy; several categories may apply:
""" + "\n".join(f"- {name}: {meaning}" for name, meaning in TAXONOMY.items()) + """

Reply with one JSON object and nothing else:
{"categories": {"<category>": <score from 0 to 1: how much it explains the failure>, ...}, \
"explanation": "<a paragraph: what went wrong and at which steps>", "summary": "<one line>"}
List only categories that apply."""


class _Reply(msgspec.Struct):
    categories: dict[str, Any] | list[str]
    explanation: str = ""
    summary: str = ""


def parse_classification(text: str) -> tuple[dict[str, float], str, str]:
    """Categories with scores, explanation and summary from a classifier reply.

    Partial replies are accepted: a list of names scores 1.0 each, unknown
    names are dropped, scores are clamped to [0, 1], a missing summary
    becomes the top category. A reply naming no known category is invalid."""
    reply = decode_reply(text, _Reply)
    named = reply.categories if isinstance(reply.categories, dict) else dict.fromkeys(reply.categories, 1.0)
    categories: dict[str, float] = {}
    for name, score in named.items():
        if name not in TAXONOMY:
            continue
        if isinstance(score, bool) or not isinstance(score, (int, float)):
            raise ReplyError(f"the score of {name!r} must be a number from 0 to 1, got {score!r}")
        categories[name] = min(1.0, max(0.0, float(score)))
    if not categories:
        raise ReplyError(f"`categories` names none of {sorted(TAXONOMY)}")
    summary = reply.summary or max(categories, key=categories.__getitem__)
    return categories, reply.explanation, summary


_NOT_THE_AGENTS = (ErrorKind.ENVIRONMENT, ErrorKind.MODEL_SERVICE)
"""Failures with nothing of the agent's to classify."""


class LLMAnalyst:
    def __init__(self, client: LLMClient, *, observation: Mode = "tree", max_bad_replies: int = 2,
                 tree_tokens: int = TREE_TOKENS) -> None:
        self.client = client
        self.observation = observation
        self.max_bad_replies = max_bad_replies
        self.tree_tokens = tree_tokens

    async def analyze(self, request: Analyze, deterministic: EpisodeAnalysis) -> EpisodeAnalysis:
        """The LLM's classification, carrying the deterministic signals along."""
        if request.result.success or request.result.error_kind in _NOT_THE_AGENTS:
            return deterministic
        messages = [{"role": "system", "content": SYSTEM_PROMPT},
                    {"role": "user", "content": self.prompt(request, deterministic.signals)}]
        try:
            (categories, explanation, summary), _, calls = await ask(
                self.client, messages, parse_classification, attempts=self.max_bad_replies, role="classifier")
        except NoAnswer as exc:
            return _unclassified(deterministic, str(exc), exc.calls)
        except ModelServiceError as exc:
            return _unclassified(deterministic, f"model service error: {exc}", exc.calls)
        return EpisodeAnalysis(episode_id=request.result.episode_id, analysis=explanation, summary=summary,
                               categories=categories, signals=deterministic.signals, calls=calls)

    def prompt(self, request: Analyze, signals: tuple[str, ...]) -> list[dict[str, Any]]:
        result = request.result
        lines = [
            f"Goal: {request.task.instruction}",
            f"Verdict: {'success' if result.success else 'failure'}, score {result.score:g}, "
            f"{result.steps} steps; {result.reason or 'no reason given'}",
            "Failure signals: " + ("; ".join(signals) or "none"),
            "Steps:",
            *(_step(record) for record in request.steps),
        ]
        parts = [text_part("\n".join(lines))]
        if request.final is not None:
            parts += observation_parts(request.final, self.observation, "Final screen", self.tree_tokens)
        return parts


def _step(record: StepRecord) -> str:
    line = f"{record.step}. {to_json(record.action).decode()}"
    if record.reasoning:
        line += f"\n   reasoning: {record.reasoning}"
    if record.error:
        line += f"\n   error: {record.error}"
    if record.changed is False:
        line += "\n   the screen did not change"
    if record.summary is not None:
        line += f"\n   reviewer: {record.summary.changes}; correct: {record.summary.correct}"
        if record.summary.reason:
            line += f"; {record.summary.reason}"
    return line


def _unclassified(deterministic: EpisodeAnalysis, why: str, calls: tuple[ModelCall, ...]) -> EpisodeAnalysis:
    """The deterministic analysis, saying why the classifier gave none, with the calls that tried."""
    return msgspec.structs.replace(deterministic, analysis=f"{deterministic.analysis}; LLM classifier: {why}",
                                   calls=calls)
