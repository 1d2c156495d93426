"""Run metrics read back from a run folder: time per step and per actor, rates, spend, accuracy.

`bench.summary` counts results per domain; this module adds what needs the
step records: where a step's time went (Agent, act, screenshot, tree, the
Summarizer off the critical path), the environment-error rate, tokens and
cost, and for static benchmarks (steps with a reference action) step
accuracy and grounding accuracy. Plain data for summary.json and the report.
"""

from __future__ import annotations

from pathlib import Path
from statistics import mean

import msgspec

from protocols import ErrorKind, StepRecord, Viewport

from actors.run_folder import ResultLine, ResultsError, episode_dir, observation_path, read_results, read_steps
from bench.scoring import grounded, step_matches

ACTORS = ("agent", "act", "observe", "screenshot", "tree")


def run_metrics(run_dir: Path, lines: list[ResultLine] | None = None) -> dict:
    lines = read_results(run_dir) if lines is None else lines
    episodes = [(episode_dir(run_dir, l.result.task_id, l.result.attempt), l) for l in lines]
    steps = {folder: read_steps(folder) for folder, _ in episodes}
    every_step = [record for records in steps.values() for record in records]
    results = [line.result for line in lines]
    metrics: dict = {
        "episodes": len(results),
        "steps": len(every_step),
        "environment_error_rate": _rate(sum(r.error_kind is ErrorKind.ENVIRONMENT for r in results), len(results)),
        "mean_steps": mean(r.steps for r in results) if results else 0.0,
        "seconds_per_step": mean(s.timings.total for s in every_step) if every_step else 0.0,
        "actor_seconds_per_step": _actor_seconds(every_step),
        "input_tokens": sum(r.input_tokens for r in results),
        "output_tokens": sum(r.output_tokens for r in results),
        "cost": sum(r.cost for r in results),
    }
    metrics.update(_accuracy(steps))
    return metrics


def _rate(count: int, total: int) -> float:
    return count / total if total else 0.0


def _actor_seconds(steps: list[StepRecord]) -> dict[str, float]:
    """Mean seconds per step each actor spent; the Summarizer's from ask to answer."""
    if not steps:
        return {}
    seconds = {name: mean(getattr(s.timings, name) for s in steps) for name in ACTORS}
    judged = [s.summary.answered_at - s.summary.asked_at for s in steps if s.summary and s.summary.answered_at]
    if judged:
        seconds["summarizer"] = mean(judged)
    return seconds


def _accuracy(steps: dict[Path, list[StepRecord]]) -> dict:
    """Step and grounding accuracy over the steps that have a reference action (none: no keys)."""
    matched: list[bool] = []
    inside: list[bool] = []
    for folder, records in steps.items():
        for record in records:
            if record.reference is None:
                continue
            viewport = _viewport(folder, record.step)
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


class _ViewportOnly(msgspec.Struct):
    viewport: Viewport | None = None


def _viewport(folder: Path, step: int) -> Viewport | None:
    """The viewport the step was decided on (pointer scoring needs it for normalized points)."""
    path = observation_path(folder, step)
    if not path.exists():
        return None
    try:
        return msgspec.json.decode(path.read_bytes(), type=_ViewportOnly).viewport
    except msgspec.DecodeError as exc:
        raise ResultsError(f"{path}: malformed observation: {exc}") from None
