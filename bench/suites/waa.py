"""Windows Agent Arena: the task files of a WAA checkout, run against WAA VM servers.

`--waa-tasks PATH` points to an `evaluation_examples_windows` folder (the
project ships no WAA data). Tasks are keyed `<domain>/<file stem>`; asking
for a bare id says that ids repeat and names the matching keys. VMs are
WAA servers (`--waa-url`): a Windows VM's own, or the Linux one in
actors/waa/server for WAA-format tasks on an Xvfb desktop.
"""

from __future__ import annotations

import argparse
import functools
import os
from pathlib import Path

from protocols import Task

from actors.waa.backend import WAABackend
from actors.waa.checker import WAAChecker
from actors.waa.node import actors_for
from bench.suites.base import Suite, UnknownTask
from bench.waa.catalog import DEFAULT_LIST, Catalog
from bench.waa.coverage import report


class BareTaskId(UnknownTask):
    """A WAA id given without its domain: ids are not unique, so the key is the path."""

    def __init__(self, bare: str, matches: list[Task]) -> None:
        LookupError.__init__(
            self,
            f"waa tasks are keyed '<domain>/<file stem>' because ids repeat across files; "
            f"{bare!r} matches {', '.join(repr(t.task_id) for t in matches)}",
        )


class WAASuite(Suite):
    name = "waa"
    default_agent = "sim"
    node_app = "actors.waa.node:build"

    def __init__(self, catalog: Catalog, *, url: str = "http://127.0.0.1:5000", token: str | None = None,
                 domains: list[str] | None = None, task_ids: list[str] | None = None) -> None:
        self.catalog = catalog
        self.url = url
        self.token = token
        self.domains = domains or []
        self.task_ids = task_ids or []

    @classmethod
    def add_arguments(cls, group: argparse._ArgumentGroup) -> None:
        group.add_argument("--waa-tasks", type=Path, default=None, metavar="PATH",
                           help="waa: an evaluation_examples_windows folder (test_all.json, examples/)")
        group.add_argument("--waa-list", default=DEFAULT_LIST, help="waa: the task list file inside --waa-tasks")
        group.add_argument("--waa-domain", action="append", default=[], help="waa: run only this domain (repeatable)")
        group.add_argument("--waa-task", action="append", default=[], metavar="DOMAIN/STEM",
                           help="waa: run only this task (repeatable)")
        group.add_argument("--waa-url", default=os.environ.get("TROUPE_WAA_URL", "http://127.0.0.1:5000"),
                           help="waa: the WAA server (default: $TROUPE_WAA_URL)")
        group.add_argument("--waa-token", default=os.environ.get("TROUPE_WAA_TOKEN"),
                           help="waa: token for the server (default: $TROUPE_WAA_TOKEN)")

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> WAASuite:
        if args.waa_tasks is None:
            raise SystemExit("--suite waa needs --waa-tasks PATH (an evaluation_examples_windows folder)")
        return cls(Catalog.load(args.waa_tasks, args.waa_list), url=args.waa_url, token=args.waa_token,
                   domains=args.waa_domain, task_ids=args.waa_task)

    def list_tasks(self, domain: str | None = None) -> list[Task]:
        return [t for t in self.catalog.tasks if domain is None or t.domain == domain]

    def load_task(self, task_id: str) -> Task:
        problem = self.catalog.problem_for(task_id)
        if problem is not None:
            raise problem
        if "/" not in task_id:
            matches = self.catalog.by_bare_id(task_id)
            if matches:
                raise BareTaskId(task_id, matches)
        return super().load_task(task_id)

    def selection(self, args: argparse.Namespace) -> list[Task]:
        if self.task_ids:
            return [self.load_task(task_id) for task_id in self.task_ids]
        return [t for t in self.catalog.tasks if not self.domains or t.domain in self.domains]

    def checker(self) -> WAAChecker:
        return WAAChecker()

    def vm_actors(self):
        return functools.partial(_build, self.url, self.token)

    def listing(self) -> str:
        lines = [report(self.catalog.tasks, f"WAA tasks in {self.catalog.root}: {len(self.catalog.tasks)} "
                                            f"in {len({t.domain for t in self.catalog.tasks})} domains")]
        lines += [f"unreadable: {problem}" for problem in self.catalog.problems]
        return "\n".join(lines)


def _build(url: str, token: str | None) -> list:
    return actors_for(WAABackend(url, token=token))
