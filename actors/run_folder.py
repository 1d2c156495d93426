"""The run folder's layout, and how to read it back.

The ResultSink writes it; resuming, the metrics, the report and the replay
benchmark read it. Everything is plain JSON lines and PNGs, so pandas, jq
and a browser read it too:

  results.jsonl                                  one line per finished episode
  episodes/<task>/<attempt>/task.json            the task as the suite gave it
  episodes/<task>/<attempt>/steps.jsonl          {"step": StepRecord} and {"summary": ChangeSummary} lines
  episodes/<task>/<attempt>/step-NNN.png         the screen after step NNN (000: after reset)
  episodes/<task>/<attempt>/observation-NNN.json what the agent saw before step NNN, without pixels

A line cut short by a crash mid-write is skipped (it is a prefix of a line
that never finished); any other malformed line is someone else's file or a
bug, and reading stops with an error naming the file, the line and the fault.
"""

from __future__ import annotations

import logging
from pathlib import Path

import msgspec

from protocols import ChangeSummary, EpisodeResult, Observation, StepRecord, Task

RESULTS = "results.jsonl"
STEPS = "steps.jsonl"
TASK = "task.json"

logger = logging.getLogger(__name__)


class ResultsError(ValueError):
    """A run-folder file that is not what the layout says; the message names file, line and fault."""


class ResultLine(msgspec.Struct, frozen=True, omit_defaults=True):
    """One line of results.jsonl: the verdict plus the error analysis (categories,
    one-line summary, explanation and the deterministic signals)."""

    result: EpisodeResult
    categories: dict[str, float] = {}
    summary: str = ""
    analysis: str = ""
    signals: tuple[str, ...] = ()


class StepLine(msgspec.Struct, frozen=True, omit_defaults=True):
    """One line of steps.jsonl: a step record, or a change summary that arrived later."""

    step: StepRecord | None = None
    summary: ChangeSummary | None = None


def episode_dir(run_dir: Path, task_id: str, attempt: int) -> Path:
    safe = "/".join(part for part in task_id.split("/") if part not in ("", ".", ".."))
    return Path(run_dir) / "episodes" / safe / str(attempt)


def screenshot_path(folder: Path, step: int) -> Path:
    return folder / f"step-{step:03d}.png"


def observation_path(folder: Path, step: int) -> Path:
    return folder / f"observation-{step:03d}.json"


def read_screenshot(folder: Path, step: int) -> bytes:
    """The PNG after `step`, or b"" if none was recorded."""
    try:
        return screenshot_path(Path(folder), step).read_bytes()
    except FileNotFoundError:
        return b""


def read_lines(path: Path, type: type) -> list:
    """Decode every whole line of a JSON-lines file; skip lines torn by a crash."""
    if not path.exists():
        return []
    decoder = msgspec.json.Decoder(type)
    lines = []
    for number, raw in enumerate(path.read_bytes().splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            lines.append(decoder.decode(raw))
        except msgspec.DecodeError as exc:
            if "truncated" in str(exc):
                logger.warning("%s:%d: skipping a line cut short by a crash", path, number)
                continue
            raise ResultsError(f"{path}:{number}: malformed line: {exc}") from None
    return lines


def read_results(run_dir: Path) -> list[ResultLine]:
    """Every finished episode of the run, in the order they finished."""
    return read_lines(Path(run_dir) / RESULTS, ResultLine)


def read_steps(folder: Path) -> list[StepRecord]:
    """An episode's step records in step order, each with its change summary attached."""
    records: dict[int, StepRecord] = {}
    summaries: dict[int, ChangeSummary] = {}
    for line in read_lines(Path(folder) / STEPS, StepLine):
        if line.step is not None:
            records[line.step.step] = line.step
        if line.summary is not None:
            summaries[line.summary.step] = line.summary
    return [
        msgspec.structs.replace(records[n], summary=summaries[n]) if n in summaries else records[n]
        for n in sorted(records)
    ]


def read_task(folder: Path) -> Task:
    path = Path(folder) / TASK
    try:
        return msgspec.json.decode(path.read_bytes(), type=Task)
    except FileNotFoundError:
        raise ResultsError(f"{path}: missing (the episode folder has no task)") from None
    except msgspec.DecodeError as exc:
        raise ResultsError(f"{path}: malformed task: {exc}") from None


def read_observation(folder: Path, step: int) -> Observation:
    """What the agent saw before `step`: the recorded tree and fields, with the screenshot of step - 1."""
    path = observation_path(Path(folder), step)
    try:
        observation = msgspec.json.decode(path.read_bytes(), type=Observation)
    except FileNotFoundError:
        raise ResultsError(f"{path}: missing (no observation recorded for step {step})") from None
    except msgspec.DecodeError as exc:
        raise ResultsError(f"{path}: malformed observation: {exc}") from None
    return msgspec.structs.replace(observation, screenshot=read_screenshot(folder, step - 1))
