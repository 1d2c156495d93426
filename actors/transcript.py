"""An episode's transcript of model calls (calls.jsonl), written by the ResultSink beside its steps.

A call's images arrive as the sha256 of their bytes (`actors.llm.transcript`);
the sink writes each with the name of the image file in the episode folder
that holds those bytes, so a reader opens the very picture the model saw.
A picture no file holds yet (a set-of-marks screenshot, a screenshot scaled
for the model: no step's own screenshot) is written first, once, named by
the role and step that first showed it (`agent-003.png`: what the agent saw
when it chose step 3); the same picture shown again (an unchanged screen, a
request asked again) is named by that file, not stored twice. Each image
file is hashed once, when a call first names a hash the sink has not seen;
a hash no file holds and whose bytes did not come along stays a bare hash.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import msgspec

from protocols import ModelCall, to_json

from actors.run_folder import CALLS, picture_path
from actors.whole_writes import append_whole, write_whole

__all__ = ["ScreenshotFiles", "write_calls"]

_IMAGE_FILES = ("*.png", "*.jpg")


class ScreenshotFiles:
    """Which image file of an episode folder (a step-NNN.png, a picture a model was shown) holds an
    image, by the image's sha256."""

    def __init__(self) -> None:
        self._names: dict[Path, dict[str, str]] = {}
        self._hashed: dict[Path, set[str]] = {}

    def name(self, folder: Path, sha256: str) -> str | None:
        names = self._names.setdefault(folder, {})
        if sha256 not in names:
            hashed = self._hashed.setdefault(folder, set())
            for path in sorted(path for pattern in _IMAGE_FILES for path in folder.glob(pattern)):
                if path.name not in hashed:
                    hashed.add(path.name)
                    names.setdefault(hashlib.sha256(path.read_bytes()).hexdigest(), path.name)
        return names.get(sha256)

    def holds(self, folder: Path, sha256: str, path: Path) -> None:
        """The step file `path` holds the image of `sha256`: a lossy copy of it when the run stores
        screens lossy, which no hash of the file would find, so a model shown the screenshot names
        that file instead of a lossless copy written beside it."""
        self._names.setdefault(folder, {}).setdefault(sha256, path.name)

    def keep(self, folder: Path, sha256: str, image: bytes, role: str, step: int) -> None:
        """Write `image` as the picture `role` was shown for `step`, unless a file of the folder already
        holds it."""
        if self.name(folder, sha256) is not None:
            return
        suffix = ".jpg" if image.startswith(b"\xff\xd8") else ".png"
        path = picture_path(folder, role, step, suffix)
        if path.exists():  # another picture shown by the same role for the same step
            path = path.with_stem(f"{path.stem}-{sha256[:12]}")
        write_whole(path, image)
        self._hashed.setdefault(folder, set()).add(path.name)
        self._names.setdefault(folder, {})[sha256] = path.name

    def forget(self, folder: Path) -> None:
        """The episode is over: nothing more will name its screenshots."""
        self._names.pop(folder, None)
        self._hashed.pop(folder, None)


def write_calls(folder: Path, calls: tuple[ModelCall, ...], files: ScreenshotFiles) -> None:
    """Append `calls` to the episode's transcript, their images named by file (written first when no
    file holds them)."""
    if not calls:
        return
    lines = b"".join(to_json(_recorded(call, folder, files)) + b"\n" for call in calls)
    append_whole(folder / CALLS, lines, False)


def _recorded(call: ModelCall, folder: Path, files: ScreenshotFiles) -> ModelCall:
    for sha256, image in call.images.items():
        files.keep(folder, sha256, image, call.role or "model", call.step)
    return msgspec.structs.replace(call, messages=[_named(m, folder, files) for m in call.messages], images={})


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
