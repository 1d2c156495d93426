"""The sink's side of the transcript (actors.transcript): images named by the file that holds them,
a picture no file holds written once, two pictures of one role and step kept apart."""

import hashlib

from actors.llm.client import image_part
from actors.llm.transcript import without_images
from actors.run_folder import read_calls
from actors.transcript import ScreenshotFiles, write_calls
from protocols import ModelCall


def call(step, *images):
    """An agent call at `step` showing `images`, as the client records it."""
    shown = {}
    messages = without_images([{"role": "user", "content": [image_part(image) for image in images]}], shown)
    return ModelCall(role="agent", step=step, messages=messages, images=shown)


def files_named(recorded):
    return [part.get("file") for part in recorded.messages[0]["content"]]


def test_pictures_are_named_by_the_file_that_holds_them_and_written_once(tmp_path):
    screenshot, marked, other = b"\x89PNG screen", b"\x89PNG marked", b"\x89PNG marked otherwise"
    (tmp_path / "step-000.png").write_bytes(screenshot)
    files = ScreenshotFiles()
    write_calls(tmp_path, (call(1, screenshot, marked),), files)
    write_calls(tmp_path, (call(1, marked, other), call(2, marked)), files)
    first, second, third = read_calls(tmp_path)
    assert files_named(first) == ["step-000.png", "agent-001.png"]
    assert files_named(second) == ["agent-001.png", f"agent-001-{hashlib.sha256(other).hexdigest()[:12]}.png"]
    assert files_named(third) == ["agent-001.png"]  # the same picture at a later step: not stored again
    assert sorted(p.name for p in tmp_path.glob("*.png")) == sorted(["step-000.png", *files_named(second)])
    assert (tmp_path / files_named(second)[1]).read_bytes() == other
    assert b"images" not in (tmp_path / "calls.jsonl").read_bytes()  # the bytes went to files, not the transcript
    files.forget(tmp_path)
    write_calls(tmp_path, (call(3, other),), ScreenshotFiles())  # a sink that starts afresh finds the files again
    assert files_named(read_calls(tmp_path)[-1]) == files_named(second)[1:]
