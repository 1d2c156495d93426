"""`python -m bench.supervisor --agent anthropic-cu|openai-cu` against local servers speaking the providers' APIs."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.agents import AGENTS as AGENT_NAMES
from bench.config import COMPUTER_USE_AGENTS
from bench.llm import COMPUTER_USE
from actors.run_folder import episode_dir, read_calls, read_results, read_steps
from tests.fake_anthropic import FakeAnthropic, operator
from tests.fake_responses import FakeResponses, Operator, lost
from protocols import Done
from tests.paths import ROOT

KEY = "sk-ant-test-secret-0123456789"


def run_cli(*args: str, key: str = KEY):
    return subprocess.run([sys.executable, "-m", "bench.supervisor", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, env={**os.environ, "ANTHROPIC_API_KEY": key, "OPENAI_API_KEY": key,
                                                       "COLUMNS": "200"})


def agent_run(server, out: Path, agent: str, backend: str, *extra: str, key: str = KEY, model: str = "claude-test"):
    """The CLI with `agent` on `server`; `extra` flags choose the suite and come last."""
    return run_cli("--agent", agent, "--summarizer", "none", "--llm-base-url", server.url, "--llm-model", model,
                   "--llm-retries", "0", "--backend", backend, "--out", str(out), *extra, key=key)


def cu_run(server, out: Path, agent: str, backend: str, *extra: str, key: str = KEY, model: str = "claude-test"):
    return agent_run(server, out, agent, backend, "--suite", "sim", "--episodes", "2", "--max-steps", "15",
                     "--scale", "0.001", *extra, key=key, model=model)


AGENTS = {  # agent: (its fake server, the model it is run with)
    "anthropic-cu": (lambda: FakeAnthropic(operator, api_key=KEY), "claude-test"),
    "openai-cu": (lambda: FakeResponses(Operator(safety=True), api_key=KEY), "computer-use-preview"),
    "openai-cu-batching": (lambda: FakeResponses(Operator(safety=True), api_key=KEY), "gpt-test"),
}


@pytest.mark.parametrize("agent, backend, screen", [
    ("anthropic-cu", "asyncio", None), ("anthropic-cu", "trio", "1024x640"), ("openai-cu", "asyncio", "1024x640"),
    ("openai-cu-batching", "trio", None)])
def test_computer_use_agents_solve_sim_tasks_and_the_key_stays_out_of_the_run(tmp_path, agent, backend, screen):
    out = tmp_path / "run"
    fake, model = AGENTS[agent]
    with fake() as server:
        run = cu_run(server, out, agent.removesuffix("-batching"), backend, model=model,
                     *(("--llm-screen", screen) if screen else ()))
    assert run.returncode == 0, run.stderr
    lines = read_results(out)
    assert len(lines) == 2 and all(line.result.success for line in lines), [line.result.reason for line in lines]
    for line in lines:
        folder = episode_dir(out, line.result.task_id, line.result.attempt)
        steps, calls = read_steps(folder), read_calls(folder)
        assert isinstance(steps[-1].action, Done) and len(steps) >= 3
        called = sorted({call.step for call in calls})
        assert called == [record.step for record in steps if record.input_tokens]  # a batch's later steps call none
        assert len(called) < len(steps) if agent.endswith("batching") else len(called) == len(steps)
        assert all(call.role == "agent" and call.input_tokens == 100 and call.reply for call in calls)
        images = [part for call in calls for part in _images(call.messages)]
        assert images and b"base64" not in (folder / "calls.jsonl").read_bytes()
        # the screenshot the model saw is the step's file, or one of its own when scaled for the model
        assert {image["file"].split("-")[0] for image in images} == {"agent" if screen else "step"}
        assert all((folder / image["file"]).is_file() for image in images)
        if agent.startswith("openai"):
            assert "safety check acknowledged: malicious_instructions" in steps[0].reasoning
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


@pytest.mark.parametrize("agent", ["anthropic-cu", "openai-cu"])
def test_a_wrong_key_stops_the_run_before_any_episode_with_one_line(tmp_path, agent):
    fake, model = AGENTS[agent]
    with fake() as server:
        run = cu_run(server, tmp_path / "run", agent, "asyncio", key="sk-wrong-key-0123", model=model)
    assert run.returncode == 2, run.stderr
    (line,) = run.stderr.strip().splitlines()
    path = "messages" if agent == "anthropic-cu" else "responses"
    assert line == (f"error: LLM preflight (skip it with --no-llm-preflight): {server.url}/{path} refused the "
                    "request with HTTP 401 (check the API key): Incorrect API key provided."), line
    assert "sk-wrong-key-0123" not in run.stdout + run.stderr and not (tmp_path / "run").exists()
    assert len(server.requests) == 1


def test_an_unknown_tool_action_ends_the_episode_as_an_agent_error_naming_it(tmp_path):
    teleport = [{"type": "tool_use", "id": "toolu_1", "name": "computer", "input": {"action": "teleport"}}]
    respond = lambda body: "OK" if isinstance(body["messages"][0]["content"], str) else teleport
    with FakeAnthropic(respond, api_key=KEY) as server:
        run = cu_run(server, tmp_path / "run", "anthropic-cu", "trio")
    assert run.returncode == 0, run.stderr
    for line in read_results(tmp_path / "run"):
        assert line.result.error_kind.value == "agent"
        assert "the computer tool has no action 'teleport'" in line.result.reason
        calls = read_calls(episode_dir(tmp_path / "run", line.result.task_id, line.result.attempt))
        assert [(call.step, bool(call.rejected), call.gave_up) for call in calls] == [
            (1, True, False), (1, True, False), (1, True, True)]  # every reply kept, and why it was sent back
        assert all('"teleport"' in call.reply for call in calls)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())["overall"]
    assert summary["agent_errors"] == 2 and summary["model_service_errors"] == 0


@pytest.mark.parametrize("refused_again", [False, True])
def test_a_response_openai_lost_mid_episode_is_sent_again_once_else_a_model_service_error(tmp_path, refused_again):
    operator, out = Operator(), tmp_path / "run"
    resent = lambda body: "previous_response_id" not in body and "Step 1: " in str(body["input"])
    respond = lambda body: lost("resp_0003") if refused_again and resent(body) else operator(body)
    with FakeResponses(respond, api_key=KEY) as server:
        server.expired.add("resp_0003")  # the preflight's, step 1's screenshot call, step 1's action: lost
        run = agent_run(server, out, "openai-cu", "trio", "--suite", "sim", "--episodes", "1", "--max-steps", "15",
                        model="computer-use-preview")
    assert run.returncode == 0, run.stderr
    (line,) = read_results(out)
    calls = read_calls(episode_dir(out, line.result.task_id, line.result.attempt))
    message = "HTTP 400: Previous response with id 'resp_0003' not found."
    refused = next(index for index, call in enumerate(calls) if call.error)
    assert calls[refused].step == 2 and calls[refused].error.endswith(message)
    if refused_again:
        assert line.result.error_kind.value == "model_service" and line.result.reason.endswith(message)
        assert "refused it sent again without it" in line.result.reason
        assert calls[refused + 1].gave_up and len(calls) == refused + 2
    else:
        assert line.result.success, line.result.reason
        assert calls[refused + 1].restarted.startswith("the provider no longer has the conversation")
        assert not any(call.error or call.restarted for call in calls[refused + 2:])


def test_every_computer_use_agent_the_run_config_names_is_built():
    assert sorted(COMPUTER_USE) == sorted(COMPUTER_USE_AGENTS) and set(COMPUTER_USE) <= set(AGENT_NAMES)


def test_a_request_too_large_is_a_model_service_error_a_resume_runs_again(tmp_path):
    out = tmp_path / "run"
    with FakeAnthropic(operator, api_key=KEY) as server:
        server.max_bytes = 1000  # the preflight fits, a request with a screenshot does not
        refused = cu_run(server, out, "anthropic-cu", "asyncio")
        server.max_bytes = FakeAnthropic.max_bytes
        resumed = cu_run(server, out, "anthropic-cu", "trio")
    assert refused.returncode == 0 and resumed.returncode == 0, refused.stderr + resumed.stderr
    lines = read_results(out)
    assert [line.result.attempt for line in lines] == [1, 1, 2, 2]
    for line in lines[:2]:  # the agent decided nothing: the harness's request was too large
        assert line.result.error_kind.value == "model_service", line.result.reason
        assert line.result.reason.endswith(
            "HTTP 413 (the request is too large for the service: --llm-screen WxH shows the model a smaller "
            "screenshot): Request exceeds the maximum allowed number of bytes."), line.result.reason
    assert "re-running 2 episode(s) that ended on a model-service or environment error (--retry-errors)" in \
        " ".join(resumed.stdout.split())
    assert all(line.result.success for line in lines[2:]), [line.result.reason for line in lines[2:]]
