"""OSWorld: the tasks of an OSWorld checkout, run against OSWorld VM servers.

`--osworld-tasks PATH` points to an `evaluation_examples` folder (the project
ships no OSWorld data); tasks are keyed `<domain>/<id>`. `--osworld-cache DIR`
is the cache folder OSWorld's harness fills (`<DIR>/<task id>/...`), so a
user reuses theirs. `--osworld-web` says the desktop (this machine's or the
VM) reaches the live web, so tasks that need it count as runnable. `--osworld-google DIR` names
OSWorld's `evaluation_examples/settings` folder, whose Google account the Drive tasks use
(google_account.py); the settings are read on each node, only their folder's name travels. VMs are OSWorld's own in-VM servers (`--osworld-url`), or
with none given a fresh desktop of troupe's Linux server per episode (local.py).
"""

from __future__ import annotations

import functools
import os
import shutil
from pathlib import Path
from typing import Annotated

import msgspec

from protocols import Task

from actors.errors import ConfigError

from bench.config import RunConfig, option
from bench.suites.base import Suite
from bench.suites.osworld.catalog import Catalog
from bench.suites.osworld.checker import OSWorldChecker
from bench.suites.osworld.coverage import report
from bench.suites.osworld.episode import DEFAULT_PASSWORD
from bench.suites.osworld.google_account import GoogleAccount, GoogleSettingsError
from bench.suites.osworld.node import LOCAL, actors_for, osworld_backend


class OSWorldOptions(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    tasks: Annotated[str, option("osworld: an evaluation_examples folder (test_all.json, examples/); required")
                     ] | None = None
    cache: Annotated[str, option("osworld: the cache folder OSWorld's harness fills (<DIR>/<task id>/...): the "
                                 "task files downloads and cloud_file getters read")] | None = None
    web: Annotated[bool, option("osworld: the desktop (this machine's, or the VM) reaches the live web, so tasks "
                                "that load web pages count as runnable")] = False
    google: Annotated[str, option("osworld: OSWorld's evaluation_examples/settings folder, whose Google account "
                                  "(googledrive/settings.yml and its credentials, google/settings.json) the "
                                  "Google Drive tasks use", resumable=True)] | None = None
    domain: Annotated[list[str], option("osworld: run only these domains", resumable=True)] = []
    task: Annotated[list[str], option("osworld: run only these tasks (DOMAIN/ID)", resumable=True)] = []
    url: Annotated[str, option("osworld: the OSWorld VM's server, or 'local' for a fresh desktop of troupe's Linux "
                               "server per episode, no VM (default: $TROUPE_OSWORLD_URL, else local)",
                               resumable=True)] | None = None
    password: Annotated[str, option("osworld: the VM user's password that {CLIENT_PASSWORD} stands for "
                                    "(default: $TROUPE_OSWORLD_PASSWORD, else OSWorld's 'password')",
                                    secret=True, resumable=True)] | None = None


class OSWorldSuite(Suite):
    name = "osworld"
    Options = OSWorldOptions
    flag_prefix = "osworld-"
    default_agent = "sim"
    node_app = "bench.suites.osworld.node:build"
    vm_cpus = 1.0  # a local desktop's applications; a VM's screen takes none here (set per instance)

    def __init__(self, catalog: Catalog, *, cache: Path | None = None, web: bool = False, url: str = LOCAL,
                 password: str = DEFAULT_PASSWORD, domains: list[str] | None = None,
                 task_ids: list[str] | None = None, google: Path | None = None) -> None:
        self.catalog = catalog
        self.cache = cache
        self.web = web
        self.url = url
        if url != LOCAL:  # one --osworld-url: one VM, one episode at a time
            self.vms_at_most, self.vm_cpus = 1, 0.0
        self.password = password
        self.domains = domains or []
        self.task_ids = task_ids or []
        self.google = google

    @classmethod
    def from_config(cls, config: RunConfig) -> OSWorldSuite:
        options: OSWorldOptions = config.options
        if options.tasks is None:
            raise ConfigError("--suite osworld needs --osworld-tasks PATH (from Python: tasks=PATH), "
                             "OSWorld's evaluation_examples folder")
        if not Path(options.tasks).is_dir():
            raise ConfigError(f"osworld tasks folder {options.tasks}: no such folder (expected OSWorld's "
                             "evaluation_examples folder with test_all.json and examples/)")
        if options.cache is not None and not Path(options.cache).is_dir():
            raise ConfigError(f"osworld cache folder {options.cache}: no such folder (expected the cache folder "
                             "OSWorld's harness fills, one folder per task id)")
        if options.google is not None:
            try:
                GoogleAccount.load(Path(options.google))
            except GoogleSettingsError as exc:
                raise ConfigError(f"--osworld-google: {exc}") from None
        try:
            catalog = Catalog.load(Path(options.tasks))
        except FileNotFoundError as exc:
            raise ConfigError(str(exc)) from None
        known = {task.domain for task in catalog.tasks}
        unknown = sorted(set(options.domain) - known)
        if unknown:
            raise ConfigError(f"osworld domain {', '.join(unknown)}: not in {catalog.root} "
                             f"(its domains: {', '.join(sorted(known))})")
        return cls(catalog, cache=Path(options.cache) if options.cache else None, web=options.web,
                   url=options.url or os.environ.get("TROUPE_OSWORLD_URL") or LOCAL,
                   password=options.password or os.environ.get("TROUPE_OSWORLD_PASSWORD") or DEFAULT_PASSWORD,
                   domains=options.domain, task_ids=options.task,
                   google=Path(options.google) if options.google else None)

    def list_tasks(self, domain: str | None = None) -> list[Task]:
        return [t for t in self.catalog.tasks if domain is None or t.domain == domain]

    def load_task(self, task_id: str) -> Task:
        problem = self.catalog.problem_for(task_id)
        if problem is not None:
            raise problem
        return super().load_task(task_id)

    def selection(self) -> list[Task]:
        if self.task_ids:
            return [self.load_task(task_id) for task_id in self.task_ids]
        return [t for t in self.catalog.tasks if not self.domains or t.domain in self.domains]

    def checker(self) -> OSWorldChecker:
        return OSWorldChecker()

    def vm_actors(self):
        return functools.partial(_build, self.url, self.cache, self.password, self.google)

    def listing(self) -> str:
        tasks = self.selection() if self.domains else self.catalog.tasks
        where = f"cache {self.cache}" if self.cache else "no cache folder (--osworld-cache)"
        local = self.url == LOCAL  # with no VM the applications are this machine's, so the listing asks for them
        apps = "this machine's applications (no VM)" if local else f"the applications of the VM at {self.url}"
        web = "the live web (--osworld-web)" if self.web else "no live web (--osworld-web)"
        google = f"the Google account of {self.google}" if self.google else "no Google account (--osworld-google)"
        lines = [report(tasks, self.cache, f"OSWorld tasks in {self.catalog.root}: {len(tasks)} in "
                                           f"{len({t.domain for t in tasks})} domains; {where}; {apps}; {web}; {google}",
                        (lambda program: shutil.which(program) is not None) if local else None, self.web, not local,
                        self.google is not None)]
        lines += [f"unreadable: {problem}" for problem in self.catalog.problems.values()]
        return "\n".join(lines)


def _build(url: str, cache: Path | None, password: str, google: Path | None) -> list:
    return actors_for(osworld_backend(url, cache=cache, password=password, google=google))
