"""Every run under a folder, as the viewer's folder page lists them: one row per run.

A run is a folder holding results.jsonl, or run.json (a run that has started and
finished no episode yet); the walk does not descend into one (its episodes are
no runs) except into its `config-N` folders (the runs `--force` started there
with other settings), nor into hidden folders. A run is named by its
path under the root (its id in URLs), and only those ids are opened, so a URL
never reaches outside the root. Each row says what run.json and summary.json
say: suite, agent, when it started and whether it ended (or is still running:
its writer's process is alive), and success with its
95% Wilson interval, with pass@k and pass^k for a run with repeats (counted from results.jsonl when summary.json is not there
yet, or is older than the last result: a run going on, or resumed). A run
whose files cannot be read is a row naming the file; the rest of the folder is
still listed.

The runs are found again on every request, so a run that starts while the
page is open appears on reload. Opened runs (`FinishedRuns`, which reads
every step record) are kept for the few selections opened last, and read
again when their results.jsonl has changed. The server calls in from worker
threads (reading a run takes a while), so the kept selections have a lock.
"""

from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from actors.run_folder import RESULTS, ResultsError
from actors.run_lock import writer_alive
from protocols import TroupeError
from bench.frame import read_run
from bench.run_record import FORCED, RUN_INFO
from bench.summary import pass_lines, success_cell, summarize
from bench.viewer.files import StepFile
from bench.viewer.folders import FinishedRuns

__all__ = ["Catalog", "UnknownRun", "run_version"]

SUMMARY = "summary.json"
KEEP_OPENED = 8
"""Selections of runs kept read, the most recently opened first."""


class UnknownRun(TroupeError, LookupError):
    """A run id that names no run under the catalog's root."""


class Catalog:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._opened: OrderedDict[tuple, FinishedRuns] = OrderedDict()
        self._lock = threading.Lock()

    def runs(self) -> dict[str, Path]:
        """Run id (its path under the root, with /) -> its folder, for every run under the root."""
        found: dict[str, Path] = {}
        for folder, subfolders, files in os.walk(self.root):
            if RESULTS in files or RUN_INFO in files:
                found[Path(folder).relative_to(self.root).as_posix()] = Path(folder)
                subfolders[:] = sorted(name for name in subfolders if name.startswith(FORCED))
            else:
                subfolders[:] = sorted(name for name in subfolders if not name.startswith("."))
        return found

    def rows(self) -> list[dict[str, Any]]:
        """A row per run, the newest first (by when it started; else by its last result)."""
        rows = [_row(run_id, folder) for run_id, folder in self.runs().items()]
        return sorted(rows, key=lambda row: row["date"], reverse=True)

    def folders(self, ids: list[str]) -> list[Path]:
        """The folders of the runs `ids` names; UnknownRun for one that is none."""
        if not ids:
            raise UnknownRun("no run named (?run=ID, an id the runs page lists)")
        runs = self.runs()
        missing = [run_id for run_id in ids if run_id not in runs]
        if missing:
            raise UnknownRun(f"no run {missing[0]!r} under {self.root}")
        return [runs[run_id] for run_id in ids]

    def opened(self, ids: list[str]) -> FinishedRuns:
        """The runs `ids` names, read (ResultsError, UnknownRun if they cannot be)."""
        folders = self.folders(ids)
        key = tuple(zip(ids, map(run_version, folders)))
        with self._lock:
            runs = self._opened.get(key)
        if runs is None:
            runs = FinishedRuns(folders, ids=ids)
        with self._lock:
            self._opened.pop(key, None)
            self._opened[key] = runs
            while len(self._opened) > KEEP_OPENED:
                self._opened.popitem(last=False)
        return runs

    def step_file(self, wanted: StepFile) -> bytes:
        """A file of one step of an episode of an opened run (b"" when no opened selection has it)."""
        with self._lock:
            opened = list(reversed(self._opened.values()))
        return next((content for content in (runs.step_file(wanted) for runs in opened) if content), b"")


def run_version(folder: Path) -> tuple[int, int]:
    """What changes when a run gains a result: results.jsonl's size and time ((0, 0) before its first)."""
    try:
        stat = (folder / RESULTS).stat()
    except FileNotFoundError:
        return 0, 0
    return stat.st_size, stat.st_mtime_ns


def _row(run_id: str, folder: Path) -> dict[str, Any]:
    row: dict[str, Any] = {"id": run_id, "suite": "", "agent": "", "date": "", "ended": None, "running": False,
                           "episodes": 0, "succeeded": 0, "success": "", "interval": None, "passes": [], "error": ""}
    try:
        info = _json(folder / RUN_INFO)
        config = _object(info.get("config"))
        model = _object(config.get("llm")).get("model")
        agent = str(config.get("agent") or "")
        row.update(suite=str(config.get("suite") or ""), date=str(info.get("started") or ""), ended=info.get("ended"),
                   agent=agent + (f" ({model})" if model and agent == "llm" else ""),
                   running=bool(info) and not info.get("ended") and writer_alive(folder))
        summary = _json(folder / SUMMARY) if _newer(folder / SUMMARY, folder / RESULTS) else {}
        if not summary:
            lines = read_run(folder)
            summary = summarize([line.result for line in lines], lines)
        overall = _counts(_object(summary.get("overall")), folder / SUMMARY)
        row.update(episodes=overall.get("episodes", 0), succeeded=overall.get("succeeded", 0),
                   success=success_cell(overall), interval=overall.get("success_interval"),
                   passes=pass_lines(summary))
    except (ResultsError, OSError) as exc:
        row["error"] = str(exc)
    row["date"] = row["date"] or _last_result(folder)
    return row


def _newer(path: Path, than: Path) -> bool:
    """Whether `path` was written after `than` (False when it is not there)."""
    try:
        return path.stat().st_mtime_ns >= than.stat().st_mtime_ns
    except FileNotFoundError:
        return False


def _counts(overall: dict, path: Path) -> dict:
    """`overall` of a summary, refused (naming `path`) unless its episodes and successes are counts."""
    episodes, succeeded = overall.get("episodes", 0), overall.get("succeeded", 0)
    if not (isinstance(episodes, int) and isinstance(succeeded, int) and 0 <= succeeded <= episodes):
        raise ResultsError(f"{path}: overall has {succeeded!r} of {episodes!r} episodes succeeded, not counts")
    return overall


def _object(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _json(path: Path) -> dict:
    """A JSON object file, or {} when there is none; ResultsError naming it when it is no JSON object."""
    try:
        data = json.loads(path.read_bytes())
    except FileNotFoundError:
        return {}
    except ValueError as exc:
        raise ResultsError(f"{path}: not JSON ({exc})") from None
    if not isinstance(data, dict):
        raise ResultsError(f"{path}: not a JSON object")
    return data


def _last_result(folder: Path) -> str:
    """When the run last wrote a result, as an ISO time (for a run without run.json)."""
    try:
        return datetime.fromtimestamp((folder / RESULTS).stat().st_mtime, timezone.utc).isoformat()
    except OSError:
        return ""
