"""One WAA task file, checked at the boundary and turned into a `Task`.

A task is keyed by its path, `<domain>/<file stem>`, because the `id`
inside some files differs from the file name and some ids repeat. The file
is kept whole in `raw_config` (setup steps, related apps, anything a later
tool may want) and its `evaluator` goes to `evaluation_spec`. Every problem
is reported with the file and the field, e.g.
`examples/notepad/x.json: evaluator.func: expected a string or a list of strings, got 3`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from protocols import Task
from actors.errors import ConfigError


def invalid(path: Path, field: str, problem: str) -> ConfigError:
    """The error for a task file that cannot be read or does not follow the schema:
    `<path>: <field>: <problem>`, the field left out when the whole file is at fault."""
    where = f"{path}: {field}: " if field else f"{path}: "
    return ConfigError(where + problem)


def _kind(value: Any) -> str:
    return type(value).__name__


def _steps(path: Path, field: str, steps: Any) -> None:
    if not isinstance(steps, list):
        raise invalid(path, field, f"expected a list of steps, got {_kind(steps)}")
    for index, step in enumerate(steps):
        here = f"{field}[{index}]"
        if not isinstance(step, dict):
            raise invalid(path, here, f"expected an object, got {_kind(step)}")
        if not isinstance(step.get("type"), str):
            raise invalid(path, f"{here}.type", f"expected a string, got {step.get('type')!r}")
        if not isinstance(step.get("parameters", {}), dict):
            raise invalid(path, f"{here}.parameters", f"expected an object, got {_kind(step['parameters'])}")


def _getter_specs(path: Path, field: str, value: Any) -> None:
    items = value if isinstance(value, list) else [value]
    for index, item in enumerate(items):
        here = f"{field}[{index}]" if isinstance(value, list) else field
        if item and not (isinstance(item, dict) and isinstance(item.get("type"), str)):
            raise invalid(path, here, f"expected an object with a string `type` (or {{}}), got {item!r}")


def _evaluator(path: Path, evaluator: Any) -> None:
    if not isinstance(evaluator, dict):
        raise invalid(path, "evaluator", f"expected an object, got {_kind(evaluator)}")
    func = evaluator.get("func")
    if not (isinstance(func, str) or (isinstance(func, list) and func and all(isinstance(f, str) for f in func))):
        raise invalid(path, "evaluator.func", f"expected a string or a list of strings, got {func!r}")
    _steps(path, "evaluator.postconfig", evaluator.get("postconfig", []))
    for key in ("result", "expected"):
        if key in evaluator:
            _getter_specs(path, f"evaluator.{key}", evaluator[key])
    if evaluator.get("conj", "and") not in ("and", "or"):
        raise invalid(path, "evaluator.conj", f"expected 'and' or 'or', got {evaluator['conj']!r}")


def read_json(path: Path) -> Any:
    """The JSON document in `path`; FileNotFoundError when there is none, ConfigError for
    anything else that stops it being read: a folder, unreadable bytes, broken or absurd JSON
    (nested deeper than the parser's recursion, an integer past Python's digit limit)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise invalid(path, "", f"cannot be read: {exc.strerror or exc}") from None
    try:
        return json.loads(data)
    except RecursionError:
        raise invalid(path, "", "not valid JSON: nested too deeply to read") from None
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, and the integer digit limit
        raise invalid(path, "", f"not valid JSON: {exc}") from None


def read_task(path: Path, domain: str) -> Task:
    """The task in `path` (`<root>/examples/<domain>/<stem>.json`), or ConfigError."""
    try:
        data = read_json(path)
    except FileNotFoundError:
        raise invalid(path, "", "listed in the task list but there is no such file") from None
    if not isinstance(data, dict):
        raise invalid(path, "", f"expected a JSON object, got {_kind(data)}")
    instruction = data.get("instruction")
    if not isinstance(instruction, str) or not instruction.strip():
        raise invalid(path, "instruction", f"expected a non-empty string, got {instruction!r}")
    if not isinstance(data.get("id", ""), str):
        raise invalid(path, "id", f"expected a string, got {data['id']!r}")
    _steps(path, "config", data.get("config", []))
    if "evaluator" not in data:
        raise invalid(path, "evaluator", "missing")
    _evaluator(path, data["evaluator"])
    return Task(
        task_id=f"{domain}/{path.stem}",
        instruction=instruction,
        domain=domain,
        raw_config=data,
        evaluation_spec=data["evaluator"],
    )
