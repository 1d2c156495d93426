"""The one-call API: bench.run on asyncio and trio, run_sync, load_run, and README's programs run as printed."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import bench
import bench.api
from actors.run_folder import ResultsError
from protocols import Decide, Decision, Done, EpisodeFinished, StepTaken
from tests.paths import ROOT



def readme_files() -> dict[str, str]:
    """README's Python blocks that start with `# NAME.py`, by file name."""
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S)
    return {block.split("\n", 1)[0][2:]: block for block in blocks if re.match(r"# [\w.]+\.py\n", block)}


@pytest.fixture
def readme_folder(tmp_path):
    for name, code in readme_files().items():
        (tmp_path / name).write_text(code)
    return tmp_path


def run_python(folder: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, *args], cwd=folder, capture_output=True, text=True, timeout=120,
                          env={**env, "COLUMNS": "200"})


def test_readme_examples_are_short_complete_programs():
    files = readme_files()
    assert {"form_filler.py", "embed_trio.py", "embed_asyncio.py"} <= set(files)
    assert len(files["form_filler.py"].splitlines()) < 25
    assert len(files["embed_trio.py"].splitlines()) < 30 and len(files["embed_asyncio.py"].splitlines()) < 30


@pytest.mark.parametrize("program", ["embed_trio.py", "embed_asyncio.py"])
def test_readme_embedding_programs_run_as_printed(readme_folder, program):
    result = run_python(readme_folder, program)
    assert result.returncode == 0, result.stderr
    loop = program.removeprefix("embed_").removesuffix(".py")
    run_info = json.loads((readme_folder / "runs" / f"form-filler-{loop}" / "run.json").read_text())
    assert run_info["entry"] == "python" and run_info["event_loop"] == loop
    assert run_info["config"]["agent"] == "form_filler:FormFiller"
    if loop == "trio":
        assert re.search(r"sim-0-0000#1 step 1: (Click|TypeText) \(goal 1: '\w+", result.stdout)
        assert "success 100%" in result.stdout
    else:
        assert re.search(r"^sim-0-0000#1 1$", result.stdout, re.M)
        assert "the program's own task still runs" in result.stdout
        assert "4 of 4 episodes succeeded" in result.stdout


def test_readme_agent_runs_from_the_command_line_by_module_and_attribute(readme_folder):
    out = readme_folder / "cli-run"
    result = run_python(readme_folder, "-m", "bench.supervisor", "--suite", "sim", "--agent", "form_filler:FormFiller",
                        "--episodes", "3", "--scale", "0.001", "--out", str(out))
    assert result.returncode == 0, result.stderr
    lines = bench.load_run(out).results
    assert len(lines) == 3 and all(line.result.success for line in lines)


class Recorder:
    """A Policy object (shared by every episode) that says done at once and remembers what it was asked."""

    def __init__(self) -> None:
        self.requests: list[Decide] = []

    async def decide(self, request: Decide) -> Decision:
        self.requests.append(request)
        return Decision(action=Done(), reasoning="nothing to do")


@pytest.mark.anyio
async def test_run_writes_the_cli_run_folder_on_either_loop_and_load_run_reads_it_back(tmp_path, anyio_backend):
    policy, events = Recorder(), []

    async def collect(event):
        events.append(event)

    run = await bench.run("sim", agent=policy, options={"episodes": 3, "scale": 0.0}, concurrency=2, max_steps=4,
                          out=str(tmp_path / "run"), on_event=collect)
    assert {p.name for p in run.folder.iterdir()} >= {"results.jsonl", "summary.json", "report.html", "run.json",
                                                       "episodes"}
    assert len(run.results) == 3 and run.summary["overall"]["episodes"] == 3
    assert len(policy.requests) == 3 and {r.max_steps for r in policy.requests} == {4}
    assert sum(isinstance(e, StepTaken) for e in events) == 3
    assert sum(isinstance(e, EpisodeFinished) for e in events) == 3
    info = json.loads((run.folder / "run.json").read_text())
    assert info["entry"] == "python" and info["call"] == "bench.run" and "argv" not in info
    assert info["event_loop"] == anyio_backend
    assert info["config"]["agent"] == "tests.bench.test_api:Recorder"
    assert info["config"]["limits"]["max_steps"] == 4 and info["config"]["options"]["episodes"] == 3
    again = bench.load_run(run.folder)
    assert again.results == run.results and again.summary == run.summary


@pytest.mark.anyio
async def test_the_step_budget_is_the_runs_max_steps_in_every_episode(tmp_path, anyio_backend):
    run = await bench.run("sim", options={"episodes": 4, "scale": 0.0, "agent_error_rate": 0.0}, max_steps=2,
                          out=str(tmp_path / "run"))
    assert all(line.result.steps <= 2 for line in run.results)
    assert any("step limit of 2" in line.result.reason for line in run.results)


@pytest.mark.anyio
async def test_miniwob_runs_under_either_loop_its_slots_sharing_a_browser_node_and_says_so(tmp_path, anyio_backend):
    said = []
    checked = await bench.api.plan("miniwob", {"tasks": ["click-button"], "seeds": 2, "concurrency": 2,
                                         "out": str(tmp_path / "run")})
    run = await bench.api.execute(checked, say=said.append)
    assert sorted(line.result.task_id for line in run.results) == ["click-button@0", "click-button@1"]
    assert all(line.result.success for line in run.results), [line.result.reason for line in run.results]
    assert "2 VM slot(s) per browser: one browser for the run's 2 slot(s), a context each: less memory a slot and one" \
           " start-up instead of 2" in said
    recorded = json.loads((run.folder / "run.json").read_text())["config"]
    assert recorded["slots_per_browser"] == 2
    assert recorded["vm"] == "node"  # what hosted the browsers: node processes, though no --vm was given


def test_run_sync_and_to_pandas(tmp_path):
    run = bench.run_sync("sim", options={"episodes": 2, "scale": 0.0}, out=str(tmp_path / "run"), backend="trio")
    frame = run.to_pandas()
    assert len(frame) == 2 and set(frame["task_id"]) == {"sim-0-0000", "sim-0-0001"}
    assert json.loads((run.folder / "run.json").read_text())["call"] == "bench.run_sync"


def test_load_run_refuses_a_folder_that_is_no_run(tmp_path):
    with pytest.raises(ResultsError, match="not a run folder"):
        bench.load_run(tmp_path)


@pytest.mark.anyio
async def test_the_llm_config_file_is_read_once_when_the_run_is_checked(tmp_path, anyio_backend, monkeypatch):
    from tests.fake_llm import FakeLLM, by_role, form_filler

    monkeypatch.setenv("TEST_LLM_KEY", "sk-read-once")
    with FakeLLM(by_role(agent=form_filler), api_key="sk-read-once") as server:
        config = tmp_path / "llm.toml"
        config.write_text(f'[llm]\nbase_url = "{server.url}"\nmodel = "fake-model"\nmax_retries = 0\n')
        checked = await bench.api.plan("sim", {"episodes": 2, "scale": 0.0, "agent_error_rate": 0.0, "llm_config": str(config),
                                         "llm_api_key_env": "TEST_LLM_KEY", "out": str(tmp_path / "run")},
                                 agent="llm", summarizer="none")
        config.unlink()  # every agent of the run uses what was read when the run was checked
        run = await bench.api.execute(checked)
    assert [line.result.success for line in run.results] == [True, True]


def test_bench_exports_exactly_its_public_names():
    assert sorted(bench.__all__) == [
        "ConfigError", "LLMOptions", "LimitsConfig", "Run", "RunConfig", "Suite", "UnknownTask",
        "load_run", "run", "run_sync",
    ]
    assert all(hasattr(bench, name) and not name.startswith("_") for name in bench.__all__)


def test_bench_runs_keywords_are_the_run_configs_settings_flattened():
    from bench.config import RunConfig, flatten
    from bench.keywords import RunKeywords

    assert RunKeywords.__optional_keys__ == set(flatten(RunConfig())) - {"suite", "source", "agent", "summarizer"}


@pytest.mark.anyio
async def test_bench_run_takes_a_run_config_and_refuses_a_setting_it_does_not_have(tmp_path, anyio_backend):
    from bench.suites.sim.suite import SimSuite

    config = bench.RunConfig(suite="sim", concurrency=2, limits=bench.LimitsConfig(max_steps=3),
                             options=SimSuite.Options(episodes=3, scale=0.0))
    run = await bench.run(config=config, out=tmp_path / "run")
    recorded = json.loads((run.folder / "run.json").read_text())["config"]
    assert (recorded["suite"], recorded["concurrency"], recorded["limits"]["max_steps"]) == ("sim", 2, 3)
    assert len(run.results) == 3
    with pytest.raises(bench.ConfigError, match=r"^bench.run: no setting 'episodes'; a suite's own settings go in "
                                                r"options= \(options=\{'episodes': \.\.\.\}\)$"):
        await bench.run("sim", episodes=2, out=tmp_path / "never")
    assert not (tmp_path / "never").exists()
