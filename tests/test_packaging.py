"""The troupe-bench distribution as a new user gets it: a wheel built from the checkout, installed into a
fresh virtual environment (its core dependencies come from the package index), run from another folder.

One wheel and one environment serve the module; it holds the core install only, so it is also the
environment that lacks every extra.
"""

import email.parser
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import bench
from tests.paths import ROOT
from tests.wheels import write_wheel

CORE = {"anyio", "trio", "msgspec", "websockets", "rich", "httpx", "pillow"}
# what the core install must not pull: office, media, dataframe, browser, desktop and cluster libraries
HEAVY = {"pandas", "numpy", "openpyxl", "python-docx", "odfpy", "py7zr", "opencv-python", "opencv-python-headless",
         "soundfile", "soxr", "fastdtw", "rapidfuzz", "pypdf", "lnkparse3", "playwright", "miniwob", "mss",
         "python-xlib", "jeepney", "ray"}


def _run(*command, cwd: Path, extra_path: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """`command` as a user's shell starts it: nothing of the checkout on the path."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    if extra_path is not None:
        env["PYTHONPATH"] = str(extra_path)
    return subprocess.run([str(part) for part in command], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**env, "COLUMNS": "200"})


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("wheel")
    before = sorted(path.name for path in ROOT.iterdir())
    built = _run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", folder, ROOT,
                 cwd=folder)
    assert built.returncode == 0, built.stderr
    assert sorted(path.name for path in ROOT.iterdir()) == before, "building the wheel left files in the checkout"
    return next(folder.glob("troupe_bench-*.whl"))


@pytest.fixture(scope="module")
def venv(tmp_path_factory, wheel) -> Path:
    folder = tmp_path_factory.mktemp("venv") / "env"
    made = _run(sys.executable, "-m", "venv", "--without-pip", folder, cwd=folder.parent)  # this pip installs into it
    assert made.returncode == 0, made.stderr
    installed = _run(sys.executable, "-m", "pip", "--python", folder / "bin" / "python", "install", "--quiet", wheel,
                     cwd=folder.parent)
    assert installed.returncode == 0, installed.stderr
    return folder


def _requirement_name(requirement: str) -> str:
    return re.match(r"[A-Za-z0-9._-]+", requirement).group().lower().replace("_", "-")


def test_the_wheel_is_troupe_bench_typed_licensed_and_its_core_pulls_no_office_media_or_dataframe_library(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        info = next(name.split("/")[0] for name in names if name.endswith(".dist-info/METADATA"))
        metadata = email.parser.Parser().parsestr(archive.read(f"{info}/METADATA").decode())
        scripts = archive.read(f"{info}/entry_points.txt").decode()
    requires = metadata.get_all("Requires-Dist")
    core = {_requirement_name(r) for r in requires if "extra ==" not in r}
    assert core == CORE and not core & HEAVY
    assert {"web", "desktop", "waa", "osworld", "analysis", "ray", "all", "test"} <= set(metadata.get_all("Provides-Extra"))
    waa = {_requirement_name(r) for r in requires if "extra == 'waa'" in r}
    assert {"pandas", "openpyxl", "python-docx", "opencv-python-headless", "pypdf"} <= waa
    assert (metadata["Name"], metadata["Version"]) == ("troupe-bench", bench.__version__)
    assert metadata["License-Expression"] == "MIT" and metadata["Requires-Python"] == ">=3.11"
    assert {"Typing :: Typed", "Programming Language :: Python :: 3.11"} <= set(metadata.get_all("Classifier"))
    assert {f"{package}/py.typed" for package in ("protocols", "runtime", "actors", "bench")} <= names
    assert {f"{info}/licenses/LICENSE", "bench/viewer/page.html", "bench/viewer/timeline.js", "bench/viewer/step.js"} <= names
    assert not any(name.startswith("tests/") for name in names)
    assert re.search(r"^troupe = bench\.cli:main$", scripts, re.M)


def test_every_install_line_of_readme_names_troupe_bench_or_a_checkout():
    installed = re.findall(r"pip install (?:--\S+ )*(?:-e )?'?([^\s'`]+)", (ROOT / "README.md").read_text())
    assert installed and all(re.fullmatch(r"troupe-bench(\[[a-z0-9,]+\])?|\.\[[a-z0-9,]+\]", name) for name in installed), \
        installed


def test_a_fresh_install_runs_the_sim_suite_from_another_folder_by_both_commands(venv, tmp_path):
    python, troupe = venv / "bin" / "python", venv / "bin" / "troupe"
    runs = {"troupe": ([troupe, "run"], ["troupe", "run"]),
            "module": ([python, "-m", "bench.supervisor"], [str(python), "-m", "bench.supervisor"])}
    for name, (command, recorded) in runs.items():
        result = _run(*command, "--suite", "sim", "--episodes", "2", "--scale", "0.001", "--out", name, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        assert len((tmp_path / name / "results.jsonl").read_text().splitlines()) == 2
        assert json.loads((tmp_path / name / "run.json").read_text())["argv"][:len(recorded)] == recorded
    where = _run(python, "-c", "import bench; print(bench.__file__)", cwd=tmp_path)
    assert where.stdout.startswith(str(venv)), where.stdout  # the installed package, not the checkout
    for command in ([troupe, "--version"], [python, "-m", "bench.supervisor", "--version"]):
        version = _run(*command, cwd=tmp_path)
        assert (version.returncode, version.stdout) == (0, f"troupe-bench {bench.__version__}\n")
    compared = _run(troupe, "compare", "troupe", "module", cwd=tmp_path)
    assert compared.returncode == 0 and "no task changed its verdict" in compared.stdout, compared.stderr
    listed = _run(troupe, "list", "--suite", "sim", cwd=tmp_path)
    assert listed.returncode == 0 and "suites: " in listed.stdout, listed.stderr
    frame = _run(python, "-c", "import bench; run = bench.load_run('troupe'); print(len(run.results)); run.to_pandas()",
                 cwd=tmp_path)
    assert frame.stdout == "2\n" and "pip install 'troupe-bench[analysis]'" in frame.stderr


@pytest.mark.parametrize("suite, extra", [("waa", "waa"), ("miniwob", "web"), ("desktop", "desktop")])
def test_a_suite_whose_extra_is_missing_says_in_one_line_which_to_install(venv, tmp_path, suite, extra):
    result = _run(venv / "bin" / "troupe", "run", "--suite", suite, cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == f"error: the {suite} suite needs the [{extra}] extra: pip install 'troupe-bench[{extra}]'\n"


def test_help_works_without_the_default_suites_extra_and_names_the_extras(venv, tmp_path):
    result = _run(venv / "bin" / "troupe", "run", "--help", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout.startswith("usage: troupe run"), result.stderr
    assert "needs the [web] extra: pip install 'troupe-bench[web]'" in result.stdout


def test_the_perf_modules_that_need_a_checkout_say_so_in_one_line(venv, tmp_path):
    for module in ("bench.perf.summaries", "bench.perf.trees"):
        helped = _run(venv / "bin" / "python", "-m", module, "--help", cwd=tmp_path)
        assert helped.returncode == 0 and helped.stdout.startswith(f"usage: python -m {module}"), helped.stderr
        ran = _run(venv / "bin" / "python", "-m", module, cwd=tmp_path)
        assert ran.returncode == 2 and ran.stderr.startswith("error: ") and ran.stderr.count("\n") == 1, ran.stderr
        assert "checkout" in ran.stderr


def test_the_troupe_command_does_not_look_in_the_current_folder(venv, tmp_path):
    (tmp_path / "actors").mkdir()
    (tmp_path / "actors" / "__init__.py").write_text("NAME = 'a project of the user'\n")
    result = _run(venv / "bin" / "troupe", "run", "--suite", "sim", "--episodes", "1", "--out", "run", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    shadowed = _run(venv / "bin" / "python", "-m", "bench.supervisor", "--suite", "sim", cwd=tmp_path)
    assert shadowed.returncode == 2 and shadowed.stderr.startswith("error: the package 'actors' here is "), shadowed.stderr


@pytest.mark.parametrize("how", ["overwritten", "shadowed"])
def test_another_distribution_that_claims_actors_is_named_in_one_line(venv, wheel, tmp_path, how):
    """`overwritten`: pip installed it into the folder troupe-bench is in, over troupe-bench's actors/;
    `shadowed`: it sits in a folder earlier on sys.path."""
    imposter = write_wheel(tmp_path, "actors-imposter", "0.3", {"actors/__init__.py": '"""Another project."""\n'})
    target = tmp_path / "site"
    first = [wheel, imposter] if how == "overwritten" else [imposter]
    for package in first:
        installed = _run(sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--upgrade",
                         "--target", target, package, cwd=tmp_path)
        assert installed.returncode == 0, installed.stderr
    for command in (["troupe", "run", "--suite", "sim"], ["python", "-m", "bench.viewer", "--help"]):
        result = _run(venv / "bin" / command[0], *command[1:], cwd=tmp_path, extra_path=target)
        assert (result.returncode, result.stdout) == (2, ""), result.stderr
        assert result.stderr == (f"error: the package 'actors' here is {target / 'actors' / '__init__.py'} "
                                 "(from the distribution 'actors-imposter' 0.3), not troupe-bench's; install "
                                 "troupe-bench in a virtual environment of its own: python -m venv ENV && "
                                 "ENV/bin/pip install troupe-bench\n")
