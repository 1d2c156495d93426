"""`python -m bench.viewer FOLDER`: every run under a folder, newest first, searched and opened, in a real
headless Chromium. The runs are real sim runs (one agent that errs, one that does not); one episode gets a
model transcript written by the ResultSink's own writer (no model runs here), and one run is garbled."""

import json
import os
import shutil
import time
import urllib.error
import urllib.request
from pathlib import Path

import anyio
import pytest

import bench
from actors.run_folder import episode_dir, read_task
from actors.transcript import ScreenshotFiles, write_calls
from bench.summary import pass_lines
from bench.viewer.__main__ import main
from bench.viewer.catalog import Catalog, UnknownRun
from bench.viewer.catalog_server import CatalogServer
from bench.viewer.search import Search
from protocols import ModelCall
from runtime.websocket import ConnectionClosed, connect
from tests.actors.test_run_lock import supervisor
from tests.bench.viewer.test_server import http_get, receive_json
from tests.bench.viewer.test_runs import artifacts, viewer
from tests.chromium import chromium_page

TRANSCRIPT_WORDS = "the Quorble button is greyed out"


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """runs/2026/baseline (every episode succeeds), runs/2026/tuned, then runs/clumsy (most fail; one has
    a transcript), runs/broken (a results.jsonl that is not JSON) and runs/notes (no run)."""
    root = tmp_path_factory.mktemp("runs")
    for out, error_rate in (("2026/baseline", 0.0), ("2026/tuned", 0.3), ("clumsy", 0.8)):
        bench.run_sync("sim", options={"episodes": 4, "scale": 0, "agent_error_rate": error_rate},
                       summarizer="none", out=str(root / out))
    folder = episode_dir(root / "clumsy", "sim-0-0001", 1)
    write_calls(folder, (ModelCall(role="agent", step=1, messages=[
        {"role": "user", "content": [{"type": "text", "text": f"Step 1: {TRANSCRIPT_WORDS}."}]}],
        reply='{"action": "click"}'),), ScreenshotFiles())
    (root / "broken").mkdir()
    (root / "broken" / "results.jsonl").write_text("not json\n")
    (root / "notes").mkdir()
    (root / "notes" / "todo.txt").write_text("results.jsonl is not here\n")
    return root


def failed_reason(run: Path) -> tuple[str, str]:
    lines = [json.loads(line)["result"] for line in (run / "results.jsonl").read_text().splitlines()]
    failed = next(result for result in lines if not result.get("success"))
    return failed["task_id"], failed["reason"]


def test_the_runs_under_a_folder_are_listed_newest_first_searched_and_opened(root, tmp_path):
    shots = artifacts(tmp_path)
    instruction = read_task(episode_dir(root / "2026/baseline", "sim-0-0002", 1)).instruction
    failed_task, reason = failed_reason(root / "clumsy")
    with viewer(root) as url, chromium_page() as page:
        opens_only_runs_under_its_folder(url, root)
        page.goto(url)
        page.wait_for_selector("#runs tbody tr")
        ids = page.eval_on_selector_all("#runs tbody tr", "rows => rows.map(r => r.dataset.run)")
        assert sorted(ids) == ["2026/baseline", "2026/tuned", "broken", "clumsy"]
        assert ids.index("clumsy") < ids.index("2026/tuned") < ids.index("2026/baseline")  # the newest first
        baseline = page.locator("#runs tr[data-run='2026/baseline'] td").all_text_contents()
        assert baseline[2:4] == ["sim", "sim"] and baseline[4] == "4/4 100% [51, 100]" and baseline[5] == "4"
        assert page.locator("#runs tr[data-run='2026/baseline'] .rate .interval").count() == 1
        assert "results.jsonl:1: malformed line" in page.text_content("#runs tr[data-run=broken] .error")
        page.screenshot(path=str(shots / "viewer-runs.png"))

        def search(text):
            page.fill("#search", text)
            page.wait_for_function("text => document.querySelector('#results-title').textContent"
                                   ".startsWith(JSON.stringify(text))", arg=text)
            return page.eval_on_selector_all("#hits li[data-task]", "hits => hits.map(h => "
                                             "[h.dataset.run, h.dataset.task, h.dataset.field])")

        assert ["2026/baseline", "sim-0-0002", "instruction"] in search(instruction)
        assert ["clumsy", failed_task, "reason"] in search(reason)
        assert search(TRANSCRIPT_WORDS.upper()) == [["clumsy", "sim-0-0001", "transcript"]]  # case ignored
        assert page.locator("#hits mark").text_content() == TRANSCRIPT_WORDS
        assert search("no episode says this") == []
        assert page.text_content("#results-title") == '"no episode says this": no episode mentions it'
        search(reason)
        page.screenshot(path=str(shots / "viewer-runs-search.png"))

        page.locator(f"#hits li[data-run=clumsy][data-task='{failed_task}'][data-field=reason] a").click()
        page.wait_for_selector("#episode:not([hidden])")
        assert page.text_content("#episode .column h2") == failed_task
        assert reason in page.text_content("#episode .verdict")
        page.wait_for_function("() => [...document.querySelectorAll('#episode .thumb img')].every("
                               "i => i.complete && i.naturalWidth > 0)")  # the run's screenshots, served
        page.keyboard.press("Escape")
        assert page.text_content("#status") == "finished: clumsy"
        page.click("#home")

        page.wait_for_selector("#runs tbody tr")
        page.check("#runs tr[data-run=clumsy] input")
        assert page.is_disabled("#compare")  # one run is no comparison
        page.check("#runs tr[data-run='2026/baseline'] input")
        page.check("#runs tr[data-run='2026/tuned'] input")
        page.click("#compare")
        page.wait_for_selector("#compare table.domains")
        assert page.text_content("#status") == "finished: baseline vs tuned vs clumsy"  # the oldest is the baseline
        assert page.locator("#compare table.domains tr").first.locator("th").count() == 4  # domain and 3 runs
        assert page.locator("#compare .paired h3").all_text_contents() == ["tuned against baseline",
                                                                           "clumsy against baseline"]


def opens_only_runs_under_its_folder(url: str, root: Path) -> None:
    bare, token = url.split("?")
    for run in ("..", "notes", "2026"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(f"{bare}view?run={run}&{token}", timeout=5)
        assert refused.value.code == 404
        assert refused.value.read().decode() == f"troupe viewer: no run {run!r} under {root}\n"
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{bare}runs.json", timeout=5)
    assert refused.value.code == 401


def test_a_summary_older_than_the_last_result_gives_way_to_the_results(root, tmp_path):
    """A resumed run (or one going on) has a summary.json of its earlier end: the row counts results.jsonl."""
    run = tmp_path / "resumed"
    shutil.copytree(root / "clumsy", run)
    lines = (run / "results.jsonl").read_text().splitlines(keepends=True)
    (run / "results.jsonl").write_text("".join(lines[:2]))
    os.utime(run / "summary.json", ns=(0, 0))
    (row,) = Catalog(tmp_path).rows()
    assert row["episodes"] == 2 and row["success"].startswith(f"{row['succeeded']}/2 ")


def test_a_summary_whose_counts_are_no_counts_is_a_row_naming_it(root, tmp_path):
    run = tmp_path / "edited"
    shutil.copytree(root / "2026/baseline", run)
    summary = json.loads((run / "summary.json").read_text())
    summary["overall"]["succeeded"] = "all"
    (run / "summary.json").write_text(json.dumps(summary))
    (row,) = Catalog(tmp_path).rows()
    assert row["error"] == f"{run / 'summary.json'}: overall has 'all' of 4 episodes succeeded, not counts"
    assert (row["suite"], row["agent"]) == ("sim", "sim")  # what could be read is still shown


def test_the_catalog_finds_runs_at_any_depth_but_not_inside_a_run_or_a_hidden_folder(root, tmp_path):
    assert set(Catalog(root).runs()) == {"2026/baseline", "2026/tuned", "clumsy", "broken"}
    hidden = tmp_path / ".trash" / "old"
    hidden.mkdir(parents=True)
    (hidden / "results.jsonl").write_text("")
    inner = tmp_path / "outer" / "episodes" / "inner"
    inner.mkdir(parents=True)
    (tmp_path / "outer" / "results.jsonl").write_text("")
    (inner / "results.jsonl").write_text("")
    (tmp_path / "outer" / "config-2").mkdir()  # a run of other settings, which --force put there
    (tmp_path / "outer" / "config-2" / "run.json").write_text("{}")
    assert set(Catalog(tmp_path).runs()) == {"outer", "outer/config-2"}
    with pytest.raises(UnknownRun, match="no run named"):
        Catalog(root).folders([])


def test_search_names_a_run_it_cannot_read_and_still_searches_the_others(root):
    found = Search(Catalog(root)).find("sim-0-0003")
    assert {(hit["run"], hit["field"]) for hit in found["hits"]} == {
        ("2026/baseline", "task id"), ("2026/tuned", "task id"), ("clumsy", "task id")}
    assert "results.jsonl:1: malformed line" in found["unreadable"]["broken"]
    first = Search(Catalog(root)).find("sim-0-", limit=5)
    assert len(first["hits"]) == 5 and first["more"] == 3 * 4 - 5  # every task id of the three runs
    assert Search(Catalog(root)).find('"role"')["hits"] == []  # the transcript's JSON is not its text


def test_search_reads_a_transcript_again_only_when_its_size_or_time_changed(root, tmp_path):
    shutil.copytree(root / "clumsy", tmp_path / "clumsy")
    transcript = episode_dir(tmp_path / "clumsy", "sim-0-0001", 1) / "calls.jsonl"
    search = Search(Catalog(tmp_path))
    found = search.find("quorble")["hits"]
    assert [(hit["task_id"], hit["field"]) for hit in found] == [("sim-0-0001", "transcript")]
    stat = transcript.stat()
    transcript.write_text(transcript.read_text().replace("Quorble", "Frobnic"))  # the same size
    os.utime(transcript, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert search.find("frobnic")["hits"] == [] and search.find("quorble")["hits"] == found  # not read again
    os.utime(transcript, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1))
    assert search.find("quorble")["hits"] == [] and len(search.find("frobnic")["hits"]) == 1
    assert Search(Catalog(tmp_path)).find("frobnic") == search.find("frobnic")  # as a search from scratch finds


def test_a_folder_with_no_run_under_it_is_refused_by_name(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    with pytest.raises(SystemExit) as exit:
        main([str(tmp_path)])
    assert exit.value.code == 2
    assert f"{tmp_path}: not a run folder (no results.jsonl), and no run folder under it" in capsys.readouterr().err


@pytest.mark.anyio
async def test_the_folder_server_lists_searches_and_streams_a_selection_on_either_loop(root):
    async with anyio.create_task_group() as tg:
        port = await tg.start(CatalogServer(Catalog(root), token="t").run)
        status, body = await http_get(port, "/runs.json?token=t")
        assert status == 200 and len(json.loads(body)["runs"]) == 4
        status, body = await http_get(port, "/search?q=quorble&token=t")
        assert [(hit["run"], hit["field"]) for hit in json.loads(body)["hits"]] == [("clumsy", "transcript")]
        ws = await connect(f"ws://127.0.0.1:{port}/events?run=2026%2Fbaseline&run=clumsy", token="t")
        snapshot = await receive_json(ws)
        assert snapshot["runs"] == ["baseline", "clumsy"] and snapshot["home"] is True
        card = snapshot["episodes"][-1]
        assert card["files"]["shot"].startswith("/runs/clumsy/shot/")
        status, png = await http_get(port, f"{card['files']['shot']}/1?token=t")
        assert status == 200 and png.startswith(b"\x89PNG")
        await ws.close()
        refused = await connect(f"ws://127.0.0.1:{port}/events?run=..", token="t")
        with anyio.fail_after(5), pytest.raises(ConnectionClosed, match="no run '..' under"):
            await refused.receive()
        tg.cancel_scope.cancel()


def test_a_run_that_has_started_and_finished_no_episode_is_listed_as_running(tmp_path):
    """A real run, slowed so that its first episode is far off: run.json is there, results.jsonl is not."""
    out = tmp_path / "runs" / "slow"
    process = supervisor(out, "50", wait=False)
    try:
        deadline = time.monotonic() + 60
        while not (out / "run.json").exists():
            assert process.poll() is None and time.monotonic() < deadline, process.stderr.read()
            time.sleep(0.05)
        with viewer(tmp_path / "runs") as url, chromium_page() as page:
            page.goto(url)
            page.wait_for_selector("#runs tr[data-run=slow] td")  # the page fills its table once it has loaded
            cells = page.locator("#runs tr[data-run=slow] td").all_text_contents()
            assert not (out / "results.jsonl").exists()  # what this test is about
            assert (cells[1], cells[4], cells[5]) == ("slow", "none finished yet", "0")
            assert cells[6].endswith(" (running)")
            page.click("#runs tr[data-run=slow] a")  # opens, with no card yet
            page.wait_for_function("() => document.querySelector('#status').textContent === 'finished: slow'")
            assert page.locator(".card").count() == 0
    finally:
        process.kill()
        process.wait()
    (row,) = Catalog(tmp_path / "runs").rows()
    assert (row["running"], row["ended"], row["episodes"], row["error"]) == (False, None, 0, "")  # stopped, not ended


def test_a_run_with_repeats_shows_pass_at_k_and_pass_hat_k_on_the_runs_page_and_in_its_header(tmp_path):
    for out, repeats in (("once", 1), ("repeated", 2)):
        bench.run_sync("sim", options={"episodes": 2, "scale": 0, "agent_error_rate": 0.5}, repeats=repeats,
                       summarizer="none", out=str(tmp_path / out))
    expected = pass_lines(json.loads((tmp_path / "repeated" / "summary.json").read_text()))
    assert expected and expected[0].startswith("2 tasks x 2 repeats; pass@k")
    with viewer(tmp_path) as url, chromium_page() as page:
        page.goto(url)
        page.wait_for_selector("#runs tr[data-run=repeated]")
        assert page.locator("#runs tr[data-run=repeated] .passes").all_text_contents() == expected
        assert page.locator("#runs tr[data-run=once] .passes").count() == 0  # no repeats: nothing to say
        page.click("#runs tr[data-run=repeated] td.id a")
        page.wait_for_function("() => document.querySelector('#passes').textContent !== ''")
        assert page.text_content("#passes") == "; ".join(expected)
