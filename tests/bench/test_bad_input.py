"""Every bad input: one `error:` line and exit status 2 from the CLI, ConfigError from the API, nothing written."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import bench
from actors.errors import ConfigError
from bench.keywords import RunKeywords
from bench.suites.base import UnknownTask
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
]
IDS = [case[0] for case in CASES]


def resolve(value, folder: Path):
    return value(folder) if callable(value) else value


@pytest.mark.parametrize(("case", "flags", "keywords", "message"), CASES, ids=IDS)
def test_the_cli_prints_one_error_line_exits_2_and_writes_nothing(tmp_path, case, flags, keywords, message):
    flags = [resolve(flag, tmp_path) for flag in flags]
    out = [] if "--out" in flags else ["--out", str(tmp_path / "out")]
    before = set(ROOT.joinpath("runs").glob("*")) if ROOT.joinpath("runs").exists() else set()
    result = subprocess.run([sys.executable, "-m", "bench.supervisor", *flags, *out], cwd=ROOT, capture_output=True,
                            text=True, timeout=60, env={**os.environ, "COLUMNS": "200"})
    assert result.returncode == 2, result.stderr
    lines = result.stderr.splitlines()
    expected = message if isinstance(message, str) else message[0]
    assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0], result.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / "a-file" / "run").exists()
    assert (set(ROOT.joinpath("runs").glob("*")) if ROOT.joinpath("runs").exists() else set()) == before


@pytest.mark.anyio
@pytest.mark.parametrize(("case", "flags", "keywords", "message"), CASES, ids=IDS)
async def test_the_api_raises_config_error_and_writes_nothing(tmp_path, case, flags, keywords, message, anyio_backend):
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
