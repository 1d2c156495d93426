"""The computer-use agents solve a real MiniWoB++ task in real Chromium, through the CLI, against
local servers speaking Anthropic's Messages API and OpenAI's Responses API: the model finds the
button on the screenshot it was sent and clicks it there."""

import pytest

from actors.run_folder import episode_dir, read_calls, read_results
from tests.bench.test_computer_use_cli import KEY, agent_run
from tests.computer_use_model import button_centre, last_image
from tests.fake_anthropic import FakeAnthropic
from tests.fake_responses import FakeResponses


def claude(body):
    """Clicks the button it sees, then says it is done."""
    if isinstance(body["messages"][0]["content"], str):
        return "OK"
    if len(body["messages"]) > 1:
        return "I clicked the button.\nDONE"
    x, y = button_centre(last_image(body))
    return [{"type": "tool_use", "id": "toolu_1", "name": "computer",
             "input": {"action": "left_click", "coordinate": [x, y]}}]


def operator(body):
    """The same model behind the Responses API, with the built-in computer tool."""
    done = any(item.get("type") == "computer_call" for item in body["conversation"])
    if isinstance(body["input"], str) or done:
        return "I clicked the button.\nDONE"
    x, y = button_centre(last_image(body))
    return [{"type": "computer_call", "id": "cu_1", "call_id": "call_1", "status": "completed",
             "actions": [{"type": "click", "button": "left", "x": x, "y": y}], "pending_safety_checks": []}]


@pytest.mark.parametrize("agent, backend", [("anthropic-cu", "asyncio"), ("openai-cu", "trio")])
def test_a_computer_use_agent_clicks_the_button_of_click_test_in_chromium(tmp_path, agent, backend):
    fake = FakeAnthropic(claude, api_key=KEY) if agent == "anthropic-cu" else FakeResponses(operator, api_key=KEY)
    with fake as server:
        run = agent_run(server, tmp_path / "run", agent, backend, "--suite", "miniwob", "--miniwob-tasks",
                        "click-test", "--miniwob-seeds", "1,2", "--max-steps", "3", model="test-model")
    assert run.returncode == 0, run.stderr
    lines = read_results(tmp_path / "run")
    assert len(lines) == 2 and all(line.result.success for line in lines), [line.result.reason for line in lines]
    for line in lines:
        calls = read_calls(episode_dir(tmp_path / "run", line.result.task_id, line.result.attempt))
        assert [call.step for call in calls] == [1, 2]  # the click, then the model says it is done
