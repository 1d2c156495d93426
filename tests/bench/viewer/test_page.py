"""The live viewer page in a real headless Chromium, watching a real supervisor process:
cards for running episodes, updates as steps arrive, the actor timeline, and reconnecting
after the supervisor is killed and started again on the same port; and a running episode's
model calls, which come after the page first asked for them."""

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

from anyio.from_thread import start_blocking_portal

from actors.run_folder import episode_dir
from actors.transcript import ScreenshotFiles, write_calls
from bench.viewer.server import ViewerServer
from protocols import ChangeSummary, EpisodeFinished, EpisodeResult, ModelCall, StepSummarized
from runtime.events import EventBus
from tests.chromium import chromium_page
from tests.bench.viewer.test_runs import artifacts
from tests.bench.viewer.test_server import started, step
from tests.paths import ROOT

TOKEN = "v13w"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def supervisor(out, port, *flags):
    return subprocess.Popen(
        [sys.executable, "-m", "bench.supervisor", "--suite", "sim", "--episodes", "200", "--concurrency", "3",
         "--scale", "0.15", "--agent-error-rate", "0", "--out", str(out), "--viewer", f"127.0.0.1:{port}", "--viewer-token", TOKEN,
         *flags],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def wait_until_serving(url, process):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert process.poll() is None, "the supervisor exited before serving the viewer"
        try:
            with urllib.request.urlopen(url, timeout=1) as response:
                return response.read()
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.05)
    raise AssertionError(f"nothing served at {url}")


STEP_COUNTS = ("() => Object.fromEntries([...document.querySelectorAll('.card')].map("
               "c => [c.dataset.task, parseInt(c.querySelector('.steps').textContent.slice(5))]))")

OVERLAP = """() => {
  const box = (row, step) => document.querySelector(`.tl-bar[data-row=${row}][data-step="${step}"]`)
                                     ?.getBoundingClientRect();
  for (let t = 1; t < 20; t++) {
    const judge = box("summarizer", t), next = box("agent", t + 1);
    if (judge && next && judge.left < next.right && next.left < judge.right) return true;
  }
  return false;
}"""


def test_the_page_shows_live_cards_updates_and_reconnects_after_a_restart(tmp_path):
    port = free_port()
    url = f"http://127.0.0.1:{port}/?token={TOKEN}"
    # 200 episodes: far more than the test watches (a run that ends tells the page, which then stops reconnecting)
    process = supervisor(tmp_path / "run", port)
    try:
        wait_until_serving(url, process)
        with chromium_page() as page:
            page.goto(url)
            page.wait_for_selector(".card[data-status=running]", timeout=15000)
            assert page.text_content("#status") == "live"
            first = page.evaluate(STEP_COUNTS)  # some card then takes a step more
            page.wait_for_function(f"first => Object.entries(({STEP_COUNTS})()).some(([t, n]) => n > (first[t] ?? 0))",
                                   arg=first, timeout=15000)

            running = page.locator(".card[data-status=running]").filter(has_text="last action:").first
            running.wait_for(timeout=10000)
            task = running.get_attribute("data-task")
            card = page.locator(f".card[data-task='{task}']")
            assert card.locator(".task").text_content().startswith("sim-0-")
            assert card.locator(".action").text_content().startswith("last action: ")
            page.wait_for_function("() => [...document.querySelectorAll('.card img')].some("
                                   "i => i.src.includes('/shot/') && i.complete && i.naturalWidth > 0)",
                                   timeout=10000)
            card.click()
            page.wait_for_selector("#episode:not([hidden])")
            assert page.text_content("#episode .column h2").startswith(task)
            page.wait_for_function(OVERLAP, timeout=15000)  # the Summarizer of step t runs under the Agent of t+1
            assert page.locator("#episode .steps-table tr").count() >= 2  # the head and a step
            page.keyboard.press("ArrowLeft")  # off the latest step: new steps no longer move the view
            page.wait_for_function("() => { const [, shown, , of] = document.querySelector('#episode-step')"
                                   ".textContent.split(' '); return +shown < +of; }")
            shown = page.text_content("#episode-step").split()[1]
            assert page.locator("#episode .thumb.current .n").text_content() == shown
            shots = artifacts(tmp_path)
            page.screenshot(path=str(shots / "viewer-live-episode.png"))
            assert (shots / "viewer-live-episode.png").stat().st_size > 10_000
            page.keyboard.press("Escape")
            assert page.locator("#episode").is_hidden()
            page.select_option("#f-status", "running")
            assert set(page.eval_on_selector_all(".card", "cs => cs.map(c => c.dataset.status)")) == {"running"}
            page.screenshot(path=str(shots / "viewer-live-run.png"))
            page.select_option("#f-status", "")

            os.kill(process.pid, signal.SIGKILL)
            process.wait()
            page.wait_for_function("() => document.querySelector('#status').textContent.includes('reconnecting')",
                                   timeout=10000)

            process = supervisor(tmp_path / "run", port)  # the same command resumes, on the same port
            page.wait_for_function("() => document.querySelector('#status').textContent === 'live'", timeout=30000)
            page.wait_for_selector(".card[data-status=running]", timeout=15000)
            page.screenshot(path=str(shots / "viewer-live-after-restart.png"))
    finally:
        process.kill()
        process.wait()


def test_the_live_page_tells_how_far_the_run_is_and_shows_the_finished_run_when_it_ends(tmp_path):
    port = free_port()
    url = f"http://127.0.0.1:{port}/?token={TOKEN}"
    process = subprocess.Popen(
        [sys.executable, "-m", "bench.supervisor", "--suite", "sim", "--episodes", "5", "--concurrency", "1",
         "--scale", "0.06", "--agent-error-rate", "0", "--out", str(tmp_path / "run"), "--viewer", f"127.0.0.1:{port}",
         "--viewer-token", TOKEN], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_until_serving(url, process)
        with chromium_page() as page:
            page.goto(url)
            page.wait_for_function("() => /^resetting: waiting for its VM to set up the task, then for the agent's "
                                   "first step \\(\\d+ s\\)$/.test(document.querySelector('.card .action')?.textContent)",
                                   timeout=30000)
            page.wait_for_function("() => /^[1-4] of 5 finished, 1 running · about \\d+ (s|min) left$/"
                                   ".test(document.querySelector('#counts').textContent)", timeout=30000)
            assert process.wait(timeout=120) == 0
            page.wait_for_function("() => document.querySelector('#status').textContent === 'finished: the run ended'")
            assert page.text_content("#counts") == "run ended: 5 of 5 finished"
            assert page.text_content("#hint") == f"browse it again: python -m bench.viewer {tmp_path / 'run'}"
            assert page.locator(".card[data-status=succeeded]").count() == 5
            for card in page.locator(".card").all():  # each ended on done: no earlier step's change told as its own
                assert card.locator(".action").text_content() == "last action: done"
                assert card.locator(".summary").text_content() == ""
            page.screenshot(path=str(artifacts(tmp_path) / "viewer-live-ended.png"))
    finally:
        process.kill()
        process.wait()


def test_the_page_is_refused_without_the_token(tmp_path):
    port = free_port()
    process = supervisor(tmp_path / "run", port)
    try:
        wait_until_serving(f"http://127.0.0.1:{port}/?token={TOKEN}", process)
        with chromium_page() as page:
            response = page.goto(f"http://127.0.0.1:{port}/")
            assert response.status == 401 and "missing token" in page.text_content("body")
    finally:
        process.kill()
        process.wait()


def test_without_a_summarizer_the_live_page_says_so_instead_of_waiting_for_one(tmp_path):
    port = free_port()
    process = supervisor(tmp_path / "run", port, "--summarizer", "none")
    try:
        wait_until_serving(f"http://127.0.0.1:{port}/?token={TOKEN}", process)
        with chromium_page() as page:
            page.goto(f"http://127.0.0.1:{port}/?token={TOKEN}")
            running = page.locator(".card[data-status=running]").filter(has_text="last action:").first
            running.wait_for(timeout=15000)
            running.click()
            page.wait_for_selector("#episode .steps-table tr:nth-child(2)")
            summaries = page.eval_on_selector_all("#episode .steps-table tr td:nth-child(4)", "cs => cs.map(c => c.textContent)")
            assert summaries and set(summaries) == {"no summarizer in this run"}, summaries
    finally:
        process.kill()
        process.wait()


def test_a_running_episodes_model_calls_are_fetched_again_once_written(tmp_path):
    """The live server in this process (its loop in a thread); the calls are written into the run folder
    as the ResultSink writes them: after the page first asked for them (a change summary comes after its
    step, the classifier's calls with the episode's end)."""
    folder = episode_dir(tmp_path, "forms/t1", 1)
    with start_blocking_portal() as portal, chromium_page() as page:
        bus = EventBus()
        run, port = portal.start_task(ViewerServer(bus, run_dir=tmp_path).run)
        for event in (started(), step(1)):
            portal.call(bus.publish, event)
        page.goto(f"http://127.0.0.1:{port}/")
        page.click(".card[data-task='forms/t1']")
        page.click("#episode .panel-calls > summary")
        page.wait_for_function("() => document.querySelector('#episode .panel-calls .calls-body').textContent"
                               ".startsWith('no model calls recorded')")
        write_calls(folder, (ModelCall(role="summarizer", step=1, reply="form sent"),), ScreenshotFiles())
        portal.call(bus.publish, StepSummarized(episode_id="forms/t1#1", summary=ChangeSummary(step=1, changes="x")))
        page.wait_for_selector("#episode .panel-calls .call")
        write_calls(folder, (ModelCall(role="classifier", step=0, reply="{}"),), ScreenshotFiles())
        portal.call(bus.publish, EpisodeFinished(result=EpisodeResult(episode_id="forms/t1#1", task_id="forms/t1",
                                                                      steps=1)))
        page.wait_for_selector("#episode .panel-episode-calls:not([hidden])")
        assert page.text_content("#episode .panel-episode-calls > summary") == "model calls about the episode (1)"
        run.cancel()
