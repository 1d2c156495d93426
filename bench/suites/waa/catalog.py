"""A WAA task folder (`evaluation_examples_windows`): its task list and task files.

The list (`test_all.json` by default) names task ids per domain; each lives
in `examples/<domain>/<id>.json`. A file that cannot be read or breaks the
schema is kept as a `ConfigError` in `problems`, by path, and the others load, so
one bad file never hides a whole benchmark.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from protocols import Task

from actors.errors import ConfigError
from bench.suites.waa.taskfile import invalid, read_json, read_task

DEFAULT_LIST = "test_all.json"


@dataclass
class Catalog:
    root: Path
    tasks: list[Task] = field(default_factory=list)
    problems: dict[Path, ConfigError] = field(default_factory=dict)

    @classmethod
    def load(cls, root: Path | str, task_list: str = DEFAULT_LIST) -> Catalog:
        root = Path(root)
        listing = root / task_list
        try:
            domains = read_json(listing)
        except FileNotFoundError:
            raise FileNotFoundError(
                f"{listing} does not exist: --waa-tasks must point to an evaluation_examples_windows folder"
            ) from None
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
        """The error of the file behind `<domain>/<stem>`, if that file is broken."""
        domain, _, stem = task_id.partition("/")
        wanted = self.root / "examples" / domain / f"{stem}.json"
        return self.problems.get(wanted)

    def by_bare_id(self, bare: str) -> list[Task]:
        """Tasks whose file stem or inner `id` is `bare` (ids are not unique in WAA)."""
        return [t for t in self.tasks if t.task_id.split("/", 1)[1] == bare or t.raw_config.get("id") == bare]
