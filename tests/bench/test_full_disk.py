"""A full disk (a 512 KiB tmpfs under --out) ends the run with one line saying what could not be
written and what was kept; every result line stays whole, and the resume after space is freed
finishes the run exactly once."""

import json
import os
import subprocess
import sys

import pytest

from actors.run_folder import read_results
from tests.paths import ROOT

EPISODES = 12


@pytest.fixture
def small_disk(tmp_path):
    """A 512 KiB tmpfs (a sim run of 12 episodes writes ~1.5 MB); mounting needs root, as CI runs."""
    mount = tmp_path / "disk"
    mount.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mount)], capture_output=True,
                             text=True)
    if mounted.returncode:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.strip()}")
    yield mount
    subprocess.run(["umount", str(mount)], check=True)


def sim(out):
    return subprocess.run([sys.executable, "-m", "bench.supervisor", "--suite", "sim", "--scale", "0.001",
                           "--episodes", str(EPISODES), "--concurrency", "2", "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, env={**os.environ, "COLUMNS": "200"})


def test_a_full_disk_is_one_line_keeps_whole_results_and_resumes_exactly_once(small_disk):
    out = small_disk / "run"
    full = sim(out)
    assert full.returncode == 1, full.stderr
    [line] = full.stderr.splitlines()
    kept = read_results(out)
    assert line.startswith(f"error: run folder {out}: No space left on device: could not write episodes/"), line
    assert f"; kept {len(kept)} of {EPISODES} results whole in results.jsonl, " in line
    assert line.endswith("; free space and run the same command to resume")
    assert 0 < len(kept) < EPISODES
    assert (out / "results.jsonl").read_bytes().endswith(b"\n")
    if "summary.json written" in line:
        assert json.loads((out / "summary.json").read_text())["overall"]["episodes"] == len(kept)
    subprocess.run(["mount", "-o", "remount,size=16m", str(small_disk)], check=True)
    resumed = sim(out)
    assert resumed.returncode == 0, resumed.stderr
    assert f"resuming {out}: {len(kept)} of {EPISODES} episodes already finished" in resumed.stdout
    tasks = [line.result.task_id for line in read_results(out)]
    assert len(tasks) == EPISODES == len(set(tasks))
    assert json.loads((out / "summary.json").read_text())["overall"]["episodes"] == EPISODES
