"""A WAA task folder (`evaluation_examples_windows`): its task list and task files.

The list (`test_all.json` by default) names task ids per domain; the folder
is read as `bench.formats.task_folder` reads both suites' folders, each
file by WAA's own checks (`taskfile`).
"""

from __future__ import annotations

from pathlib import Path

from protocols import Task

from bench.formats.task_folder import TaskFolder
from bench.suites.waa.taskfile import read_task

DEFAULT_LIST = "test_all.json"


class Catalog(TaskFolder):
    @classmethod
    def load(cls, root: Path | str, task_list: str = DEFAULT_LIST) -> Catalog:
        return cls.read(root, task_list, read_task, "--waa-tasks must point to an evaluation_examples_windows folder")

    def by_bare_id(self, bare: str) -> list[Task]:
        """Tasks whose file stem or inner `id` is `bare` (ids are not unique in WAA)."""
        return [t for t in self.tasks if t.task_id.split("/", 1)[1] == bare or t.raw_config.get("id") == bare]
