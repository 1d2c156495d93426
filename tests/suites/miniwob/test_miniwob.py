"""The MiniWoB++ suite and the scripted agent: tasks from the package, seeds, clear
errors, and the agent solving real tasks end to end on real Chromium (success read
from the page's own reward)."""

import functools

import pytest

from actors.runner import EpisodeRunner
from bench.suites.miniwob.agent import plan_for
from bench.agents import AGENTS
from bench.suites import SUITES
from actors.errors import ConfigError
from bench.suites.base import UnknownTask
from bench.suites.miniwob.suite import DEFAULT_TASKS, MiniWobChecker, MiniWobOptions, MiniWobSuite, task_names
from bench.config import RunConfig
from protocols import Decide, Decision, Done, ErrorKind, Evaluate, Task
from runtime.limits import Limits
from runtime.remote import run_local_node
from tests.crews import crew

SOLVED = ("click-button", "click-checkboxes", "click-option", "choose-list", "enter-text", "enter-password",
          "focus-text-2", "login-user", "click-dialog-2", "click-tab", "simple-arithmetic", "enter-text-2")


def suite(tasks="default", seeds=2) -> MiniWobSuite:
    return MiniWobSuite.from_config(RunConfig(suite="miniwob", options=MiniWobOptions(tasks=tasks, seeds=seeds)))


def test_the_package_has_128_tasks_and_the_default_run_is_miniwob_with_the_scripted_agent():
    assert len(task_names()) == 128 and "click-button" in task_names() and "flight.AA" in task_names()
    assert SUITES["miniwob"] is MiniWobSuite and "scripted" in AGENTS
    assert RunConfig().suite == "miniwob" and MiniWobSuite.default_agent == "scripted"
    selection = suite().selection()
    assert len(DEFAULT_TASKS) >= 20 and len(selection) == 2 * len(DEFAULT_TASKS)
    assert selection[0].task_id == f"{DEFAULT_TASKS[0]}@0" and selection[0].raw_config["browser"]["seed"] == 0


def test_tasks_by_domain_seed_and_id():
    miniwob = suite(seeds=[4, 9])
    assert [t.task_id for t in miniwob.list_tasks(domain="click-tab")] == ["click-tab@4", "click-tab@9"]
    assert miniwob.load_task("click-tab@31").raw_config["browser"]["seed"] == 31
    assert miniwob.load_task("click-tab").task_id == "click-tab@4"


def test_unknown_tasks_and_bad_seeds_get_clear_errors():
    miniwob = suite(tasks="click-buton")
    with pytest.raises(UnknownTask, match=r"miniwob has no task 'click-buton'; did you mean 'click-button'"):
        miniwob.selection()
    with pytest.raises(UnknownTask, match=r"no task 'click-tab@x'"):
        miniwob.load_task("click-tab@x")
    with pytest.raises(ConfigError, match=r"miniwob seeds: expected a count or seeds >= 0, got \[1, -2\]"):
        suite(seeds=[1, -2])
    with pytest.raises(ConfigError, match=r"miniwob seeds: a count must be at least 1, got 0"):
        suite(seeds=0)


@pytest.mark.anyio
async def test_checker_reads_the_raw_reward():
    task = Task(task_id="t", instruction="x")
    check = MiniWobChecker().check
    won = await check(Evaluate(task=task, episode_id="e", steps=(), vm_state={"globals": {
        "WOB_RAW_REWARD_GLOBAL": 1, "WOB_DONE_GLOBAL": True, "WOB_REWARD_GLOBAL": 0.8}}))
    lost = await check(Evaluate(task=task, episode_id="e", steps=(), vm_state={"globals": {
        "WOB_RAW_REWARD_GLOBAL": -1, "WOB_DONE_GLOBAL": True}}))
    unfinished = await check(Evaluate(task=task, episode_id="e", steps=(), vm_state={"globals": {
        "WOB_RAW_REWARD_GLOBAL": 0, "WOB_DONE_GLOBAL": False}}))
    assert (won.success, won.score, lost.success, unfinished.success) == (True, 1.0, False, False)
    assert unfinished.reason == "the page did not end the episode (no reward)"


def test_the_script_knows_the_simple_families_and_admits_what_it_does_not():
    assert len(plan_for('Select aa, bB and click Submit.')) == 3
    assert len(plan_for('Enter the username "u" and the password "p" into the text fields and press login.')) == 3
    assert plan_for("Drag the circle to the center.") is None


@pytest.mark.anyio
async def test_scripted_agent_solves_real_miniwob_tasks_end_to_end():
    from bench.suites.miniwob.agent import ScriptedMiniWobAgent

    tasks = [SUITES["miniwob"](task_names(), (0,), 10).load_task(f"{name}@3") for name in SOLVED]
    runner = EpisodeRunner(
        crew=crew(ScriptedMiniWobAgent, MiniWobChecker),
        vm_slot=functools.partial(run_local_node, "bench.suites.miniwob.node:build", ready_timeout=60),
        limits=Limits(call_seconds=30), concurrency=3,
    )
    results = await runner.run(tasks)
    solved = sorted(r.task_id.partition("@")[0] for r in results if r.success)
    assert all(r.error_kind in (ErrorKind.NONE, ErrorKind.AGENT) for r in results)
    assert len(solved) >= 10, [(r.task_id, r.reason) for r in results if not r.success]
    assert all(r.reason.startswith("raw reward 1") for r in results if r.success)  # the page's own verdict


@pytest.mark.anyio
async def test_a_page_whose_utterance_comes_with_its_fields_gives_the_agent_the_text():
    """email-inbox-forward-nl-turk's page answers getUtterance with {utterance, fields}; the instruction
    is the utterance (the observation's instruction is a string, or the node refuses the message)."""
    seen: list[object] = []

    class Reader:
        async def decide(self, request: Decide) -> Decision:
            seen.append(request.observation.instruction)
            return Decision(action=Done())

    task = SUITES["miniwob"](task_names(), (0,), 10).load_task("email-inbox-forward-nl-turk@1")
    runner = EpisodeRunner(crew=crew(Reader, MiniWobChecker),
                           vm_slot=functools.partial(run_local_node, "bench.suites.miniwob.node:build",
                                                     ready_timeout=60),
                           limits=Limits(call_seconds=30))
    [result] = await runner.run([task])
    assert result.error_kind == ErrorKind.AGENT, result.reason  # said done without forwarding the email
    assert len(seen) == 1 and isinstance(seen[0], str) and seen[0].strip(), seen


def test_list_shows_the_tasks_and_seeds_the_options_select(capsys):
    from bench.supervisor import main

    assert main(["--suite", "miniwob", "--list", "--miniwob-tasks", "click-button,click-tab", "--miniwob-seeds", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == ["miniwob: 4 tasks selected of 256", f"{'click-button':<20} {2:>5}", f"{'click-tab':<20} {2:>5}"]
