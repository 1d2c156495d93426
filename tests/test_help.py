"""Every `python -m` program README names answers --help with its own usage line, runs nothing and shows
no key of the environment."""

import os
import re
import subprocess
import sys

import pytest

from tests.paths import ROOT

PROGRAMS = sorted({module for module in re.findall(r"python -m ([a-z_][\w.]*)", (ROOT / "README.md").read_text())
                   if module.split(".")[0] in ("protocols", "runtime", "actors", "bench")})


def test_readme_names_the_programs():
    assert {"bench.supervisor", "bench.viewer", "bench.compare", "bench.perf.trees", "runtime.node"} <= set(PROGRAMS)


@pytest.mark.parametrize("module", PROGRAMS)
def test_help_prints_the_programs_usage_and_runs_nothing(module, tmp_path):
    keys = {name: f"sk-{name.lower()}-secret-0123" for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")}
    result = subprocess.run([sys.executable, "-m", module, "--help"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=120, env={**os.environ, **keys, "PYTHONPATH": str(ROOT), "COLUMNS": "200"})
    assert result.returncode == 0, result.stderr
    assert not any(key in result.stdout + result.stderr for key in keys.values())  # keys are read, never shown
    assert result.stdout.startswith(f"usage: python -m {module} "), result.stdout[:300]
    assert not list(tmp_path.iterdir())
