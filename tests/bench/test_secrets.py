"""Tokens from flags or the environment never reach a run folder, the output, or --help; run files are strict JSON."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import bench
from bench.config import RunConfig, public
from bench.suites.waa.suite import WAAOptions
from tests.paths import ROOT

WAA = ROOT.parent / "shared" / "waa" / "evaluation_examples_windows"
NOTEPAD = "notepad/366de66e-cbae-4d72-b042-26390db2b145-WOS"
SECRETS = {"TROUPE_NODE_TOKEN": "node-env-secret-1", "TROUPE_VIEWER_TOKEN": "viewer-env-secret-2",
           "TROUPE_WAA_TOKEN": "waa-env-secret-3"}
FLAG_SECRETS = ("node-flag-secret-4", "viewer-flag-secret-5", "waa-flag-secret-6")


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "bench.supervisor", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **SECRETS, "COLUMNS": "200"})


def strict_json(path: Path):
    """json.loads that refuses Infinity and NaN, as every JSON reader but Python's does."""
    def refuse(constant):
        raise ValueError(f"{path} holds {constant}, which is not JSON")
    return json.loads(path.read_text(), parse_constant=refuse)


def assert_nowhere(secrets, folder: Path, *outputs: str) -> None:
    for secret in secrets:
        for output in outputs:
            assert secret not in output
        for path in folder.rglob("*"):
            if path.is_file():
                assert secret.encode() not in path.read_bytes(), f"{secret} in {path}"


def test_help_shows_no_token_and_each_default_once():
    result = cli("--help")
    assert result.returncode == 0
    assert_nowhere(SECRETS.values(), ROOT / "nonexistent", result.stdout)
    options = re.split(r"\n  (?=-)", result.stdout)
    assert len(options) > 40
    for text in options:
        assert text.count("(default:") <= 1, text


def test_a_cli_run_records_no_token_from_flags_or_environment_and_strict_json(tmp_path):
    out = tmp_path / "run"
    result = cli("--suite", "sim", "--episodes", "2", "--scale", "0", "--viewer", "127.0.0.1:0",
                 "--viewer-token", FLAG_SECRETS[1], f"--token={FLAG_SECRETS[0]}", "--out", str(out))
    assert result.returncode == 0, result.stderr
    assert "viewer: http://127.0.0.1:" in result.stdout
    assert_nowhere([*SECRETS.values(), *FLAG_SECRETS], out, result.stdout, result.stderr)
    info = strict_json(out / "run.json")
    assert info["argv"][-7:] == ["--viewer", "127.0.0.1:0", "--viewer-token", "***", "--token=***",
                                 "--out", str(out)]
    assert "token" not in info["config"] and "viewer_token" not in info["config"]
    assert info["config"]["limits"]["episode_timeout"] is None  # the default, no limit: null, not Infinity
    assert strict_json(out / "summary.json")["overall"]["episodes"] == 2


@pytest.mark.skipif(not WAA.is_dir(), reason=f"the shared WAA data is not at {WAA}")
def test_a_waa_run_records_neither_its_token_flag_nor_its_environment_token(tmp_path):
    out = tmp_path / "run"
    result = cli("--suite", "waa", "--waa-tasks", str(WAA), "--waa-task", NOTEPAD, "--waa-url", "http://127.0.0.1:9",
                 "--waa-token", FLAG_SECRETS[2], "--max-attempts", "1", "--call-timeout", "5", "--out", str(out))
    assert (out / "results.jsonl").exists(), result.stderr
    assert_nowhere([*SECRETS.values(), *FLAG_SECRETS], out, result.stdout, result.stderr)
    info = strict_json(out / "run.json")
    assert "token" not in info["config"]["options"] and "***" in info["argv"]


@pytest.mark.anyio
async def test_the_api_records_no_token(tmp_path, anyio_backend, monkeypatch):
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    run = await bench.run("sim", options={"episodes": 1, "scale": 0.0}, viewer="127.0.0.1:0",
                          viewer_token=FLAG_SECRETS[1],
                          token=FLAG_SECRETS[0], out=str(tmp_path / "run"))
    assert_nowhere([*SECRETS.values(), *FLAG_SECRETS], run.folder)
    assert strict_json(run.folder / "run.json")["config"]["viewer"] == "127.0.0.1:0"


def test_public_config_leaves_out_every_secret_field():
    config = RunConfig(suite="waa", token="a", viewer_token="b", options=WAAOptions(tasks="x", token="c"))
    recorded = json.dumps(public(config))
    assert '"a"' not in recorded and '"b"' not in recorded and '"c"' not in recorded
    assert public(config)["options"]["tasks"] == "x"
