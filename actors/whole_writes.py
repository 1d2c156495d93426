"""Run-folder writes that complete or leave nothing, and the one error a full disk is.

`os.write` may write part of what it was given (a disk filling up, a signal),
and a file written halfway is a fragment a reader must guess about. Here an
append writes until the whole line is down, and any failure cuts the file
back to where it was; a whole file that fails is removed. A disk or quota
that is full (or a file-size limit) becomes `FolderFull`, naming the file,
so a run can end with one line saying what it could not write and what it kept.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from runtime.errors import TroupeError

__all__ = ["FolderFull", "append_whole", "write_whole", "writing"]

_FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}


class FolderFull(TroupeError, OSError):
    """The run folder's disk (or quota, or file-size limit) is full; `path` is what could not be written."""

    def __init__(self, path: Path, reason: str, message: str = "") -> None:
        super().__init__(message or f"{path}: {reason}")
        self.path = Path(path)
        self.reason = reason


@contextmanager
def writing(path: Path) -> Iterator[None]:
    """Turn a full disk met while writing `path` into FolderFull; other errors pass unchanged."""
    try:
        yield
    except OSError as exc:
        if isinstance(exc, FolderFull) or exc.errno not in _FULL:
            raise
        raise FolderFull(Path(exc.filename) if exc.filename else path, exc.strerror or str(exc)) from None


def append_whole(path: Path, line: bytes, durable: bool) -> None:
    """Append `line` whole or not at all (the file is cut back to its length before on any failure);
    fsync when it must survive a crash. One writer per file is assumed (the run folder's lock)."""
    with writing(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            start = os.fstat(fd).st_size
            try:
                view = memoryview(line)
                while view:
                    view = view[os.write(fd, view):]
                if durable:
                    os.fsync(fd)
            except BaseException:
                os.ftruncate(fd, start)
                raise
        finally:
            os.close(fd)


def write_whole(path: Path, data: bytes) -> None:
    """Write the file `path` whole, or remove what was written of it and raise."""
    with writing(path):
        try:
            path.write_bytes(data)
        except BaseException:
            path.unlink(missing_ok=True)
            raise
