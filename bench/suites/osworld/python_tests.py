"""`check_python_file_by_test_suite`: the task's test file run against the Python files the VM handed back,
with the score OSWorld's function gives, in a confined child process.

OSWorld imports the test file (the task's `cloud_file`, from its cache
folder) into its own harness process, from that folder, where its `vm_file`
getter wrote the agent's files, and calls the function `test_function_name`
(default `test`): True/False score 1/0, a number is clamped to [0, 1], any
other value scores by its truth; a test file that is missing, will not
import or lacks the function, and a test that raises, score 0.

What runs where: nothing from the VM, nor the test file, ever runs in
troupe's own process. The files go into a fresh temporary folder (the
agent's files under the names the task's getter gave them, the test file
under its own); a child Python (`sys.executable -I`: no user site, no
PYTHON* variables, no current folder on its path) runs there with an
environment holding only PATH and a HOME inside that folder, imports the
test file from the folder, calls the test and writes the score to a file;
it may write files of FILE_BYTES at most, and it is killed with its whole
session (whatever it started too) when the score is in, or after
TEST_TIMEOUT seconds (a test that hangs scores 0, where OSWorld's harness
would wait for ever). The child runs as troupe's own user, with what that
user may reach: the task's test file is the task's data (the user's cache
folder), and the agent's files are what the test exercises; they run in
one process, so the agent's code can sway the score, as in OSWorld.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench.suites.osworld.cached_file import CachedFile
from bench.suites.osworld.errors import MetricFailed

TEST_TIMEOUT = 60.0
"""Seconds a task's test may run before it is killed and scores 0."""
FILE_BYTES = 64 * 2**20
"""The largest file the test may write."""
_RUNNER = """
import importlib.util, resource, sys
folder, test_file, function_name, score_file, file_bytes = sys.argv[1:6]
resource.setrlimit(resource.RLIMIT_FSIZE, (int(file_bytes), int(file_bytes)))
sys.path.insert(0, folder)
def score():
    spec = importlib.util.spec_from_file_location("task_test_suite", test_file)
    module = importlib.util.module_from_spec(spec)
    sys.modules["task_test_suite"] = module
    try:
        spec.loader.exec_module(module)
        test = getattr(module, function_name, None)
        if not callable(test):
            return 0.0
        result = test()
    except BaseException:
        return 0.0
    if isinstance(result, bool):
        return float(result)
    if isinstance(result, (int, float)):
        return max(0.0, min(1.0, float(result)))
    return float(bool(result))
value = score()
open(score_file, "w").write(repr(value))
"""
"""The child's program: OSWorld's import, call and scoring of the test, its score written to a file."""


def _files(value: Any) -> list[CachedFile]:
    listed = value if isinstance(value, list) else [value]
    return [item for item in listed if isinstance(item, CachedFile)]


def run_test_suite(files: dict[str, bytes], test_name: str, function_name: str,
                   timeout: float = TEST_TIMEOUT) -> float:
    """The score of `function_name` in the file `test_name` of `files`, run in a confined child."""
    with tempfile.TemporaryDirectory(prefix="osworld-test-suite-") as scratch:
        folder = Path(scratch) / "files"
        (Path(scratch) / "home").mkdir()
        folder.mkdir()
        for name, data in files.items():
            if Path(name).name != name or name in ("", ".", ".."):
                raise MetricFailed(f"check_python_file_by_test_suite: {name!r} is not a plain file name")
            (folder / name).write_bytes(data)
        if test_name not in files:
            return 0.0
        score_file = Path(scratch) / "score"
        with subprocess.Popen([sys.executable, "-I", "-c", _RUNNER, str(folder), str(folder / test_name),
                               function_name, str(score_file), str(FILE_BYTES)], cwd=folder, start_new_session=True,
                              env={"PATH": "/usr/bin:/bin", "HOME": str(Path(scratch) / "home")},
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL) as child:
            try:
                child.wait(timeout)
            except subprocess.TimeoutExpired:
                pass
            finally:
                _end_session(child)
        return float(score_file.read_text()) if score_file.is_file() and child.returncode == 0 else 0.0


def _end_session(child: subprocess.Popen) -> None:
    """Kill the child's session (it, and whatever it started), so that no test outlives its score."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(child.pid, signal.SIGKILL)
    child.wait()


def check_python_file_by_test_suite(result: Any, expected: Any, *, test_function_name: str = "test",
                                    **options: Any) -> float:
    """`result`: the agent's files (the one `gives` names; the others lie beside it in the cache folder),
    `expected`: the task's test file."""
    if not isinstance(expected, CachedFile):
        return 0.0  # OSWorld's function: no test file scores 0
    files: dict[str, bytes] = {}
    for given in _files(result) + [expected]:
        files.update(given.folder)
    for given in _files(result):
        files[given.name] = bytes(given)
    files[expected.name] = bytes(expected)
    return run_test_suite(files, expected.name, test_function_name)


PYTHON_TEST_METRICS = {"check_python_file_by_test_suite": check_python_file_by_test_suite}
