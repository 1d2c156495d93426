"""A malformed WAA or OSWorld task file, or task list, is one `error:` line naming the file, exit 2."""

import os
import subprocess
import sys

import pytest

from tests.paths import ROOT

BROKEN = "{not json"
CASES = [
    ("waa", "notepad", "examples/notepad/a.json"),
    ("waa", "notepad", "test_all.json"),
    ("osworld", "os", "examples/os/a.json"),
    ("osworld", "os", "test_all.json"),
]


@pytest.mark.parametrize(("suite", "domain", "broken"), CASES, ids=[f"{s}-{b}" for s, _, b in CASES])
def test_a_malformed_task_file_is_one_error_line_and_exit_2(tmp_path, suite, domain, broken):
    tasks = tmp_path / "tasks"
    (tasks / "examples" / domain).mkdir(parents=True)
    (tasks / "test_all.json").write_text(f'{{"{domain}": ["a"]}}')
    (tasks / "examples" / domain / "a.json").write_text('{"instruction": "i", "evaluator": {"func": "infeasible"}}')
    (tasks / broken).write_text(BROKEN)
    result = subprocess.run([sys.executable, "-m", "bench.supervisor", "--suite", suite, f"--{suite}-tasks", str(tasks),
                             f"--{suite}-task", f"{domain}/a", "--out", str(tmp_path / "out")], cwd=ROOT,
                            capture_output=True, text=True, timeout=60, env={**os.environ, "COLUMNS": "200"})
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [
        f"error: {tasks / broken}: not valid JSON: Expecting property name enclosed in double quotes: "
        f"line 1 column 2 (char 1)"]
    assert not (tmp_path / "out").exists()
