"""A task folder as WAA and OSWorld both lay it out, read the same way for both suites.

A list (`test_all.json`) names task ids per domain; each task lives in
`examples/<domain>/<id>.json` and is keyed by its path, `<domain>/<stem>`.
A file that cannot be read or breaks the schema is kept as a `ConfigError`
in `problems`, by path, and the others load, so one bad file never hides a
whole benchmark. Every error names the file and the field, e.g.
`examples/notepad/x.json: evaluator.func: expected a string or a list of strings, got 3`.
The schema both suites share is checked here; what one suite's reference
assumes beyond it is that suite's `check`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from actors.errors import ConfigError
from protocols import Task

__all__ = ["TaskFolder", "invalid", "kind", "read_json", "read_task"]

TaskCheck = Callable[[Path, dict[str, Any]], None]
"""A suite's own checks of a task file that passed the shared ones; raises ConfigError."""


def invalid(path: Path | str, field: str, problem: str) -> ConfigError:
    """`<path>: <field>: <problem>`, the field left out when the whole file is at fault."""
    return ConfigError(f"{path}: {field}: {problem}" if field else f"{path}: {problem}")


def kind(value: Any) -> str:
    return type(value).__name__


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


def _steps(path: Path, field: str, steps: Any) -> None:
    if not isinstance(steps, list):
        raise invalid(path, field, f"expected a list of steps, got {kind(steps)}")
    for index, step in enumerate(steps):
        here = f"{field}[{index}]"
        if not isinstance(step, dict):
            raise invalid(path, here, f"expected an object, got {kind(step)}")
        if not isinstance(step.get("type"), str):
            raise invalid(path, f"{here}.type", f"expected a string, got {step.get('type')!r}")
        if not isinstance(step.get("parameters", {}), dict):
            raise invalid(path, f"{here}.parameters", f"expected an object, got {kind(step['parameters'])}")


def _evaluator(path: Path, evaluator: Any) -> None:
    if not isinstance(evaluator, dict):
        raise invalid(path, "evaluator", f"expected an object, got {kind(evaluator)}")
    func = evaluator.get("func")
    if not (isinstance(func, str) or (isinstance(func, list) and func and all(isinstance(f, str) for f in func))):
        raise invalid(path, "evaluator.func", f"expected a string or a list of strings, got {func!r}")
    _steps(path, "evaluator.postconfig", evaluator.get("postconfig", []))
    if evaluator.get("conj", "and") not in ("and", "or"):
        raise invalid(path, "evaluator.conj", f"expected 'and' or 'or', got {evaluator['conj']!r}")


def read_task(path: Path, domain: str, check: TaskCheck | None = None) -> Task:
    """The task in `path` (`<root>/examples/<domain>/<stem>.json`), or ConfigError. The file is
    kept whole in `raw_config` and its `evaluator` goes to `evaluation_spec`."""
    try:
        data = read_json(path)
    except FileNotFoundError:
        raise invalid(path, "", "listed in the task list but there is no such file") from None
    if not isinstance(data, dict):
        raise invalid(path, "", f"expected a JSON object, got {kind(data)}")
    instruction = data.get("instruction")
    if not isinstance(instruction, str) or not instruction.strip():
        raise invalid(path, "instruction", f"expected a non-empty string, got {instruction!r}")
    _steps(path, "config", data.get("config", []))
    if "evaluator" not in data:
        raise invalid(path, "evaluator", "missing")
    _evaluator(path, data["evaluator"])
    if check is not None:
        check(path, data)
    return Task(task_id=f"{domain}/{path.stem}", instruction=instruction, domain=domain, raw_config=data,
                evaluation_spec=data["evaluator"])


@dataclass
class TaskFolder:
    root: Path
    tasks: list[Task] = field(default_factory=list)
    problems: dict[Path, ConfigError] = field(default_factory=dict)
    """Each broken task file's error, by its path."""

    @classmethod
    def read(cls, root: Path | str, task_list: str, read: Callable[[Path, str], Task], missing: str) -> Self:
        """Every task `root/task_list` names, each read by `read`; `missing` ends the error
        when there is no task list (what the folder should have been)."""
        root = Path(root)
        listing = root / task_list
        try:
            domains = read_json(listing)
        except FileNotFoundError:
            raise FileNotFoundError(f"{listing} does not exist: {missing}") from None
        if not isinstance(domains, dict) or not all(isinstance(ids, list) for ids in domains.values()):
            raise invalid(listing, "", "expected an object mapping each domain to a list of task ids")
        folder = cls(root)
        for domain, ids in domains.items():
            for task_id in ids:
                path = root / "examples" / domain / f"{task_id}.json"
                try:
                    folder.tasks.append(read(path, domain))
                except ConfigError as exc:
                    folder.problems[path] = exc
        return folder

    def problem_for(self, task_id: str) -> ConfigError | None:
        """The error of the file behind `<domain>/<stem>`, if that file is broken."""
        domain, _, stem = task_id.partition("/")
        return self.problems.get(self.root / "examples" / domain / f"{stem}.json")
