"""runtime.process_tree on real processes: what a run started is found and ended, reparented or not."""

import os
import subprocess
import sys

from runtime.process_tree import alive, descendants, end_processes, processes_with_environ

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
        found = processes_with_environ(b"TROUPE_TEST_OWNER", {str(os.getpid()).encode()})
        assert found == [grandchild]
        assert processes_with_environ(b"TROUPE_TEST_OWNER", {b"0"}) == []
        assert end_processes(found, grace=0.2) == [grandchild]  # it did not exit by itself: killed
        assert not alive(grandchild)  # and it is gone when end_processes returns
    finally:
        if alive(grandchild):
            os.kill(grandchild, 9)
