"""The run summary: success per domain, steps, the three kinds of error, per-step time.

These figures come from results.jsonl alone, so they exist overall and per
domain, and are stated here only (a run with repeats, `--repeats`, adds its
pass@k and pass^k and an interval over tasks; see `_figures`): `bench.metrics` adds what needs the step
records (where a step's time went, spend, accuracy) and repeats none of them.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Sequence

from actors.run_folder import ResultLine
from bench.stats import clustered_wilson, pass_at_k, pass_hat_k, spread, wilson
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
    of the step records' own totals would leave out (their split by actor is in the metrics).

    When a task has more than one episode (a run with repeats), `success_interval` counts tasks,
    not episodes, as independent (`success_interval_method` says which: "wilson" or
    "clustered_wilson", with `effective_episodes`), and `pass_at_k` and `pass_hat_k` give, for k
    from 1 to the fewest repeats a task has, the mean over tasks of the chance that at least one
    of k repeats solves the task, and that all k do (`bench.stats`)."""
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
        **_repeats(results),
    }


def _repeats(results: list[EpisodeResult]) -> dict:
    """The figures of a run with repeats (see `_figures`); none for one episode per task."""
    by_task: dict[str, list[bool]] = defaultdict(list)
    for result in results:
        by_task[result.task_id].append(result.success)
    if len(by_task) == len(results):
        return {"success_interval_method": "wilson"}
    clusters = [(sum(verdicts), len(verdicts)) for verdicts in by_task.values()]
    low, high, effective = clustered_wilson(clusters)
    fewest = min(n for _, n in clusters)
    ks = range(1, fewest + 1)
    return {
        "success_interval": [low, high],
        "success_interval_method": "clustered_wilson",
        "effective_episodes": effective,
        "tasks": len(clusters),
        "repeats": [fewest, max(n for _, n in clusters)],
        "pass_at_k": {str(k): sum(pass_at_k(n, c, k) for c, n in clusters) / len(clusters) for k in ks},
        "pass_hat_k": {str(k): sum(pass_hat_k(n, c, k) for c, n in clusters) / len(clusters) for k in ks},
    }


def success_cell(figures: dict) -> str:
    """"7/9 78% [45, 94]": successes, the rate and its 95% interval in percent: the one the summary
    states for a run with repeats, else Wilson's from the counts (so a summary.json written before
    the interval existed reads the same)."""
    if figures.get("success_interval_method") == "clustered_wilson":
        return rate_cell(figures["succeeded"], figures["episodes"], figures["success_interval"])
    return rate_with_interval(figures.get("succeeded", 0), figures.get("episodes", 0))


def interval_name(summary: dict) -> str:
    """What the summary's success intervals are, in words, for a table's or a report's header."""
    if summary.get("overall", {}).get("success_interval_method") == "clustered_wilson":
        return "95% Wilson interval at the effective episodes, tasks as clusters"
    return "95% Wilson interval"


def pass_lines(summary: dict) -> list[str]:
    """pass@k and pass^k of a run with repeats, in words (none without repeats)."""
    overall = summary.get("overall", {})
    if "pass_at_k" not in overall:
        return []
    fewest, most = overall["repeats"]
    repeats = f"{fewest}" if fewest == most else f"{fewest} to {most}"
    return [f"{overall['tasks']} tasks x {repeats} repeats; pass@k (at least one of k repeats solves a task): "
            + ", ".join(f"k={k} {value:.0%}" for k, value in overall["pass_at_k"].items()),
            "pass^k (all k repeats solve it): "
            + ", ".join(f"k={k} {value:.0%}" for k, value in overall["pass_hat_k"].items())]


def rate_with_interval(succeeded: int, episodes: int) -> str:
    """"7/9 78% [45, 94]" (see `success_cell`)."""
    if not episodes:
        return "0/0"
    return rate_cell(succeeded, episodes, wilson(succeeded, episodes))


def rate_cell(succeeded: int, episodes: int, interval: Sequence[float]) -> str:
    """"7/9 78% [45, 94]" from the counts and an interval (fractions)."""
    low, high = interval
    return f"{succeeded}/{episodes} {succeeded / episodes:.0%} [{low * 100:.0f}, {high * 100:.0f}]"


def left_out(summary: dict) -> list[str]:
    """One line per thing the figures leave out, saying why: results.jsonl lines ignored
    (summary["ignored"]) and episodes whose files could not be read (summary["unreadable_episodes"])."""
    lines = [f"ignored {len(tasks)} results.jsonl line(s), {why}: {', '.join(tasks)}"
             for why, tasks in (summary.get("ignored") or {}).items() if tasks]
    lines += [f"unreadable episode {task} (left out of the metrics): {error}"
              for task, error in (summary.get("unreadable_episodes") or {}).items()]
    return lines
