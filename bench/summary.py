"""The run summary: success per domain, steps, the three kinds of error, per-step time.

These figures come from results.jsonl alone, so they exist overall and per
domain, and are stated here only: `bench.metrics` adds what needs the step
records (where a step's time went, spend, accuracy) and repeats none of them.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable

from actors.run_folder import ResultLine
from bench.stats import spread, wilson
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
    """Failures are counted by kind, kept apart: `agent_errors` (the episode ran and the agent did
    not succeed), `environment_errors` (the VM failed past its retries) and `evaluation_errors`
    (a harness error: the checker could not judge); each is a count, its rate is it over
    `episodes`. `success_interval` is the 95% Wilson interval of `success_rate` (`bench.stats`);
    `sd_steps` and `sd_seconds` the sample standard deviations beside `mean_steps` and `mean_seconds`
    (an episode's wall time, reset and evaluation included). `seconds_per_step` is the
    wall time the episodes spent stepping over the steps they took: what a step costs the run,
    including what falls between steps and the part of a step a time limit cut short, which a mean
    of the step records' own totals would leave out (their split by actor is in the metrics)."""
    if not results:
        return {"episodes": 0}
    steps = sum(r.steps for r in results)
    step_time = sum(r.timings.steps for r in results)
    succeeded = sum(r.success for r in results)
    mean_steps, sd_steps = spread([r.steps for r in results])
    mean_seconds, sd_seconds = spread([r.timings.total for r in results])
    return {
        "episodes": len(results),
        "succeeded": succeeded,
        "success_rate": succeeded / len(results),
        "success_interval": list(wilson(succeeded, len(results))),
        "mean_steps": mean_steps,
        "sd_steps": sd_steps,
        "mean_seconds": mean_seconds,
        "sd_seconds": sd_seconds,
        "agent_errors": sum(not r.success and r.error_kind in (ErrorKind.AGENT, ErrorKind.NONE) for r in results),
        "environment_errors": sum(r.error_kind is ErrorKind.ENVIRONMENT for r in results),
        "model_service_errors": sum(r.error_kind is ErrorKind.MODEL_SERVICE for r in results),
        "evaluation_errors": sum(r.error_kind is ErrorKind.EVALUATION for r in results),
        "seconds_per_step": step_time / steps if steps else 0.0,
    }


def success_cell(figures: dict) -> str:
    """"7/9 78% [45, 94]": successes, the rate and its 95% Wilson interval in percent, from the
    counts (so a summary.json written before the interval existed reads the same)."""
    return rate_with_interval(figures.get("succeeded", 0), figures.get("episodes", 0))


def rate_with_interval(succeeded: int, episodes: int) -> str:
    """"7/9 78% [45, 94]" (see `success_cell`)."""
    if not episodes:
        return "0/0"
    low, high = wilson(succeeded, episodes)
    return f"{succeeded}/{episodes} {succeeded / episodes:.0%} [{low * 100:.0f}, {high * 100:.0f}]"


def left_out(summary: dict) -> list[str]:
    """One line per thing the figures leave out, saying why: results.jsonl lines ignored
    (summary["ignored"]) and episodes whose files could not be read (summary["unreadable_episodes"])."""
    lines = [f"ignored {len(tasks)} results.jsonl line(s), {why}: {', '.join(tasks)}"
             for why, tasks in (summary.get("ignored") or {}).items() if tasks]
    lines += [f"unreadable episode {task} (left out of the metrics): {error}"
              for task, error in (summary.get("unreadable_episodes") or {}).items()]
    return lines
