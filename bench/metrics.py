"""Run metrics read back from a run folder: time per step by actor, spend, accuracy.

`bench.summary` states the figures results.jsonl alone gives (episodes,
success, mean steps, environment errors, seconds per step), overall and per
domain; this module adds only what needs the step records: the number of
steps, where a step's time went (Agent, act, screenshot, tree, the
Summarizer off the critical path), tokens and cost, and for static
benchmarks (steps with a reference action) step accuracy and grounding
accuracy. Plain data for summary.json and the report, over the episodes
`actors.run_folder.read_episodes` could read (it names the ones it could not).
"""

from __future__ import annotations

from statistics import mean

from protocols import StepRecord

from actors.run_folder import Episode
from bench.scoring import grounded, step_matches

ACTORS = ("agent", "act", "observe", "screenshot", "tree")


def run_metrics(episodes: list[Episode]) -> dict:
    every_step = [record for episode in episodes for record in episode.steps]
    results = [episode.line.result for episode in episodes]
    metrics: dict = {
        "steps": len(every_step),
        "actor_seconds_per_step": _actor_seconds(every_step),
        "input_tokens": sum(r.input_tokens for r in results),
        "output_tokens": sum(r.output_tokens for r in results),
        "cost": sum(r.cost for r in results),
    }
    metrics.update(_accuracy(episodes))
    return metrics


def _rate(count: int, total: int) -> float | None:
    """None (null in summary.json, "n/a" in the report) where there is nothing to count: a rate
    over no steps is undefined, and 0 would read as an agent that always missed."""
    return count / total if total else None


def _actor_seconds(steps: list[StepRecord]) -> dict[str, float]:
    """Mean seconds per step each actor spent; the Summarizer's from ask to answer."""
    if not steps:
        return {}
    seconds = {name: mean(getattr(s.timings, name) for s in steps) for name in ACTORS}
    judged = [s.summary.answered_at - s.summary.asked_at for s in steps if s.summary and s.summary.answered_at]
    if judged:
        seconds["summarizer"] = mean(judged)
    return seconds


def _accuracy(episodes: list[Episode]) -> dict:
    """Step and grounding accuracy over the steps that have a reference action (none: no keys)."""
    matched: list[bool] = []
    inside: list[bool] = []
    for episode in episodes:
        for record in episode.steps:
            if record.reference is None:
                continue
            viewport = episode.viewports.get(record.step)
            matched.append(step_matches(record.action, record.reference, viewport))
            hit = grounded(record.action, record.reference, viewport)
            if hit is not None:
                inside.append(hit)
    if not matched:
        return {}
    return {
        "scored_steps": len(matched),
        "step_accuracy": _rate(sum(matched), len(matched)),
        "grounded_steps": len(inside),
        "grounding_accuracy": _rate(sum(inside), len(inside)),
    }

