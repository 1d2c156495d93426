"""Agents and suites from outside troupe: `module:attr`, and entry points of a package pip really installs."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import bench
from bench.config import ConfigError
from tests.paths import ROOT

PACKAGE = "troupe-plugin-under-test"

PLUGIN = '''
"""A throw-away plugin: an agent that gives up at once, and the sim suite under another name."""

from bench.suites.sim.suite import SimSuite
from protocols import Decide, Decision, Fail


class GiveUp:
    async def decide(self, request: Decide) -> Decision:
        return Decision(action=Fail(reason="plugin agent"), reasoning="installed by a test")


class TinySuite(SimSuite):
    name = "tiny"
'''

PYPROJECT = """
[build-system]
requires = []
build-backend = "wheel_backend"
backend-path = ["."]
"""

BACKEND = f'''
"""A PEP 517 backend of a few lines, so that installing needs no build tool but pip."""

import base64, hashlib, zipfile

NAME, VERSION, MODULE = "{PACKAGE}", "0.0.1", "troupe_plugin_under_test"
DIST = f"{{NAME.replace('-', '_')}}-{{VERSION}}"
FILES = {{
    f"{{MODULE}}.py": open(f"{{MODULE}}.py").read(),
    f"{{DIST}}.dist-info/METADATA": f"Metadata-Version: 2.1\\nName: {{NAME}}\\nVersion: {{VERSION}}\\n",
    f"{{DIST}}.dist-info/WHEEL": "Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n",
    f"{{DIST}}.dist-info/entry_points.txt": "[troupe.agents]\\ngive-up = troupe_plugin_under_test:GiveUp\\n\\n"
                                          "[troupe.suites]\\ntiny = troupe_plugin_under_test:TinySuite\\n",
}}


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = f"{{DIST}}-py3-none-any.whl"
    record = []
    with zipfile.ZipFile(f"{{wheel_directory}}/{{name}}", "w") as wheel:
        for path, text in FILES.items():
            digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
            record.append(f"{{path}},sha256={{digest}},{{len(text.encode())}}")
            wheel.writestr(path, text)
        wheel.writestr(f"{{DIST}}.dist-info/RECORD", "\\n".join([*record, f"{{DIST}}.dist-info/RECORD,,"]) + "\\n")
    return name
'''


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**env, "COLUMNS": "200"})


@pytest.fixture
def installed_plugin(tmp_path):
    """The plugin package, written to a folder and pip-installed into this environment; uninstalled after."""
    folder = tmp_path / "package"
    folder.mkdir()
    (folder / "pyproject.toml").write_text(PYPROJECT)
    (folder / "wheel_backend.py").write_text(BACKEND)
    (folder / "troupe_plugin_under_test.py").write_text(PLUGIN)
    install = run("-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", str(folder))
    assert install.returncode == 0, install.stderr
    try:
        yield
    finally:
        uninstall = run("-m", "pip", "uninstall", "--quiet", "--yes", PACKAGE)
        assert uninstall.returncode == 0, uninstall.stderr


def test_an_installed_package_adds_an_agent_and_a_suite_by_entry_point(installed_plugin, tmp_path):
    listing = run("-m", "bench.supervisor", "--suite", "tiny", "--episodes", "2", "--list", cwd=tmp_path)
    assert listing.returncode == 0, listing.stderr
    assert "tiny: 2 tasks" in listing.stdout
    assert "agents: " in listing.stdout and "give-up" in listing.stdout and "tiny" in listing.stdout
    helped = run("-m", "bench.supervisor", "--help", cwd=tmp_path)
    assert "give-up" in helped.stdout and "tiny" in helped.stdout

    out = tmp_path / "run"
    result = run("-m", "bench.supervisor", "--suite", "tiny", "--agent", "give-up", "--episodes", "2",
                 "--scale", "0", "--out", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = bench.load_run(out).results
    assert [line.result.success for line in lines] == [False, False]
    assert json.loads((out / "run.json").read_text())["config"]["agent"] == "give-up"


def test_module_attr_loads_an_agent_and_a_suite_without_installing(tmp_path):
    (tmp_path / "my_plugins.py").write_text(PLUGIN)
    out = tmp_path / "run"
    result = run("-m", "bench.supervisor", "--suite", "my_plugins:TinySuite", "--agent", "my_plugins:GiveUp",
                 "--episodes", "1", "--scale", "0", "--out", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    info = json.loads((out / "run.json").read_text())
    assert info["config"]["suite"] == "tiny" and info["config"]["agent"] == "my_plugins:GiveUp"


@pytest.mark.anyio
async def test_the_api_takes_a_suite_class_and_an_agent_factory(tmp_path, anyio_backend, monkeypatch):
    (tmp_path / "my_plugins.py").write_text(PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    from my_plugins import GiveUp, TinySuite

    made = []

    def factory():
        made.append(GiveUp())
        return made[-1]

    run = await bench.run(TinySuite, agent=factory, options={"episodes": 3, "scale": 0.0}, concurrency=3,
                          out=str(tmp_path / "run"))
    assert len(run.results) == 3 and len(made) >= 3  # one policy per episode's crew


@pytest.mark.parametrize(("agent", "message"), [
    ("bad_plugins:Nope", "module 'bad_plugins' has no attribute 'Nope'"),
    ("bad_plugins:VALUE", "expected an object with `decide`, a class or a factory, got int"),
])
def test_a_bad_module_attr_is_a_config_error(tmp_path, monkeypatch, agent, message):
    (tmp_path / "bad_plugins.py").write_text("VALUE = 3\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ConfigError, match=message):
        bench.run_sync("sim", agent=agent, out=str(tmp_path / "run"))
    assert not (tmp_path / "run").exists()


def test_readmes_own_suite_runs_from_the_command_line_with_its_own_flag(tmp_path):
    from tests.bench.test_api import readme_files

    (tmp_path / "two_forms.py").write_text(readme_files()["two_forms.py"])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]), "COLUMNS": "200"}
    command = [sys.executable, "-m", "bench.supervisor", "--suite", "two_forms:TwoForms", "--two-forms-forms", "3"]
    listed = subprocess.run([*command, "--list"], cwd=tmp_path, capture_output=True, text=True, timeout=60, env=env)
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.startswith("two-forms: 3 tasks\n")
    ran = subprocess.run([*command, "--out", str(tmp_path / "run")], cwd=tmp_path, capture_output=True, text=True,
                         timeout=60, env=env)
    assert ran.returncode == 0, ran.stderr
    results = [json.loads(line)["result"] for line in (tmp_path / "run" / "results.jsonl").read_text().splitlines()]
    assert sorted(result["task_id"] for result in results) == ["sim-0-0000", "sim-0-0001", "sim-0-0002"]
