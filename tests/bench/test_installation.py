"""bench checks at import that protocols, runtime, actors and bench are troupe-bench's (bench/installation.py).

Here with the checkout on the path; tests/test_packaging.py does it in an installed environment, with a
distribution that claims `actors`."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import bench
from bench.installation import foreign_package
from tests.paths import ROOT


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_a_checkout_on_the_path_is_troupe_benchs_own():
    assert foreign_package(ROOT, bench.__version__) is None


@pytest.mark.parametrize("program", [["-m", "bench.supervisor", "--suite", "sim"], ["-m", "bench.viewer", "--help"],
                                     ["-m", "bench.compare", "a", "b"], ["-m", "bench.cli", "run"]])
@pytest.mark.parametrize("shape", ["actors/__init__.py", "actors.py"])
def test_an_actors_in_the_current_folder_that_shadows_ours_is_one_error_line(tmp_path, program, shape):
    """`python -m` puts the current folder first on sys.path: a user's own `actors` there wins."""
    (tmp_path / shape).parent.mkdir(exist_ok=True)
    (tmp_path / shape).write_text("NAME = 'a project of the user'\n")
    result = _run(*program, cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (f"error: the package 'actors' here is {tmp_path / shape} (from no installed "
                             "distribution), not troupe-bench's; run from another folder (python -m looks in the "
                             "current one first; the troupe command does not), or take that folder off sys.path "
                             "(PYTHONPATH)\n")


def test_importing_bench_from_python_raises_an_import_error_that_says_the_same(tmp_path):
    (tmp_path / "runtime.py").write_text("")
    program = "try:\n    import bench\nexcept ImportError as exc:\n    print(type(exc).__name__, exc)\n"
    result = _run("-c", program, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"ForeignPackageError the package 'runtime' here is {tmp_path / 'runtime.py'} ")
