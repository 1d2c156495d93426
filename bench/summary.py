"""The run summary: success per domain, steps, environment errors, per-step time."""

from __future__ import annotations

from collections import defaultdict
from statistics import mean
from typing import Iterable

from actors.run_folder import ResultLine
from bench.taxonomy import taxonomy
from protocols import EpisodeResult, ErrorKind


def summarize(results: Iterable[EpisodeResult], lines: Iterable[ResultLine] = ()) -> dict:
    """Counts and rates overall and per domain; plain data for summary.json and the table.
    `lines` (results.jsonl) carry the error analysis, counted under `taxonomy`."""
    by_domain: dict[str, list[EpisodeResult]] = defaultdict(list)
    everything = list(results)
    for result in everything:
        by_domain[result.domain or "-"].append(result)
    return {
        "overall": _figures(everything),
        "domains": {domain: _figures(group) for domain, group in sorted(by_domain.items())},
        "taxonomy": taxonomy(lines),
    }


def _figures(results: list[EpisodeResult]) -> dict:
    if not results:
        return {"episodes": 0}
    steps = sum(r.steps for r in results)
    step_time = sum(r.timings.steps for r in results)
    return {
        "episodes": len(results),
        "succeeded": sum(r.success for r in results),
        "success_rate": sum(r.success for r in results) / len(results),
        "mean_steps": mean(r.steps for r in results),
        "environment_errors": sum(r.error_kind is ErrorKind.ENVIRONMENT for r in results),
        "seconds_per_step": step_time / steps if steps else 0.0,
    }
