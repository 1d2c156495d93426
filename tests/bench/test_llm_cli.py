"""`python -m bench.supervisor --agent llm --summarizer llm --analysis llm` against a local server."""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from actors.llm import analysis as classifier_prompt
from actors.llm.observation import MARKS_HEADING
from actors.llm.preflight import PREFLIGHT_PROMPT
from actors.llm.screen import ModelScreen
from actors.run_folder import episode_dir, read_calls, read_results, read_steps
from tests.fake_llm import FakeLLM, Reply, by_role, form_filler
from bench.api import plan
from bench.config import ConfigError
from tests.llm_crew import CLASSIFICATION, SUMMARY, role_requests
from tests.paths import ROOT


KEY = "sk-test-secret-0123456789"


def llm_run_command(server, out: Path, *extra: str, key: str = KEY):
    """The CLI with every LLM role on `server`; `extra` flags come last and win."""
    args = ["--agent", "llm", "--summarizer", "llm", "--analysis", "llm", "--llm-base-url", server.url,
            "--llm-model", "fake-model", "--llm-api-key-env", "TEST_LLM_KEY", "--llm-retries", "0",
            "--out", str(out), *extra]
    return subprocess.run([sys.executable, "-m", "bench.supervisor", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "TEST_LLM_KEY": key, "COLUMNS": "200"})


def llm_run(server, out: Path, backend: str, key: str = KEY, *extra: str):
    return llm_run_command(server, out, "--suite", "sim", "--episodes", "4", "--concurrency", "2", "--max-steps", "3",
                           "--scale", "0.001", "--backend", backend, *extra, key=key)


@pytest.mark.parametrize("backend, observation", [("asyncio", "both"), ("trio", "som")])
def test_an_llm_run_writes_summaries_and_analysis_to_the_run_folder_and_never_the_key(tmp_path, backend, observation):
    roles = by_role(agent=form_filler, summarizer=lambda body: SUMMARY, classifier=lambda body: CLASSIFICATION)
    with FakeLLM(roles, api_key=KEY) as server:
        run = llm_run(server, tmp_path / "run", backend, KEY, "--llm-observation", observation)
    assert run.returncode == 0, run.stderr
    lines = read_results(tmp_path / "run")
    failed = [line for line in lines if not line.result.success]
    assert len(lines) == 4 and failed and len(failed) < 4  # 3 steps: only the shortest tasks fit
    assert all(line.categories == {"success": 1.0} for line in lines if line.result.success)
    assert all(line.summary == "gave up before submitting" and line.analysis == "stopped early"
               and "step limit reached" in line.signals for line in failed)
    assert len(role_requests(server, classifier_prompt)) == len(failed)

    metrics = json.loads((tmp_path / "run" / "summary.json").read_text())["metrics"]
    assert metrics["grounded_steps"] > 0 and metrics["grounding_accuracy"] == 1.0  # against the sim's own goals
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())["taxonomy"]
    assert summary["categories"] == {"navigation_planning": len(failed), "success": 4 - len(failed)}
    assert sorted(summary["episodes"]["navigation_planning"]) == sorted(line.result.episode_id for line in failed)
    assert sum(sum(counts.values()) for counts in summary["domains"].values()) == 4

    steps = "".join(p.read_text() for p in (tmp_path / "run").rglob("steps.jsonl"))
    assert "the field shows the text" in steps
    for line in lines:
        assert_transcript(tmp_path / "run", line, marked=observation == "som")
    for path in (tmp_path / "run").rglob("*"):
        assert not path.is_file() or KEY.encode() not in path.read_bytes(), path


@pytest.mark.parametrize("server_settings, key, extra, said", [
    ({"api_key": KEY}, "sk-wrong", (), "HTTP 401 (check the API key): Incorrect API key provided."),
    ({"models": ["gpt-x"]}, KEY, (), "HTTP 404 (check the model name and base URL): The model `fake-model` does "
                                     "not exist."),
    ({}, KEY, ("--llm-base-url", "http://127.0.0.1:9/v1"), "gave up after 1 attempts; last: connection error"),
], ids=["wrong key", "unknown model", "server down"])
def test_a_model_that_cannot_serve_the_run_stops_it_before_any_episode(tmp_path, server_settings, key, extra, said):
    with FakeLLM(by_role(agent=form_filler), **server_settings) as server:
        run = llm_run(server, tmp_path / "run", "asyncio", key, *extra)
    assert run.returncode == 2, run.stderr
    (line,) = run.stderr.strip().splitlines()
    assert line.startswith("error: LLM preflight (skip it with --no-llm-preflight): ") and said in line, line
    assert key not in run.stderr + run.stdout
    assert not (tmp_path / "run").exists()
    assert all(body["messages"][0]["content"] == PREFLIGHT_PROMPT for body in server.requests)


def test_without_the_preflight_a_wrong_key_ends_every_episode_as_a_model_service_error(tmp_path):
    with FakeLLM(by_role(agent=form_filler), api_key=KEY) as server:
        run = llm_run(server, tmp_path / "run", "trio", "sk-wrong", "--no-llm-preflight", "--summarizer", "none")
    assert run.returncode == 0, run.stderr
    lines = read_results(tmp_path / "run")
    assert len(lines) == 4
    for line in lines:
        assert line.result.error_kind.value == "model_service" and line.categories == {"system": 1.0}
        assert "HTTP 401 (check the API key): Incorrect API key provided." in line.result.reason
        (call,) = read_calls(episode_dir(tmp_path / "run", line.result.task_id, line.result.attempt))
        assert (call.role, call.step, call.reply, call.gave_up) == ("agent", 1, "", True)
        assert "Incorrect API key" in call.error
    overall = json.loads((tmp_path / "run" / "summary.json").read_text())["overall"]
    assert overall["model_service_errors"] == 4 and overall["agent_errors"] == 0
    assert not role_requests(server, classifier_prompt)  # nothing of the agent's to classify


@pytest.mark.anyio
async def test_a_malformed_llm_config_stops_the_run_with_the_field_named(tmp_path, monkeypatch, anyio_backend):
    monkeypatch.delenv("OPENAI_MODEL", raising=False)
    config = tmp_path / "llm.toml"
    config.write_text('[llm]\nmodel = "m"\ntimeout = "soon"\n')
    out = str(tmp_path / "out")
    with pytest.raises(ConfigError, match=r"Expected `float \| null`, got `str` - at `\$.timeout`"):
        await plan("sim", {"llm_config": str(config), "out": out}, agent="llm")
    with pytest.raises(ConfigError, match="no LLM model given"):
        await plan("sim", {"llm_base_url": "http://x/v1", "out": out}, agent="llm")
    no_llm = await plan("sim", {"out": out}, summarizer="sim")
    assert no_llm.config.analysis == "signals"  # no LLM role: nothing to check
    assert not Path(out).exists()


def test_a_resumed_run_runs_again_the_episodes_the_model_service_failed(tmp_path):
    out, quick = tmp_path / "run", ("--summarizer", "none", "--analysis", "signals")
    with FakeLLM(by_role(agent=lambda body: Reply(status=503))) as down:
        first = llm_run(down, out, "asyncio", KEY, *quick, "--no-llm-preflight")
    assert first.returncode == 0, first.stderr
    assert {line.result.error_kind.value for line in read_results(out)} == {"model_service"}
    assert "4 episode(s) ended on a model-service or environment error, no verdict on the agent: the same " \
           "command on the same folder runs them again" in " ".join(first.stdout.split())

    with FakeLLM(by_role(agent=form_filler)) as up:
        kept = llm_run(up, out, "trio", KEY, *quick, "--no-retry-errors")
        assert "4 of 4 episodes already finished" in kept.stdout and not up.requests[1:]
        again = llm_run(up, out, "trio", KEY, *quick)
    assert again.returncode == 0, again.stderr
    assert "re-running 4 episode(s) that ended on a model-service or environment error (--retry-errors): " \
           "sim-" in " ".join(again.stdout.split())
    lines = read_results(out)
    assert [line.result.attempt for line in lines] == [1] * 4 + [2] * 4  # the failed lines are kept
    overall = json.loads((out / "summary.json").read_text())["overall"]
    assert overall["model_service_errors"] == 0 and overall["episodes"] == 4 and overall["succeeded"] > 0
    for line in lines:  # both attempts' episode folders, none overwritten
        assert (episode_dir(out, line.result.task_id, line.result.attempt) / "task.json").is_file()


def assert_transcript(run: Path, line, marked: bool) -> None:
    """Every model call of the episode is in its calls.jsonl: the agent's per step with the screenshot it saw
    named by file, the summarizer's per acting step, the classifier's for a failure; no pixels inlined."""
    folder = episode_dir(run, line.result.task_id, line.result.attempt)
    calls = read_calls(folder)
    steps = read_steps(folder)
    assert [c.step for c in calls if c.role == "agent"] == [r.step for r in steps]
    assert sorted(c.step for c in calls if c.role == "summarizer") == [r.step for r in steps if not r.action.terminal]
    assert [c.step for c in calls if c.role == "classifier"] == ([] if line.result.success else [0])
    assert all(c.reply and c.input_tokens == 100 and c.output_tokens == 20 and c.latency > 0 and not c.retries
               for c in calls)
    for call in (c for c in calls if c.role == "agent"):
        assert call.messages[0]["role"] == "system" and "Task: " in call.messages[1]["content"][0]["text"]
        (image,) = [part for part in call.messages[1]["content"] if part["type"] == "image"]
        if marked:  # the marks, listed in the prompt, drawn on a picture of its own
            assert MARKS_HEADING in call.messages[1]["content"][1]["text"]
            assert image["file"].startswith("agent-") and image["file"] <= f"agent-{call.step:03d}.png"
        else:
            assert image["file"] == f"step-{call.step - 1:03d}.png"
        assert hashlib.sha256((folder / image["file"]).read_bytes()).hexdigest() == image["sha256"]
    targets = [r.action.target for r in steps if getattr(r.action, "target", None) is not None]
    assert targets and all(t.node_id and t.bbox for t in targets)  # by mark or id: grounded in the tree
    assert b"data:image" not in (folder / "calls.jsonl").read_bytes()


@pytest.mark.anyio
async def test_the_python_api_runs_the_preflight_too_and_can_skip_it(tmp_path, monkeypatch, anyio_backend):
    monkeypatch.setenv("TEST_LLM_KEY", "sk-wrong")
    with FakeLLM(by_role(agent=form_filler), api_key=KEY) as server:
        values = {"llm_base_url": server.url, "llm_model": "fake-model", "llm_api_key_env": "TEST_LLM_KEY",
                  "llm_retries": 0, "out": str(tmp_path / "run")}
        with pytest.raises(ConfigError, match=r"^LLM preflight \(skip it with llm_preflight=False\): .*HTTP 401"):
            await plan("sim", values, agent="llm")
        checked = await plan("sim", {**values, "llm_preflight": False, "llm_observation": "som",
                                     "llm_screen": "1024x640"}, agent="llm")
        with pytest.raises(ConfigError, match=r"^LLM screen size \(--llm-screen, llm_screen\): expected WIDTHxHEIGHT "
                                              r"in pixels, e.g. 1280x800, got '1024'$"):
            await plan("sim", {**values, "llm_preflight": False, "llm_screen": "1024"}, agent="llm")
    assert checked.config.llm.observation == "som" and not checked.config.llm.preflight
    assert checked.llm.policy().screen == ModelScreen(1024, 640)
    assert not (tmp_path / "run").exists()
