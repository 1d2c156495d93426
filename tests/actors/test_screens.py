"""Screenshots stored once per distinct image (each step's file a hard link to it), `--screenshots`
choosing which a run keeps, and every reader (the run folder's, the viewer's) still finding each step's."""

import errno
import hashlib
import io
import json
import os
from collections import defaultdict

import anyio
import pytest
from PIL import Image, ImageChops, ImageStat

import bench
from actors.result_sink import ResultSink
from actors.llm.client import image_part
from actors.llm.transcript import without_images
from actors.run_folder import read_calls, read_screenshot, read_steps, result_dir, screenshot_path
from actors.screens import SCREENS, ScreenStore
from bench.perf.storage import Stored
from bench.report import write_report
from bench.viewer.files import parse
from bench.viewer.folders import FinishedRuns
from protocols import Done, EpisodeStarted, Flush, ModelCall, StepRecord, StepTaken
from runtime.actor import spawn

SIM = {"episodes": 6, "scale": 0.0, "agent_error_rate": 0.9}


def step_files(folder):
    return sorted(folder.glob("episodes/**/step-[0-9][0-9][0-9].png"))


def stored_images(folder):
    return sorted((folder / SCREENS).glob("*/*.png"))


async def test_identical_screens_are_stored_once_and_every_step_still_reads_its_own(tmp_path, anyio_backend):
    run = await bench.run("sim", options=SIM, out=tmp_path / "run")
    by_content = defaultdict(set)
    for path in step_files(run.folder):
        by_content[hashlib.sha256(path.read_bytes()).hexdigest()].add(path.stat().st_ino)
    assert len(step_files(run.folder)) > len(by_content) > 1  # some screens repeat (the sim's form redrawn alike)
    assert all(len(inodes) == 1 for inodes in by_content.values())  # one copy of each distinct image
    assert sorted(path.stem for path in stored_images(run.folder)) == sorted(by_content)
    figures = Stored(run.folder)  # what bench.perf.storage prints
    assert figures.per_step_files == sum(path.stat().st_size for path in step_files(run.folder))
    stored = sum(path.stat().st_size for path in stored_images(run.folder))
    assert figures.screenshots == stored < figures.per_step_files
    assert (figures.images, figures.distinct) == (len(step_files(run.folder)), len(by_content))

    finished = FinishedRuns([run.folder])
    for card in finished.cards:
        folder = result_dir(run.folder, card["result"])
        for record in read_steps(folder):
            shot = read_screenshot(folder, record.step)
            assert shot and finished.step_file(parse(f"{card['files']['shot']}/{record.step}")) == shot


@pytest.mark.parametrize("keep", ["final", "failed", "none"])
async def test_a_run_keeps_the_screens_it_was_told_to_and_no_image_nobody_shows(tmp_path, keep, anyio_backend):
    run = await bench.run("sim", options=SIM, screenshots=keep, max_steps=6, out=tmp_path / "run")
    assert {line.result.success for line in run.results} == {True, False}
    for line in run.results:
        folder = result_dir(run.folder, line.result)
        shots = sorted(path.name for path in folder.glob("step-*.png"))
        last = f"step-{max(record.step for record in read_steps(folder)):03d}.png"
        if keep == "none":
            assert shots == []
        elif keep == "final" or line.result.success:
            assert shots == [last]
        else:
            assert len(shots) == line.result.steps + 1 and shots[-1] == last  # the reset's screen, then each step's
    assert all(path.stat().st_nlink > 1 for path in stored_images(run.folder))  # every stored image is shown
    assert len(stored_images(run.folder)) == len({path.stat().st_ino for path in step_files(run.folder)})


def test_a_filesystem_without_hard_links_gets_copies(tmp_path, monkeypatch):
    def refuse(source, target):
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(os, "link", refuse)
    store = ScreenStore(tmp_path)
    for step in (1, 2):
        store.write(tmp_path / f"step-00{step}.png", b"\x89PNG same image")
    first, second = tmp_path / "step-001.png", tmp_path / "step-002.png"
    assert first.read_bytes() == second.read_bytes() == b"\x89PNG same image"
    assert first.stat().st_ino != second.stat().st_ino


async def test_an_attempt_started_again_takes_the_images_only_it_showed_with_it(tmp_path, anyio_backend):
    async with anyio.create_task_group() as tg:
        sink = await spawn(tg, ResultSink(tmp_path))
        for screen in (b"\x89PNG first try", b"\x89PNG second try"):  # a run killed mid-episode, then resumed
            await sink.tell(EpisodeStarted(episode_id="t#1", task_id="t", attempt=1, at=0.0))
            await sink.tell(StepTaken(record=StepRecord(episode_id="t#1", step=1, action=Done()), screenshot=screen))
            await sink.ask(Flush())
        tg.cancel_scope.cancel()
    assert [path.read_bytes() for path in stored_images(tmp_path)] == [b"\x89PNG second try"]
    assert (tmp_path / "episodes" / "t" / "1" / "step-001.png").read_bytes() == b"\x89PNG second try"


async def test_a_lossy_format_is_what_every_reader_follows_while_the_agent_still_sees_lossless_png(
        tmp_path, anyio_backend):
    shown = {}

    def keep_shown(event):
        if isinstance(event, StepTaken) and event.screenshot:
            shown[event.record.episode_id, event.record.step] = event.screenshot

    run = await bench.run("sim", options=SIM | {"episodes": 2}, screenshot_format="webp", screenshot_quality=60, out=tmp_path / "webp",
                          on_event=keep_shown)
    assert shown and all(image.startswith(b"\x89PNG") for image in shown.values())  # what the run's actors got
    assert json.loads((run.folder / "run.json").read_text())["config"].items() >= {
        "screenshot_format": "webp", "screenshot_quality": 60}.items()
    assert step_files(run.folder) == [] and sorted((run.folder / SCREENS).glob("*/*.webp"))

    finished = FinishedRuns([run.folder])
    for card in finished.cards:
        folder = result_dir(run.folder, card["result"])
        for record in read_steps(folder):
            stored = screenshot_path(folder, record.step)
            assert stored.name == f"step-{record.step:03d}.webp" and stored.read_bytes()[8:12] == b"WEBP"
            wanted = parse(f"{card['files']['shot']}/{record.step}")
            served = finished.step_file(wanted)
            assert served == stored.read_bytes() and wanted.content_type(served) == "image/webp"
            png = read_screenshot(folder, record.step)  # what replay and other readers get: a PNG
            assert png.startswith(b"\x89PNG")
            original = Image.open(io.BytesIO(shown[card["episode_id"], record.step])).convert("RGB")
            decoded = Image.open(io.BytesIO(png)).convert("RGB")
            assert decoded.size == original.size
            assert max(ImageStat.Stat(ImageChops.difference(decoded, original)).mean) < 8  # lossy, yet the same screen
    linked = write_report(run.folder, run.summary, run.results).read_text()
    inline = write_report(run.folder, run.summary, run.results, inline=True, path=tmp_path / "inline.html").read_text()
    assert "/step-001.webp" in linked and ".png" not in linked
    assert "data:image/webp;base64," in inline and "data:image/png" not in inline


async def test_a_run_resumed_in_another_format_is_accepted_and_reads_both(tmp_path, anyio_backend):
    first = await bench.run("sim", options=SIM | {"episodes": 2}, out=tmp_path / "run")
    resumed = await bench.run("sim", options=SIM | {"episodes": 4}, screenshot_format="jpeg", out=tmp_path / "run")
    suffixes = {screenshot_path(result_dir(resumed.folder, line.result), 0).suffix for line in resumed.results}
    assert len(first.results) == 2 and len(resumed.results) == 4 and suffixes == {".png", ".jpg"}
    starts = json.loads((resumed.folder / "run.json").read_text())["starts"]
    assert [start["config"]["screenshot_format"] for start in starts] == ["png", "jpeg"]


async def test_a_model_shown_a_screenshot_stored_lossy_names_the_step_file_and_no_lossless_copy_is_written(
        tmp_path, anyio_backend):
    png = io.BytesIO()
    Image.new("RGB", (64, 48), "teal").save(png, format="PNG")
    screen, shown = png.getvalue(), {}
    messages = without_images([{"role": "user", "content": [image_part(png.getvalue())]}], shown)
    async with anyio.create_task_group() as tg:
        sink = await spawn(tg, ResultSink(tmp_path, screenshot_format="webp"))
        await sink.tell(EpisodeStarted(episode_id="t#1", task_id="t", attempt=1, at=0.0))
        await sink.tell(StepTaken(record=StepRecord(episode_id="t#1", step=1, action=Done()), screenshot=screen,
                                  calls=(ModelCall(role="agent", step=1, messages=messages, images=shown),)))
        await sink.ask(Flush())
        tg.cancel_scope.cancel()
    folder = tmp_path / "episodes" / "t" / "1"
    [call] = read_calls(folder)
    assert call.messages[0]["content"][0]["file"] == "step-001.webp"
    assert sorted(path.name for path in folder.glob("*.*p*")) == ["step-001.webp"]  # no agent-001.png beside it
