"""One writer per run folder: a lock held on the folder's `.lock` file for the run's life.

Two runs writing one folder (a run started twice, a scheduler retrying) would
interleave results and step records. The lock is `flock` on an open file, so
the kernel drops it the moment its holder dies, however it dies: a killed
supervisor never blocks the command that resumes its run. The holder writes
its pid into the file so that the run refused can name it.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from actors.errors import ConfigError
from actors.whole_writes import writing

__all__ = ["LOCK", "FolderBusy", "check_unlocked", "hold_run_folder", "writer_alive"]

LOCK = ".lock"


class FolderBusy(ConfigError):
    """Another process holds the run folder's lock; the message names its pid."""


def _busy(folder: Path, fd: int) -> FolderBusy:
    os.lseek(fd, 0, os.SEEK_SET)
    holder = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
    return FolderBusy(f"run folder {folder} is being written by another run (pid {holder}); "
                      f"wait for it to end or choose another folder")


def check_unlocked(folder: Path) -> None:
    """Raise FolderBusy if a live run holds `folder`, without writing anything (a folder or a
    lock file that does not exist yet has no holder)."""
    try:
        fd = os.open(Path(folder) / LOCK, os.O_RDONLY)
    except (FileNotFoundError, NotADirectoryError):
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        raise _busy(Path(folder), fd) from None
    finally:
        os.close(fd)


def writer_alive(folder: Path) -> bool:
    """Whether the process whose pid `folder`'s lock file names is alive on this host: a run that
    has not recorded its end is still going on, not stopped. The lock itself is not tried (taking it,
    even shared and for an instant, would refuse a run starting on the folder then), so a pid reused
    since its run died reads as alive."""
    try:
        pid = int((Path(folder) / LOCK).read_text().strip())
    except (OSError, ValueError):
        return False
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except PermissionError:  # alive, another user's
        return True
    except OSError:
        return False
    return True


@contextmanager
def hold_run_folder(folder: Path) -> Iterator[None]:
    """Create `folder` and hold its lock until the block ends (or the process dies); FolderBusy
    if another process holds it."""
    folder = Path(folder)
    with writing(folder / LOCK):
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise _busy(folder, fd) from None
        with writing(folder / LOCK):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)
