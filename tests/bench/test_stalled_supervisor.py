"""A supervisor stopped with SIGSTOP mid-run (a laptop lid, a VM migration) is not late on the
agent's behalf: its time limits do not count the stall, the verdicts are the reference run's,
and run.json records the stall."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from actors.run_folder import read_results
from tests.paths import ROOT

STOPPED = 4.0
# the simulated LLM answers in ~1 s; a call limit of 2 s passes while the supervisor is stopped 4 s
FLAGS = ["--suite", "sim", "--episodes", "3", "--concurrency", "3", "--scale", "0.5", "--agent-error-rate", "0",
         "--call-timeout", "2", "--episode-timeout", "40", "--max-attempts", "1"]


def start(out, backend):
    return subprocess.Popen([sys.executable, "-m", "bench.supervisor", *FLAGS, "--backend", backend, "--out", str(out)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "COLUMNS": "200"})


def verdicts(out):
    return {line.result.task_id: (line.result.success, line.result.error_kind, line.result.reason)
            for line in read_results(out)}


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The same run, never stopped."""
    out = tmp_path_factory.mktemp("reference") / "run"
    run = start(out, "asyncio")
    assert run.wait(timeout=120) == 0, run.stderr.read()
    return verdicts(out)


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_a_supervisor_stopped_mid_run_gets_the_reference_verdicts_and_records_the_stall(tmp_path, reference, backend):
    stopped = start(tmp_path / "stopped", backend)
    try:
        steps = tmp_path / "stopped" / "episodes"
        deadline = time.monotonic() + 60
        while not list(steps.glob("*/1/steps.jsonl")) and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)  # Decide calls in flight
        stopped.send_signal(signal.SIGSTOP)
        time.sleep(STOPPED)
        stopped.send_signal(signal.SIGCONT)
        assert stopped.wait(timeout=120) == 0, stopped.stderr.read()
    finally:
        stopped.kill()
        stopped.wait()
    assert verdicts(tmp_path / "stopped") == reference
    stalls = json.loads((tmp_path / "stopped" / "run.json").read_text())["stalls"]
    assert [stall for stall in stalls if STOPPED - 0.5 < stall["seconds"] < STOPPED + 1.5], stalls
