"""The processes of a run, read from /proc (Linux): who a fault can hit, and where it listens.

A chaos run knows only the supervisor's pid. Everything else it attacks (the
node processes, the Chromium main and renderer processes under them, the
ports the nodes and the viewer listen on) is found below that pid at the
moment of the fault, so the tool needs no hook in the product.
"""

from __future__ import annotations

import os
from pathlib import Path

from actors.backends.browser.processes import descendants, is_chromium
from runtime.process_tree import alive

__all__ = ["alive", "browser_mains", "listening_ports", "nodes", "renderers", "tree"]

_LISTEN = "0A"  # TCP state code of a listening socket in /proc/net/tcp


def tree(root: int) -> list[int]:
    """Every process below `root` (not `root` itself)."""
    return sorted(descendants(root))


def nodes(root: int) -> list[int]:
    """troupe node processes (`python -m runtime.node`) below `root`."""
    return sorted(pid for pid, argv in descendants(root).items() if b"runtime.node" in argv)


def browser_mains(root: int) -> list[int]:
    """Chromium main processes (no `--type=`) below `root`."""
    return _chromium(root, lambda kind: kind is None)


def renderers(root: int) -> list[int]:
    """Chromium renderer processes (`--type=renderer`) below `root`."""
    return _chromium(root, lambda kind: kind == b"renderer")


def _chromium(root: int, wanted) -> list[int]:
    found = []
    for pid, argv in descendants(root).items():
        if is_chromium(argv):
            kind = next((arg.removeprefix(b"--type=") for arg in argv if arg.startswith(b"--type=")), None)
            if wanted(kind):
                found.append(pid)
    return sorted(found)


def listening_ports(pid: int) -> list[int]:
    """TCP ports `pid` listens on (IPv4 and IPv6), from its socket inodes and /proc/net/tcp."""
    inodes = set()
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(target[len("socket:["):-1])
    except OSError:
        return []
    ports = set()
    for table in ("tcp", "tcp6"):
        try:
            lines = Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 9 and fields[3] == _LISTEN and fields[9] in inodes:
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return sorted(ports)
