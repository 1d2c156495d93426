"""A run folder's episodes as a pandas DataFrame, one row per episode (and its figures, one row
per domain).

results.jsonl is already plain JSON lines that pandas can read, but its
records nest (the verdict under `result`, timings under `result.timings`)
and omit default values; this flattens them into the columns an analysis
wants, with every column present on every row. pandas is an optional extra
(`pip install 'troupe-bench[analysis]'`), imported only when a frame is asked for,
so the harness itself never needs it.
"""

from __future__ import annotations

import os
from pathlib import Path

from actors.run_folder import RESULTS, ResultLine, ResultsError, count_results, read_results
from bench.extras import install_hint
from bench.run_record import RUN_INFO
from bench.summary import summarize

__all__ = ["COLUMNS", "DOMAIN_COLUMNS", "domains_frame", "episodes_frame", "read_run"]

COLUMNS = (
    "task_id", "episode_id", "domain", "repeat", "attempt", "success", "score", "steps", "error_kind", "reason",
    "categories", "cost", "input_tokens", "output_tokens",
    "reset_seconds", "steps_seconds", "evaluate_seconds", "total_seconds",
)
"""The frame's columns, in order. `categories` holds the error analysis's
score per taxonomy category (a dict, empty without an analysis); `repeat` is
which of the run's repeats of the task the row is (1 without `--repeats`); the
`*_seconds` columns are the episode's reset, steps, evaluation and total time."""


DOMAIN_COLUMNS = (
    "domain", "episodes", "succeeded", "success_rate", "success_low", "success_high", "success_interval_method",
    "mean_steps", "sd_steps", "mean_seconds", "sd_seconds",
)
"""`domains_frame`'s columns: `success_low` and `success_high` bound the 95% interval of
`success_rate`, which `success_interval_method` names: "wilson", or "clustered_wilson" (tasks as
clusters) for a run with repeats; `sd_*` are the sample standard deviations beside the means
(`bench.summary`)."""


def read_run(folder: str | os.PathLike) -> list[ResultLine]:
    """The results.jsonl lines a run folder counts, one per task and repeat (`count_results`: an episode
    re-run after a model-service or environment error counts as its re-run), refusing a folder
    that is not a run folder.

    `read_results` reads a missing results.jsonl as a run with no episodes yet,
    which is right when resuming but hides a mistyped path when analysing: here a
    folder is a run when it has results.jsonl, or run.json (a run that has started
    and finished no episode yet).
    """
    path = Path(folder) / RESULTS
    if not path.is_file():
        if (Path(folder) / RUN_INFO).is_file():
            return []
        raise ResultsError(f"{folder}: not a run folder (no {RESULTS})")
    return count_results(read_results(Path(folder))).lines


def episodes_frame(folder: str | os.PathLike):
    """One row per finished task of the run folder (its re-run's, for one run again), in the
    order they finished.

    Returns a `pandas.DataFrame` with the columns in `COLUMNS`; raises
    ResultsError for a folder without results.jsonl or with a malformed line,
    and ImportError (saying what to install) when pandas is missing.
    """
    return _pandas("episodes_frame").DataFrame([_row(line) for line in read_run(folder)], columns=list(COLUMNS))


def domains_frame(folder: str | os.PathLike):
    """One row per domain, then one for "all": the run's success with its interval and its mean
    steps and seconds with their spread, as summary.json states them, counted from results.jsonl
    (so a run folder written before the intervals existed has them too). Raises as `episodes_frame`."""
    pandas = _pandas("domains_frame")
    summary = summarize([line.result for line in count_results(read_run(folder)).lines])
    groups = [*summary["domains"].items(), ("all", summary["overall"])]
    return pandas.DataFrame([_domain_row(domain, figures) for domain, figures in groups if figures["episodes"]],
                            columns=list(DOMAIN_COLUMNS))


def _domain_row(domain: str, figures: dict) -> tuple:
    low, high = figures["success_interval"]
    return (domain, figures["episodes"], figures["succeeded"], figures["success_rate"], low, high,
            figures["success_interval_method"], figures["mean_steps"], figures["sd_steps"], figures["mean_seconds"], figures["sd_seconds"])


def _pandas(asking: str):
    try:
        import pandas
    except ImportError:
        raise ImportError(f"{asking} needs pandas: {install_hint('analysis')}") from None
    return pandas


def _row(line: ResultLine) -> tuple:
    result, timings = line.result, line.result.timings
    return (
        result.task_id, result.episode_id, result.domain, result.repeat, result.attempt, result.success, result.score,
        result.steps, result.error_kind.value, result.reason,
        dict(line.categories), result.cost, result.input_tokens, result.output_tokens,
        timings.reset, timings.steps, timings.evaluate, timings.total,
    )
