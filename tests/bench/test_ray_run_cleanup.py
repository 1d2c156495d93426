"""Every Ray process a run started is gone when the run ends, after a fault too: a Ray worker
hosting a node SIGKILLed mid-run costs a retry, and neither the raylet's agents nor any other
Ray process of the run outlives the supervisor."""

import os
import signal
import subprocess
import sys
import tempfile
import time

from actors.run_folder import read_results
from runtime.process_tree import alive, descendants
from tests.paths import ROOT

EPISODES = 8


def test_no_ray_process_outlives_a_run_whose_node_worker_was_killed(tmp_path):
    with tempfile.TemporaryDirectory(dir="/tmp", prefix="ray") as temp:  # Ray's socket paths must stay short
        env = {**os.environ, "RAY_ADDRESS": "", "RAY_TMPDIR": temp, "COLUMNS": "200"}
        run = subprocess.Popen([sys.executable, "-m", "bench.supervisor", "--suite", "sim", "--vm", "ray",
                                "--episodes", str(EPISODES), "--concurrency", "2", "--scale", "0.2",
                                "--out", str(tmp_path / "run")], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 90
            workers = []
            while not workers and time.monotonic() < deadline:
                assert run.poll() is None, run.stderr.read()[-2000:]
                below = descendants(run.pid)
                workers = [pid for pid, argv in below.items() if argv[0].startswith(b"ray::_NodeActor")]
                time.sleep(0.2)
            assert workers, "no Ray worker hosted a node"
            time.sleep(1.0)
            ray_processes = set(descendants(run.pid))
            assert any(argv[0].startswith(b"ray::DashboardAgent") for argv in descendants(run.pid).values())
            os.kill(workers[0], signal.SIGKILL)
            assert run.wait(timeout=180) == 0, run.stderr.read()[-2000:]
        finally:
            run.kill()
            run.wait()
        left = [pid for pid in ray_processes if alive(pid)]
        assert not left, [open(f"/proc/{pid}/cmdline", "rb").read()[:80] for pid in left]
    tasks = [line.result.task_id for line in read_results(tmp_path / "run")]
    assert len(tasks) == EPISODES == len(set(tasks))
