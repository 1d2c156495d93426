"""Search every run under a folder: which episodes mention a text, and where.

The fields searched are an episode's task id, its instruction (task.json), the
reason of its verdict, its error categories and the analysis's summary, and
its model transcript (calls.jsonl: the messages' text, the replies, the
errors). The match is the query as typed, ignoring case; a hit names the
run, the task, the field and the words around the match.

The short fields are read once per run and read again when its
results.jsonl changes; each transcript once and again when it changes
(`bench.viewer.transcripts`).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Iterator

from actors.run_folder import ResultsError, episode_label, read_task, result_dir
from bench.frame import read_run
from bench.viewer.catalog import Catalog, run_version
from bench.viewer.state import status_of
from bench.viewer.transcripts import Transcripts

__all__ = ["Search", "TRANSCRIPT"]

TRANSCRIPT = "transcript"
CONTEXT = 60
"""Characters shown on each side of a match."""
LIMIT = 200
"""Hits returned at most; the rest are counted."""


class Search:
    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self._episodes: dict[str, tuple[Any, list[dict[str, Any]]]] = {}
        self._lock = threading.Lock()
        self.transcripts = Transcripts()

    def find(self, query: str, limit: int = LIMIT) -> dict[str, Any]:
        """{"hits": [...], "more": hits left out, "unreadable": {run: error}} for `query`."""
        needle = query.strip().lower()
        hits: list[dict[str, Any]] = []
        unreadable: dict[str, str] = {}
        more = 0
        if needle:
            searched: list[Path] = []
            for run_id, folder in self.catalog.runs().items():
                try:
                    episodes = self._read(run_id, folder)
                except ResultsError as exc:
                    unreadable[run_id] = str(exc)
                    continue
                searched += [episode["folder"] for episode in episodes]
                for hit in self._hits(episodes, needle):
                    if len(hits) < limit:
                        hits.append({"run": run_id, **hit})
                    else:
                        more += 1
            self.transcripts.keep_only(searched)
        return {"query": query, "hits": hits, "more": more, "unreadable": unreadable}

    def _hits(self, episodes: list[dict[str, Any]], needle: str) -> Iterator[dict[str, Any]]:
        """One hit per field of an episode that contains `needle`; a field that says what an earlier
        one said (an analysis repeating the reason) is no second hit."""
        for episode in episodes:
            fields = [(field, text, text.lower()) for field, text in episode["fields"].items()]
            fields.append((TRANSCRIPT, *self.transcripts.of(episode["folder"])))
            said: set[str] = set()
            for field, text, lowered in fields:
                at = lowered.find(needle)
                if at >= 0 and text not in said:
                    said.add(text)
                    yield {"task_id": episode["task_id"], "status": episode["status"], "field": field,
                           "snippet": _snippet(text, at, len(needle))}

    def _read(self, run_id: str, folder: Path) -> list[dict[str, Any]]:
        version = run_version(folder)
        with self._lock:
            kept = self._episodes.get(run_id)
        if kept is not None and kept[0] == version:
            return kept[1]
        episodes = [_episode(folder, line) for line in read_run(folder)]
        with self._lock:
            self._episodes[run_id] = (version, episodes)
        return episodes


def _episode(run: Path, line) -> dict[str, Any]:
    result = line.result
    folder = result_dir(run, result)
    try:
        instruction = read_task(folder).instruction
    except ResultsError:
        instruction = ""
    categories = [name for name, score in line.categories.items() if name != "success" and score > 0]
    return {"task_id": episode_label(result.task_id, result.repeat), "status": status_of(result), "folder": folder,
            "fields": {"task id": result.task_id, "instruction": instruction, "reason": result.reason,
                       "category": ", ".join(categories), "analysis": line.summary}}


def _snippet(text: str, at: int, length: int) -> str:
    start, end = max(0, at - CONTEXT), min(len(text), at + length + CONTEXT)
    return ("…" if start else "") + " ".join(text[start:end].split()) + ("…" if end < len(text) else "")
