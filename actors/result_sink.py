"""ResultSink: the run folder (see `actors.run_folder`), written off the critical path.

Episodes `tell` the sink and move on; the sink writes in a worker thread,
the transcript of model calls (`actors.transcript`) included.
It is told directly rather than fed from the event bus because the bus drops
events for slow readers, and results must never be dropped: a full mailbox
slows the episode instead (backpressure), which only happens if the disk
cannot keep up.

results.jsonl is only ever appended to, one whole line at a time (or nothing:
`actors.whole_writes`), fsynced. A full disk ends the sink with FolderFull,
naming the file it could not write; what is already written stays whole.
The sink knows which episodes (task and repeat) already have a line (from the
file, at start) and never writes a second one, so a resumed or doubly-reported run cannot
duplicate a result; the one exception is a re-run of an episode whose line
says an error nobody's verdict on the agent (`RERUN_KINDS`), whose line then
replaces it. An episode folder left by an attempt that never finished
(the process died) is cleared when that attempt starts again, so its
steps.jsonl holds one run of the episode, not two interleaved.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
from pathlib import Path
from typing import Any

import anyio
import msgspec

from protocols import (
    Ack, EpisodeFinished, EpisodeStarted, Flush, ModelCalled, Observation, StepRecord, StepSummarized, StepTaken,
    Task, TaskAdopted, to_json,
)
from runtime.actor import Actor
from runtime.errors import Refused

from actors.run_folder import (
    RERUN_KINDS, RESULTS, STEPS, TASK, ResultLine, ResultsError, count_results, episode_dir, episode_label,
    observation_path, read_results, screenshot_path,
)
from actors.screens import DEFAULT_QUALITY, Format, Keep, ScreenStore
from actors.transcript import ScreenshotFiles, write_calls
from actors.whole_writes import append_whole, write_whole, writing

__all__ = ["NAME", "RESULTS", "ResultLine", "ResultSink", "ResultsError", "episode_dir", "read_results"]

NAME = "sink"
logger = logging.getLogger(__name__)


class ResultSink(Actor):
    mailbox_size = 1024

    def __init__(self, run_dir: Path, name: str = NAME, screenshots: Keep = "all", screenshot_format: Format = "png",
                 screenshot_quality: int = DEFAULT_QUALITY) -> None:
        super().__init__(name)
        self.run_dir = Path(run_dir)
        self.store = ScreenStore(self.run_dir, screenshots, screenshot_format, screenshot_quality)
        """Each distinct screenshot once, only those `screenshots` keeps, in `screenshot_format` (`actors.screens`)."""
        self.attempts: dict[str, Path] = {}
        """Each episode id's folder, from its EpisodeStarted."""
        self.finished: set[tuple[str, int]] = set()
        """The (task, repeat) pairs with a line that stays."""
        self.screenshots = ScreenshotFiles()

    async def on_start(self) -> None:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        await anyio.to_thread.run_sync(_end_torn_line, self.run_dir / RESULTS)
        lines = await anyio.to_thread.run_sync(read_results, self.run_dir)
        self.finished = {(line.result.task_id, line.result.repeat) for line in count_results(lines).lines
                         if line.result.error_kind not in RERUN_KINDS}

    async def handle(self, message: Any) -> Any:
        match message:
            case EpisodeStarted(episode_id=episode_id, task_id=task_id, attempt=attempt, task=task, repeat=repeat):
                self.attempts[episode_id] = episode_dir(self.run_dir, task_id, attempt, repeat)
                await anyio.to_thread.run_sync(_start_folder, self._folder(episode_id), task, self.store)
            case TaskAdopted(episode_id=episode_id, task=task):
                await anyio.to_thread.run_sync(_write_task, self._folder(episode_id), task)
            case StepTaken(record=record, screenshot=screenshot, before=before, calls=calls):
                folder = self._folder(record.episode_id)
                written = await anyio.to_thread.run_sync(_write_step, folder, record, screenshot, before, self.store)
                for sha256, path in written:
                    self.screenshots.holds(folder, sha256, path)
                await anyio.to_thread.run_sync(write_calls, folder, calls, self.screenshots)
            case StepSummarized(episode_id=episode_id, summary=summary, calls=calls):
                line = to_json({"summary": summary}) + b"\n"
                folder = self._folder(episode_id)
                await anyio.to_thread.run_sync(append_whole, folder / STEPS, line, False)
                await anyio.to_thread.run_sync(write_calls, folder, calls, self.screenshots)
            case ModelCalled(episode_id=episode_id, calls=calls):
                await anyio.to_thread.run_sync(write_calls, self._folder(episode_id), calls, self.screenshots)
            case EpisodeFinished(result=result, analysis=analysis):
                folder = self._folder(result.episode_id)
                if analysis is not None:
                    await anyio.to_thread.run_sync(write_calls, folder, analysis.calls, self.screenshots)
                self.screenshots.forget(folder)
                await anyio.to_thread.run_sync(self.store.finished, folder, result.success)
                self.attempts.pop(result.episode_id, None)
                key = result.task_id, result.repeat
                if key in self.finished:
                    logger.warning("task %s already has a result; not writing %s", episode_label(*key),
                                   result.episode_id)
                    return None
                line = ResultLine(
                    result=result,
                    categories=analysis.categories if analysis else {},
                    summary=analysis.summary if analysis else "",
                    analysis=analysis.analysis if analysis else "",
                    signals=analysis.signals if analysis else (),
                )
                await anyio.to_thread.run_sync(append_whole, self.run_dir / RESULTS, to_json(line) + b"\n", True)
                self.finished.add(key)
            case Flush():
                return Ack()
            case _:
                raise Refused(f"ResultSink does not handle {type(message).__name__}")
        return None

    def _folder(self, episode_id: str) -> Path:
        return self.attempts.get(episode_id) or episode_dir(self.run_dir, episode_id, 1)


def _start_folder(folder: Path, task: Task | None, store: ScreenStore) -> None:
    with writing(folder):
        if folder.exists():  # an unfinished attempt of an earlier, interrupted run
            store.clear(folder)
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
    if task is not None:
        _write_task(folder, task)


def _write_task(folder: Path, task: Task) -> None:
    write_whole(folder / TASK, to_json(task) + b"\n")


def _write_step(folder: Path, record: StepRecord, screenshot: bytes, before: Observation | None,
                store: ScreenStore) -> list[tuple[str, Path]]:
    """Write a step's record, screenshot and observation; returns the sha256 of each screenshot
    written, with its file."""
    append_whole(folder / STEPS, to_json({"step": record}) + b"\n", False)
    shots = []
    if screenshot:
        shots.append((screenshot, screenshot_path(folder, record.step)))
    if before is not None:
        write_whole(observation_path(folder, record.step), to_json(msgspec.structs.replace(before, screenshot=b"")))
        first = screenshot_path(folder, 0)
        if record.step == 1 and before.screenshot and not first.exists():
            shots.append((before.screenshot, first))
    return [(hashlib.sha256(image).hexdigest(), written) for image, path in shots
            if (written := store.write(path, image)) is not None]


def _end_torn_line(path: Path) -> None:
    """After a crash mid-write, close the torn line (a prefix of a line, or the NUL bytes of a file
    that grew before its data reached the disk) so the next result starts a line of its own
    (the reader skips the fragment; nothing is rewritten)."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with path.open("rb") as file:
        file.seek(-1, os.SEEK_END)
        if file.read(1) != b"\n":
            append_whole(path, b"\n", True)
