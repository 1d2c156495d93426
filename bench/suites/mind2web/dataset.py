"""Reading Mind2Web's released data: every task's index at start, a task's recorded steps when it runs.

Mind2Web (Deng et al., NeurIPS 2023; the OSU-NLP-Group/Mind2Web repository,
README "Data") releases each split as a folder of JSON files, `data/train/`,
`data/test_task/`, `data/test_website/` and `data/test_domain/` (cross-task,
cross-website and cross-domain), each file a list of tasks:

    {"annotation_id", "website", "domain", "subdomain", "confirmed_task",
     "action_reprs": ["[button]  Search -> CLICK", ...],       one per action
     "actions": [{"action_uid", "raw_html", "cleaned_html",
                  "operation": {"op": "CLICK" | "TYPE" | "SELECT", "original_op", "value"},
                  "pos_candidates": [{"tag", "backend_node_id",
                                      "attributes": "<a JSON object, as a string>", ...}],
                  "neg_candidates": [...]}]}

The screenshots are in the raw dump, per task:
`raw_dump/task/<annotation_id>/processed/screenshot.json`, a list of
`{"action_uid", "before": {"screenshot": "<base64 image>"}, ...}`; a task
without that file runs on its candidates alone. The multimodal release reads
through `bench.suites.mind2web.multimodal` into the same shapes.

Every file is decoded and checked when the suite is built, so a malformed one
stops the run before anything is written, in one line naming the file and
the field (`$[2].actions[0].operation.op`). Only the index is kept; a task's
recorded pages are decoded again when its episode starts, from a small cache
of whole files (tasks run in file order, so most come from the cache).
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from actors.errors import ConfigError

__all__ = ["OPS", "SPLITS", "DatasetError", "RawAction", "RawCandidate", "RawTask", "Recorded", "Source",
           "attributes_of", "check_task", "find_sources", "read_source", "read_screenshots"]

SPLITS = ("test_task", "test_website", "test_domain", "train")
"""Mind2Web's splits, as its folders are named: cross-task, cross-website, cross-domain, and training."""
OPS = ("CLICK", "TYPE", "SELECT")
"""The operations Mind2Web scores (`original_op` HOVER and ENTER are recorded as CLICK)."""
SCREENSHOTS = "raw_dump/task/{annotation_id}/processed/screenshot.json"


class DatasetError(ConfigError):
    """A data file that is not in Mind2Web's format; the message names the file and the field."""


class Operation(msgspec.Struct, frozen=True):
    op: str
    value: str = ""
    original_op: str = ""


class RawCandidate(msgspec.Struct, frozen=True):
    backend_node_id: str
    tag: str = ""
    attributes: str = "{}"


class RawAction(msgspec.Struct, frozen=True):
    action_uid: str
    operation: Operation
    pos_candidates: list[RawCandidate]
    neg_candidates: list[RawCandidate]
    cleaned_html: str = ""


class RawTask(msgspec.Struct, frozen=True):
    annotation_id: str
    website: str
    domain: str
    confirmed_task: str
    action_reprs: list[str]
    actions: list[RawAction]
    subdomain: str = ""


@dataclass(frozen=True)
class Source:
    """One data file of one split."""

    path: Path
    split: str
    kind: str  # "json" (the Mind2Web release) or "parquet" (the multimodal release)


@dataclass(frozen=True)
class Recorded:
    """A task as its file records it, with the screenshot before each action (by action_uid) where there is one."""

    task: RawTask
    screenshots: dict[str, bytes]


def find_sources(root: Path) -> list[Source]:
    """The data files under `root`: split folders of JSON files (`root/<split>/` or `root/data/<split>/`)
    and the multimodal release's parquet files (`<split>-*.parquet` anywhere below `root`)."""
    sources: list[Source] = []
    for split in SPLITS:
        for folder in (root / split, root / "data" / split):
            sources += [Source(path, split, "json") for path in sorted(folder.glob("*.json"))]
        sources += [Source(path, split, "parquet") for path in sorted(root.rglob(f"{split}-*.parquet"))]
    return sources


def read_source(source: Source, *, pages: bool = True) -> list[Recorded]:
    """The tasks of one file, checked (DatasetError naming the file and field); cached, as whole
    files are large and an episode needs only its own task from one. `pages` False may leave out
    what only an episode needs (the multimodal release's screenshots and cleaned_html), for the index.
    One file is read at a time: episodes starting together on tasks of one file wait for one read
    of it, rather than each holding a copy of it while they read."""
    with _READING:
        return _read_cached(source, pages or source.kind == "json")


_READING = threading.Lock()


@functools.lru_cache(maxsize=2)
def _read_cached(source: Source, pages: bool) -> list[Recorded]:
    if source.kind == "parquet":
        from bench.suites.mind2web.multimodal import read_parquet  # needs pyarrow: only for that release

        return read_parquet(source.path, pages=pages)
    try:
        tasks = msgspec.json.decode(source.path.read_bytes(), type=list[RawTask])
    except msgspec.ValidationError as exc:
        raise DatasetError(f"mind2web: {source.path}: {_field_first(str(exc))}") from None
    except msgspec.DecodeError as exc:
        raise DatasetError(f"mind2web: {source.path}: not JSON: {exc}") from None
    except OSError as exc:
        raise DatasetError(f"mind2web: {source.path}: cannot be read: {exc.strerror}") from None
    for index, task in enumerate(tasks):
        check_task(task, source.path, f"$[{index}]")
    return [Recorded(task, {}) for task in tasks]


def _field_first(message: str) -> str:
    """msgspec's "Expected `str`, got `int` - at `$[0].website`" as "$[0].website: expected `str`, got `int`"."""
    what, sep, where = message.rpartition(" - at ")
    if not sep:
        what, where = message, "`$`"
    return f"{where.strip('`')}: {what[:1].lower()}{what[1:]}"


def check_task(task: RawTask, path: Path, at: str) -> None:
    """What msgspec's types cannot say about a task: known operations, candidates' attributes
    that are JSON objects, one action_repr per action, at least one action."""
    if not task.actions:
        raise DatasetError(f"mind2web: {path}: {at}.actions: the task has no action")
    if len(task.action_reprs) != len(task.actions):
        raise DatasetError(f"mind2web: {path}: {at}.action_reprs: {len(task.action_reprs)} for "
                           f"{len(task.actions)} actions (one per action)")
    for number, action in enumerate(task.actions):
        where = f"{at}.actions[{number}]"
        if action.operation.op not in OPS:
            raise DatasetError(f"mind2web: {path}: {where}.operation.op: {action.operation.op!r} is not one of "
                               f"{', '.join(OPS)}")
        for kind in ("pos_candidates", "neg_candidates"):
            for index, candidate in enumerate(getattr(action, kind)):
                attributes_of(candidate, path, f"{where}.{kind}[{index}].attributes")


def attributes_of(candidate: RawCandidate, path: Path | str = "", at: str = "attributes") -> dict[str, str]:
    """A candidate's attributes: Mind2Web stores them as a JSON object inside a string."""
    try:
        value = json.loads(candidate.attributes)
    except ValueError as exc:
        raise DatasetError(f"mind2web: {path}: {at}: not a JSON object: {exc}") from None
    if not isinstance(value, dict):
        raise DatasetError(f"mind2web: {path}: {at}: not a JSON object but {type(value).__name__}")
    return {str(key): _text(item) for key, item in value.items()}


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def read_screenshots(root: Path, annotation_id: str) -> dict[str, bytes]:
    """The raw dump's screenshot before each action of a task, by action_uid (none: {}). A file that is
    there but not in the dump's format raises DatasetError naming it and the field."""
    path = root / SCREENSHOTS.format(annotation_id=annotation_id)
    if not path.exists():
        return {}
    try:
        entries = json.loads(path.read_bytes())
    except ValueError as exc:
        raise DatasetError(f"mind2web: {path}: not JSON: {exc}") from None
    if not isinstance(entries, list):
        raise DatasetError(f"mind2web: {path}: $: expected a list of screens, got {type(entries).__name__}")
    shots: dict[str, bytes] = {}
    for index, entry in enumerate(entries):
        uid = entry.get("action_uid") if isinstance(entry, dict) else None
        if not isinstance(uid, str):
            raise DatasetError(f"mind2web: {path}: $[{index}].action_uid: missing")
        before = entry.get("before")
        encoded = before.get("screenshot") if isinstance(before, dict) else None
        if not isinstance(encoded, str):
            raise DatasetError(f"mind2web: {path}: $[{index}].before.screenshot: missing")
        try:
            shots[uid] = base64.b64decode(encoded, validate=True)
        except binascii.Error as exc:
            raise DatasetError(f"mind2web: {path}: $[{index}].before.screenshot: not base64: {exc}") from None
    return shots
