"""Every bad input: one `error:` line and exit status 2 from the CLI, ConfigError from the API, nothing written."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import msgspec
import pytest

import bench
import bench.api
from actors.errors import ConfigError
from actors.run_folder import read_results
from bench.keywords import RunKeywords
from bench.suites.base import UnknownTask
from bench.viewer.state import ViewerState
from tests.paths import ROOT

MISSING = "/nonexistent/waa/evaluation_examples_windows"


def malformed_llm_config(folder: Path) -> str:
    path = folder / "llm.toml"
    path.write_text("[llm\nmodel = 'm'\n")
    return str(path)


def osworld_tasks(folder: Path) -> str:
    """A one-task OSWorld evaluation_examples folder."""
    root = folder / "evaluation_examples"
    (root / "examples" / "os").mkdir(parents=True, exist_ok=True)
    (root / "test_all.json").write_text('{"os": ["t"]}')
    (root / "examples" / "os" / "t.json").write_text('{"instruction": "i", "evaluator": {"func": "infeasible"}}')
    return str(root)


def a_file(folder: Path) -> str:
    path = folder / "a-file"
    path.write_text("not a folder")
    return str(path / "run")


def too_long(folder: Path) -> str:
    return str(folder / ("x" * 300))


def ran_with(config: dict):
    """A run folder whose run.json recorded `config` (as much of it as a case needs) and that holds a result."""
    def make(folder: Path) -> str:
        run = folder / "ran"
        run.mkdir(exist_ok=True)
        (run / "run.json").write_text(json.dumps({"config": config}))
        (run / "results.jsonl").write_text('{"result": {"episode_id": "sim-0-0000#1", "task_id": "sim-0-0000"}}\n')
        return str(run)
    return make


LIMITS_AND_OPTIONS = {"limits": {"max_steps": 30}, "options": {"crash_rate": 0.5}}


def garbled_run_json(folder: Path) -> str:
    run = Path(ran_with({})(folder))
    (run / "run.json").write_text('{"config": {"suite": "sim"')
    return str(run)


HELD: list[socket.socket] = []
"""Sockets rows hold open while their case runs; `release_held` closes them after each test."""


def busy_port(folder: Path) -> str:
    """HOST:PORT where something else already listens."""
    held = socket.create_server(("127.0.0.1", 0))
    HELD.append(held)
    return f"127.0.0.1:{held.getsockname()[1]}"


def raising_suite(folder: Path) -> str:
    """`module:attr` of a suite module that raises on import (its folder is on the path)."""
    (folder / "raising_suite.py").write_text("import json\n\nraise RuntimeError('no config for this suite')\n")
    return "raising_suite:Suite"


def agent_without_decide(folder: Path) -> str:
    (folder / "no_decide.py").write_text("class Agent:\n    def act(self, request):\n        return None\n")
    return "no_decide:Agent"


@pytest.fixture(autouse=True)
def release_held():
    yield
    while HELD:
        HELD.pop().close()


# (case, CLI flags, bench.run keywords, what the one line says: the same, or (CLI's, API's) where the CLI names
# a flag and the API a keyword); a callable value gets tmp_path.
CASES = [
    ("unknown miniwob task", ["--suite", "miniwob", "--miniwob-tasks", "click-buton"],
     {"suite": "miniwob", "tasks": ["click-buton"]}, "miniwob has no task 'click-buton'; did you mean 'click-button'"),
    ("unknown desktop task", ["--suite", "desktop", "--desktop-task", "editor-writ-note"],
     {"suite": "desktop", "task": ["editor-writ-note"]}, "did you mean 'editor-write-note'"),
    ("zero episodes", ["--suite", "sim", "--episodes", "0"], {"suite": "sim", "episodes": 0},
     ("--episodes: expected `int` >= 1, got", "episodes: expected `int` >= 1, got")),
    ("negative episodes", ["--suite", "sim", "--episodes", "-3"], {"suite": "sim", "episodes": -3},
     ("--episodes: expected `int` >= 1, got", "episodes: expected `int` >= 1, got")),
    ("zero repeats", ["--suite", "sim", "--repeats", "0"], {"suite": "sim", "repeats": 0},
     ("--repeats: expected `int` >= 1, got", "repeats: expected `int` >= 1, got")),
    ("text repeats", ["--suite", "sim", "--repeats", "three"], {"suite": "sim", "repeats": "three"},
     ("--repeats: expected `int`, got 'three'", "repeats: expected `int`, got `str`")),
    ("unknown screenshots choice", ["--suite", "sim", "--screenshots", "some"], {"suite": "sim", "screenshots": "some"},
     ("argument --screenshots: invalid choice: 'some' (choose from 'all', 'failed', 'final', 'none')",
      "screenshots: expected one of 'all', 'failed', 'final', 'none', got 'some'")),
    ("unknown screenshot format", ["--suite", "sim", "--screenshot-format", "gif"],
     {"suite": "sim", "screenshot_format": "gif"},
     ("argument --screenshot-format: invalid choice: 'gif' (choose from 'jpeg', 'png', 'webp')",
      "screenshot_format: expected one of 'jpeg', 'png', 'webp', got 'gif'")),
    ("screenshot quality past 100", ["--suite", "sim", "--screenshot-quality", "101"],
     {"suite": "sim", "screenshot_quality": 101},
     ("--screenshot-quality: expected `int` <= 100, got", "screenshot_quality: expected `int` <= 100, got")),
    ("zero concurrency", ["--suite", "sim", "--concurrency", "0"], {"suite": "sim", "concurrency": 0},
     ("--concurrency: expected `int` >= 1, got", "concurrency: expected `int` >= 1, got")),
    ("negative concurrency", ["--suite", "sim", "--concurrency", "-1"], {"suite": "sim", "concurrency": -1},
     ("--concurrency: expected `int` >= 1, got", "concurrency: expected `int` >= 1, got")),
    ("zero max steps", ["--suite", "sim", "--max-steps", "0"], {"suite": "sim", "max_steps": 0},
     ("--max-steps: expected `int` >= 1, got", "max_steps: expected `int` >= 1, got")),
    ("negative max steps", ["--suite", "sim", "--max-steps", "-5"], {"suite": "sim", "max_steps": -5},
     ("--max-steps: expected `int` >= 1, got", "max_steps: expected `int` >= 1, got")),
    ("text max steps", ["--suite", "sim", "--max-steps", "many"], {"suite": "sim", "max_steps": "many"},
     ("--max-steps: expected `int`, got 'many'", "max_steps: expected `int`, got `str`")),
    ("negative episode timeout", ["--suite", "sim", "--episode-timeout", "-1"],
     {"suite": "sim", "episode_timeout": -1.0},
     ("--episode-timeout: expected `float` > 0", "episode_timeout: expected `float` > 0")),
    ("negative call timeout", ["--suite", "sim", "--call-timeout", "-0.5"], {"suite": "sim", "call_timeout": -0.5},
     ("--call-timeout: expected `float` > 0", "call_timeout: expected `float` > 0")),
    ("negative tree timeout", ["--suite", "sim", "--tree-timeout", "-2"], {"suite": "sim", "tree_timeout": -2.0},
     ("--tree-timeout: expected `float` > 0", "tree_timeout: expected `float` > 0")),
    ("infinite tree timeout", ["--suite", "sim", "--tree-timeout", "inf"], {"suite": "sim", "tree_timeout": float("inf")},
     ("--tree-timeout: expected `float` <= 1000000000.0", "tree_timeout: expected `float` <= 1000000000.0")),
    ("out under a file", ["--suite", "sim", "--out", a_file], {"suite": "sim", "out": a_file},
     "a-file is not a writable folder"),
    ("missing waa tasks folder", ["--suite", "waa", "--waa-tasks", MISSING], {"suite": "waa", "tasks": MISSING},
     f"waa tasks folder {MISSING}: no such folder"),
    ("waa without its tasks folder", ["--suite", "waa"], {"suite": "waa"}, "--suite waa needs --waa-tasks PATH"),
    ("osworld without its tasks folder", ["--suite", "osworld"], {"suite": "osworld"},
     "--suite osworld needs --osworld-tasks PATH"),
    ("missing osworld tasks folder", ["--suite", "osworld", "--osworld-tasks", MISSING],
     {"suite": "osworld", "tasks": MISSING}, f"osworld tasks folder {MISSING}: no such folder"),
    ("osworld tasks folder without its task list", ["--suite", "osworld", "--osworld-tasks", lambda f: str(f)],
     {"suite": "osworld", "tasks": lambda f: str(f)}, "test_all.json does not exist: --osworld-tasks must point"),
    ("missing osworld cache folder",
     ["--suite", "osworld", "--osworld-tasks", osworld_tasks, "--osworld-cache", MISSING],
     {"suite": "osworld", "tasks": osworld_tasks, "cache": MISSING}, f"osworld cache folder {MISSING}: no such folder"),
    ("unknown osworld domain", ["--suite", "osworld", "--osworld-tasks", osworld_tasks, "--osworld-domain", "chrom"],
     {"suite": "osworld", "tasks": osworld_tasks, "domain": ["chrom"]}, "osworld domain chrom: not in"),
    ("computer-use agent without a model", ["--suite", "sim", "--agent", "anthropic-cu"],
     {"suite": "sim", "agent": "anthropic-cu"},
     "no LLM model given: pass --llm-model, set ANTHROPIC_MODEL, or `model` in the config file"),
    ("unknown computer-use tool version",
     ["--suite", "sim", "--agent", "anthropic-cu", "--llm-model", "m", "--llm-computer-tool", "computer_2099"],
     {"suite": "sim", "agent": "anthropic-cu", "llm_model": "m", "llm_computer_tool": "computer_2099"},
     ("--llm-computer-tool: invalid choice: 'computer_2099'",
      "llm_computer_tool: expected one of 'computer_20250124', ")),
    ("malformed llm config, no LLM role", ["--suite", "sim", "--llm-config", malformed_llm_config],
     {"suite": "sim", "llm_config": malformed_llm_config}, "is not valid TOML"),
    ("episodes given to miniwob", ["--suite", "miniwob", "--episodes", "5"], {"suite": "miniwob", "episodes": 5},
     ("--episodes: the miniwob suite has no such option (its own: --miniwob-seeds, --miniwob-tasks)",
      "episodes: the miniwob suite has no such option (its own: seeds, tasks)")),
    ("episodes given to desktop", ["--suite", "desktop", "--episodes", "5"], {"suite": "desktop", "episodes": 5},
     ("--episodes: the desktop suite has no such option", "episodes: the desktop suite has no such option")),
    ("episodes given to waa", ["--suite", "waa", "--episodes", "5"], {"suite": "waa", "episodes": 5},
     ("--episodes: the waa suite has no such option", "episodes: the waa suite has no such option")),
    ("episodes given to replay", ["--suite", "replay:runs/x", "--episodes", "5"],
     {"suite": "replay:runs/x", "episodes": 5},
     ("--episodes: the replay suite has no such option", "episodes: the replay suite has no such option")),
    ("another suite's option", ["--suite", "sim", "--miniwob-seeds", "2"], {"suite": "sim", "seeds": 2},
     ("--miniwob-seeds: the sim suite has no such option", "seeds: the sim suite has no such option")),
    ("unknown suite", ["--suite", "nope"], {"suite": "nope"}, "--suite 'nope': no such suite"),
    ("unknown agent", ["--suite", "sim", "--agent", "smart"], {"suite": "sim", "agent": "smart"},
     "--agent 'smart': no such agent"),
    ("agent module that does not import", ["--suite", "sim", "--agent", "no_such_module:Agent"],
     {"suite": "sim", "agent": "no_such_module:Agent"}, "cannot import 'no_such_module'"),
    ("viewer address without a port", ["--suite", "sim", "--viewer", "localhost"],
     {"suite": "sim", "viewer": "localhost"}, ("--viewer: expected HOST:PORT", "viewer: expected HOST:PORT")),
    ("out in /proc", ["--suite", "sim", "--out", "/proc/x"], {"suite": "sim", "out": "/proc/x"},
     ("--out /proc/x: cannot write there", "out /proc/x: cannot write there")),
    ("over-long out name", ["--suite", "sim", "--out", too_long], {"suite": "sim", "out": too_long},
     "characters): cannot write there (File name too long)"),
    ("viewer on a busy port", ["--suite", "sim", "--viewer", busy_port], {"suite": "sim", "viewer": busy_port},
     ": cannot listen there (Address already in use)"),
    ("viewer beyond this machine without a token", ["--suite", "sim", "--viewer", "0.0.0.0:8765"],
     {"suite": "sim", "viewer": "0.0.0.0:8765"},
     ("--viewer 0.0.0.0:8765: serves beyond this machine; give --viewer-token",
      "viewer 0.0.0.0:8765: serves beyond this machine; give viewer_token")),
    ("connect to a node that is not there", ["--suite", "sim", "--connect", "ws://127.0.0.1:9", "--token", "t"],
     {"suite": "sim", "connect": ["ws://127.0.0.1:9"], "token": "t"},
     "--connect: no node answered: ws://127.0.0.1:9: OSError: All connection attempts failed"),
    ("empty miniwob task list", ["--suite", "miniwob", "--miniwob-tasks", ""], {"suite": "miniwob", "tasks": []},
     "miniwob tasks: expected task names, 'default' (24 tasks) or 'all' (128), got []"),
    ("suite module that raises on import", ["--suite", raising_suite], {"suite": raising_suite},
     "importing 'raising_suite' raised RuntimeError: no config for this suite ("),
    ("agent class without decide", ["--suite", "sim", "--agent", agent_without_decide],
     {"suite": "sim", "agent": agent_without_decide}, "the class Agent has no `decide` method"),
    ("resume with another agent", ["--suite", "sim", "--out", ran_with({"suite": "sim", "agent": "scripted"})],
     {"suite": "sim", "out": ran_with({"suite": "sim", "agent": "scripted"})},
     ("holds a run with other settings that change what an episode means: --agent (was 'scripted', now 'sim'); "
      "resume it with its own settings, give --force", "means: agent (was 'scripted', now 'sim'); resume it")),
    ("resume with other limits and suite options", ["--suite", "sim", "--out", ran_with(LIMITS_AND_OPTIONS)],
     {"suite": "sim", "out": ran_with(LIMITS_AND_OPTIONS)},
     ("--crash-rate (was 0.5, now 0.0), --max-steps (was 30, now 15)",
      "crash_rate (was 0.5, now 0.0), max_steps (was 30, now 15)")),
    ("resume of a garbled run.json", ["--suite", "sim", "--out", garbled_run_json],
     {"suite": "sim", "out": garbled_run_json}, "ran/run.json: not readable as JSON (Expecting"),
]
IDS = [case[0] for case in CASES]


def resolve(value, folder: Path):
    return value(folder) if callable(value) else value


@pytest.mark.parametrize(("case", "flags", "keywords", "message"), CASES, ids=IDS)
def test_the_cli_prints_one_error_line_exits_2_and_writes_nothing(tmp_path, case, flags, keywords, message):
    flags = [resolve(flag, tmp_path) for flag in flags]
    out = [] if "--out" in flags else ["--out", str(tmp_path / "out")]
    before = set(ROOT.joinpath("runs").glob("*")) if ROOT.joinpath("runs").exists() else set()
    path = os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))
    result = subprocess.run([sys.executable, "-m", "bench.supervisor", *flags, *out], cwd=ROOT, capture_output=True,
                            text=True, timeout=60, env={**os.environ, "COLUMNS": "200", "PYTHONPATH": path})
    assert result.returncode == 2, result.stderr
    lines = result.stderr.splitlines()
    expected = message if isinstance(message, str) else message[0]
    assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0], result.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / "a-file" / "run").exists()
    assert (set(ROOT.joinpath("runs").glob("*")) if ROOT.joinpath("runs").exists() else set()) == before


@pytest.mark.anyio
@pytest.mark.parametrize(("case", "flags", "keywords", "message"), CASES, ids=IDS)
async def test_the_api_raises_config_error_and_writes_nothing(tmp_path, case, flags, keywords, message, anyio_backend,
                                                             monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    keywords = {name: resolve(value, tmp_path) for name, value in keywords.items()}
    settings = {name: value for name, value in keywords.items() if name in RunKeywords.__optional_keys__}
    options = {name: value for name, value in keywords.items() if name not in {*settings, "suite", "agent"}}
    settings.setdefault("out", str(tmp_path / "out"))
    with pytest.raises(ConfigError) as raised:
        await bench.run(keywords["suite"], agent=keywords.get("agent"), options=options, **settings)
    assert (message if isinstance(message, str) else message[1]) in str(raised.value)
    assert not (tmp_path / "out").exists()


@pytest.mark.anyio
async def test_a_suite_option_given_plain_and_with_its_prefix_is_refused(tmp_path, anyio_backend):
    with pytest.raises(ConfigError, match="waa_tasks: given twice, as 'tasks' and as 'waa_tasks'"):
        await bench.run("waa", options={"tasks": MISSING, "waa_tasks": MISSING}, out=str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()


def test_an_unknown_task_is_both_a_config_error_and_a_lookup_error():
    with pytest.raises(UnknownTask) as raised:
        bench.run_sync("miniwob", options={"tasks": ["click-buton"]})
    assert isinstance(raised.value, LookupError) and isinstance(raised.value, ConfigError)


def test_a_valid_llm_config_no_role_uses_is_said_to_be_unused(tmp_path):
    config = tmp_path / "llm.toml"
    config.write_text("[llm]\nmodel = 'm'\n")
    result = subprocess.run([sys.executable, "-m", "bench.supervisor", "--suite", "sim", "--episodes", "1",
                             "--scale", "0", "--llm-config", str(config), "--out", str(tmp_path / "out")],
                            cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert f"--llm-config {config} is unused: no LLM role" in result.stderr


ASYNCIO_ONLY = '''
from actors.errors import ConfigError
from bench.suites.sim.suite import SimSuite


def refuse():
    raise ConfigError("this backend needs asyncio: run with --backend asyncio or --vm node")


class AsyncioOnly(SimSuite):
    name = "asyncio-only"

    def vm_actors(self):
        return refuse
'''


def test_a_configuration_error_the_runner_finds_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "asyncio_only.py").write_text(ASYNCIO_ONLY)
    result = subprocess.run([sys.executable, "-m", "bench.supervisor", "--suite", "asyncio_only:AsyncioOnly",
                             "--episodes", "2", "--out", str(tmp_path / "out")],
                            cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.splitlines() == ["error: this backend needs asyncio: run with --backend asyncio or --vm node"]
    assert not (tmp_path / "out" / "results.jsonl").exists()


@pytest.mark.anyio
async def test_the_api_raises_the_runners_configuration_error_itself(tmp_path, anyio_backend, monkeypatch):
    (tmp_path / "asyncio_only_api.py").write_text(ASYNCIO_ONLY)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ConfigError, match="this backend needs asyncio"):
        await bench.run("asyncio_only_api:AsyncioOnly", options={"episodes": 2}, out=str(tmp_path / "out"))


# Mistakes whose documented outcome is not a refusal: the run goes on, or stops in one line.


@pytest.mark.parametrize("loop", ["asyncio", "trio"])
def test_ctrl_c_ends_the_run_in_one_line_saying_how_to_resume_and_resuming_finishes_it(tmp_path, loop):
    """A real SIGINT to the process group, as a terminal's Ctrl-C sends it."""
    out = tmp_path / "run"
    command = [sys.executable, "-m", "bench.supervisor", "--suite", "sim", "--episodes", "6", "--concurrency", "1",
               "--backend", loop, "--out", str(out)]
    running = subprocess.Popen([*command, "--scale", "0.1"], cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        results = out / "results.jsonl"
        for _ in range(600):
            if results.exists() and results.read_text().count("\n") >= 1:
                break
            time.sleep(0.05)
        os.killpg(running.pid, signal.SIGINT)
        stderr = running.communicate(timeout=60)[1]
    finally:
        running.kill()
    assert running.returncode == 130, stderr
    (line,) = stderr.splitlines()
    kept = len(list(read_results(out)))
    assert line == (f"interrupted: {kept} of 6 episodes finished and kept in {out}; to resume, run the same command "
                    f"with --out {out} (finished episodes are not run again)")
    assert 1 <= kept < 6
    resumed = subprocess.run([*command, "--scale", "0"], cwd=ROOT, capture_output=True, text=True, timeout=60,
                             env={**os.environ, "COLUMNS": "200"})
    assert resumed.returncode == 0, resumed.stderr
    assert f"resuming {out}: {kept} of 6 episodes already finished" in resumed.stdout
    assert sorted(line.result.task_id for line in read_results(out)) == [f"sim-0-{i:04d}" for i in range(6)]


@pytest.mark.anyio
async def test_an_on_event_callback_that_raises_is_logged_once_and_the_run_goes_on(tmp_path, anyio_backend, caplog):
    seen = []

    def on_event(event):
        seen.append(event)
        raise RuntimeError("the callback's own bug")

    run = await bench.run("sim", options={"episodes": 2, "scale": 0.0, "agent_error_rate": 0.0}, on_event=on_event,
                          out=tmp_path / "run")
    assert len(run.results) == 2 and all(line.result.success for line in run.results)
    said = [record.getMessage() for record in caplog.records if record.name == "bench.api"]
    assert said == ["on_event raised RuntimeError: the callback's own bug; the run goes on (further failures are "
                    "counted)", f"on_event raised {len(seen)} times in all"]


@pytest.mark.anyio
async def test_run_sync_inside_a_running_event_loop_runs_its_own_in_a_thread(tmp_path, anyio_backend):
    """As in a Jupyter notebook, whose cells run inside the kernel's asyncio loop."""
    run = bench.run_sync("sim", options={"episodes": 2, "scale": 0.0}, out=tmp_path / "run", backend="trio")
    assert len(run.results) == 2
    assert json.loads((run.folder / "run.json").read_text())["event_loop"] == "trio"


def test_concurrency_above_the_work_is_capped_at_it_saying_so(tmp_path):
    result = subprocess.run([sys.executable, "-m", "bench.supervisor", "--suite", "sim", "--episodes", "2",
                             "--concurrency", "64", "--scale", "0", "--out", str(tmp_path / "run")],
                            cwd=ROOT, capture_output=True, text=True, timeout=60, env={**os.environ, "COLUMNS": "200"})
    assert result.returncode == 0, result.stderr
    assert "concurrency 2: --concurrency 64, capped at the 2 episode(s) to run" in result.stdout and not result.stderr
    assert json.loads((tmp_path / "run" / "run.json").read_text())["config"]["concurrency"] == 2


@pytest.mark.anyio
async def test_an_agent_class_without_decide_is_refused_when_the_run_is_checked(tmp_path, anyio_backend):
    class Thinker:
        def think(self, request):
            return None

    with pytest.raises(ConfigError, match="^--agent .*Thinker: the class Thinker has no `decide` method$"):
        await bench.run("sim", agent=Thinker, out=tmp_path / "run")
    assert not (tmp_path / "run").exists()


class RaisingPolicy:
    async def decide(self, request):
        raise ValueError("the policy's own bug")


@pytest.mark.anyio
async def test_a_policy_that_raises_keeps_its_traceback_in_the_results_and_the_viewers_episode_data(
        tmp_path, anyio_backend):
    viewer = ViewerState()
    run = await bench.run("sim", agent=RaisingPolicy, options={"episodes": 2, "scale": 0.0}, on_event=viewer.apply,
                          out=tmp_path / "run")
    where = 'in decide\n    raise ValueError("the policy\'s own bug")\nValueError: the policy\'s own bug'
    for line in read_results(run.folder):
        assert line.result.error_kind.value == "agent" and where in line.result.traceback
    shown = msgspec.json.decode(msgspec.json.encode(viewer.snapshot()))["episodes"]
    assert len(shown) == 2 and all(where in card["result"]["traceback"] for card in shown)


@pytest.mark.anyio
async def test_a_viewer_port_taken_after_the_run_was_checked_is_still_one_error(tmp_path, anyio_backend):
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]
    checked = await bench.api.plan("sim", {"episodes": 1, "viewer": f"127.0.0.1:{port}", "out": tmp_path / "run"})
    with socket.create_server(("127.0.0.1", port)):
        with pytest.raises(ConfigError, match=rf"^--viewer 127.0.0.1:{port}: cannot listen there \(OSError: .*\)$"):
            await bench.api.execute(checked)
