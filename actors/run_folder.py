"""The run folder's layout, and how to read it back.

The ResultSink writes it; resuming, the metrics, the report and the replay
benchmark read it. Everything is plain JSON lines and PNGs, so pandas, jq
and a browser read it too:

  results.jsonl                                  one line per finished episode
  .lock                                          held by the run writing the folder (`actors.run_lock`)
  episodes/<task>/<attempt>/task.json            the task as the suite gave it
  episodes/<task>/<attempt>/steps.jsonl          {"step": StepRecord} and {"summary": ChangeSummary} lines
  episodes/<task>/<attempt>/step-NNN.png         the screen after step NNN (000: after reset): a hard
                                                 link to its one stored copy in screens/ (`actors.screens`)
  screens/<xx>/<sha256>.png                      each distinct screenshot of the run, once
  .../step-NNN.webp, .../step-NNN.jpg            the same, of a run storing its screens lossy
                                                 (`--screenshot-format`), with screens/<xx>/<sha256>.webp, .jpg
  episodes/<task>/<attempt>/observation-NNN.json what the agent saw before step NNN, without pixels
  episodes/<task>/<attempt>/calls.jsonl          every model call (agent, summarizer, classifier), one
                                                 `ModelCall` a line: the request (its images named by
                                                 the file that holds them), reply, tokens, cost,
                                                 latency, retries and why (`actors.transcript`)
  episodes/<task>/<attempt>/agent-NNN.png        a picture the agent was shown for step NNN that is no
                                                 step's screenshot (set-of-marks, scaled); likewise
                                                 summarizer-NNN.png, classifier-000.png
  episodes/<task>/repeat-<R>/<attempt>/...       the same, for repeat R >= 2 of a run that repeats its
                                                 tasks (`--repeats`); repeat 1 is the folder above

A line cut short by a crash mid-write is skipped (it is a prefix of a line
that never finished), and so is a line holding NUL bytes (what a file that
grew before its data reached the disk shows after a crash: JSON text never
holds a raw NUL), and so is such a prefix with a whole line glued after it
(the whole line is read); any other malformed line is someone else's file or a bug,
and reading stops with an error naming the file, the line and the fault.

A summary counts one line per episode, that is per task and repeat (a run
without repeats has repeat 1 only), the first, and only tasks of the run's
selection and repeats up to the run's (`count_results`); the rest is named,
not counted. The one later
line that counts is a re-run's: an episode that ended on an error that is no
verdict on the agent (`RERUN_KINDS`: model service, environment) is run again
when its run is resumed, and the re-run's line replaces it. An episode whose
steps or observations are garbled is named too (`read_episodes`) and the
other episodes are read as usual.
"""

from __future__ import annotations

import io
import logging
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
from PIL import Image

from actors.screens import MEDIA_TYPES
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


def episode_dir(run_dir: Path, task_id: str, attempt: int, repeat: int = 1) -> Path:
    """The folder of one attempt of one repeat of a task (repeat 1 keeps the layout of a run
    without repeats, so such a run's folders read the same)."""
    safe = "/".join(part for part in task_id.split("/") if part not in ("", ".", ".."))
    repeated = f"repeat-{repeat}/" if repeat > 1 else ""
    return Path(run_dir) / "episodes" / safe / f"{repeated}{attempt}"


def result_dir(run_dir: Path, result: EpisodeResult) -> Path:
    """The episode folder of a result."""
    return episode_dir(run_dir, result.task_id, result.attempt, result.repeat)


def episode_name(task_id: str, repeat: int, attempt: int) -> str:
    """An episode's id: `<task>#<attempt>`, `<task>~<repeat>#<attempt>` for repeat 2 and later."""
    return f"{task_id}~{repeat}#{attempt}" if repeat > 1 else f"{task_id}#{attempt}"


def episode_label(task_id: str, repeat: int) -> str:
    """A task and repeat as messages and summary.json name them: the task id, and `~<repeat>`
    for repeat 2 and later."""
    return f"{task_id}~{repeat}" if repeat > 1 else task_id


def screenshot_path(folder: Path, step: int) -> Path:
    """The file holding the screen after `step`: step-NNN.png, or the step-NNN.webp or .jpg of a
    run storing its screens lossy (`actors.screens`); the .png path when none is stored."""
    png = Path(folder) / f"step-{step:03d}.png"
    if png.exists():
        return png
    lossy = (png.with_suffix(suffix) for suffix in MEDIA_TYPES if suffix != png.suffix)
    return next((path for path in lossy if path.exists()), png)


def picture_path(folder: Path, role: str, step: int, suffix: str = ".png") -> Path:
    """A picture the `role` was shown for `step` that no step-NNN.png holds (`actors.transcript`)."""
    return folder / f"{role}-{step:03d}{suffix}"


def observation_path(folder: Path, step: int) -> Path:
    return folder / f"observation-{step:03d}.json"


def read_screenshot(folder: Path, step: int) -> bytes:
    """The PNG after `step` (decoded from its lossy file when the run stored it lossy), or b"" if
    none was recorded."""
    stored, media_type = read_screenshot_file(folder, step)
    if media_type in ("", "image/png"):
        return stored
    with Image.open(io.BytesIO(stored)) as picture:
        png = io.BytesIO()
        picture.save(png, format="PNG")
    return png.getvalue()


def read_screenshot_file(folder: Path, step: int) -> tuple[bytes, str]:
    """The screen after `step` as stored, and its media type (`image/webp` of a lossy run), for a
    reader that hands it on as it is (a browser); (b"", "") if none was recorded."""
    path = screenshot_path(folder, step)
    try:
        return path.read_bytes(), MEDIA_TYPES[path.suffix]
    except FileNotFoundError:
        return b"", ""


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
    """The results.jsonl lines a run counts, and the episodes (`episode_label`) of the lines it ignored."""

    lines: list[ResultLine]
    duplicates: tuple[str, ...] = ()
    """Episodes with a second line that is no re-run (the sink never writes one: a hand edit, a
    concatenated file or an older harness)."""
    foreign: tuple[str, ...] = ()
    """Tasks outside the run's selection (a line copied in from another run), or repeats past the run's."""

    @property
    def ignored(self) -> dict[str, list[str]]:
        """What was not counted, by why, for summary.json; empty when everything counted."""
        found = {"duplicates": list(self.duplicates), "foreign": list(self.foreign)}
        return found if self.duplicates or self.foreign else {}


def count_results(lines: list[ResultLine], selection: Collection[str] | None = None,
                  repeats: int | None = None) -> CountedResults:
    """The first line of each episode (task and repeat), or the re-run's that replaced it
    (`RERUN_KINDS`), of the tasks in `selection` and the repeats up to `repeats` when the run's are
    known, so a summary never counts an episode twice or one the run was not asked to run."""
    seen: set[tuple[str, int]] = set()
    position: dict[tuple[str, int], int] = {}
    counted, duplicates, foreign = [], [], []
    for line in lines:
        key = line.result.task_id, line.result.repeat
        if key in position and counted[position[key]].result.error_kind in RERUN_KINDS:
            counted[position[key]] = line
        elif key in seen:
            duplicates.append(episode_label(*key))
        elif (selection is not None and key[0] not in selection) or (repeats is not None and key[1] > repeats):
            foreign.append(episode_label(*key))
        else:
            position[key] = len(counted)
            counted.append(line)
        seen.add(key)
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
    """The episode folder of each line, read back, and the episodes that could not be: the episode
    (`episode_label`: task and repeat) -> the error naming the garbled file. One broken episode never
    hides the rest of a run; the caller says which were left out (`bench.api.execute` in one line
    each, the report above its table)."""
    episodes: list[Episode] = []
    unreadable: dict[str, str] = {}
    for line in lines:
        folder = result_dir(run_dir, line.result)
        try:
            steps = read_steps(folder)
            viewports = {r.step: read_viewport(folder, r.step) for r in steps if r.reference is not None}
        except ResultsError as exc:
            unreadable[episode_label(line.result.task_id, line.result.repeat)] = str(exc)
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
