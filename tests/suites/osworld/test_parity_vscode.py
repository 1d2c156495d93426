"""troupe's VS Code metrics agree with OSWorld's own (metrics/vscode.py, imported from ../shared/osworld/reference
for tests only) on files built to sit on their edges: settings.json plain, with comments, a trailing comma, CRLF,
a BOM, JSON that is a list, a string, a number or null, nested values, False against 0; keybindings.json with
VS Code's comment line, two comment lines, an extra `args`, keys in another order; config files as JSON subsets,
text containment and strict equality; command outputs for is_extension_installed; the task's test file run
against the agent's Python files (True, False, numbers clamped, other values by truth, raising, not importing,
no test function, a custom function name). The vscode_config getter reads what OSWorld's reads from the stand-in
OSWorld server over a real socket. Prints the agreement per function."""

from __future__ import annotations

import functools
import json
import os
import sys
import time
import types
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from actors.backends.waa.client import WAAClient
from actors.backends.waa.commands import command
from bench.suites.osworld import vscode as troupe_vscode
from bench.suites.osworld.cached_file import CachedFile
from bench.suites.osworld.episode import Episode
from bench.suites.osworld.getters import resolve
from bench.suites.osworld.python_tests import check_python_file_by_test_suite, run_test_suite
from bench.suites.osworld.vscode import (check_json_keybindings, check_json_settings, compare_config,
                                         is_extension_installed)

from tests.osworld_reference import FILE, REFERENCE, Case, assert_agrees, load, outcome, report_parity, vscode
from tests.osworld_servers import osworld_vm
from tests.waa_servers import StandIn

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")

C = Case
WRAP = {"expected": {"editor.wordWrapColumn": 50}}
EXCLUDE = {"expected": {"files.exclude": {"**/__pycache__": True}}}
BREAK = {"expected": {"debug.focusEditorOnBreak": False}}
SAVE = {"expected": {"files.autoSave": "afterDelay", "files.autoSaveDelay": 500}}
FOLDERS = {"expected": {"folders": [{"path": "project"}, {"path": "data1"}, {"path": "data2"}]}}


def settings(**values: Any) -> bytes:
    return json.dumps(values, indent=4).encode()


SETTINGS_CASES = [
    C(FILE, settings(**{"editor.wordWrapColumn": 50, "editor.wordWrap": "on"}), WRAP),
    C(FILE, settings(**{"editor.wordWrapColumn": 40}), WRAP), C(FILE, settings(), WRAP),
    C(FILE, settings(**{"editor.wordWrapColumn": 50.0}), WRAP),
    C(FILE, b'{\n    // the column\n    "editor.wordWrapColumn": 50\n}', WRAP),
    C(FILE, b'{\n    "editor.wordWrapColumn": 50,\n}', WRAP),
    C(FILE, b'{\r\n    "editor.wordWrapColumn": 50\r\n}\r\n', WRAP),
    C(FILE, b'\xef\xbb\xbf{"editor.wordWrapColumn": 50}', WRAP),
    C(FILE, settings(**{"files.exclude": {"**/__pycache__": True}}), EXCLUDE),
    C(FILE, settings(**{"files.exclude": {"**/__pycache__": True, "**/.git": True}}), EXCLUDE),
    C(FILE, settings(**{"debug.focusEditorOnBreak": False}), BREAK),
    C(FILE, settings(**{"debug.focusEditorOnBreak": 0}), BREAK),
    C(FILE, settings(**{"debug.focusEditorOnBreak": None}), BREAK),
    C(FILE, settings(**{"files.autoSave": "afterDelay", "files.autoSaveDelay": 500}), SAVE),
    C(FILE, settings(**{"files.autoSave": "afterDelay"}), SAVE),
    C(FILE, settings(folders=[{"path": "project"}, {"path": "data1"}, {"path": "data2"}], settings={}), FOLDERS),
    C(FILE, settings(folders=[{"path": "project"}, {"path": "data2"}, {"path": "data1"}]), FOLDERS),
    C(FILE, b"[]", WRAP), C(FILE, b'["editor.wordWrapColumn"]', WRAP), C(FILE, b'"abc"', WRAP),
    C(FILE, b'"editor.wordWrapColumn"', WRAP), C(FILE, b"5", WRAP), C(FILE, b"null", WRAP),
    C(FILE, b"5", {"expected": {}}), C(FILE, b"", WRAP), C(None, WRAP),
    C(FILE, b'{"editor.wordWrapColumn": "\xff"}', WRAP),
    C(FILE, settings(**{"editor.wordWrapColumn": 50}), {}), C(FILE, b"{not json", {}),
    C(FILE, settings(**{"editor.wordWrapColumn": 50}), {"expected": ["editor.wordWrapColumn"]}),
]

BINDING = {"key": "ctrl+j", "command": "workbench.action.focusActiveEditorGroup", "when": "terminalFocus"}
UNBINDING = {"key": "ctrl+f", "command": "-list.find", "when": "listFocus && listSupportsFind"}
COMMENT = "// Place your key bindings in this file to override the defaults\n"


def bindings(*entries: dict, first: str = "", trailing: str = "") -> bytes:
    return (first + json.dumps(list(entries), indent=4)[:-1] + trailing + "]").encode()


KEYBINDING_CASES = [
    C(FILE, bindings(BINDING), {"expected": BINDING}), C(FILE, bindings(BINDING, first=COMMENT), {"expected": BINDING}),
    C(FILE, bindings(UNBINDING, BINDING, first=COMMENT), {"expected": UNBINDING}),
    C(FILE, bindings(dict(BINDING, args={"x": 1}), first=COMMENT), {"expected": BINDING}),
    C(FILE, bindings(dict(reversed(list(BINDING.items()))), first=COMMENT), {"expected": BINDING}),
    C(FILE, bindings(dict(BINDING, when="editorFocus"), first=COMMENT), {"expected": BINDING}),
    C(FILE, bindings(BINDING, first=COMMENT + COMMENT), {"expected": BINDING}),
    C(FILE, bindings(BINDING, first=COMMENT, trailing=",\n"), {"expected": BINDING}),
    C(FILE, bindings(BINDING, first=COMMENT).replace(b"\n", b"\r\n"), {"expected": BINDING}),
    C(FILE, b"[]\n" + bindings(BINDING), {"expected": BINDING}), C(FILE, json.dumps(BINDING).encode(), {"expected": BINDING}),
    C(FILE, b"// only a comment", {"expected": BINDING}), C(FILE, b"", {"expected": BINDING}),
    C(None, {"expected": BINDING}), C(FILE, b"\xff\xfe" + bindings(BINDING), {"expected": BINDING}),
    C(FILE, bindings(BINDING), {}), C(FILE, b"{}", {}),
]

THEME = {"expected": '{"workbench.colorTheme": "Visual Studio Dark"}\n'}
PROJECT = {"expected": "project"}
CONFIG_CASES = [
    C(FILE, settings(**{"workbench.colorTheme": "Visual Studio Dark", "editor.fontSize": 14}), THEME,
      containment_ok=True),
    C(FILE, settings(**{"workbench.colorTheme": "Default Dark Modern"}), THEME, containment_ok=True),
    C(FILE, b'{\n  // theme\n  "workbench.colorTheme": "Visual Studio Dark"\n}', THEME, containment_ok=True),
    C(FILE, b'// theme\n{"workbench.colorTheme": "Visual Studio Dark"}\n', THEME, containment_ok=True),
    C(FILE, b"[]", THEME), C(FILE, b"project", PROJECT), C(FILE, b"my project\n", PROJECT),
    C(FILE, b"Project", PROJECT), C(FILE, b'"project"', {"expected": '"project"'}), C(FILE, b"1", {"expected": "1"}),
    C(FILE, b'{"a": {"b": 1, "c": 2}}', {"expected": '{"a": {"b": 1}}'}),
    C(FILE, b'{"a": {"b": 1, "c": 2}}', {"expected": '{"a": {"b": 2}}'}),
    C(FILE, b'{"a": [1, 2, 3]}', {"expected": '{"a": [1, 2]}'}), C(FILE, b'{"a": 1}', {"expected": "{}"}),
    C(FILE, b'[{"a": 1}]', {"expected": "{}"}),
    C(FILE, b'{"a": 1}', {"expected": '{"a": 1}'}, containment_ok=False),
    C(FILE, b'{\n  "a": 1\n}', {"expected": '{"a": 1}'}, containment_ok=False),
    C(FILE, b'{"a": 1, "b": 2}', {"expected": '{"a": 1}'}, containment_ok=False),
    C(FILE, b"project", PROJECT, containment_ok=False), C(FILE, b"project\n", PROJECT, containment_ok=0),
    C(None, PROJECT), C(FILE, b"project", {"expected": ""}), C(FILE, b"project", {}), C(FILE, b"", PROJECT),
    C(FILE, b"\xff project", PROJECT), C(FILE, b"project", ["expected"]),
    C(FILE, b"project", {"expected": {"a": 1}}), C(FILE, b"project", {"expected": ["project"]}),
]

EXTENSION_CASES = [
    C("mattn.lisp\n", {"type": "contain", "expected": "mattn.lisp"}), C("", {"type": "contain", "expected": "mattn.lisp"}),
    C("ms-python.python\nms-python.vscode-pylance\n", {"type": "contain", "expected": "ms-python.python"}),
    C("", {"type": "not_contain", "expected": "ms-python.python"}),
    C("ms-python.python\n", {"type": "not_contain", "expected": "ms-python.python"}),
    C(None, {"type": "contain", "expected": "test.py"}), C("test.py", {"type": "other", "expected": "test.py"}),
    C("test.py", {"expected": "test.py"}), C("test.py", {"type": "contain"}), C("1", {"type": "contain", "expected": 1}),
]


def test_check_json_settings_agrees_with_osworlds_own(tmp_path, capsys):
    seen = assert_agrees("check_json_settings", vscode().check_json_settings, check_json_settings, SETTINGS_CASES,
                         tmp_path, capsys)
    assert {0.0, 1.0, "raises"} <= seen


def test_check_json_keybindings_agrees_with_osworlds_own(tmp_path, capsys):
    seen = assert_agrees("check_json_keybindings", vscode().check_json_keybindings, check_json_keybindings,
                         KEYBINDING_CASES, tmp_path, capsys)
    assert {0.0, 1.0, "raises"} <= seen


def test_compare_config_agrees_with_osworlds_own(tmp_path, capsys):
    seen = assert_agrees("compare_config", vscode().compare_config, compare_config, CONFIG_CASES, tmp_path, capsys)
    assert {0.0, 1.0, "raises"} <= seen


def test_is_extension_installed_agrees_with_osworlds_own(tmp_path, capsys):
    seen = assert_agrees("is_extension_installed", vscode().is_extension_installed, is_extension_installed,
                         EXTENSION_CASES, tmp_path, capsys)
    assert {0.0, 1.0, "raises"} <= seen


SNAKE = b"SPEED = 10\n\ndef grow(length):\n    return length + 1\n"
BROKEN = b"SPEED = 10\n\ndef grow(length)\n    return length + 1\n"
TEST_SUITE = [
    ("returns True", {}, b"def test():\n    return True\n"),
    ("returns False", {}, b"def test():\n    return False\n"),
    ("returns 0.5", {}, b"def test():\n    return 0.5\n"),
    ("returns 2", {}, b"def test():\n    return 2\n"),
    ("returns -1", {}, b"def test():\n    return -1\n"),
    ("returns a text", {}, b"def test():\n    return 'yes'\n"),
    ("returns None", {}, b"def test():\n    pass\n"),
    ("returns []", {}, b"def test():\n    return []\n"),
    ("raises", {}, b"def test():\n    raise RuntimeError('no')\n"),
    ("does not parse", {}, b"def test(:\n    return True\n"),
    ("imports nothing there", {}, b"import no_such_module_here\ndef test():\n    return True\n"),
    ("has no test", {}, b"def check():\n    return True\n"),
    ("test is not callable", {}, b"test = 5\n"),
    ("a custom function", {"test_function_name": "check"}, b"def check():\n    return True\n"),
    ("a custom function it lacks", {"test_function_name": "check"}, b"def test():\n    return True\n"),
    ("the agent's module right", {}, b"import {snake}\ndef test():\n    return {snake}.grow(1) == 2 and {snake}.SPEED == 10\n"),
    ("the agent's module wrong", {}, b"import {snake}\ndef test():\n    return {snake}.grow(1) == 3\n"),
    ("a file beside it", {}, b"def test():\n    return 'SPEED' in open('{snake}.py').read()\n"),
]
"""(what the test file does, the options, the test file; `{snake}` names the agent's module)."""


def _reference_score(test_file: Path, options: dict[str, Any]) -> Any:
    reference = vscode().check_python_file_by_test_suite
    modules = set(sys.modules)
    cwd = os.getcwd()
    try:
        return outcome(reference, [[str(test_file.parent / "food.py")], str(test_file)], options)
    finally:
        os.chdir(cwd)
        for name in set(sys.modules) - modules:
            del sys.modules[name]


@pytest.mark.parametrize("agent", [SNAKE, BROKEN], ids=["the agent's files import", "the agent's file is broken"])
def test_check_python_file_by_test_suite_agrees_with_osworlds_own(agent, tmp_path, capsys):
    """Each case's files lie in a folder of their own, as in OSWorld's cache folder: the first of the agent's
    files (what `gives` hands the metric), the others beside it, and the task's test file."""
    differences = []
    for index, (what, options, test) in enumerate(TEST_SUITE):
        snake = f"snake_{agent is SNAKE}_{index}"  # a module name of its own: OSWorld's import stays in sys.modules
        test = test.replace(b"{snake}", snake.encode())
        folder = tmp_path / f"case{index}"
        folder.mkdir()
        files = {"food.py": b"FOOD = 1\n", f"{snake}.py": agent, "test_suite.py": test}
        for name, data in files.items():
            (folder / name).write_bytes(data)
        theirs = _reference_score(folder / "test_suite.py", options)
        beside = {name: data for name, data in files.items() if name not in ("food.py", "test_suite.py")}
        ours = outcome(check_python_file_by_test_suite,
                       [CachedFile(files["food.py"], "food.py", beside), CachedFile(test, "test_suite.py", {})], options)
        if theirs != ours:
            differences.append((what, theirs, ours))
    report_parity(capsys, "check_python_file_by_test_suite", len(TEST_SUITE), differences)


def test_no_test_file_scores_0_and_the_test_runs_confined_in_a_child(monkeypatch):
    assert check_python_file_by_test_suite(None, None) == 0.0
    monkeypatch.setenv("TROUPE_TEST_SECRET", "not for the test")
    probe = (f"import os\ndef test():\n    return os.getpid() != {os.getpid()} and 'TROUPE_TEST_SECRET' not in os.environ"
             " and os.getcwd() == os.path.dirname(os.path.abspath(__file__))\n").encode()
    assert run_test_suite({"test_suite.py": probe}, "test_suite.py", "test") == 1.0


def test_a_test_that_hangs_is_killed_at_the_timeout_and_scores_0():
    hangs = b"import time\ndef test():\n    time.sleep(60)\n    return True\n"
    assert run_test_suite({"test_suite.py": hangs}, "test_suite.py", "test", timeout=1.0) == 0.0


def test_what_a_test_starts_ends_with_it(tmp_path):
    started = tmp_path / "started"
    spawns = (f"import subprocess\ndef test():\n    child = subprocess.Popen(['sleep', '60'])\n"
              f"    open({str(started)!r}, 'w').write(str(child.pid))\n    return True\n").encode()
    assert run_test_suite({"test_suite.py": spawns}, "test_suite.py", "test") == 1.0
    stat = Path(f"/proc/{int(started.read_text())}/stat")
    deadline = time.monotonic() + 5
    while stat.exists() and stat.read_text().split()[2] != "Z" and time.monotonic() < deadline:
        time.sleep(0.05)  # SIGKILL is delivered at once, and the process then ends
    assert not stat.exists() or stat.read_text().split()[2] == "Z"


def test_a_file_name_that_is_not_plain_is_refused_and_names_the_name():
    with pytest.raises(Exception, match=r"'\.\./x\.py' is not a plain file name"):
        run_test_suite({"../x.py": b"", "test_suite.py": b""}, "test_suite.py", "test")


@functools.cache
def reference_getter() -> types.ModuleType:
    """getters/vscode.py with the file and replay getters it imports; its sleep made instant."""
    getters = "desktop_env.evaluators.getters"
    root = REFERENCE / "desktop_env" / "evaluators" / "getters"
    packages = {name: types.ModuleType(name) for name in ("desktop_env", "desktop_env.evaluators", getters)}
    siblings = {f"{getters}.file": load(root / "file.py", {}), f"{getters}.replay": load(root / "replay.py", {})}
    module = load(root / "vscode.py", {}, {**packages, **siblings}, package=getters)
    module.time = SimpleNamespace(sleep=lambda seconds: None)
    return module


SPEC = {"type": "vscode_config", "vscode_extension_command": "OpenProject", "path": "/home/user/OpenProject.txt",
        "dest": "OpenProject.txt"}


@pytest.mark.anyio
@pytest.mark.parametrize("content", [b"project\n", None], ids=["written", "not written"])
async def test_vscode_config_sends_osworlds_keys_and_reads_its_file(content, tmp_path, monkeypatch):
    sent: list[str] = []
    controller = SimpleNamespace(execute_python_command=lambda program: sent.append(program) or {"output": ""},
                                 get_file=lambda path: content if path == SPEC["path"] else None)
    theirs = reference_getter().get_vscode_config(
        SimpleNamespace(vm_platform="Linux", controller=controller, cache_dir=str(tmp_path)), SPEC)
    monkeypatch.setattr(troupe_vscode, "PALETTE_WAIT", 0.0)
    behaviour = osworld_vm(files={} if content is None else {SPEC["path"]: content})
    with StandIn(behaviour) as server:
        client = WAAClient(server.url)
        try:
            ours = await resolve(Episode(client, None), SPEC)
        finally:
            await client.aclose()
    assert (Path(theirs).read_bytes() if theirs else None) == ours
    executed = [request for request in behaviour.requests if request.startswith("POST /execute")]
    assert executed == [f"POST /execute {json.dumps(command(program))}" for program in sent]
    assert compare_config(ours, {"expected": "project"}) == float(content is not None)
