"""The default concurrency fits the machine and the suite, and the run says what it chose."""

import os
import re

import pytest

from bench.api import plan
from bench.fit import MOST
from tests.suites.waa.test_suite import WAA, needs_waa


pytestmark = pytest.mark.anyio
EIGHT = {"tasks": ["click-button"], "seeds": 8}
"""Eight MiniWoB episodes: more work than the concurrencies below, which the work does not cap."""
LLM = {"agent": "llm", "llm_model": "m", "llm_preflight": False}
"""An LLM agent whose service is never called: planning a run is all these tests do."""


def said(checked, start: str) -> str:
    """The line the run says as it starts that begins with `start` ("" if none)."""
    return next((line for line in checked.chosen if line.startswith(start)), "")


async def test_browser_runs_get_a_vm_per_core_on_one_browser_and_sleeping_vms_the_most(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 3)
    browsers = await plan("miniwob", {**EIGHT, "out": str(tmp_path / "m")})
    assert browsers.config.concurrency == 3 and "3 cores" in said(browsers, "concurrency 3: ")
    assert browsers.config.slots_per_browser == 3
    assert "one browser for the run's 3 slot(s)" in said(browsers, "3 VM slot(s) per browser: ")
    sims = await plan("sim", {"episodes": 9, "out": str(tmp_path / "s")})
    assert sims.config.concurrency == MOST and "take no CPU" in said(sims, f"concurrency {MOST}: ")


async def test_an_llm_agents_vms_are_not_bounded_by_the_cores(tmp_path, monkeypatch):
    """An LLM agent leaves its browser idle for seconds a step: one core fits several."""
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    monkeypatch.setattr("bench.fit._available_memory", lambda: 8 * 2**30)
    scripted = await plan("miniwob", {**EIGHT, "out": str(tmp_path / "scripted")})
    assert scripted.config.concurrency == 1
    llm = await plan("miniwob", {**EIGHT, **LLM, "out": str(tmp_path / "llm")})
    assert llm.config.concurrency == MOST and "LLM agent" in said(llm, "concurrency")
    few_calls = await plan("miniwob", {**EIGHT, **LLM, "llm_slots": 3,
                                       "out": str(tmp_path / "3")})
    assert few_calls.config.concurrency == 3 and "3 LLM call(s)" in said(few_calls, "concurrency")
    monkeypatch.setattr("bench.fit._available_memory", lambda: 600 * 2**20)
    small = await plan("miniwob", {**EIGHT, **LLM, "out": str(tmp_path / "small")})
    assert small.config.concurrency == 3  # one browser (400 MiB) and two more contexts (100 each)


async def test_memory_bounds_it_counting_a_browser_and_a_context_per_slot_and_what_fits_stands(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    monkeypatch.setattr("bench.fit._available_memory", lambda: 800 * 2**20)

    async def fitted(**options):
        return (await plan("miniwob", {**EIGHT, "out": str(tmp_path / str(len(options))), **options})).config

    # One browser with a context per slot: 400 MiB for the first slot, 100 for each further one.
    assert ((await fitted()).concurrency, (await fitted()).slots_per_browser) == (5, 5)
    assert (await fitted(slots_per_browser=1)).concurrency == 2  # a browser each: 400 MiB a slot
    assert (await fitted(slots_per_browser=2)).concurrency == 2  # a second browser would not fit beside the first
    given = await plan("miniwob", {**EIGHT, "concurrency": 5, "slots_per_browser": 8, "out": str(tmp_path / "g")})
    assert (given.config.concurrency, given.config.slots_per_browser) == (5, 5)  # never more seats than slots
    assert given.chosen == ()


async def test_a_given_concurrency_is_capped_at_the_work_and_at_what_the_machines_memory_holds(tmp_path, monkeypatch):
    monkeypatch.setattr("bench.fit._available_memory", lambda: 800 * 2**20)
    two = await plan("miniwob", {"tasks": ["click-button"], "seeds": 2, "concurrency": 64, "out": str(tmp_path / "2")})
    assert two.config.concurrency == 2 and two.config.slots_per_browser == 2
    assert two.chosen[0] == "concurrency 2: concurrency 64, capped at the 2 episode(s) to run"
    many = await plan("miniwob", {**EIGHT, "concurrency": 64, "slots_per_browser": 1, "out": str(tmp_path / "m")})
    assert many.config.concurrency == 2
    assert many.chosen == ("concurrency 2: concurrency 64, capped at the 8 episode(s) to run, but this machine's "
                           "memory holds 2 of the miniwob suite's VMs",)
    sims = await plan("sim", {"episodes": 100, "concurrency": 64, "out": str(tmp_path / "s")})
    assert sims.config.concurrency == 64 and sims.chosen == ()  # simulated VMs take no memory to speak of


def test_the_cli_says_what_it_chose(tmp_path):
    from tests.bench.test_cli import run_cli

    done = run_cli("--episodes", "2", "--scale", "0.001", "--out", str(tmp_path / "run"))
    assert done.returncode == 0, done.stderr
    assert "concurrency 2: sim VMs take no CPU; capped at the 2 episode(s) to run" in done.stdout


@needs_waa
async def test_a_waa_run_has_one_vm(tmp_path):
    waa = await plan("waa", {"tasks": str(WAA), "out": str(tmp_path / "w")})
    assert waa.config.concurrency == 1 and "1 VM(s) at most" in said(waa, "concurrency 1: ")


async def test_nodes_ray_places_host_one_vm_unless_told_to_share_a_browser(tmp_path):
    default = await plan("miniwob", {"vm": "ray", "out": str(tmp_path / "a")})
    assert default.config.slots_per_browser == 1
    assert "a node per VM on Ray" in said(default, "1 VM slot(s) per browser: ") and "slots_per_browser N" in said(
        default, "1 VM slot(s)")
    shared = await plan("miniwob", {"vm": "ray", "slots_per_browser": 4, "concurrency": 8, "out": str(tmp_path / "b")})
    assert shared.config.slots_per_browser == 4 and shared.chosen == ()
    assert (await plan("miniwob", {"vm": "ray", "slots_per_browser": 4, "concurrency": 2,
                                   "out": str(tmp_path / "c")})).config.slots_per_browser == 2  # never above concurrency


async def test_slots_per_browser_is_refused_where_browsers_cannot_be_shared(tmp_path):
    from bench.config import ConfigError

    cases = [
        ("sim", {"episodes": 2, "slots_per_browser": 2}, "slots_per_browser: the sim suite's VMs are not browsers that"
                                                         " can share one"),
        ("miniwob", {"connect": ["ws://127.0.0.1:9"], "token": "t", "slots_per_browser": 2},
         "slots_per_browser: --connect nodes host one VM each"),
        ("miniwob", {"slots_per_browser": 0}, "slots_per_browser: expected `int` >= 1"),
    ]
    for suite, options, message in cases:
        with pytest.raises(ConfigError, match=f"^{re.escape(message)}"):
            await plan(suite, {**options, "out": str(tmp_path / "x")})
