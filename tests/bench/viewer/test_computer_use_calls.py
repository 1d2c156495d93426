"""The viewer's model-call panel shows a computer-use agent's transcript as the APIs shape it: the
screenshot inside Anthropic's tool result and inside OpenAI's computer-call output, as the picture
the model was sent, in real headless Chromium over the real `python -m bench.viewer`; and a call
sent again after OpenAI lost the response it continued says so."""

import pytest

from tests.bench.test_computer_use_cli import AGENTS, cu_run
from tests.bench.viewer.test_episode_view import open_episode
from tests.bench.viewer.test_runs import viewer
from tests.chromium import chromium_page


@pytest.mark.parametrize("agent", ["anthropic-cu", "openai-cu-batching"])
def test_the_screenshot_a_tool_result_carried_is_shown_in_the_calls_panel(tmp_path, agent):
    fake, model = AGENTS[agent]
    with fake() as server:
        if agent.endswith("batching"):
            server.expired.add("resp_0002")  # step 1's batch: step 3 continues it and is refused, then sent again
        run = cu_run(server, tmp_path / "run", agent.removesuffix("-batching"), "asyncio", "--episodes", "1",
                     model=model)
    assert run.returncode == 0, run.stderr
    with viewer(tmp_path / "run", token=None) as url, chromium_page() as page:
        page.goto(url)
        page.wait_for_selector(".card")
        open_episode(page, "sim-0-0000")
        page.keyboard.press("ArrowRight")  # step 2: the model answered a tool result carrying step 1's screen
        page.wait_for_function("() => document.querySelector('#episode-step').textContent.startsWith('step 2 ')")
        if agent.endswith("batching"):  # the second action of a batch was taken without a call: step 3 has one
            page.keyboard.press("ArrowRight")
            page.wait_for_function("() => document.querySelector('#episode-step').textContent.startsWith('step 3 ')")
        page.click("#episode .panel-calls > summary")
        result = page.locator("#episode .panel-calls .call .tool-result").last
        result.wait_for()
        assert result.locator(".who").first.text_content() == "tool result: "
        shown = result.locator("img.image-ref")
        page.wait_for_function("() => [...document.querySelectorAll('#episode .tool-result img.image-ref')]"
                               ".every(i => i.complete && i.naturalWidth > 0)")
        assert shown.get_attribute("alt") == ("step-002.png" if agent.endswith("batching") else "step-001.png")
        restarted = page.locator("#episode .panel-calls .call >> text=restarted: the provider no longer has")
        assert restarted.count() == (1 if agent.endswith("batching") else 0)
