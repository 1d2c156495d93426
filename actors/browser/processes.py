"""Chromium processes under a process, read from /proc (Linux): for tests that kill a
browser for real and for benchmarks that weigh its memory."""

from __future__ import annotations

import os


def descendants(root: int) -> dict[int, list[bytes]]:
    """Every process below `root`, with its argv."""
    parents, commands = {}, {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parents[int(entry)] = int(stat.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                commands[int(entry)] = cmdline.read().split(b"\0")
        except OSError:
            continue

    def below(pid: int) -> bool:
        while pid > 1:
            pid = parents.get(pid, 0)
            if pid == root:
                return True
        return False

    return {pid: argv for pid, argv in commands.items() if below(pid)}


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
