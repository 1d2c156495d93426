"""What an OSWorld task needs from outside this machine, read from its JSON.

- files of OSWorld's task-file cache: each `download` step's file is kept by
  OSWorld's harness as `<cache>/<task id>/<uuid5(URL)>_<basename(VM path)>`
  and each `cloud_file` getter's as `<cache>/<task id>/<dest>`; troupe reads
  a user's cache folder in that same layout (`cache_name`); a run fetches a
  file the folder lacks from its URL and keeps it there, as OSWorld's
  harness does, so the listing names it as lacking (fetching it takes the
  internet);
- the live web: a step or getter that names a page (an address other than
  127.0.0.1 or localhost; the URLs `update_browse_history` writes into a
  History file are data, not pages), a step or getter that loads one
  (`login` opens Google Drive's), or an instruction that names one or asks to install software (which comes from
  the internet);
- a Google account (the `googledrive` and `login` steps, `googledrive_file`)
  until the user names one (--osworld-google);
- with no VM, a GNOME session or systemd state (`gsettings`, `timedatectl`,
  `pactl`) and VS Code (not packaged by Debian); an OSWorld VM has both;
- with no VM, an application this machine has not installed: the task's
  domain and `related_apps`, by the program Debian's package puts on the
  PATH (`APPS`; asked only when the caller says what is installed), and a
  tool the task's commands run (`TOOLS`: xsel, which reads the clipboard).
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Iterator

from protocols import Task

_URL = re.compile(r"https?://([^/\s'\":]+)")
_LOCAL_HOSTS = ("localhost", "127.0.0.1")
_PAGE_GETTERS = frozenset({"active_tab_html_parse", "info_from_website", "pdf_from_url", "page_info",
                           "gotoRecreationPage_and_get_html_content", "number_of_search_results"})
"""Getters that load a web page themselves."""
_PAGE_STEPS = frozenset({"login"})
"""Steps that load a web page their parameters do not name (`login` opens Google Drive's)."""
_DATA_STEPS = frozenset({"download", "update_browse_history", "execute", "command"})
"""Steps whose URLs are not pages a browser shows: the cache's files, History rows, commands' data."""
_GOOGLE_STEPS = frozenset({"googledrive", "login"})
_GOOGLE_GETTERS = frozenset({"googledrive_file"})
_GNOME = re.compile(r"\b(gsettings|timedatectl|pactl)\b")
_INSTALL = re.compile(r"\binstall", re.IGNORECASE)
_VSCODE_APPS = frozenset({"vs_code", "vscode"})
APPS: dict[str, tuple[str, str]] = {
    "chrome": ("chromium", "chromium"), "browser": ("chromium", "chromium"),
    "libreoffice_calc": ("localc", "libreoffice-calc"), "calc": ("localc", "libreoffice-calc"),
    "libreoffice_writer": ("lowriter", "libreoffice-writer"), "writer": ("lowriter", "libreoffice-writer"),
    "libreoffice_impress": ("loimpress", "libreoffice-impress"), "libreoffice": ("soffice", "libreoffice-core"),
    "gimp": ("gimp", "gimp"), "vlc": ("vlc", "vlc"), "ubuntu_media_player": ("vlc", "vlc"),
    "thunderbird": ("thunderbird", "thunderbird"), "picard": ("picard", "picard"),
}
"""An OSWorld application name (a domain or a `related_apps` entry, lowercased, spaces as _) -> the
program that stands for it on this machine and the Debian package that installs it."""
TOOLS: dict[str, str] = {"xsel": "xsel"}
"""A program a task's steps or getters run (its VM has it; its setup "installs" it) -> its Debian package."""


def cache_name(url: str, vm_path: str) -> str:
    """The name OSWorld's SetupController gives a downloaded file in the task's cache folder."""
    return f"{uuid.uuid5(uuid.NAMESPACE_URL, url)}_{PurePosixPath(vm_path).name}"


def steps(task: Task) -> list[dict[str, Any]]:
    return [*task.raw_config.get("config", []), *task.evaluation_spec.get("postconfig", [])]


def getter_specs(task: Task) -> list[dict[str, Any]]:
    """The task's non-empty `result` and `expected` specs."""
    found = []
    for key in ("result", "expected"):
        value = task.evaluation_spec.get(key)
        found += [spec for spec in (value if isinstance(value, list) else [value]) if isinstance(spec, dict) and spec]
    return found


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def cache_files(task: Task) -> list[str]:
    """The names under `<cache>/<task id>/` the task's downloads and `cloud_file` getters read."""
    names = [cache_name(file["url"], file["path"]) for step in steps(task) if step["type"] == "download"
             for file in step.get("parameters", {}).get("files", [])]
    names += [str(dest) for spec in getter_specs(task) if spec["type"] == "cloud_file"
              for dest in _listed(spec.get("dest"))]
    return list(dict.fromkeys(names))


def _names_a_page(value: Any) -> bool:
    return any(not host.startswith(_LOCAL_HOSTS) for text in _strings(value) for host in _URL.findall(text))


def needs_web(task: Task) -> bool:
    return (any(step["type"] in _PAGE_STEPS
                or (step["type"] not in _DATA_STEPS and _names_a_page(step.get("parameters"))) for step in steps(task))
            or any(spec["type"] in _PAGE_GETTERS or (spec["type"] != "cloud_file" and _names_a_page(spec))
                   for spec in getter_specs(task))
            or _names_a_page(task.instruction) or bool(_INSTALL.search(task.instruction)))


def needs_google(task: Task) -> bool:
    return (any(step["type"] in _GOOGLE_STEPS for step in steps(task))
            or any(spec["type"] in _GOOGLE_GETTERS for spec in getter_specs(task)))


def needs_gnome(task: Task) -> bool:
    return any(_GNOME.search(text) for text in _strings([steps(task), getter_specs(task)]))


def needs_vscode(task: Task) -> bool:
    return task.domain == "vs_code" or bool(_VSCODE_APPS & set(task.raw_config.get("related_apps", [])))


def needs_apps(task: Task, installed: Callable[[str], bool]) -> tuple[str, ...]:
    """The Debian packages of the task's applications whose program `installed` says is not here."""
    names = [task.domain, *(str(app).lower().replace(" ", "_") for app in task.raw_config.get("related_apps", []))]
    wanted = [APPS[name] for name in names if name in APPS]
    commands = " ".join(_strings([steps(task), getter_specs(task)]))
    wanted += [(tool, package) for tool, package in TOOLS.items() if re.search(rf"\b{tool}\b", commands)]
    return tuple(dict.fromkeys(package for program, package in wanted if not installed(program)))


@dataclass(frozen=True)
class Outside:
    """What a task needs that this machine does not give it; empty when it needs nothing."""

    cache_files: tuple[str, ...] = ()
    web: bool = False
    google: bool = False
    gnome: bool = False
    vscode: bool = False
    apps: tuple[str, ...] = ()
    """Debian packages of applications the task drives that this machine has not installed."""

    def __bool__(self) -> bool:
        return bool(self.cache_files or self.web or self.google or self.gnome or self.vscode or self.apps)

    def _wants(self) -> list[tuple[str, bool]]:
        return [("the live web", self.web), ("a Google account (--osworld-google)", self.google),
                ("a GNOME session", self.gnome), ("VS Code", self.vscode)]

    def kinds(self) -> list[str]:
        """What it needs, without particulars (the cache as one need)."""
        return (["cache files"] * bool(self.cache_files) + [label for label, needed in self._wants() if needed]
                + [f"{package} (not installed)" for package in self.apps])

    def reasons(self) -> list[str]:
        named = [label for label, needed in self._wants() if needed]
        if self.cache_files:
            named.insert(0, f"{len(self.cache_files)} cache file(s) ({', '.join(self.cache_files[:3])}"
                            f"{', ...' if len(self.cache_files) > 3 else ''})")
        if self.apps:
            named.append(f"applications not installed here (Debian packages: {', '.join(self.apps)})")
        return named


def outside(task: Task, cache: Path | None, installed: Callable[[str], bool] | None = None,
            web: bool = False, on_vm: bool = False, google: bool = False) -> Outside:
    """What `task` lacks here, given the user's cache folder (None: no cache), where the task runs on
    this machine's desktop which programs are `installed` (None: applications are not asked about),
    whether the desktop reaches the live `web` (the user says so: --osworld-web), and whether it runs
    `on_vm`, an OSWorld VM, which has its own GNOME session and VS Code, and whether the user gave a
    `google` account (--osworld-google)."""
    folder = None if cache is None else cache / task.task_id.split("/", 1)[1]
    absent = tuple(name for name in cache_files(task) if folder is None or not (folder / name).is_file())
    return Outside(cache_files=absent, web=not web and needs_web(task), google=not google and needs_google(task),
                   gnome=not on_vm and needs_gnome(task), vscode=not on_vm and needs_vscode(task), apps=() if installed is None else needs_apps(task, installed))
