"""A bare Xvfb display for tests, started with one extension turned off."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator


@contextlib.contextmanager
def xvfb_without(extension: str) -> Iterator[str]:
    """The display name of a 64x64 Xvfb lacking `extension` ("DAMAGE", "XTEST"), ended on exit."""
    read, write = os.pipe()
    xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-extension", extension, "-screen", "0", "64x64x24",
                             "-nolisten", "tcp"], pass_fds=(write,), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    os.close(write)
    try:
        with os.fdopen(read, "rb") as lines:
            yield ":" + lines.readline().decode().strip()
    finally:
        xvfb.terminate()
        xvfb.wait(10)
