"""One WAA task file, checked at the boundary and turned into a `Task`.

A task is keyed by its path, `<domain>/<file stem>`, because the `id`
inside some files differs from the file name and some ids repeat. Beyond
the schema WAA shares with OSWorld (`bench.formats.task_folder`), WAA's
evaluator reads `id` as a string and each `result`/`expected` getter as an
object with a string `type` (or `{}`, no getter).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from protocols import Task

from bench.formats import task_folder
from bench.formats.task_folder import invalid


def _getter_specs(path: Path, field: str, value: Any) -> None:
    items = value if isinstance(value, list) else [value]
    for index, item in enumerate(items):
        here = f"{field}[{index}]" if isinstance(value, list) else field
        if item and not (isinstance(item, dict) and isinstance(item.get("type"), str)):
            raise invalid(path, here, f"expected an object with a string `type` (or {{}}), got {item!r}")


def _check(path: Path, data: dict[str, Any]) -> None:
    if not isinstance(data.get("id", ""), str):
        raise invalid(path, "id", f"expected a string, got {data['id']!r}")
    evaluator = data["evaluator"]
    for key in ("result", "expected"):
        if key in evaluator:
            _getter_specs(path, f"evaluator.{key}", evaluator[key])


def read_task(path: Path, domain: str) -> Task:
    """The task in `path` (`<root>/examples/<domain>/<stem>.json`), or ConfigError."""
    return task_folder.read_task(path, domain, _check)
