"""Finished run folders as the viewer page sees them: the same cards the live state sends.

A finished run has no event stream, so its cards are read back from the run
folder (results.jsonl, each episode's task, steps and screenshots) once, when
the viewer starts. With several runs, `bench.compare.compare` adds the
comparison the page shows beside them, and its paired statements in the words
the terminal prints. Screenshots stay on disk and are read
when the page asks for one.
"""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path
from typing import Any

from actors.run_folder import (
    ResultLine, ResultsError, episode_label, read_screenshot, read_steps, read_task, read_viewport, result_dir,
    screenshot_path,
)
from bench.compare import compare, method, run_labels, statements
from bench.frame import read_run
from bench.viewer.state import status_of

__all__ = ["FinishedRuns", "shot_base"]


def _thumbnail(folder: Path, last_step: int) -> int | None:
    """The last screen the agent acted on, as the live viewer shows a finished episode
    (the screen after the final action can be the environment's own, e.g. MiniWoB's reward page)."""
    for step in [last_step - 1, last_step, *range(last_step - 2, -1, -1)]:
        if screenshot_path(folder, step).exists():
            return step
    return None


class FinishedRuns:
    """Cards for every episode of the given run folders, and their screenshots."""

    def __init__(self, folders: list[Path]) -> None:
        self.folders = [Path(folder) for folder in folders]
        self.labels = run_labels([str(folder) for folder in self.folders])
        results = [read_run(folder) for folder in self.folders]
        self.comparison = compare(list(zip(self.labels, results))) if len(self.folders) > 1 else None
        self.cards = [self._card(run, line) for run, lines in enumerate(results) for line in _last_per_task(lines)]

    def _card(self, run: int, line: ResultLine) -> dict[str, Any]:
        result = line.result
        folder = result_dir(self.folders[run], result)
        try:
            instruction = read_task(folder).instruction
        except ResultsError:
            instruction = ""
        try:
            steps, viewport, unreadable = read_steps(folder), read_viewport(folder, 1), ""
        except ResultsError as exc:  # one garbled episode is shown as such; the rest of the run still is
            steps, viewport, unreadable = [], None, str(exc)
        base = shot_base(run, result.episode_id)
        thumbnail = _thumbnail(folder, max([s.step for s in steps], default=1))
        started = min((s.started_at for s in steps if s.started_at), default=0.0)
        return {
            "task_id": episode_label(result.task_id, result.repeat), "repeat": result.repeat,
            "episode_id": result.episode_id, "attempt": result.attempt,
            "started_at": started, "domain": result.domain, "instruction": instruction,
            "status": status_of(result), "steps": steps, "run": run, "shot_base": base,
            "shot": None if thumbnail is None else f"{base}/{thumbnail}", "unreadable": unreadable,
            "viewport": viewport and [viewport.width, viewport.height],
            "result": result, "categories": line.categories, "analysis": line.summary,
        }

    def snapshot(self) -> dict[str, Any]:
        paired = None if self.comparison is None else {
            "statements": statements(self.comparison), "method": method(self.comparison)}
        return {"msg": "snapshot", "live": False, "runs": self.labels, "episodes": self.cards,
                "comparison": self.comparison, "paired": paired}

    def screenshot(self, path: str) -> bytes | None:
        """The PNG at a page path /runs/<run>/shot/<episode>/<step>; None if the path is not one."""
        match = _SHOT.match(path)
        if match is None or int(match["run"]) >= len(self.folders):
            return None
        episode = urllib.parse.unquote(match["episode"])
        card = next((c for c in self.cards if c["run"] == int(match["run"]) and c["episode_id"] == episode), None)
        if card is None:
            return b""
        return read_screenshot(result_dir(self.folders[card["run"]], card["result"]), int(match["step"]))


_SHOT = re.compile(r"^/runs/(?P<run>\d+)/shot/(?P<episode>[^/]+)/(?P<step>\d+)$")


def shot_base(run: int, episode_id: str) -> str:
    return f"/runs/{run}/shot/{urllib.parse.quote(episode_id, safe='')}"


def _last_per_task(lines: list[ResultLine]) -> list[ResultLine]:
    """A task (a repeat of one) retried has several lines; its last one is its verdict (as in the report)."""
    return list({(line.result.task_id, line.result.repeat): line for line in lines}.values())
