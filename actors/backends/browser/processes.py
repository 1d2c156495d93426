"""Chromium processes under a process, read from /proc (Linux): for tests that kill a
browser for real and for benchmarks that weigh its memory."""

from __future__ import annotations

import os

from runtime.process_tree import descendants


def is_chromium(argv: list[bytes]) -> bool:
    return b"chrom" in os.path.basename(argv[0])


def browser_mains(root: int) -> list[int]:
    """Main Chromium processes (not renderers or helpers) below `root`."""
    return [pid for pid, argv in descendants(root).items()
            if is_chromium(argv) and not any(arg.startswith(b"--type=") for arg in argv)]


def chromium_memory(root: int) -> int:
    """Proportional set size (bytes) of every Chromium process below `root`: resident memory
    with shared pages split among their sharers, so summing over processes counts them once."""
    total = 0
    for pid, argv in descendants(root).items():
        if not is_chromium(argv):
            continue
        try:
            with open(f"/proc/{pid}/smaps_rollup") as rollup:
                total += next(int(line.split()[1]) for line in rollup if line.startswith("Pss:")) * 1024
        except (OSError, StopIteration):
            continue
    return total


_TICKS = os.sysconf("SC_CLK_TCK")


def process_kind(argv: list[bytes]) -> str:
    """What a process below a browser node is: `browser`, `renderer`, `gpu-process`, `utility`,
    `zygote` (Chromium's `--type=`), `driver` (Playwright's node.js), `node (python)` (the
    troupe node hosting the actors) or the program's name."""
    name = os.path.basename(argv[0]).decode(errors="replace") or "exited"
    if is_chromium(argv):
        kind = next((arg.removeprefix(b"--type=").decode() for arg in argv if arg.startswith(b"--type=")), "browser")
        return kind
    if name == "node":
        return "driver"
    if name.startswith("python"):
        return "node (python)"
    return name


def cpu_by_process(root: int) -> dict[int, tuple[str, float, float]]:
    """Every process below `root`: its kind, the CPU seconds (user + system) it used itself,
    and those its exited children used (counted once the process reaped them).

    Summing both over the processes alive at one moment counts every process below
    `root` that is alive or was reaped by one that is, each once."""
    used = {}
    for pid, argv in descendants(root).items():
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        used[pid] = (process_kind(argv), (int(fields[11]) + int(fields[12])) / _TICKS,
                     (int(fields[13]) + int(fields[14])) / _TICKS)
    return used
