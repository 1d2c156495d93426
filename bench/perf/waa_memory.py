"""The WAA server's peak memory under concurrent programs of the largest size it takes.

    python -m bench.perf.waa_memory [--programs 32]

Starts the WAA Linux server (`python -m actors.backends.waa.server`, on its
own Xvfb) and posts `--programs` /execute requests at once, each a pyautogui
program of `MAX_PROGRAM` bytes built to cost the parser the most (one call
whose argument is a list of as many one-digit numbers as fit: a syntax tree
node per two bytes). Prints the server's resident memory before, its peak
(VmHWM) after, and the answers; exits 1 if the peak is `LIMIT_MIB` or more.
"""

from __future__ import annotations

import argparse
import re
import secrets
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from actors.backends.waa.client import TOKEN_HEADER
from actors.backends.waa.commands import PREFIX, command
from actors.backends.waa.server.http import MAX_PROGRAM
from bench.perf.servers import server_process

__all__ = ["LIMIT_MIB", "costliest_program", "main", "measure"]

LIMIT_MIB = 300


def costliest_program() -> str:
    """A program of at most MAX_PROGRAM bytes with the most syntax tree nodes per byte."""
    start, end = "pyautogui.write([", "])"
    count = (MAX_PROGRAM - len(PREFIX) - len(start) - len(end)) // 2
    return start + "1," * count + end


def _mib(pid: int, field: str) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(rf"^{field}:\s+(\d+) kB", status, re.M).group(1)) / 1024


def measure(programs: int = 32) -> tuple[float, float, Counter]:
    """The server's resident MiB before, its peak MiB after, and the answers' statuses."""
    token = secrets.token_urlsafe(16)
    with server_process(["-m", "actors.backends.waa.server", "--port", "0", "--token", token], {},
                        lambda line: line.split()[2]) as (url, pid):
        before = _mib(pid, "VmRSS")
        body = {"command": command(costliest_program())}

        def post(_: int) -> int | str:
            try:
                return httpx.post(url + "/execute", json=body, headers={TOKEN_HEADER: token}, timeout=300).status_code
            except httpx.HTTPError as exc:
                return type(exc).__name__

        with ThreadPoolExecutor(programs) as pool:
            answers = Counter(pool.map(post, range(programs)))
        return before, _mib(pid, "VmHWM"), answers


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.perf.waa_memory", description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=32, help="programs posted at once (default: 32)")
    args = parser.parse_args(argv)
    before, peak, answers = measure(args.programs)
    print(f"{args.programs} programs of {MAX_PROGRAM} bytes at once: resident {before:.0f} MiB before, "
          f"peak {peak:.0f} MiB (limit {LIMIT_MIB}); answers {dict(answers)}")
    return 0 if peak < LIMIT_MIB else 1


if __name__ == "__main__":
    sys.exit(main())
