"""A node dies with the process that started it.

A SIGKILLed supervisor runs no cleanup: its node processes (and the Chromium
trees under them) would run on, orphaned, holding memory and ports (24 nodes
after 3 kills, 41 processes after one MiniWoB kill). So `run_local_node`
names itself in the child's environment (`lifeline_env`), and the node, as
it starts, asks Linux for a signal when its parent dies (`PR_SET_PDEATHSIG`):
SIGTERM, which the node handles like a stop, so its actors' `on_stop` close
the browser or desktop they own. A node started by hand (on a VM, under
systemd) has no such variable and outlives its shell.

Linux sends that signal when the *thread* that started the child ends, not
the process: trio starts processes from its worker threads, which end after
ten idle seconds, and every node started there would stop with them. So the
signal Linux sends is `LIFELINE`, whose handler sends SIGTERM only when the
parent process is gone (the node was handed to init); when only a thread
ended, the node was handed to another thread of its parent, stays armed, and
runs on.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys

__all__ = ["LIFELINE", "PARENT_ENV", "die_with_parent", "lifeline_env"]

PARENT_ENV = "TROUPE_NODE_PARENT"
"""The pid of the process that started the node and whose death ends it."""

_PR_SET_PDEATHSIG = 1
LIFELINE = signal.SIGUSR2
"""What Linux sends the node when the thread that started it ends: a cue to look at its parent."""


def lifeline_env() -> dict[str, str]:
    """The environment entry that ties a child started now to this process's life."""
    return {PARENT_ENV: str(os.getpid())}


def die_with_parent(signum: int = signal.SIGTERM) -> bool:
    """If started with `lifeline_env`, get `signum` when the parent dies; True if armed.

    The variable is removed from this process's environment so that what the
    node starts (a browser driver) does not take the node for its parent. If
    the parent is already gone (it died before the signal was armed), the
    signal is sent at once.
    """
    parent = os.environ.pop(PARENT_ENV, None)
    if parent is None or not sys.platform.startswith("linux"):
        return False
    if not parent.isdigit():
        raise ValueError(f"${PARENT_ENV} must be a process id, got {parent!r}")

    def parent_gone(*_: object) -> None:
        if os.getppid() != int(parent):
            os.kill(os.getpid(), signum)

    signal.signal(LIFELINE, parent_gone)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, LIFELINE, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl(PR_SET_PDEATHSIG) failed: {os.strerror(ctypes.get_errno())}")
    parent_gone()  # it died before the signal was armed
    return True
