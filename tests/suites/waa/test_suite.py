"""The WAA suite over the shared WAA task data (read only), its listing and coverage,
task-file errors, and the evaluator's pieces (metrics, checker, pyautogui allow-list)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from actors.errors import ConfigError
from bench.suites.waa.checker import WAAChecker
from actors.backends.waa.client import WAAClient
from actors.backends.waa.commands import to_pyautogui
from bench.suites.waa.metrics import (
    MetricFailed, check_json_keybindings, check_json_settings, compare_text_file, exact_match, is_extension_installed,
)
from actors.backends.waa.server.http import make_server
from actors.backends.waa.server.pyautogui_script import ScriptRefused, parse
from bench.api import plan
from bench.suites.waa.suite import BareTaskId, WAASuite
from bench.suites.waa.catalog import Catalog
from bench.suites.waa.coverage import missing
from protocols import Done, Evaluate, Fail, Hotkey, Key, Scroll, StepRecord, Task, Viewport
from runtime.errors import Refused

from tests.suites.waa.workbooks import book
from tests.waa_servers import LINUX_TASKS, ROOT, start_linux_server, stop

WAA = ROOT.parent / "shared" / "waa" / "evaluation_examples_windows"
COUNTS = {"libreoffice_calc": 24, "vs_code": 24, "vlc": 21, "file_explorer": 19, "libreoffice_writer": 19,
          "chrome": 17, "msedge": 13, "settings": 5, "clock": 4, "microsoft_paint": 3, "windows_calc": 3, "notepad": 2}
NOTEPAD = "notepad/366de66e-cbae-4d72-b042-26390db2b145-WOS"

needs_waa = pytest.mark.skipif(not WAA.is_dir(), reason=f"the shared WAA data is not at {WAA}")


def suite(root: Path = WAA) -> WAASuite:
    return WAASuite(Catalog.load(root))


@needs_waa
def test_lists_the_154_tasks_with_the_readmes_counts_per_domain_losslessly():
    waa = suite()
    tasks = waa.list_tasks()
    assert len(tasks) == 154 and not waa.catalog.problems
    assert {d: len(waa.list_tasks(domain=d)) for d in COUNTS} == COUNTS
    task = waa.load_task(NOTEPAD)
    original = json.loads((WAA / "examples" / f"{NOTEPAD}.json").read_text())
    assert task.raw_config == original and task.evaluation_spec == original["evaluator"]
    assert task.domain == "notepad"


@needs_waa
def test_a_bare_id_says_ids_repeat_and_names_the_paths():
    with pytest.raises(BareTaskId, match=r"keyed '<domain>/<file stem>' because ids repeat.*'notepad/366de66e"):
        suite().load_task(NOTEPAD.split("/")[1])


@needs_waa
def test_a_malformed_file_is_reported_by_file_and_field_and_the_rest_still_list(tmp_path):
    root = tmp_path / "waa"
    (root / "examples").mkdir(parents=True)
    shutil.copy(WAA / "test_all.json", root)
    for domain in COUNTS:
        shutil.copytree(WAA / "examples" / domain, root / "examples" / domain)
    broken = root / "examples" / f"{NOTEPAD}.json"
    data = json.loads(broken.read_text())
    data["evaluator"]["func"] = 3
    broken.write_text(json.dumps(data))
    waa = suite(root)
    assert len(waa.list_tasks()) == 153
    (problem,) = waa.catalog.problems.values()
    assert str(problem) == f"{broken}: evaluator.func: expected a string or a list of strings, got 3"
    with pytest.raises(ConfigError, match="evaluator.func"):
        waa.load_task(NOTEPAD)
    assert f"unreadable: {broken}: evaluator.func" in waa.listing()


def test_task_file_errors_name_the_field(tmp_path):
    (tmp_path / "examples" / "d").mkdir(parents=True)
    (tmp_path / "test_all.json").write_text(json.dumps({"d": ["a", "b", "c", "missing"]}))
    (tmp_path / "examples" / "d" / "a.json").write_text("{not json")
    (tmp_path / "examples" / "d" / "b.json").write_text(json.dumps(
        {"instruction": "x", "config": [{"type": 1}], "evaluator": {"func": "exact_match"}}))
    (tmp_path / "examples" / "d" / "c.json").write_text(json.dumps({"instruction": "", "evaluator": {}}))
    problems = [str(p).split(": ", 1)[1] for p in Catalog.load(tmp_path).problems.values()]
    assert problems[0].startswith("not valid JSON")
    assert problems[1:] == ["config[0].type: expected a string, got 1", "instruction: expected a non-empty string, got ''",
                            "listed in the task list but there is no such file"]


def test_a_missing_task_folder_says_what_the_flag_needs(tmp_path):
    with pytest.raises(FileNotFoundError, match="--waa-tasks must point to an evaluation_examples_windows folder"):
        Catalog.load(tmp_path)


@needs_waa
def test_cli_list_prints_per_domain_what_can_run_and_what_is_missing():
    out = subprocess.run([sys.executable, "-m", "bench.supervisor", "--suite", "waa", "--waa-tasks", str(WAA), "--list"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == f"WAA tasks in {WAA}: 154 in 12 domains"
    assert lines[1].split() == ["domain", "tasks", "runnable", "infeasible"]
    assert ["notepad", "2", "2", "0"] in [line.split() for line in lines]
    assert ["libreoffice_calc", "24", "24", "0"] in [line.split() for line in lines]
    assert ["vs_code", "24", "19", "5"] in [line.split() for line in lines]
    assert ["chrome", "17", "17", "0"] in [line.split() for line in lines]
    assert ["msedge", "13", "13", "0"] in [line.split() for line in lines]
    assert ["all", "154", "141", "13"] in [line.split() for line in lines]  # every task: 141 feasible, 13 infeasible
    assert not [line for line in lines if line.startswith(("    cannot run ", "missing "))]


def test_a_task_is_runnable_only_when_its_metric_knows_every_rule_it_asks():
    def task(*rules: str) -> Task:
        spec = {"func": ["compare_table", "exact_match"],
                "options": [{"rules": [{"type": kind} for kind in rules]}, {}]}
        return Task(task_id="d/t", instruction="-", evaluation_spec=spec, raw_config={"config": []})

    assert not missing(task("sheet_data", "pivot_table"))
    assert missing(task("sheet_data", "freeze")).functions == {"compare_table rule freeze"}


def test_cli_refuses_the_waa_suite_without_its_task_folder():
    out = subprocess.run([sys.executable, "-m", "bench.supervisor", "--suite", "waa", "--list"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert out.returncode != 0 and "--suite waa needs --waa-tasks PATH" in out.stderr


def test_metrics_score_from_the_schemas_meaning():
    assert exact_match(1.0, {"expected": True}) == 1.0 and exact_match("false", {"expected": "true"}) == 0.0
    assert compare_text_file(b"a b\n", "a b\n") == 1.0 and compare_text_file(None, "x") == 0.0
    assert compare_text_file(b"A  b", "a b\n", ignore_blanks=True, ignore_case=True) == 1.0
    settings = b'{\n  "files.autoSave": "afterDelay", "n": 5\n}'
    assert check_json_settings(settings, {"expected": {"files.autoSave": "afterDelay"}}) == 1.0
    assert check_json_settings(settings, {"expected": {"n": 6}}) == 0.0
    assert is_extension_installed("ms-python.python\n", {"type": "contain", "expected": "ms-python"}) == 1.0
    assert is_extension_installed("x", {"type": "not_contain", "expected": "x"}) == 0.0


def test_check_json_keybindings_finds_the_binding_among_the_list():
    keybindings = b'// Place your key bindings in this file\n[{"key": "ctrl+j", "command": "a", "when": "terminalFocus"}]'
    assert check_json_keybindings(keybindings, {"expected": {"key": "ctrl+j", "command": "a", "when": "terminalFocus"}}) == 1.0
    assert check_json_keybindings(keybindings, {"expected": {"key": "ctrl+j", "command": "a", "when": "listFocus"}}) == 0.0
    assert check_json_keybindings(b'{"key": "ctrl+j"}', {"expected": {"key": "ctrl+j"}}) == 0.0
    assert check_json_keybindings(None, {"expected": {"key": "ctrl+j"}}) == 0.0
    assert check_json_keybindings(b"[{", {"expected": {"key": "ctrl+j"}}) == 0.0
    with pytest.raises(MetricFailed, match="check_json_keybindings: expected a rule with `expected`"):
        check_json_keybindings(keybindings, {"key": "ctrl+j"})


def evaluate(spec: dict, last, state: dict | None = None) -> Evaluate:
    task = Task(task_id="d/t", instruction="-", evaluation_spec=spec)
    steps = (StepRecord(episode_id="e", step=1, action=last),)
    return Evaluate(task=task, episode_id="e", steps=steps, vm_state=state or {})


@pytest.mark.anyio
async def test_checker_infeasible_conj_and_getter_errors():
    checker = WAAChecker()
    assert (await checker.check(evaluate({"func": "infeasible"}, Fail()))).success
    assert not (await checker.check(evaluate({"func": "infeasible"}, Done()))).success
    spec = {"func": ["exact_match", "exact_match"], "conj": "or"}
    state = {"result": [1, 2], "expected": [{"expected": 0}, {"expected": 2}]}
    assert (await checker.check(evaluate(spec, Done(), state))).score == 1.0
    assert not (await checker.check(evaluate({**spec, "conj": "and"}, Done(), state))).success
    gave_up = await checker.check(evaluate(spec, Fail(), state))
    assert not gave_up.success and "feasible task infeasible" in gave_up.reason
    with pytest.raises(Refused, match="could not read the VM state: result\\[0\\]: getter 'x'"):
        await checker.check(evaluate(spec, Done(), {"errors": ["result[0]: getter 'x' is not supported"]}))
    with pytest.raises(Refused, match="metric 'compare_epub' is not supported"):
        await checker.check(evaluate({"func": "compare_epub"}, Done(), {"result": [None], "expected": [None]}))
    freeze = {"func": "compare_table", "options": {"rules": [{"type": "freeze"}]}}
    with pytest.raises(Refused, match="rule type 'freeze' is not supported"):
        await checker.check(evaluate(freeze, Done(), {"result": [book([["a"]])], "expected": [book([["a"]])]}))


def test_translation_of_keys_and_wheels_reads_back_through_the_allow_list():
    viewport = Viewport(800, 600)
    for action, ops in [
        (Key(key="meta"), [("press", "meta")]),
        (Hotkey(keys=("ctrl", "shift", "escape")), [("key_down", "ctrl"), ("key_down", "shift"), ("key_down", "escape"),
                                                    ("key_up", "escape"), ("key_up", "shift"), ("key_up", "ctrl")]),
        (Scroll(direction="right", amount=4), [("scroll", "right", 4)]),
    ]:
        assert parse(to_pyautogui(action, viewport, None)) == ops


@pytest.mark.parametrize("program, problem", [
    ("import os; os.system('rm -rf ~')", "statement not allowed: 'import os'"),
    ("import pyautogui; pyautogui.click(x, 1)", "arguments must be literal values"),
    ("import pyautogui; pyautogui.press('nokey')", "unknown key name 'nokey'"),
    ("import pyautogui; pyautogui.screenshot('/tmp/x.png')", "statement not allowed"),
    ("import pyautogui; time.sleep(1e9)", "time.sleep needs seconds in [0, 60]"),
    ("import pyautogui; pyautogui.click(1, 2, nope=3)", "unexpected keyword argument 'nope'"),
    ("import pyautogui; (", "not valid Python"),
])
def test_the_allow_list_refuses_anything_but_literal_pyautogui_calls(program, problem):
    with pytest.raises(ScriptRefused, match=problem.replace("(", r"\(").replace("[", r"\[")):
        parse(program)


def test_the_linux_server_needs_a_token_and_the_client_a_url():
    with pytest.raises(ValueError, match="needs a token"):
        make_server(None, "", 0)
    with pytest.raises(ValueError, match="must start with http"):
        WAAClient("localhost:5000")


def test_waa_token_reaches_the_client_of_a_server_that_requires_it(tmp_path):
    """--waa-token is the WAA server's, --token the nodes': a run with the flag alone (no
    $TROUPE_WAA_TOKEN) reaches the Linux server, which answers 401 to any other token."""
    server = start_linux_server()
    try:
        out = tmp_path / "run"
        env = {name: value for name, value in os.environ.items() if name != "TROUPE_WAA_TOKEN"}
        subprocess.run([sys.executable, "-m", "bench.supervisor", "--suite", "waa", "--waa-tasks", str(LINUX_TASKS),
                        "--waa-task", "store/INF-linux-paint-WOS", "--waa-url", server.url, "--waa-token", server.token,
                        "--max-attempts", "1", "--max-steps", "1", "--out", str(out)],
                       cwd=ROOT, capture_output=True, text=True, timeout=120, env=env, check=True)
    finally:
        stop(server)
    (line,) = (out / "results.jsonl").read_text().splitlines()
    result = json.loads(line)["result"]
    assert (result["error_kind"], result["reason"]) == ("agent", "infeasible task, but the agent did not declare it "
                                                                  "so (Fail)")


@pytest.mark.anyio
async def test_waa_token_and_the_node_token_are_two_settings(tmp_path, anyio_backend):
    checked = await plan("waa", {"tasks": str(LINUX_TASKS), "waa_token": "server", "token": "node",
                           "out": str(tmp_path / "run")})
    assert (checked.suite.token, checked.config.token) == ("server", "node")
