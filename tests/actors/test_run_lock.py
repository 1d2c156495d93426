"""One writer per run folder: a second run on a folder a live run holds is refused with the
holder's pid, and a killed holder never blocks the resume (the kernel drops its lock)."""

import os
import signal
import subprocess
import sys
import time

import pytest

import bench
from actors.run_folder import read_results
from actors.run_lock import LOCK, FolderBusy, hold_run_folder
from tests.paths import ROOT

EPISODES = 4


def supervisor(out, scale, wait=True):
    command = [sys.executable, "-m", "bench.supervisor", "--suite", "sim", "--episodes", str(EPISODES),
               "--concurrency", "1", "--scale", scale, "--out", str(out)]
    if not wait:
        return subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "COLUMNS": "200"})


def holding(process, out, timeout=60.0):
    """Wait until `process` holds the folder's lock (its pid is in the lock file)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        lock = out / LOCK
        if lock.exists() and lock.read_text().strip() == str(process.pid):
            return
        assert process.poll() is None, process.stderr.read()
        time.sleep(0.05)
    raise AssertionError("the first run never took the folder's lock")


def test_a_second_supervisor_is_refused_and_a_killed_one_never_blocks_the_resume(tmp_path):
    out = tmp_path / "run"
    first = supervisor(out, "0.3", wait=False)
    try:
        holding(first, out)
        second = supervisor(out, "0.001")
        assert second.returncode == 2, second.stderr
        assert second.stderr.splitlines() == [
            f"error: run folder {out} is being written by another run (pid {first.pid}); "
            f"wait for it to end or choose another folder"]
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
    finally:
        first.kill()
        first.wait()
    resumed = supervisor(out, "0.001")
    assert resumed.returncode == 0, resumed.stderr
    tasks = [line.result.task_id for line in read_results(out)]
    assert len(tasks) == EPISODES == len(set(tasks))


def test_bench_run_is_refused_while_another_process_holds_the_folder(tmp_path):
    out = tmp_path / "run"
    holder = subprocess.Popen([sys.executable, "-c", f"""
import sys, time
from actors.run_lock import hold_run_folder
with hold_run_folder({str(out)!r}):
    print("held", flush=True)
    time.sleep(60)
"""], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        with pytest.raises(FolderBusy, match=f"another run \\(pid {holder.pid}\\)"):
            bench.run_sync("sim", options={"episodes": 1, "scale": 0.001}, out=str(out))
        with pytest.raises(FolderBusy, match=f"pid {holder.pid}"), hold_run_folder(out):
            pass
    finally:
        holder.kill()
        holder.wait()
    with hold_run_folder(out):
        assert (out / LOCK).read_text() == f"{os.getpid()}\n"
    assert not read_results(out)
