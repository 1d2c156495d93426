"""A server started as a process of its own for a benchmark, and stopped when the benchmark is done."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["server_process"]


@contextmanager
def server_process(argv: list[str], env: dict[str, str], address_of: Callable[[str], object]) -> Iterator[tuple]:
    """`python argv` until the block ends; yields its address, read from its first line, and its pid."""
    process = subprocess.Popen([sys.executable, *argv], stdout=subprocess.PIPE, text=True, env={**os.environ, **env})
    try:
        yield address_of(process.stdout.readline()), process.pid
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
