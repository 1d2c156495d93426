"""An OSWorld task folder (`evaluation_examples`): its task list and task files.

`test_all.json` names task ids per domain; each lives in
`examples/<domain>/<id>.json`. Tasks are keyed `<domain>/<id>`. A file that
cannot be read or breaks the schema is kept in `problems` with its path and
field, and the others load, so one bad file never hides the benchmark.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from protocols import Task

from actors.errors import ConfigError

TASK_LIST = "test_all.json"


def invalid(path: Path | str, field: str, problem: str) -> ConfigError:
    """A task list or task file that cannot be read or does not follow OSWorld's schema, by path and field."""
    return ConfigError(f"{path}: {field}: {problem}" if field else f"{path}: {problem}")


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_bytes())
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise invalid(path, "", f"cannot be read: {exc.strerror or exc}") from None
    except RecursionError:
        raise invalid(path, "", "not valid JSON: nested too deeply to read") from None
    except ValueError as exc:
        raise invalid(path, "", f"not valid JSON: {exc}") from None


def _check_steps(path: Path, where: str, steps: Any) -> None:
    if not isinstance(steps, list):
        raise invalid(path, where, f"expected a list of steps, got {type(steps).__name__}")
    for index, step in enumerate(steps):
        if not (isinstance(step, dict) and isinstance(step.get("type"), str)
                and isinstance(step.get("parameters", {}), dict)):
            raise invalid(path, f"{where}[{index}]", f"expected {{type: str, parameters: object}}, got {step!r}")


def _check_evaluator(path: Path, evaluator: Any) -> None:
    """OSWorld's own assumptions: with a list of functions, `result`, `expected` and `options`
    are lists of the same length (its evaluate() asserts so)."""
    if not isinstance(evaluator, dict):
        raise invalid(path, "evaluator", f"expected an object, got {type(evaluator).__name__}")
    func = evaluator.get("func")
    if isinstance(func, list):
        if not func or not all(isinstance(f, str) for f in func):
            raise invalid(path, "evaluator.func", f"expected a string or a list of strings, got {func!r}")
        for key in ("result", "expected", "options"):
            value = evaluator.get(key)
            if value is not None and not (isinstance(value, list) and len(value) == len(func)):
                raise invalid(path, f"evaluator.{key}", f"expected a list of {len(func)} entries, one per "
                                                             f"function, got {value!r}")
    elif not isinstance(func, str):
        raise invalid(path, "evaluator.func", f"expected a string or a list of strings, got {func!r}")
    _check_steps(path, "evaluator.postconfig", evaluator.get("postconfig", []))
    if evaluator.get("conj", "and") not in ("and", "or"):
        raise invalid(path, "evaluator.conj", f"expected 'and' or 'or', got {evaluator['conj']!r}")


def read_task(path: Path, domain: str) -> Task:
    try:
        data = _json(path)
    except FileNotFoundError:
        raise invalid(path, "", "listed in the task list but there is no such file") from None
    if not isinstance(data, dict):
        raise invalid(path, "", f"expected a JSON object, got {type(data).__name__}")
    instruction = data.get("instruction")
    if not isinstance(instruction, str) or not instruction.strip():
        raise invalid(path, "instruction", f"expected a non-empty string, got {instruction!r}")
    _check_steps(path, "config", data.get("config", []))
    if "evaluator" not in data:
        raise invalid(path, "evaluator", "missing")
    _check_evaluator(path, data["evaluator"])
    return Task(task_id=f"{domain}/{path.stem}", instruction=instruction, domain=domain, raw_config=data,
                evaluation_spec=data["evaluator"])


@dataclass
class Catalog:
    root: Path
    tasks: list[Task] = field(default_factory=list)
    problems: dict[Path, ConfigError] = field(default_factory=dict)
    """Each broken task file's error, by its path."""

    @classmethod
    def load(cls, root: Path | str) -> Catalog:
        root = Path(root)
        listing = root / TASK_LIST
        try:
            domains = _json(listing)
        except FileNotFoundError:
            raise FileNotFoundError(f"{listing} does not exist: --osworld-tasks must point to OSWorld's "
                                    "evaluation_examples folder (test_all.json, examples/)") from None
        if not isinstance(domains, dict) or not all(isinstance(ids, list) for ids in domains.values()):
            raise invalid(listing, "", "expected an object mapping each domain to a list of task ids")
        catalog = cls(root)
        for domain, ids in domains.items():
            for task_id in ids:
                path = root / "examples" / domain / f"{task_id}.json"
                try:
                    catalog.tasks.append(read_task(path, domain))
                except ConfigError as exc:
                    catalog.problems[path] = exc
        return catalog

    def problem_for(self, task_id: str) -> ConfigError | None:
        domain, _, stem = task_id.partition("/")
        return self.problems.get(self.root / "examples" / domain / f"{stem}.json")
