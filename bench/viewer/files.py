"""What the viewer page fetches for one step of one episode, and where: its screenshot, the
observation the agent decided on (the accessibility tree the target is found in), the
model calls of that step (the transcript), and the picture the agent was shown for it when
that is no screenshot (set-of-marks, scaled: `seen`).

A live run and finished run folders share the scheme, `[/runs/<run id>]/<kind>/<episode>/<step>`
(a run id is its position among the runs served, or over a folder of runs its path there):
a live run's server answers its latest steps from memory and the rest from the run folder;
finished runs answer from their folders only. Observations and calls are sent as JSON objects
holding either what was asked (`observation`, `calls`) or one line saying why it cannot be had
(`error`), so the page shows a garbled file by name instead of failing. A screenshot is sent as
the run folder stores it (a WebP of a run storing its screens lossy: `actors.screens`), with the
content type its bytes say.
"""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import msgspec

from actors.run_folder import ResultsError, observation_path, picture_path, read_calls, read_screenshot_file
from protocols import ModelCall, Observation, to_json

__all__ = ["KINDS", "StepFile", "calls_json", "episode_bases", "observation_json", "parse", "read"]

PNG = "image/png"
JSON = "application/json"
KINDS = {"shot": PNG, "obs": JSON, "calls": JSON, "seen": PNG}
"""Each kind of step file, with the content type it is sent as."""

_PATH = re.compile(r"^(?:/runs/(?P<run>[^/]+))?/(?P<kind>shot|obs|calls|seen)/(?P<episode>[^/]+)/(?P<step>\d+)$")


@dataclass(frozen=True)
class StepFile:
    """A page path, parsed: which run (None: the live one), what, of which episode and step."""

    run: str | None
    kind: str
    episode_id: str
    step: int

    def content_type(self, content: bytes) -> str:
        """The content type to send `content` as: its kind's, or for a picture what its bytes are."""
        if KINDS[self.kind] != PNG:
            return KINDS[self.kind]
        if content.startswith(b"\xff\xd8"):
            return "image/jpeg"
        return "image/webp" if content[:4] == b"RIFF" and content[8:12] == b"WEBP" else PNG


def parse(path: str) -> StepFile | None:
    """The step file a page path names, or None if the path is not one."""
    match = _PATH.match(path)
    if match is None:
        return None
    run = None if match["run"] is None else urllib.parse.unquote(match["run"])
    return StepFile(run, match["kind"], urllib.parse.unquote(match["episode"]), int(match["step"]))


def episode_bases(episode_id: str, run: str | None = None) -> dict[str, str]:
    """Per kind, the path the page appends `/<step>` to for one of the episode's files."""
    prefix = "" if run is None else f"/runs/{urllib.parse.quote(run, safe='')}"
    return {kind: f"{prefix}/{kind}/{urllib.parse.quote(episode_id, safe='')}" for kind in KINDS}


def observation_json(observation: Observation) -> bytes:
    """An observation as the page reads it: the tree and fields, without the screenshot's bytes."""
    return b'{"observation":' + to_json(msgspec.structs.replace(observation, screenshot=b"")) + b"}"


def calls_json(calls: Iterable[ModelCall]) -> bytes:
    return to_json({"calls": list(calls)})


def _error(text: str) -> bytes:
    return to_json({"error": text})


def read(folder: Path, kind: str, step: int) -> bytes:
    """A step file from an episode folder: the screen after `step` as stored (b"" if none), the
    observation before it, its model calls, or the picture the agent was shown for it (b"" if none)."""
    if kind == "shot":
        return read_screenshot_file(folder, step)[0]
    if kind == "seen":
        try:
            return picture_path(folder, "agent", step).read_bytes()
        except FileNotFoundError:
            return b""
    if kind == "obs":
        path = observation_path(folder, step)
        try:
            raw = path.read_bytes()
            msgspec.json.decode(raw, type=Observation)
        except FileNotFoundError:
            return _error(f"no observation recorded for step {step} ({path.name} is missing)")
        except msgspec.DecodeError as exc:
            return _error(f"{path}: malformed observation: {exc}")
        return b'{"observation":' + raw + b"}"
    try:
        return calls_json(call for call in read_calls(folder) if call.step == step)
    except ResultsError as exc:
        return _error(str(exc))
