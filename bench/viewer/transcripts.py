"""The text of each episode's model transcript (calls.jsonl) as the runs page searches it: what
was asked, answered, and why a call failed.

A folder of runs can hold many transcripts, and a search looks in every one, so each file's text
is read once and read again only when the file's size or modification time has changed (a
running episode's transcript grows): a search reads only what is new since the last one. The text
is kept with its lower-case form (the search ignores case); images are no part of it (a transcript
names them by file), so it is small beside the run's screenshots. A file no search came to any
more (its run removed) is forgotten at the end of the next search (`Transcripts.keep_only`). Searches
run in worker threads, so the kept texts have a lock.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any, Iterable, NamedTuple

from actors.run_folder import CALLS, ResultsError, read_calls

__all__ = ["Transcript", "Transcripts"]


class Transcript(NamedTuple):
    text: str
    lowered: str


_NONE = Transcript("", "")


class Transcripts:
    def __init__(self) -> None:
        self._kept: dict[Path, tuple[tuple[int, int], Transcript]] = {}
        self._lock = threading.Lock()

    def of(self, folder: Path) -> Transcript:
        """The transcript of the episode in `folder`: "" when it has none (an episode without an
        LLM role) or its calls.jsonl cannot be read (the run's page names that file)."""
        path = folder / CALLS
        try:
            stat = path.stat()
        except OSError:
            return _NONE
        version = stat.st_size, stat.st_mtime_ns
        with self._lock:
            kept = self._kept.get(path)
        if kept is not None and kept[0] == version:
            return kept[1]
        transcript = _read(folder)
        with self._lock:
            self._kept[path] = version, transcript
        return transcript

    def keep_only(self, folders: Iterable[Path]) -> None:
        """Forget the transcripts of every episode folder but `folders`."""
        wanted = {folder / CALLS for folder in folders}
        with self._lock:
            for path in [path for path in self._kept if path not in wanted]:
                del self._kept[path]


def _read(folder: Path) -> Transcript:
    try:
        calls = read_calls(folder)
    except (OSError, ResultsError):
        return _NONE
    text = "\n".join(part for call in calls
                     for part in (*(_text(message) for message in call.messages), call.reply, call.error) if part)
    return Transcript(text, text.lower())


def _text(message: Any) -> str:
    """The text of one chat message, whether its content is a string or a list of parts."""
    content = message.get("content") if isinstance(message, dict) else message
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""
