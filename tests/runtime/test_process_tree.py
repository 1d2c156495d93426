"""runtime.process_tree on real processes: what a run started is found and ended, reparented or not."""

import os
import signal
import subprocess
import sys
import time
from contextlib import ExitStack

from runtime.process_tree import Process, alive, descendants, end_processes, found, processes_with_environ
from runtime.ray_nodes import _processes_of

SLEEPER = [sys.executable, "-c", "import time; time.sleep(60)"]


def test_a_process_is_found_by_its_environment_after_its_parent_died():
    """A grandchild whose parent exited is no longer below this process (it was reparented), but its
    environment still names who started it."""
    env = {**os.environ, "TROUPE_TEST_OWNER": str(os.getpid())}
    parent = subprocess.Popen([sys.executable, "-c", "import subprocess, sys; "
                               f"print(subprocess.Popen({SLEEPER!r}).pid, flush=True)"],
                              env=env, stdout=subprocess.PIPE, text=True)
    grandchild = int(parent.stdout.readline())
    parent.wait()
    try:
        assert grandchild not in descendants(os.getpid())
        found_pids = processes_with_environ(b"TROUPE_TEST_OWNER", {str(os.getpid()).encode()})
        assert found_pids == [grandchild]
        assert processes_with_environ(b"TROUPE_TEST_OWNER", {b"0"}) == []
        assert end_processes(found(found_pids), grace=0.2) == [grandchild]  # it did not exit by itself: killed
        assert not alive(grandchild)  # and it is gone when end_processes returns
    finally:
        if alive(grandchild):
            os.kill(grandchild, 9)


def sleepers(stack: ExitStack, count: int, env: dict[str, str] | None = None) -> list[subprocess.Popen]:
    """`count` sleeping processes, killed and reaped when `stack` closes."""
    started = [subprocess.Popen(SLEEPER, env=env) for _ in range(count)]
    for process in started:
        stack.callback(process.wait)
        stack.callback(process.kill)
    return started


def test_a_remembered_process_whose_pid_another_now_holds_is_not_killed():
    """A process recorded, then exited: its pid, handed to an unrelated process (presented here as
    the record's pid with the old start time, since the kernel's reuse cannot be forced), is left
    alone, while a recorded process still running is killed in the same call."""
    with ExitStack() as stack:
        [gone] = sleepers(stack, 1)
        [record] = found([gone.pid])
        time.sleep(3 / os.sysconf("SC_CLK_TCK"))  # the next processes start some clock ticks later
        unrelated, remembered = sleepers(stack, 2)
        gone.kill()
        gone.wait()
        assert not record.running() and not record.signal(signal.SIGKILL)
        reused = Process(unrelated.pid, record.started)  # the record, its pid now the unrelated one's
        assert reused.started != found([unrelated.pid])[0].started
        assert not reused.running() and not reused.signal(signal.SIGTERM)
        assert end_processes([reused, *found([remembered.pid])], grace=0.1) == [remembered.pid]
        assert remembered.wait(5) == -signal.SIGKILL
        assert unrelated.poll() is None  # still running: nothing was sent to it


def test_the_processes_of_a_raylet_are_those_started_in_its_life():
    """After a run's raylet exits, its pid may be another Ray's raylet: processes naming that pid in
    RAY_RAYLET_PID but started after the newer holder belong to it and are not the run's."""
    with ExitStack() as stack:
        [raylet] = sleepers(stack, 1)
        [agent] = sleepers(stack, 1, env={**os.environ, "RAY_RAYLET_PID": str(raylet.pid)})
        [ours] = found([raylet.pid])
        assert _processes_of([ours]) == {ours, *found([agent.pid])}
        earlier = Process(raylet.pid, ours.started - 100)  # a raylet that held the pid a second earlier
        assert _processes_of([earlier]) == {earlier}
