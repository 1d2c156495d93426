"""Shortcuts on the VM's desktop, as OSWorld's `shortcuts_on_desktop` getter (getters/chrome.py) reads
them and its `is_shortcut_on_desktop` metric (metrics/chrome.py) judges them.

The getter lists the folder /desktop_path names (/list_directory), keeps
the names with the VM platform's shortcut extension (.desktop on Linux,
.lnk on Windows, .webloc on macOS; another platform gives []) and reads each
from `~/Desktop/<name>` (the path the VM's Python gives, as OSWorld asks
it) as UTF-8 text: `{name: text}`. A desktop it cannot list or a shortcut it
cannot read or decode raises in OSWorld's getter: `GetterFailed` here.

The metric, rule type "name" (or "exec"): 1 when a shortcut holds the line
`Name=<name>` (`Exec=<command>`), or one of its `Name=` (`Exec=`) lines
holds the wanted text or is held by it, case-insensitively for names (an
empty one is held by any); else 0. Other rule types raise, as OSWorld's do.
"""

from __future__ import annotations

from typing import Any

from bench.suites.osworld.chrome import python_output
from bench.suites.osworld.episode import Episode
from bench.suites.osworld.errors import GetterFailed, MetricFailed

EXTENSIONS = {"Windows": ".lnk", "Darwin": ".webloc", "Linux": ".desktop"}
PLATFORM = "import platform; print(platform.system())"
PATH_PROGRAM = "import os; print(os.path.join(os.path.expanduser('~'), 'Desktop', '{name}'))"
"""The program with which OSWorld's getter asks the VM where a shortcut is."""


async def _desktop_names(episode: Episode, extension: str) -> list[str]:
    response = await episode.client.post("/desktop_path", answer_server_errors=True)
    try:
        desktop = response.json()["desktop_path"] if response.status_code == 200 else None
    except (ValueError, KeyError, TypeError):
        desktop = None  # OSWorld's controller gives None, and lists that
    listing = await episode.client.post("/list_directory", json={"path": desktop}, answer_server_errors=True)
    try:
        children = listing.json()["directory_tree"]["children"] if listing.status_code == 200 else None
        return [child["name"] for child in children if child["name"].endswith(extension)]
    except (ValueError, KeyError, TypeError) as exc:
        raise GetterFailed(f"shortcuts_on_desktop: the desktop {desktop!r} could not be listed ({type(exc).__name__}: "
                           f"{exc}; OSWorld's getter raises here)") from None


async def shortcuts_on_desktop(episode: Episode, spec: dict[str, Any]) -> dict[str, str] | list:
    extension = EXTENSIONS.get((await python_output(episode, PLATFORM)).strip())
    if extension is None:
        return []
    shortcuts = {}
    for name in await _desktop_names(episode, extension):
        path = (await python_output(episode, PATH_PROGRAM.format(name=name))).strip()
        data = await episode.vm_file(path)
        try:
            shortcuts[name] = data.decode("utf-8")
        except (AttributeError, UnicodeDecodeError) as exc:
            raise GetterFailed(f"shortcuts_on_desktop: {name} on the desktop could not be read as text ({exc}; "
                               "OSWorld's getter raises here)") from None
    return shortcuts


def _matches(shortcuts: Any, field: str, wanted: str, fold: bool) -> bool:
    def same(text: str) -> str:
        return text.lower() if fold else text

    for content in shortcuts.values():
        if f"{field}={wanted}\n" in content:
            return True
        for line in content.split("\n"):
            if line.startswith(f"{field}="):
                found = line[len(field) + 1:]
                if found == wanted or same(wanted) in same(found) or same(found) in same(wanted):
                    return True
    return False


def is_shortcut_on_desktop(shortcuts: Any, rule: Any, **options: Any) -> float:
    len(shortcuts)  # OSWorld's counts them first, so None raises there
    kind = rule["type"]
    if kind == "name":
        return float(_matches(shortcuts, "Name", rule["name"], fold=True))
    if kind == "exec":
        return float(_matches(shortcuts, "Exec", rule["exec"], fold=False))
    raise MetricFailed(f"is_shortcut_on_desktop: rule type {kind!r} is not supported (OSWorld's raises here)")


SHORTCUT_GETTERS = {"shortcuts_on_desktop": shortcuts_on_desktop}
SHORTCUT_METRICS = {"is_shortcut_on_desktop": is_shortcut_on_desktop}
