"""The run folder's layout, and how to read it back.

The ResultSink writes it; resuming, the metrics, the report and the replay
benchmark read it. Everything is plain JSON lines and PNGs, so pandas, jq
and a browser read it too:

  results.jsonl                                  one line per finished episode
  .lock                                          held by the run writing the folder (`actors.run_lock`)
  episodes/<task>/<attempt>/task.json            the task as the suite gave it
  episodes/<task>/<attempt>/steps.jsonl          {"step": StepRecord} and {"summary": ChangeSummary} lines
  episodes/<task>/<attempt>/step-NNN.png         the screen after step NNN (000: after reset)
  episodes/<task>/<attempt>/observation-NNN.json what the agent saw before step NNN, without pixels
  episodes/<task>/<attempt>/calls.jsonl          every model call (agent, summarizer, classifier), one
                                                 `ModelCall` a line: the request (its images named by
                                                 the file that holds them), reply, tokens, cost,
                                                 latency, retries and why (`actors.transcript`)
  episodes/<task>/<attempt>/agent-NNN.png        a picture the agent was shown for step NNN that is no
                                                 step's screenshot (set-of-marks, scaled); likewise
                                                 summarizer-NNN.png, classifier-000.png

A line cut short by a crash mid-write is skipped (it is a prefix of a line
that never finished), and so is a line holding NUL bytes (what a file that
grew before its data reached the disk shows after a crash: JSON text never
holds a raw NUL), and so is such a prefix with a whole line glued after it
(the whole line is read); any other malformed line is someone else's file or a bug,
and reading stops with an error naming the file, the line and the fault.

A summary counts one line per task, the first, and only tasks of the run's
selection (`count_results`); the rest is named, not counted. The one later
line that counts is a re-run's: an episode that ended on an error that is no
verdict on the agent (`RERUN_KINDS`: model service, environment) is run again
when its run is resumed, and the re-run's line replaces it. An episode whose
steps or observations are garbled is named too (`read_episodes`) and the
other episodes are read as usual.
"""

from __future__ import annotations

import logging
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from protocols import (
    ChangeSummary, EpisodeResult, ErrorKind, ModelCall, Observation, StepRecord, Task, TroupeError, Viewport,
)

RESULTS = "results.jsonl"
STEPS = "steps.jsonl"
CALLS = "calls.jsonl"
TASK = "task.json"

logger = logging.getLogger(__name__)

RERUN_KINDS = frozenset({ErrorKind.MODEL_SERVICE, ErrorKind.ENVIRONMENT})
"""The error kinds a resumed run runs again (unless told not to): neither says anything of the
agent, and both may pass (a model service back up, a VM host that recovered)."""


class ResultsError(TroupeError, ValueError):
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


def picture_path(folder: Path, role: str, step: int, suffix: str = ".png") -> Path:
    """A picture the `role` was shown for `step` that no step-NNN.png holds (`actors.transcript`)."""
    return folder / f"{role}-{step:03d}{suffix}"


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
            if _torn(raw, exc):
                logger.warning("%s:%d: skipping a line torn by a crash", path, number)
                continue
            whole = _after_torn(decoder, raw)
            if whole is None:
                raise ResultsError(f"{path}:{number}: malformed line: {exc}") from None
            logger.warning("%s:%d: skipping a fragment torn by a crash before a whole line", path, number)
            lines.append(whole)
    return lines


def _torn(raw: bytes, exc: msgspec.DecodeError) -> bool:
    return b"\0" in raw or "truncated" in str(exc)


def _after_torn(decoder: msgspec.json.Decoder, raw: bytes) -> Any:
    """The whole line a crash-torn fragment was glued to (a write that stopped short, then the
    next line appended right after it): the tail of `raw` from some `{` that decodes, where
    what precedes it is itself torn. None when `raw` is not that."""
    start = raw.find(b"{", 1)
    while start != -1:
        try:
            whole = decoder.decode(raw[start:])
        except msgspec.DecodeError:
            pass
        else:
            try:
                msgspec.json.decode(raw[:start])
            except msgspec.DecodeError as exc:
                if _torn(raw[:start], exc):
                    return whole
            return None
        start = raw.find(b"{", start + 1)
    return None


def read_results(run_dir: Path) -> list[ResultLine]:
    """Every finished episode of the run, in the order they finished."""
    return read_lines(Path(run_dir) / RESULTS, ResultLine)


@dataclass(frozen=True)
class CountedResults:
    """The results.jsonl lines a run counts, and the task ids of the lines it ignored."""

    lines: list[ResultLine]
    duplicates: tuple[str, ...] = ()
    """Tasks with a second line that is no re-run (the sink never writes one: a hand edit, a concatenated
    file or an older harness)."""
    foreign: tuple[str, ...] = ()
    """Tasks outside the run's selection (a line copied in from another run)."""

    @property
    def ignored(self) -> dict[str, list[str]]:
        """What was not counted, by why, for summary.json; empty when everything counted."""
        found = {"duplicates": list(self.duplicates), "foreign": list(self.foreign)}
        return found if self.duplicates or self.foreign else {}


def count_results(lines: list[ResultLine], selection: Collection[str] | None = None) -> CountedResults:
    """The first line of each task, or the re-run's that replaced it (`RERUN_KINDS`), of the tasks
    in `selection` when the run's selection is known, so a summary never counts a task twice or a
    task the run was not asked to run."""
    seen: set[str] = set()
    position: dict[str, int] = {}
    counted, duplicates, foreign = [], [], []
    for line in lines:
        task_id = line.result.task_id
        if task_id in position and counted[position[task_id]].result.error_kind in RERUN_KINDS:
            counted[position[task_id]] = line
        elif task_id in seen:
            duplicates.append(task_id)
        elif selection is not None and task_id not in selection:
            foreign.append(task_id)
        else:
            position[task_id] = len(counted)
            counted.append(line)
        seen.add(task_id)
    return CountedResults(counted, tuple(duplicates), tuple(foreign))


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


@dataclass(frozen=True)
class Episode:
    """A finished episode read back: its result line, folder and step records, and the viewport
    each step with a reference action was decided on (scoring a pointer needs it)."""

    line: ResultLine
    folder: Path
    steps: list[StepRecord]
    viewports: dict[int, Viewport | None]


def read_episodes(run_dir: Path, lines: list[ResultLine]) -> tuple[list[Episode], dict[str, str]]:
    """The episode folder of each line, read back, and the episodes that could not be: task id ->
    the error naming the garbled file. One broken episode never hides the rest of a run; the
    caller says which were left out (`bench.api.execute` in one line each, the report above its table)."""
    episodes: list[Episode] = []
    unreadable: dict[str, str] = {}
    for line in lines:
        folder = episode_dir(run_dir, line.result.task_id, line.result.attempt)
        try:
            steps = read_steps(folder)
            viewports = {r.step: read_viewport(folder, r.step) for r in steps if r.reference is not None}
        except ResultsError as exc:
            unreadable[line.result.task_id] = str(exc)
            continue
        episodes.append(Episode(line, folder, steps, viewports))
    return episodes, unreadable


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


def read_calls(folder: Path) -> list[ModelCall]:
    """An episode's model calls in the order they were answered (none without an LLM role)."""
    return read_lines(Path(folder) / CALLS, ModelCall)


class _ViewportOnly(msgspec.Struct):
    viewport: Viewport | None = None


def read_viewport(folder: Path, step: int) -> Viewport | None:
    """The viewport the step was decided on, or None if no observation was recorded for it."""
    path = observation_path(Path(folder), step)
    if not path.exists():
        return None
    try:
        return msgspec.json.decode(path.read_bytes(), type=_ViewportOnly).viewport
    except msgspec.DecodeError as exc:
        raise ResultsError(f"{path}: malformed observation: {exc}") from None
