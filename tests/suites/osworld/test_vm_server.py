"""Episodes against an OSWorld VM's own server, verified against a stand-in speaking its protocol over a
real socket (an OSWorld VM cannot run here): the probe, placeholders in setup steps, actions as
pyautogui programs through /execute, OSWorld's tree, downloads from a cache folder in OSWorld's
layout, the steps OSWorld's SetupController raises on against those it only logs, and the files a
multi getter fetches beside the one it gives (sheet_print's CSVs)."""

from __future__ import annotations

import functools
import json

import pytest

from actors.runner import EpisodeRunner
from actors.backends.waa.client import Retry
from bench.suites.osworld.checker import OSWorldChecker
from bench.suites.osworld.needs import cache_name
from bench.suites.osworld.node import actors_for, osworld_backend
from protocols import Click, Decide, Decision, Done, ErrorKind, Point, Task
from runtime.host import run_local_host
from runtime.limits import Limits

from tests.osworld_servers import SCREEN, StandIn, osworld_vm
from tests.crews import crew
from tests.task_files import xlsx

pytestmark = pytest.mark.anyio

FAST = dict(retry=Retry(attempts=2, backoff=0.05), probe=Retry(attempts=2, backoff=0.05), settle_timeout=0.3)
CHECK = "[ -d ~/Desktop/todo_list_Jan_2 ] && echo 'Directory exists.' || echo 'Directory does not exist.'"
CLICK_MIDDLE = ["python", "-c", "import pyautogui; import time; pyautogui.click({SCREEN_WIDTH_HALF}, "
                                "{SCREEN_HEIGHT_HALF}); time.sleep(0.5);"]
RENAME = Task(task_id="os/e0df059f-28a6-4169-924f-b9623e7184cc", domain="os",
              instruction='Change the name of the directory "todo_list_Jan_1" into "todo_list_Jan_2".',
              raw_config={"id": "e0df059f-28a6-4169-924f-b9623e7184cc", "config": [
                  {"type": "execute", "parameters": {"command": "echo {CLIENT_PASSWORD} | sudo -S mkdir "
                                                                "~/Desktop/todo_list_Jan_1", "shell": True}},
                  {"type": "execute", "parameters": {"command": CLICK_MIDDLE}}]},
              evaluation_spec={"func": "exact_match",
                               "result": {"type": "vm_command_line", "command": CHECK, "shell": True},
                               "expected": {"type": "rule", "rules": {"expected": "Directory exists.\n"}}})


class Scripted:
    """Clicks where it is told, then says Done; keeps what it saw."""

    def __init__(self, clicks: int = 1) -> None:
        self.clicks = clicks
        self.seen: list = []

    async def decide(self, request: Decide) -> Decision:
        self.seen.append(request.observation)
        if request.step <= self.clicks:
            return Decision(action=Click(point=Point(12, 34)))
        return Decision(action=Done())


def runner(build, policy) -> EpisodeRunner:
    return EpisodeRunner(crew=crew(lambda: policy, OSWorldChecker),
                         vm_slot=functools.partial(run_local_host, build), limits=Limits(call_seconds=30),
                         max_attempts=1)


def backend(url: str, **options):
    return lambda: actors_for(osworld_backend(url, password="pw", **{**FAST, **options}))


async def test_an_episode_runs_against_osworlds_server_and_scores_as_its_evaluate():
    behaviour = osworld_vm({json.dumps(CHECK): "Directory exists.\n"})
    policy = Scripted()
    with StandIn(behaviour) as server:
        (result,) = await runner(backend(server.url), policy).run([RENAME])
    assert result.success and result.score == 1.0, result.reason
    requests = behaviour.requests
    assert "GET /platform" in requests and "GET /probe" not in requests  # OSWorld's server has no /probe
    assert 'POST /setup/execute "echo pw | sudo -S mkdir ~/Desktop/todo_list_Jan_1"' in requests
    middle = f"pyautogui.click({SCREEN[0] // 2}, {SCREEN[1] // 2})"
    assert any(r.startswith("POST /setup/execute") and middle in r for r in requests)
    (action,) = [r for r in requests if r.startswith("POST /execute") and "moveTo(12, 34)" in r]
    assert json.loads(action.removeprefix("POST /execute "))[:2] == ["python", "-c"]
    assert "pyautogui.FAILSAFE = False" in action  # OSWorld's controller prefix
    assert f"POST /execute {json.dumps(CHECK)}" in requests
    (terminal,) = [node for node in policy.seen[0].tree.children[0].children]
    assert terminal.name == "Terminal" and terminal.bbox is not None and terminal.bbox.width == 300


async def test_a_do_nothing_agent_gets_the_untouched_states_verdict():
    behaviour = osworld_vm({json.dumps(CHECK): "Directory does not exist.\n"})
    with StandIn(behaviour) as server:
        (result,) = await runner(backend(server.url), Scripted(clicks=0)).run([RENAME])
    assert not result.success and result.score == 0.0 and result.error_kind is ErrorKind.AGENT
    assert result.reason.startswith("exact_match=0")


def a_task(config: list, **evaluator) -> Task:
    return Task(task_id="os/t", domain="os", instruction="-", raw_config={"id": "t", "config": config},
                evaluation_spec={"func": "check_include_exclude", "result": {"type": "vm_terminal_output"},
                                 "expected": {"type": "rule", "rules": {"include": ["43 132"]}}, **evaluator})


async def test_a_download_comes_from_the_cache_folder_in_osworlds_layout_and_is_uploaded(tmp_path):
    url, path = "https://huggingface.co/datasets/x/resolve/main/os/t/notes.txt", "/home/user/Desktop/notes.txt"
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / cache_name(url, path)).write_bytes(b"from the cache")
    behaviour = osworld_vm(terminal="43 132")
    with StandIn(behaviour) as server:
        task = a_task([{"type": "download", "parameters": {"files": [{"url": url, "path": path}]}}])
        (result,) = await runner(backend(server.url, cache=tmp_path), Scripted(clicks=0)).run([task])
    assert result.success, result.reason
    (upload,) = behaviour.uploads
    assert b"from the cache" in upload and path.encode() in upload


async def test_steps_osworld_only_logs_are_named_and_the_episode_is_judged():
    behaviour = osworld_vm(terminal="43 132", refusing={"/setup/launch": (500, b'{"status": "error"}'),
                                                        "/setup/activate_window": (404, b"not found")})
    with StandIn(behaviour) as server:
        task = a_task([{"type": "launch", "parameters": {"command": "gnome-terminal --wait"}},
                       {"type": "activate_window", "parameters": {"window_name": "Terminal"}}])
        (result,) = await runner(backend(server.url), Scripted(clicks=0)).run([task])
    assert result.success and result.error_kind is ErrorKind.NONE
    assert "config[0] (launch) failed: launch ['gnome-terminal', '--wait']: HTTP 500" in result.reason
    assert "config[1] (activate_window) failed" in result.reason


async def test_an_open_the_server_refuses_ends_the_setup_as_osworlds_controller_raises():
    behaviour = osworld_vm(refusing={"/setup/open_file": (404, b"File not found")})
    with StandIn(behaviour) as server:
        task = a_task([{"type": "open", "parameters": {"path": "/home/user/missing.docx"}}])
        (result,) = await runner(backend(server.url), Scripted(clicks=0)).run([task])
    assert result.error_kind is ErrorKind.ENVIRONMENT and not result.success
    assert "config[0] (open): open /home/user/missing.docx: HTTP 404" in result.reason


async def test_a_download_missing_from_the_cache_and_unreachable_names_both(tmp_path):
    url = "http://127.0.0.1:9/x.xlsx"  # nothing listens on the discard port
    with StandIn(osworld_vm()) as server:
        task = a_task([{"type": "download", "parameters": {"files": [{"url": url, "path": "/home/user/x.xlsx"}]}}])
        (result,) = await runner(backend(server.url, cache=tmp_path), Scripted(clicks=0)).run([task])
    assert result.error_kind is ErrorKind.ENVIRONMENT
    assert f"{cache_name(url, '/home/user/x.xlsx')} is not in {tmp_path / 't'} and {url} could not be fetched" \
        in result.reason


async def test_a_command_steps_saved_output_is_what_cache_file_reads():
    grep = ["grep", "-nHr", "languagetool", "/home/user/.config/libreoffice/"]
    behaviour = osworld_vm({json.dumps(grep): "x.oxt:1:org.openoffice.languagetool.oxt\n"})
    task = Task(task_id="multi_apps/t", domain="multi_apps", instruction="-", raw_config={"id": "t"},
                evaluation_spec={"postconfig": [{"type": "command", "parameters": {"command": grep,
                                                                                     "stdout": "grep.out"}}],
                                 "func": "file_contains", "result": {"type": "cache_file", "path": "grep.out"},
                                 "expected": {"type": "rule", "rules": {"expected": ["languagetool.oxt"]}}})
    with StandIn(behaviour) as server:
        (result,) = await runner(backend(server.url), Scripted(clicks=0)).run([task])
    assert result.success, result.reason


async def test_a_command_getter_names_the_vm_users_home_as_the_tasks_do():
    """On troupe's local desktops the session's home stands for /home/user: what a command prints names
    it /home/user (a longer name that starts the same is another folder and stays)."""
    clipboard = "xsel --clipboard --output"
    printed = "/tmp/troupe-home-ab/Data3/List3/secret.docx\n/tmp/troupe-home-abc/x\n/tmp/troupe-home-ab\n"
    behaviour = osworld_vm({json.dumps(clipboard): printed, json.dumps("echo ~"): "/tmp/troupe-home-ab\n"})
    task = Task(task_id="multi_apps/t", domain="multi_apps", instruction="-", raw_config={"id": "t", "config": []},
                evaluation_spec={"func": "exact_match",
                                 "result": {"type": "vm_command_line", "command": clipboard, "shell": "true"},
                                 "expected": {"type": "rule", "rules": {"expected": (
                                     "/home/user/Data3/List3/secret.docx\n/tmp/troupe-home-abc/x\n/home/user\n")}}})
    with StandIn(behaviour) as server:
        (result,) = await runner(backend(server.url), Scripted(clicks=0)).run([task])
    assert result.success and result.score == 1.0, result.reason
    assert behaviour.requests.count(f"POST /execute {json.dumps('echo ~')}") == 1


async def test_sheet_print_reads_the_csvs_the_getters_fetched_beside_each_workbook(tmp_path):
    """A VM's result workbook and the CSV its postconfig exported, the gold pair from the cache folder:
    the files a multi getter does not give reach the checker, where compare_table finds each CSV beside
    its workbook as in OSWorld's cache folder."""
    book = xlsx([["spent"], [3.5]])
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "Keep_gold.xlsx").write_bytes(book)
    (tmp_path / "t" / "Keep_gold-Sheet1.csv").write_bytes(b"spent\n3.50\n")
    spec = {"func": "compare_table",
            "result": {"type": "vm_file", "multi": True, "dest": ["Keep.xlsx", "Keep-Sheet1.csv"],
                       "path": ["/home/user/Keep.xlsx", "/home/user/Keep-Sheet1.csv"]},
            "expected": {"type": "cloud_file", "multi": True, "dest": ["Keep_gold.xlsx", "Keep_gold-Sheet1.csv"],
                         "path": ["https://x/Keep_gold.xlsx", "https://x/gold.csv"]},
            "options": {"rules": [{"type": "sheet_print", "sheet_idx0": "RNSheet1", "sheet_idx1": "ENSheet1"}]}}
    task = Task(task_id="libreoffice_calc/t", domain="libreoffice_calc", instruction="-", raw_config={"id": "t"},
                evaluation_spec=spec)
    scores = []
    for printed in (b"spent\n3.50\n", b"spent\n3.5\n"):
        files = {"/home/user/Keep.xlsx": book, "/home/user/Keep-Sheet1.csv": printed}
        with StandIn(osworld_vm(files=files)) as server:
            (result,) = await runner(backend(server.url, cache=tmp_path), Scripted(clicks=0)).run([task])
        scores.append((result.score, result.reason))
    assert scores == [(1.0, "compare_table=1"), (0.0, "compare_table=0")]
