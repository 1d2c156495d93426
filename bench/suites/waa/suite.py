"""Windows Agent Arena: the task files of a WAA checkout, run against WAA VM servers.

`--waa-tasks PATH` points to an `evaluation_examples_windows` folder (the
project ships no WAA data). Tasks are keyed `<domain>/<file stem>`; asking
for a bare id says that ids repeat and names the matching keys. VMs are
WAA servers (`--waa-url`): a Windows VM's own, or the Linux one in
actors/backends/waa/server for WAA-format tasks on an Xvfb desktop.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Annotated

import msgspec

from protocols import Task
from actors.errors import ConfigError

from bench.suites.waa.checker import WAAChecker
from bench.suites.waa.errors import FIXES
from bench.suites.waa.node import actors_for, waa_backend
from bench.config import RunConfig, option
from bench.suites.base import Suite, UnknownTask
from bench.suites.waa.catalog import DEFAULT_LIST, Catalog
from bench.suites.waa.coverage import report


class BareTaskId(UnknownTask):
    """A WAA id given without its domain: ids are not unique, so the key is the path."""

    def __init__(self, bare: str, matches: list[Task]) -> None:
        LookupError.__init__(
            self,
            f"waa tasks are keyed '<domain>/<file stem>' because ids repeat across files; "
            f"{bare!r} matches {', '.join(repr(t.task_id) for t in matches)}",
        )


class WAAOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    tasks: Annotated[str, option("waa: an evaluation_examples_windows folder (test_all.json, examples/); "
                                 "required")] | None = None
    task_list: Annotated[str, option("waa: the task list file inside the tasks folder", resumable=True)] = DEFAULT_LIST
    domain: Annotated[list[str], option("waa: run only these domains", resumable=True)] = []
    task: Annotated[list[str], option("waa: run only these tasks (DOMAIN/STEM)", resumable=True)] = []
    url: Annotated[str, option("waa: the WAA server (default: $TROUPE_WAA_URL, else http://127.0.0.1:5000)",
                               resumable=True)] | None = None
    token: Annotated[str, option("waa: token for the server (default: $TROUPE_WAA_TOKEN)", secret=True,
                                 resumable=True)] | None = None
    devtools: Annotated[str, option("waa: where the VM's browser answers DevTools, for the Chrome and Edge tasks "
                                    "(default: $TROUPE_WAA_DEVTOOLS, else port 9222 on the server's host)",
                                    resumable=True)] | None = None
    fix: Annotated[list[str], option("waa: score these inputs on which WAA's own metric raises instead of filing "
                                     f"an evaluation error, as WAA gives no score (one of: {', '.join(FIXES)})")] = []


class WAASuite(Suite):
    name = "waa"
    Options = WAAOptions
    flag_prefix = "waa-"
    default_agent = "sim"
    node_app = "bench.suites.waa.node:build"
    vm_cpus = 0.0  # the screen is a WAA server's, not this machine's
    vms_at_most = 1  # one --waa-url: one VM, one episode at a time

    def __init__(self, catalog: Catalog, *, url: str = "http://127.0.0.1:5000", token: str | None = None,
                 domains: list[str] | None = None, task_ids: list[str] | None = None,
                 fixes: list[str] | None = None, devtools: str | None = None) -> None:
        self.catalog = catalog
        self.fixes = fixes or []
        self.url = url
        self.token = token
        self.devtools = devtools
        self.domains = domains or []
        self.task_ids = task_ids or []

    @classmethod
    def from_config(cls, config: RunConfig) -> WAASuite:
        options: WAAOptions = config.options
        if options.tasks is None:
            raise ConfigError("--suite waa needs --waa-tasks PATH (from Python: tasks=PATH), "
                             "an evaluation_examples_windows folder")
        if not Path(options.tasks).is_dir():
            raise ConfigError(f"waa tasks folder {options.tasks}: no such folder (expected an "
                             "evaluation_examples_windows folder with test_all.json and examples/)")
        unknown = sorted(set(options.fix) - FIXES.keys())
        if unknown:
            raise ConfigError(f"waa fix {', '.join(unknown)}: unknown (known: {', '.join(FIXES)})")
        try:
            catalog = Catalog.load(Path(options.tasks), options.task_list)
        except FileNotFoundError as exc:
            raise ConfigError(str(exc)) from None
        return cls(catalog,
                   url=options.url or os.environ.get("TROUPE_WAA_URL") or "http://127.0.0.1:5000",
                   token=options.token or os.environ.get("TROUPE_WAA_TOKEN"),
                   domains=options.domain, task_ids=options.task, fixes=options.fix,
                   devtools=options.devtools or os.environ.get("TROUPE_WAA_DEVTOOLS"))

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

    def selection(self) -> list[Task]:
        if self.task_ids:
            return [self.load_task(task_id) for task_id in self.task_ids]
        return [t for t in self.catalog.tasks if not self.domains or t.domain in self.domains]

    def checker(self) -> WAAChecker:
        return WAAChecker(self.fixes)

    def vm_actors(self):
        return functools.partial(_build, self.url, self.token, self.devtools)

    def listing(self) -> str:
        lines = [report(self.catalog.tasks, f"WAA tasks in {self.catalog.root}: {len(self.catalog.tasks)} "
                                            f"in {len({t.domain for t in self.catalog.tasks})} domains")]
        lines += [f"unreadable: {problem}" for problem in self.catalog.problems.values()]
        return "\n".join(lines)


def _build(url: str, token: str | None, devtools: str | None) -> list:
    return actors_for(waa_backend(url, token=token, devtools=devtools))
