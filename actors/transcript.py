"""An episode's transcript of model calls (calls.jsonl), written by the ResultSink beside its steps.

A call's images arrive as the sha256 of their bytes (`actors.llm.transcript`);
the sink writes each with the name of the screenshot file in the episode
folder that holds those bytes, so a reader opens the very picture the model
saw. Each screenshot file is hashed once, when a call first names a hash the
sink has not seen; a hash no file holds (an image that was never a step's
screenshot) stays a bare hash.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import msgspec

from protocols import ModelCall, to_json

from actors.run_folder import CALLS
from actors.whole_writes import append_whole

__all__ = ["ScreenshotFiles", "write_calls"]


class ScreenshotFiles:
    """Which step-NNN.png of an episode folder holds an image, by the image's sha256."""

    def __init__(self) -> None:
        self._names: dict[Path, dict[str, str]] = {}
        self._hashed: dict[Path, set[str]] = {}

    def name(self, folder: Path, sha256: str) -> str | None:
        names = self._names.setdefault(folder, {})
        if sha256 not in names:
            hashed = self._hashed.setdefault(folder, set())
            for path in sorted(folder.glob("step-*.png")):
                if path.name not in hashed:
                    hashed.add(path.name)
                    names.setdefault(hashlib.sha256(path.read_bytes()).hexdigest(), path.name)
        return names.get(sha256)

    def forget(self, folder: Path) -> None:
        """The episode is over: nothing more will name its screenshots."""
        self._names.pop(folder, None)
        self._hashed.pop(folder, None)


def write_calls(folder: Path, calls: tuple[ModelCall, ...], files: ScreenshotFiles) -> None:
    """Append `calls` to the episode's transcript, their images named by file."""
    if not calls:
        return
    lines = b"".join(to_json(msgspec.structs.replace(call, messages=[_named(m, folder, files) for m in call.messages]))
                     + b"\n" for call in calls)
    append_whole(folder / CALLS, lines, False)


def _named(value: Any, folder: Path, files: ScreenshotFiles) -> Any:
    """`value` with every image reference in it, however deeply nested, named by its file."""
    if isinstance(value, list):
        return [_named(item, folder, files) for item in value]
    if not isinstance(value, dict):
        return value
    if value.get("type") == "image" and "sha256" in value:
        name = files.name(folder, value["sha256"])
        return {**value, "file": name} if name else value
    return {key: _named(item, folder, files) for key, item in value.items()}
