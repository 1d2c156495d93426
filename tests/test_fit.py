"""The default concurrency fits the machine and the suite, and the run says what it chose."""

import os

from bench.api import plan
from bench.fit import MOST
from tests.test_waa_suite import WAA, needs_waa


def test_browser_runs_get_a_vm_per_core_and_sleeping_vms_the_most(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 3)
    browsers = plan("miniwob", {"tasks": ["click-button"], "seeds": 1, "out": str(tmp_path / "m")})
    assert browsers.config.concurrency == 3 and "3 cores" in browsers.concurrency_chosen
    sims = plan("sim", {"episodes": 4, "out": str(tmp_path / "s")})
    assert sims.config.concurrency == MOST and "take no CPU" in sims.concurrency_chosen


def test_memory_bounds_it_and_a_given_concurrency_stands(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    monkeypatch.setattr("bench.fit._available_memory", lambda: 3 * 400 * 2**20)
    assert plan("miniwob", {"tasks": ["click-button"], "out": str(tmp_path / "m")}).config.concurrency == 3
    given = plan("miniwob", {"tasks": ["click-button"], "concurrency": 5, "out": str(tmp_path / "g")})
    assert given.config.concurrency == 5 and given.concurrency_chosen == ""


def test_the_cli_says_what_it_chose(tmp_path):
    from tests.test_cli import run_cli

    done = run_cli("--episodes", "2", "--scale", "0.001", "--out", str(tmp_path / "run"))
    assert done.returncode == 0, done.stderr
    assert f"concurrency {MOST}: sim VMs take no CPU" in done.stdout


@needs_waa
def test_a_waa_run_has_one_vm(tmp_path):
    waa = plan("waa", {"tasks": str(WAA), "out": str(tmp_path / "w")})
    assert waa.config.concurrency == 1 and "1 VM(s) at most" in waa.concurrency_chosen
