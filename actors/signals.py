"""Failure signals read off an episode's records without any LLM.

They stand on their own when no LLM is configured and go into the LLM
classifier's prompt when one is.
"""

from __future__ import annotations

from protocols import EpisodeResult, ErrorKind, StepRecord

REPEAT_THRESHOLD = 3


def deterministic_signals(result: EpisodeResult, steps: tuple[StepRecord, ...]) -> tuple[str, ...]:
    signals: list[str] = []
    if result.error_kind is ErrorKind.ENVIRONMENT:
        signals.append(f"environment failure: {result.reason}")
    if result.error_kind is ErrorKind.MODEL_SERVICE:
        signals.append(f"model service failure: {result.reason}")
    if result.reason.startswith("step limit"):
        signals.append("step limit reached")
    if result.reason.startswith("time limit"):
        signals.append("time limit reached")
    unchanged = [r.step for r in steps if r.changed is False]
    if unchanged:
        signals.append(f"screen unchanged after steps {unchanged}")
    run = _longest_ineffective_repeat(steps)
    if run >= REPEAT_THRESHOLD:
        signals.append(f"same action repeated {run} times without effect")
    failed = [r.step for r in steps if r.error]
    if failed:
        signals.append(f"actions failed at steps {failed}")
    return tuple(signals)


def _longest_ineffective_repeat(steps: tuple[StepRecord, ...]) -> int:
    longest = current = 0
    previous = None
    for record in steps:
        if record.action == previous and record.changed is False:
            current += 1
        else:
            current = 1 if record.changed is False else 0
        longest = max(longest, current)
        previous = record.action
    return longest


HARNESS = "harness"
"""The category of an episode the harness could not judge (a metric or getter it lacks, a
checker that failed): neither the agent's fault nor the benchmark's design."""


def categories_from_signals(result: EpisodeResult, signals: tuple[str, ...]) -> dict[str, float]:
    """A first, rule-based filing into the taxonomy (the LLM classifier refines it).

    Only what a signal really observed is filed: a failure no signal explains gets no
    category (it counts as unclassified), never a language-model category that no
    model judged it to have."""
    if result.success:
        return {"success": 1.0}
    if result.error_kind in (ErrorKind.ENVIRONMENT, ErrorKind.MODEL_SERVICE):
        return {"system": 1.0}
    if result.error_kind is ErrorKind.EVALUATION:
        return {HARNESS: 1.0}
    categories: dict[str, float] = {}
    if any("without effect" in s or "actions failed" in s for s in signals):
        categories["interaction_execution"] = 1.0
    if any("limit reached" in s for s in signals):
        categories["navigation_planning"] = 1.0
    return categories
