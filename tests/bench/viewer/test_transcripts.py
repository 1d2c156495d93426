"""An episode's transcript as the runs page searches it: its text, read once and again when the file
changes or after the search stopped coming to it."""

import os

from actors.transcript import ScreenshotFiles, write_calls
from bench.viewer.transcripts import Transcripts
from protocols import ModelCall


def transcript(folder, word):
    write_calls(folder, (ModelCall(role="classifier", messages=[{"role": "user", "content": f"Why {word}?"}],
                                   reply="It missed the button.", error=""),), ScreenshotFiles())


def test_a_transcripts_text_is_its_messages_and_replies_kept_until_forgotten(tmp_path):
    transcript(tmp_path, "Alpha")
    transcripts = Transcripts()
    assert transcripts.of(tmp_path) == ("Why Alpha?\nIt missed the button.", "why alpha?\nit missed the button.")
    stat = (tmp_path / "calls.jsonl").stat()
    (tmp_path / "calls.jsonl").unlink()
    transcript(tmp_path, "Omega")  # the same size; the same time, as a coarse clock would give it
    os.utime(tmp_path / "calls.jsonl", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert transcripts.of(tmp_path).text.startswith("Why Alpha?")
    transcripts.keep_only([tmp_path])
    assert transcripts.of(tmp_path).text.startswith("Why Alpha?")
    transcripts.keep_only([])  # no search came to it: forgotten, read again when one does
    assert transcripts.of(tmp_path).text.startswith("Why Omega?")


def test_an_episode_without_a_readable_transcript_has_no_text(tmp_path):
    assert Transcripts().of(tmp_path) == ("", "")
    (tmp_path / "calls.jsonl").write_text("not json\n")
    assert Transcripts().of(tmp_path) == ("", "")
