"""What a desktop's file system holds at the end of an episode, for the evaluator.

A desktop task is judged by what the user's actions left on the machine, never
by pixels. The backend only reads: for every path the evaluation spec's checks
name (relative to the home folder), whether it exists, whether it is a folder,
and the text of a file. What the checks mean is the suite's business.

    {"checks": [{"type": "...", "path": "notes.txt", ...}, ...]}
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

MAX_BYTES = 1 << 20


class _NamedPath(msgspec.Struct):
    path: str


class _Spec(msgspec.Struct):
    checks: list[_NamedPath]


def read_state(home: Path, spec: dict[str, Any]) -> dict[str, Any]:
    """For every path the checks name: does it exist, is it a folder, the text of a file."""
    try:
        checks = msgspec.convert(spec, _Spec).checks
    except msgspec.ValidationError as exc:
        raise ValueError(f"evaluation spec: {exc}") from None
    paths: dict[str, Any] = {}
    for check in checks:
        target = (home / check.path.removeprefix("~/")).resolve()
        if not target.is_relative_to(home.resolve()):
            raise ValueError(f"evaluation spec: path {check.path!r} leaves the home folder")
        entry: dict[str, Any] = {"exists": target.exists(), "is_dir": target.is_dir()}
        if target.is_file():
            entry["content"] = target.read_bytes()[:MAX_BYTES].decode("utf-8", "replace")
        paths[check.path] = entry
    return {"paths": paths}
