"""Finished run folders as the viewer page sees them: the same cards the live state sends.

A finished run has no event stream, so its cards are read back from the run
folder (results.jsonl, each episode's task, steps and screenshots) once, when
the viewer starts. With several runs, `bench.compare.compare` adds the
comparison the page shows beside them, and its paired statements in the words
the terminal prints; each run's pass@k and pass^k (a run with repeats) go in
the page's header. Screenshots, observations and model calls stay on disk
and are read when the page asks for one (`bench.viewer.files`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from actors.run_folder import (
    ResultLine, ResultsError, episode_label, read_steps, read_task, read_viewport, result_dir, screenshot_path,
)
from bench import plugins
from bench.compare import compare, method, run_labels, statements
from bench.frame import read_run
from bench.summary import pass_lines, summarize
from bench.viewer.files import StepFile, episode_bases, read
from bench.viewer.state import status_of, thumbnail_step
from protocols import TroupeError

__all__ = ["FinishedRuns", "last_screen_shows_work"]


def last_screen_shows_work(folder: Path) -> bool:
    """The run's suite's `last_screen_shows_work`, by the suite run.json names; True when the
    folder has none or names a suite this environment cannot load."""
    try:
        config = json.loads((folder / "run.json").read_text())["config"]
        name = config["suite"] + (f":{config['source']}" if config.get("source") else "")
        return plugins.suite_class(name)[0].last_screen_shows_work
    except (OSError, ValueError, KeyError, TypeError, TroupeError):
        return True


class FinishedRuns:
    """Cards for every episode of the given run folders, and their screenshots. `ids` name the
    runs in the page's file paths (default: their positions), so a server of many selections of
    runs can tell one run's files from another's; they label the runs too."""

    def __init__(self, folders: list[Path], ids: list[str] | None = None) -> None:
        self.folders = [Path(folder) for folder in folders]
        self.ids = ids or [str(run) for run in range(len(self.folders))]
        self.labels = run_labels(ids or [str(folder) for folder in self.folders])
        self.last_screen_shows_work = [last_screen_shows_work(folder) for folder in self.folders]
        results = [read_run(folder) for folder in self.folders]
        self.comparison = compare(list(zip(self.labels, results))) if len(self.folders) > 1 else None
        self.passes = [pass_lines(summarize([line.result for line in lines], lines)) for lines in results]
        """Each run's pass@k and pass^k in words (none for a run without repeats)."""
        self.cards = [self._card(run, line) for run, lines in enumerate(results) for line in _last_per_task(lines)]
        self._by_episode = {(self.ids[card["run"]], card["episode_id"]): card for card in self.cards}

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
        files = episode_bases(result.episode_id, self.ids[run])
        last = max([s.step for s in steps], default=1)
        shots = {n for n in range(last + 1) if screenshot_path(folder, n).exists()}
        thumbnail = thumbnail_step(shots, steps, finished=True, last_screen_shows_work=self.last_screen_shows_work[run])
        started = min((s.started_at for s in steps if s.started_at), default=0.0)
        return {
            "task_id": episode_label(result.task_id, result.repeat), "repeat": result.repeat,
            "episode_id": result.episode_id, "attempt": result.attempt,
            "started_at": started, "domain": result.domain, "instruction": instruction,
            "status": status_of(result), "steps": steps, "run": run, "files": files,
            "shot": None if thumbnail is None else f"{files['shot']}/{thumbnail}", "unreadable": unreadable,
            "viewport": viewport and [viewport.width, viewport.height],
            "result": result, "categories": line.categories, "analysis": line.summary,
        }

    def snapshot(self) -> dict[str, Any]:
        paired = None if self.comparison is None else {
            "statements": statements(self.comparison), "method": method(self.comparison)}
        return {"msg": "snapshot", "live": False, "runs": self.labels, "episodes": self.cards,
                "comparison": self.comparison, "paired": paired, "passes": self.passes}

    def step_file(self, wanted: StepFile) -> bytes:
        """A file of one step of one episode (b"" when there is none)."""
        card = self._by_episode.get((wanted.run, wanted.episode_id))
        if card is None:
            return b""
        return read(result_dir(self.folders[card["run"]], card["result"]), wanted.kind, wanted.step)


def _last_per_task(lines: list[ResultLine]) -> list[ResultLine]:
    """An episode (a task, or a repeat of one) retried has several lines; its last one is its verdict."""
    return list({(line.result.task_id, line.result.repeat): line for line in lines}.values())
