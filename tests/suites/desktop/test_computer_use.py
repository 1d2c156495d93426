"""The computer-use agents on a real desktop (Xvfb, a real terminal, XTEST input), through the
CLI, against local servers speaking Anthropic's Messages API and OpenAI's Responses API: the model
types a command into the terminal it was shown and presses Enter, and the folder exists."""

import pytest

from actors.run_folder import read_results
from tests.bench.test_computer_use_cli import KEY, agent_run
from tests.fake_anthropic import FakeAnthropic
from tests.fake_responses import FakeResponses

COMMAND = "mkdir projects"


def claude(body):
    """Types the command, presses Return (as an xdotool key name), then says it is done."""
    if isinstance(body["messages"][0]["content"], str):
        return "OK"
    taken = [block["input"] for message in body["messages"] if message["role"] == "assistant"
             for block in message["content"] if block["type"] == "tool_use"]
    steps = [{"action": "type", "text": COMMAND}, {"action": "key", "text": "Return"}]
    if len(taken) >= len(steps):
        return "The folder is made.\nDONE"
    return [{"type": "tool_use", "id": f"toolu_{len(taken)}", "name": "computer", "input": steps[len(taken)]}]


def operator(body):
    """The same, as one batched computer call with OpenAI's key names."""
    if isinstance(body["input"], str) or any(item.get("type") == "computer_call" for item in body["conversation"]):
        return "The folder is made.\nDONE"
    return [{"type": "computer_call", "id": "cu_1", "call_id": "call_1", "status": "completed",
             "pending_safety_checks": [],
             "actions": [{"type": "type", "text": COMMAND}, {"type": "keypress", "keys": ["ENTER"]}]}]


@pytest.mark.parametrize("agent, backend", [("anthropic-cu", "asyncio"), ("openai-cu", "trio")])
def test_a_computer_use_agent_makes_a_folder_in_a_real_terminal(tmp_path, agent, backend):
    fake = FakeAnthropic(claude, api_key=KEY) if agent == "anthropic-cu" else FakeResponses(operator, api_key=KEY)
    with fake as server:
        run = agent_run(server, tmp_path / "run", agent, backend, "--suite", "desktop", "--desktop-task",
                        "files-create-folder", "--max-steps", "5", model="test-model")
    assert run.returncode == 0, run.stderr
    (line,) = read_results(tmp_path / "run")
    assert line.result.success and line.result.steps == 3, line.result.reason  # type, Enter, done
