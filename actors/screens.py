"""A run folder's screenshots, each distinct image stored once.

Consecutive screens of an episode are often the same (an action that changed
nothing, a page that had not redrawn yet), and so are the first screens of a
task's episodes. The run folder keeps each distinct image once, under
`screens/<first two hex digits>/<sha256>.png`, and each step's `step-NNN.png`
is a hard link to it: every reader of the layout (`actors.run_folder`,
the viewer, the report, replay, a browser, pandas) finds the step's file
where it always was, and the disk holds its bytes once. A filesystem that
refuses hard links gets a copy instead.

What a run keeps is `SCREENSHOTS`: every screen (`all`), every screen of the
episodes that did not succeed and the last screen of those that did
(`failed`), the last screen of each episode (`final`), or none (`none`); the
live viewer still shows the latest screens from memory. An image no step
links to any more is removed with its last link.

How a run stores them is `FORMATS`: lossless PNG (`png`, the default), or lossy WebP or JPEG at a
`quality` from 1 to 100 (`webp`, `jpeg`: step-NNN.webp, step-NNN.jpg), which a desktop run's
screens need a fraction of the bytes for. Only storage is lossy: the agent, the summarizer and the
evaluator always get the lossless screenshot the observer captured, in memory. Each step's file
says by its name how it is stored, so a folder resumed with another format reads right, and
`actors.run_folder.read_screenshot` hands every reader a PNG whatever the folder holds. An image
Pillow cannot read (a test's stand-in bytes) is stored as given, as PNG.
"""

from __future__ import annotations

import errno
import hashlib
import io
import os
from pathlib import Path
from typing import Literal

from PIL import Image, UnidentifiedImageError

from actors.whole_writes import FolderFull, write_whole, writing

__all__ = [
    "DEFAULT_QUALITY", "FORMATS", "MEDIA_TYPES", "SCREENS", "SCREENSHOTS", "SUFFIXES", "Format", "Keep", "ScreenStore",
    "encoded",
]

SCREENS = "screens"
Keep = Literal["all", "failed", "final", "none"]
SCREENSHOTS: tuple[Keep, ...] = ("all", "failed", "final", "none")
Format = Literal["png", "webp", "jpeg"]
FORMATS: tuple[Format, ...] = ("png", "webp", "jpeg")
SUFFIXES: dict[str, str] = {"png": ".png", "webp": ".webp", "jpeg": ".jpg"}
"""Each format's file suffix; a step's file is step-NNN plus the suffix of the format it is stored in."""
MEDIA_TYPES: dict[str, str] = {".png": "image/png", ".webp": "image/webp", ".jpg": "image/jpeg"}
DEFAULT_QUALITY = 80
"""WebP and JPEG quality (1-100) when none is given: text on a screen stays legible."""
_ENCODER: dict[str, dict] = {"webp": {"method": 2}, "jpeg": {}}
"""WebP's effort 2 of 6: a 1280x800 screen encodes in tens of milliseconds (the default effort takes
five times as long for about a tenth fewer bytes), so the sink keeps up with many episodes at once."""
_NO_LINKS = {errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP, errno.EOPNOTSUPP}


class ScreenStore:
    """Writes and removes the step screenshots of one run folder (blocking: call it from a thread)."""

    def __init__(self, run_dir: Path, keep: Keep = "all", format: Format = "png",
                 quality: int = DEFAULT_QUALITY) -> None:
        self.root = Path(run_dir) / SCREENS
        self.keep = keep
        self.format = format
        self.quality = quality

    def write(self, path: Path, image: bytes) -> Path | None:
        """Make the step file `path` (a step-NNN.png; another suffix when the store's format is lossy)
        hold `image`: a link to the image's one stored copy, encoded and written first if new. Returns
        the step's file, None when the store keeps no screens."""
        if self.keep == "none":
            return None
        image, suffix = encoded(image, self.format, self.quality)
        path = path.with_suffix(suffix)
        blob = self._blob(image, suffix)
        if not blob.exists():
            try:
                with writing(blob):
                    blob.parent.mkdir(parents=True, exist_ok=True)
                partial = blob.with_name(f".{blob.name}.{os.getpid()}")
                write_whole(partial, image)
            except FolderFull as full:  # said as the step's screenshot, the file the user knows
                raise FolderFull(path, full.reason) from None
            os.replace(partial, blob)  # never a half-written image that later screens would link to
        with writing(path):
            path.unlink(missing_ok=True)
            try:
                os.link(blob, path)
                return path
            except OSError as exc:
                if exc.errno not in _NO_LINKS:
                    raise
        write_whole(path, image)
        return path

    def finished(self, folder: Path, success: bool) -> None:
        """An episode ended: keep what `keep` says of its screens (`final` and, for a success,
        `failed` keep the last one only)."""
        if self.keep == "final" or (self.keep == "failed" and success):
            for path in _shots(folder)[:-1]:
                self.remove(path)

    def clear(self, folder: Path) -> None:
        """Remove every screen of an episode folder about to be written again (an attempt that never
        finished), and the stored images only it showed."""
        for path in _shots(folder):
            self.remove(path)

    def remove(self, path: Path) -> None:
        """Remove a step's screenshot, and its stored image once no step links to it."""
        blob = self._blob(path.read_bytes(), path.suffix)
        path.unlink()
        try:
            if blob.stat().st_nlink == 1:
                blob.unlink()
        except FileNotFoundError:
            pass

    def _blob(self, stored: bytes, suffix: str) -> Path:
        """Where the stored bytes live: named by their own sha256, so equal screens encode to one
        file (Pillow's encoders are deterministic) and a step's file names its blob."""
        digest = hashlib.sha256(stored).hexdigest()
        return self.root / digest[:2] / f"{digest}{suffix}"


def encoded(image: bytes, format: Format, quality: int = DEFAULT_QUALITY) -> tuple[bytes, str]:
    """A PNG screenshot as `format` stores it, and that file's suffix."""
    if format == "png":
        return image, SUFFIXES["png"]
    try:
        with Image.open(io.BytesIO(image)) as picture:
            out = io.BytesIO()
            picture.convert("RGB").save(out, format=format.upper(), quality=quality, **_ENCODER[format])
    except UnidentifiedImageError:
        return image, SUFFIXES["png"]
    return out.getvalue(), SUFFIXES[format]


def _shots(folder: Path) -> list[Path]:
    """An episode folder's step screenshots, in step order, whatever format each is stored in."""
    return sorted(path for path in folder.glob("step-[0-9][0-9][0-9].*") if path.suffix in MEDIA_TYPES)
