"""`python -m bench.supervisor --agent anthropic-cu` against a local server speaking the provider's API."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from actors.run_folder import episode_dir, read_calls, read_results, read_steps
from tests.fake_anthropic import FakeAnthropic, operator
from protocols import Done
from tests.paths import ROOT

KEY = "sk-ant-test-secret-0123456789"


def run_cli(*args: str, key: str = KEY):
    return subprocess.run([sys.executable, "-m", "bench.supervisor", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "ANTHROPIC_API_KEY": key, "COLUMNS": "200"})


def cu_run(server, out: Path, agent: str, backend: str, *extra: str, key: str = KEY):
    return run_cli("--suite", "sim", "--agent", agent, "--summarizer", "none", "--llm-base-url", server.url,
                   "--llm-model", "claude-test", "--llm-retries", "0", "--episodes", "2", "--max-steps", "15",
                   "--scale", "0.001", "--backend", backend, "--out", str(out), *extra, key=key)


@pytest.mark.parametrize("backend, screen", [("asyncio", None), ("trio", "1024x640")])
def test_the_anthropic_agent_solves_sim_tasks_and_the_key_stays_out_of_the_run(tmp_path, backend, screen):
    out = tmp_path / "run"
    with FakeAnthropic(operator, api_key=KEY) as server:
        run = cu_run(server, out, "anthropic-cu", backend, *(("--llm-screen", screen) if screen else ()))
    assert run.returncode == 0, run.stderr
    lines = read_results(out)
    assert len(lines) == 2 and all(line.result.success for line in lines), [line.result.reason for line in lines]
    width = int(screen.split("x")[0]) if screen else 1280
    assert {body["tools"][0]["display_width_px"] for body in server.requests[1:]} == {width}
    for line in lines:
        folder = episode_dir(out, line.result.task_id, line.result.attempt)
        steps, calls = read_steps(folder), read_calls(folder)
        assert isinstance(steps[-1].action, Done) and len(steps) >= 3
        assert sorted({call.step for call in calls}) == [record.step for record in steps]
        assert all(call.role == "agent" and call.input_tokens == 100 and call.reply for call in calls)
        images = [part for call in calls for part in _images(call.messages)]
        assert images and b"base64" not in (folder / "calls.jsonl").read_bytes()
        # the screenshot the model saw is the step's file, or one of its own when scaled for the model
        assert {image["file"].split("-")[0] for image in images} == {"agent" if screen else "step"}
        assert all((folder / image["file"]).is_file() for image in images)
    for path in out.rglob("*"):
        assert not path.is_file() or KEY.encode() not in path.read_bytes(), path
    assert KEY not in run.stdout + run.stderr


def _images(value):
    if isinstance(value, list):
        for item in value:
            yield from _images(item)
    elif isinstance(value, dict):
        if value.get("type") == "image":
            yield value
        else:
            for item in value.values():
                yield from _images(item)


def test_a_wrong_key_stops_the_run_before_any_episode_with_one_line(tmp_path):
    with FakeAnthropic(operator, api_key=KEY) as server:
        run = cu_run(server, tmp_path / "run", "anthropic-cu", "asyncio", key="sk-ant-wrong-key")
    assert run.returncode == 2, run.stderr
    (line,) = run.stderr.strip().splitlines()
    assert line == (f"error: LLM preflight (skip it with --no-llm-preflight): {server.url}/messages refused the "
                    "request with HTTP 401 (check the API key): Incorrect API key provided."), line
    assert "sk-ant-wrong-key" not in run.stdout + run.stderr and not (tmp_path / "run").exists()
    assert [body["max_tokens"] for body in server.requests] == [1]


def test_an_unknown_tool_action_ends_the_episode_as_an_agent_error_naming_it(tmp_path):
    teleport = [{"type": "tool_use", "id": "toolu_1", "name": "computer", "input": {"action": "teleport"}}]
    respond = lambda body: "OK" if isinstance(body["messages"][0]["content"], str) else teleport
    with FakeAnthropic(respond, api_key=KEY) as server:
        run = cu_run(server, tmp_path / "run", "anthropic-cu", "trio")
    assert run.returncode == 0, run.stderr
    for line in read_results(tmp_path / "run"):
        assert line.result.error_kind.value == "agent"
        assert "the computer tool has no action 'teleport'" in line.result.reason
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())["overall"]
    assert summary["agent_errors"] == 2 and summary["model_service_errors"] == 0


def test_the_key_is_never_in_help():
    shown = run_cli("--help")
    assert shown.returncode == 0 and "anthropic-cu" in shown.stdout and KEY not in shown.stdout + shown.stderr
