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
"""

from __future__ import annotations

import errno
import hashlib
import os
from pathlib import Path
from typing import Literal

from actors.whole_writes import FolderFull, write_whole, writing

__all__ = ["SCREENS", "SCREENSHOTS", "Keep", "ScreenStore"]

SCREENS = "screens"
Keep = Literal["all", "failed", "final", "none"]
SCREENSHOTS: tuple[Keep, ...] = ("all", "failed", "final", "none")
_NO_LINKS = {errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP, errno.EOPNOTSUPP}


class ScreenStore:
    """Writes and removes the step screenshots of one run folder (blocking: call it from a thread)."""

    def __init__(self, run_dir: Path, keep: Keep = "all") -> None:
        self.root = Path(run_dir) / SCREENS
        self.keep = keep

    def write(self, path: Path, image: bytes) -> None:
        """Make `path` hold `image`: a link to the image's one stored copy, written first if new."""
        if self.keep == "none":
            return
        blob = self._blob(image)
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
                return
            except OSError as exc:
                if exc.errno not in _NO_LINKS:
                    raise
        write_whole(path, image)

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
        blob = self._blob(path.read_bytes())
        path.unlink()
        try:
            if blob.stat().st_nlink == 1:
                blob.unlink()
        except FileNotFoundError:
            pass

    def _blob(self, image: bytes) -> Path:
        digest = hashlib.sha256(image).hexdigest()
        return self.root / digest[:2] / f"{digest}.png"


def _shots(folder: Path) -> list[Path]:
    """An episode folder's step screenshots, in step order."""
    return sorted(folder.glob("step-[0-9][0-9][0-9].png"))
