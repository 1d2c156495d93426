"""ResultSink: the run folder, written off the critical path.

Episodes `tell` the sink and move on; the sink writes in a worker thread.
It is told directly rather than fed from the event bus because the bus drops
events for slow readers, and results must never be dropped: a full mailbox
slows the episode instead (backpressure), which only happens if the disk
cannot keep up.

Layout (plain files, readable without troupe):
  results.jsonl                           one line per finished episode, fsynced
  episodes/<task>/<attempt>/steps.jsonl   step records and change summaries
  episodes/<task>/<attempt>/step-NNN.png  the screenshot after each step
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import msgspec

from protocols import Ack, EpisodeFinished, EpisodeStarted, Flush, EpisodeResult, StepSummarized, StepTaken, to_json
from runtime.actor import Actor
from runtime.errors import Refused

NAME = "sink"
RESULTS = "results.jsonl"


class ResultLine(msgspec.Struct, frozen=True, omit_defaults=True):
    """One line of results.jsonl: the verdict plus the analysis categories."""

    result: EpisodeResult
    categories: dict[str, float] = {}
    summary: str = ""


def read_results(run_dir: Path) -> list[ResultLine]:
    """Every complete line of results.jsonl; a torn last line (a crash mid-write) is skipped."""
    path = Path(run_dir) / RESULTS
    if not path.exists():
        return []
    lines = []
    for raw in path.read_bytes().splitlines():
        try:
            lines.append(msgspec.json.decode(raw, type=ResultLine))
        except msgspec.DecodeError:
            continue
    return lines


def episode_dir(run_dir: Path, task_id: str, attempt: int) -> Path:
    safe = "/".join(part for part in task_id.split("/") if part not in ("", ".", ".."))
    return Path(run_dir) / "episodes" / safe / str(attempt)


class ResultSink(Actor):
    mailbox_size = 1024

    def __init__(self, run_dir: Path, name: str = NAME) -> None:
        super().__init__(name)
        self.run_dir = Path(run_dir)
        self.attempts: dict[str, tuple[str, int]] = {}
        self.written = 0

    async def on_start(self) -> None:
        self.run_dir.mkdir(parents=True, exist_ok=True)
        await anyio.to_thread.run_sync(_end_torn_line, self.run_dir / RESULTS)

    async def handle(self, message: Any) -> Any:
        match message:
            case EpisodeStarted(episode_id=episode_id, task_id=task_id, attempt=attempt):
                self.attempts[episode_id] = (task_id, attempt)
            case StepTaken(record=record, screenshot=screenshot):
                folder = self._folder(record.episode_id)
                await anyio.to_thread.run_sync(self._write_step, folder, record, screenshot)
            case StepSummarized(episode_id=episode_id, summary=summary):
                folder = self._folder(episode_id)
                line = to_json({"summary": summary}) + b"\n"
                await anyio.to_thread.run_sync(_append, folder / "steps.jsonl", line, False)
            case EpisodeFinished(result=result, analysis=analysis):
                line = ResultLine(
                    result=result,
                    categories=analysis.categories if analysis else {},
                    summary=analysis.summary if analysis else "",
                )
                await anyio.to_thread.run_sync(_append, self.run_dir / RESULTS, to_json(line) + b"\n", True)
                self.attempts.pop(result.episode_id, None)
                self.written += 1
            case Flush():
                return Ack()
            case _:
                raise Refused(f"ResultSink does not handle {type(message).__name__}")

    def _folder(self, episode_id: str) -> Path:
        task_id, attempt = self.attempts.get(episode_id, (episode_id, 1))
        return episode_dir(self.run_dir, task_id, attempt)

    @staticmethod
    def _write_step(folder: Path, record, screenshot: bytes) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        _append(folder / "steps.jsonl", to_json({"step": record}) + b"\n", False)
        if screenshot:
            (folder / f"step-{record.step:03d}.png").write_bytes(screenshot)


def _end_torn_line(path: Path) -> None:
    """After a crash mid-write, close the torn line so the next result starts a line of its own
    (the reader skips the fragment; nothing is rewritten)."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with path.open("rb") as file:
        file.seek(-1, os.SEEK_END)
        if file.read(1) != b"\n":
            _append(path, b"\n", True)


def _append(path: Path, line: bytes, durable: bool) -> None:
    """Append one whole line in a single write; fsync when it must survive a crash."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)
