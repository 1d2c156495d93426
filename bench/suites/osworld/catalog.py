"""An OSWorld task folder (`evaluation_examples`): its task list and task files.

`test_all.json` names task ids per domain; the folder is read as
`bench.formats.task_folder` reads both suites' folders. Beyond the shared
schema, OSWorld's evaluate() assumes that with a list of functions,
`result`, `expected` and `options` are lists of the same length (it asserts
so), and each file is checked for that here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from protocols import Task

from bench.formats import task_folder
from bench.formats.task_folder import TaskFolder, invalid

TASK_LIST = "test_all.json"


def _check(path: Path, data: dict[str, Any]) -> None:
    evaluator = data["evaluator"]
    func = evaluator["func"]
    if isinstance(func, list):
        for key in ("result", "expected", "options"):
            value = evaluator.get(key)
            if value is not None and not (isinstance(value, list) and len(value) == len(func)):
                raise invalid(path, f"evaluator.{key}", f"expected a list of {len(func)} entries, one per "
                                                             f"function, got {value!r}")


def _read_task(path: Path, domain: str) -> Task:
    return task_folder.read_task(path, domain, _check)


class Catalog(TaskFolder):
    @classmethod
    def load(cls, root: Path | str) -> Catalog:
        return cls.read(root, TASK_LIST, _read_task, "--osworld-tasks must point to OSWorld's evaluation_examples "
                                                    "folder (test_all.json, examples/)")
