"""OSWorld's VS Code and GNOME tasks, whose applications only an OSWorld VM has, run end to end against a stand-in
for its server over a real socket (an OSWorld VM cannot run here): the task file's own setup (downloads from a
cache folder in OSWorld's layout), then its evaluator through troupe's getters and checker, on the VM state a
solved and an untouched task leave (files at their VM paths, command outputs)."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from actors.agent import Agent
from actors.backends.waa.client import Retry
from actors.evaluator import Evaluator
from actors.runner import CrewFactory, EpisodeRunner
from bench.formats.task_folder import read_task
from bench.suites.osworld import vscode
from bench.suites.osworld.checker import OSWorldChecker
from bench.suites.osworld.needs import cache_files
from bench.suites.osworld.node import actors_for, osworld_backend
from runtime.host import run_local_host
from runtime.limits import Limits

from tests.osworld_reference import EXAMPLES
from tests.osworld_servers import Oracle, osworld_vm
from tests.waa_servers import StandIn

pytestmark = [pytest.mark.anyio, pytest.mark.skipif(not EXAMPLES.is_dir(), reason=f"no OSWorld tasks at {EXAMPLES}")]

SETTINGS = "/home/user/.config/Code/User/settings.json"
KEYBINDINGS = "/home/user/.config/Code/User/keybindings.json"
SNAKE = "/home/user/Desktop/snake"
TEST_SUITE = (b"import food, main, settings, snake\n"
              b"def test():\n    return snake.grow(3) == 4 and settings.SPEED == 10 and food.FOOD == 1\n")
GNOME_FAVOURITES = ("export DBUS_SESSION_BUS_ADDRESS='unix:path=/run/user/1000/bus'\n"
                    "gsettings get org.gnome.shell favorite-apps")
TIMEDATECTL = ("               Local time: Thu 2024-01-25 12:56:06 {zone}\n"
               "           Universal time: Thu 2024-01-25 12:56:06 UTC\n"
               "                 RTC time: Thu 2024-01-25 12:56:05\n"
               "                Time zone: {name}\n")

CASES = {
    "vs_code/276cc624-87ea-4f08-ab93-f770e3790175": (  # check_json_settings
        {"files": {SETTINGS: b'{\n    "editor.wordWrapColumn": 50\n}\n'}},
        {"files": {SETTINGS: b'{\n    // VS Code writes comments\n    "editor.wordWrapColumn": 50\n}\n'}}),
    "vs_code/930fdb3b-11a8-46fe-9bac-577332e2640e": (  # check_json_keybindings
        {"files": {KEYBINDINGS: b'// Place your key bindings in this file\n[{"key": "ctrl+j", "command": '
                                b'"workbench.action.focusActiveEditorGroup", "when": "terminalFocus"}]'}},
        {"files": {KEYBINDINGS: b"[]"}}),
    "vs_code/53ad5833-3455-407b-bbc6-45b4c79ab8fb": (  # vscode_config + compare_config
        {"files": {"/home/user/OpenProject.txt": b"project\n"}}, {"files": {}}),
    "vs_code/982d12a5-beab-424f-8d38-d2a48429e511": (  # compare_config, containment
        {"files": {SETTINGS: b'{"workbench.colorTheme": "Visual Studio Dark", "editor.fontSize": 14}'}},
        {"files": {SETTINGS: b'{"workbench.colorTheme": "Default Dark Modern"}'}}),
    "vs_code/57242fad-77ca-454f-b71b-f187181a9f23": (  # is_extension_installed on a command's output
        {"outputs": {json.dumps(["ls", "/home/user/Desktop", "|", "grep", "test.py"]): "test.py\n"}}, {}),
    "multi_apps/26150609-0da3-4a7d-8868-0faf9c5f01bb": (  # check_python_file_by_test_suite
        {"files": {f"{SNAKE}/food.py": b"FOOD = 1\n", f"{SNAKE}/main.py": b"import snake\n",
                   f"{SNAKE}/settings.py": b"SPEED = 10\n",
                   f"{SNAKE}/snake.py": b"def grow(length):\n    return length + 1\n"}},
        {"files": {f"{SNAKE}/food.py": b"FOOD = 1\n", f"{SNAKE}/main.py": b"import snake\n",
                   f"{SNAKE}/settings.py": b"SPEED = 10\n", f"{SNAKE}/snake.py": b"def grow(length):\n    pass\n"}}),
    "os/ec4e3f68-9ea4-4c18-a5c9-69f89d1178b3": (  # check_gnome_favorite_apps
        {"outputs": {json.dumps(GNOME_FAVOURITES): "['thunderbird.desktop', 'google-chrome.desktop']\n"}},
        {"outputs": {json.dumps(GNOME_FAVOURITES): "['thunderbird.desktop', 'google-chrome.desktop', "
                                                   "'vim.desktop']\n"}}),
    "os/b6781586-6346-41cd-935a-a6b1487918fc": (  # is_utc_0
        {"outputs": {json.dumps("timedatectl status"): TIMEDATECTL.format(zone="UTC", name="Etc/UTC (UTC, +0000)")}},
        {"outputs": {json.dumps("timedatectl status"): TIMEDATECTL.format(zone="CET",
                                                                          name="Europe/Paris (CET, +0100)")}}),
}
"""Task -> (the VM state a solved task leaves, an untouched one's): files by VM path, outputs by command."""


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    """A cache folder in OSWorld's layout: each file the tasks' downloads name (empty), and the test suite."""
    folder = tmp_path_factory.mktemp("osworld-cache")
    for task_id in CASES:
        domain, _, stem = task_id.partition("/")
        (folder / stem).mkdir()
        for name in cache_files(read_task(EXAMPLES / domain / f"{stem}.json", domain)):
            (folder / stem / name).write_bytes(TEST_SUITE if name == "test_suite.py" else b"")
    return folder


async def run(task_id: str, state: dict, cache: Path) -> tuple[float | None, str]:
    domain, _, stem = task_id.partition("/")
    task = read_task(EXAMPLES / domain / f"{stem}.json", domain)
    with StandIn(osworld_vm(state.get("outputs"), files=state.get("files"))) as server:
        backend = osworld_backend(server.url, cache=cache, retry=Retry(attempts=2, backoff=0.05),
                                  probe=Retry(attempts=2, backoff=0.05), settle_timeout=0.3)
        runner = EpisodeRunner(crew=CrewFactory(agent=lambda: Agent(Oracle(backend, None)),
                                                evaluator=lambda: Evaluator(OSWorldChecker())),
                               vm_slot=functools.partial(run_local_host, lambda: actors_for(backend)),
                               limits=Limits(call_seconds=30), max_attempts=1)
        (result,) = await runner.run([task])
    return result.score, result.reason


@pytest.mark.parametrize("task_id", CASES)
async def test_a_vm_task_scores_1_solved_and_0_untouched(task_id, cache, monkeypatch):
    monkeypatch.setattr(vscode, "PALETTE_WAIT", 0.0)
    solved, untouched = CASES[task_id]
    assert (await run(task_id, solved, cache))[0] == 1.0
    assert (await run(task_id, untouched, cache))[0] == 0.0
