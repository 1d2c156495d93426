"""Issue 17: a SIGKILLed supervisor leaves no node, and no Chromium, behind.

A supervisor-like parent process starts a node with `run_local_node` (as the
runner does), says which pid it got, and waits; the test SIGKILLs the parent
(no cleanup runs there) and reads /proc until every process that was below
it is gone. Orphans are adopted by init, so they are looked up by the pids
seen before the kill, not by descent.
"""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from bench.chaos.processes import alive, browser_mains, nodes, tree
from runtime.lifeline import PARENT_ENV, die_with_parent

pytestmark = pytest.mark.anyio

PARENT = textwrap.dedent("""
    import sys
    import anyio
    from runtime.remote import run_local_node

    async def main(app):
        async with anyio.create_task_group() as tg:
            node = await tg.start(run_local_node, app)
            print(node.pid, flush=True)
            await anyio.sleep_forever()

    anyio.run(main, sys.argv[1], backend=sys.argv[2])
""")


def start_parent(app: str, backend: str) -> tuple[subprocess.Popen, int]:
    """The parent process and the pid of the node it started (once connected to it)."""
    parent = subprocess.Popen([sys.executable, "-c", PARENT, app, backend], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    line = parent.stdout.readline()
    if not line.strip().isdigit():
        parent.kill()
        pytest.fail(f"the parent did not report a node: {line!r}; its stderr:\n{parent.communicate()[1][-3000:]}")
    return parent, int(line)


def left_after_kill(parent: subprocess.Popen, seconds: float = 10.0) -> tuple[list[int], list[int]]:
    """SIGKILL `parent`; return what was below it, and what of that still runs after `seconds`."""
    below = tree(parent.pid)
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + seconds
    while (left := [pid for pid in below if alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.1)
    return below, left


def kill_all(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


async def test_a_sim_node_exits_when_the_process_that_started_it_is_sigkilled(anyio_backend):
    parent, node = start_parent("actors.backends.sim.node:build", anyio_backend)
    assert nodes(parent.pid) == [node]
    started = time.monotonic()
    below, left = left_after_kill(parent)
    kill_all(left)
    assert node in below
    assert left == [], f"still running {time.monotonic() - started:.1f} s after the parent's SIGKILL: {left}"


async def test_a_miniwob_node_and_its_chromium_exit_when_the_process_that_started_it_is_sigkilled(anyio_backend):
    parent, node = start_parent("bench.suites.miniwob.node:build", anyio_backend)
    mains = browser_mains(parent.pid)
    assert mains, "the MiniWoB node runs no Chromium"
    below, left = left_after_kill(parent, seconds=15)
    kill_all(left)
    assert node in below and set(mains) <= set(below)
    assert left == [], f"still running after the parent's SIGKILL: {left}"


THREAD_PARENT = textwrap.dedent("""
    import os, subprocess, sys, threading
    from runtime.lifeline import lifeline_env
    from runtime.remote import TOKEN_ENV

    def start():  # as trio does: in a worker thread, which ends once idle
        node = subprocess.Popen([sys.executable, "-m", "runtime.node", "--app", "tests.node_apps:build"],
                                env={**os.environ, TOKEN_ENV: "t", **lifeline_env()}, stdout=subprocess.PIPE)
        node.stdout.readline()  # listening: its lifeline is armed
        print(node.pid, flush=True)

    thread = threading.Thread(target=start)
    thread.start()
    thread.join()
    sys.stdin.read()
""")


def test_a_node_outlives_the_thread_that_started_it_but_not_the_process():
    parent = subprocess.Popen([sys.executable, "-c", THREAD_PARENT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              text=True)
    node = int(parent.stdout.readline())
    time.sleep(0.5)  # a node stopped when the thread ended would be gone by now
    assert alive(node), "the node stopped when the thread that started it ended"
    below, left = left_after_kill(parent)
    kill_all(left)
    assert node in below and left == [], f"still running after the parent's SIGKILL: {left}"


def test_without_a_lifeline_nothing_is_armed_and_a_wrong_one_is_named(monkeypatch):
    monkeypatch.delenv(PARENT_ENV, raising=False)
    assert die_with_parent() is False
    monkeypatch.setenv(PARENT_ENV, "me")
    with pytest.raises(ValueError, match=r"TROUPE_NODE_PARENT must be a process id, got 'me'"):
        die_with_parent()
    assert PARENT_ENV not in os.environ


async def test_a_sigkilled_miniwob_node_takes_its_chromium_with_it(anyio_backend):
    parent, node = start_parent("bench.suites.miniwob.node:build", anyio_backend)
    try:
        below = tree(node)
        assert browser_mains(node), "the MiniWoB node runs no Chromium"
        os.kill(node, signal.SIGKILL)
        deadline = time.monotonic() + 15
        while (left := [pid for pid in below if alive(pid)]) and time.monotonic() < deadline:
            time.sleep(0.1)
        kill_all(left)
        assert left == [], f"still running after the node's SIGKILL: {left}"
    finally:
        parent.kill()
        parent.wait()
