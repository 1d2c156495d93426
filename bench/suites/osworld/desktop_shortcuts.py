"""Shortcuts on the VM's desktop, read and judged as OSWorld's chrome.py reads and judges them.

`shortcuts_on_desktop` (getter) asks the VM its platform
(`platform.system()`), takes the shortcut extension OSWorld takes for it
(.lnk on Windows, .webloc on Darwin, .desktop on Linux; another platform
gives []), lists the desktop (/desktop_path, then /list_directory) and reads
each such file at `~/Desktop/<name>` (the path the VM's Python prints) as
UTF-8 text, keyed by file name. Where OSWorld's getter indexes or decodes
nothing (no desktop listing, a file /file does not give, text that is not
UTF-8) it raises: an evaluation error.

`is_shortcut_on_desktop` (metric): with rule type `name`, a shortcut holds
the line "Name=<name>", or a line starting "Name=" whose value equals the
name or, case-insensitively, contains it or is contained in it (an empty
"Name=" line is contained in every name); with `exec`, the same for "Exec="
lines, case-sensitively. 1.0 or 0.0; rule types `url`, `id` and others
raise, as OSWorld's do. WAA's metric of the same name matches only the exact
line (and reads .lnk descriptions): its suite keeps its own.
"""

from __future__ import annotations

from typing import Any

from bench.suites.osworld.chrome import python_output
from bench.suites.osworld.episode import Episode
from bench.suites.osworld.errors import GetterFailed, MetricFailed, raising_as_osworld

EXTENSIONS = {"Windows": ".lnk", "Darwin": ".webloc", "Linux": ".desktop"}


async def _desktop_names(episode: Episode, extension: str) -> list[str]:
    response = await episode.client.post("/desktop_path", answer_server_errors=True)
    desktop = response.json().get("desktop_path") if response.status_code == 200 else None
    listing = await episode.client.post("/list_directory", json={"path": desktop}, answer_server_errors=True)
    if listing.status_code != 200:
        raise GetterFailed(f"shortcuts_on_desktop: /list_directory {desktop!r} answered HTTP {listing.status_code} "
                           "(OSWorld's getter indexes None here)")
    return [child["name"] for child in listing.json()["directory_tree"]["children"]
            if child["name"].endswith(extension)]


async def _shortcuts_on_desktop(episode: Episode, spec: dict[str, Any]) -> dict[str, str] | list:
    extension = EXTENSIONS.get((await python_output(episode, "import platform; print(platform.system())")).strip())
    if extension is None:
        return []
    shortcuts = {}
    for name in await _desktop_names(episode, extension):
        path = (await python_output(
            episode, f"import os; print(os.path.join(os.path.expanduser('~'), 'Desktop', '{name}'))")).strip()
        data = await episode.vm_file(path)
        try:
            shortcuts[name] = data.decode("utf-8")
        except (AttributeError, UnicodeDecodeError) as exc:
            raise GetterFailed(f"shortcuts_on_desktop: {path} cannot be read as UTF-8 text ({type(exc).__name__}); "
                               "OSWorld's getter raises here") from None
    return shortcuts


def _value_matches(actual: str, wanted: str, fold: bool) -> bool:
    if fold:
        actual, wanted = actual.lower(), wanted.lower()
    return actual == wanted or wanted in actual or actual in wanted


def _has_line(shortcuts: Any, key: str, wanted: str, fold: bool) -> float:
    for content in shortcuts.values():
        if f"{key}={wanted}\n" in content:
            return 1.0
        if any(_value_matches(line[len(key) + 1:], wanted, fold)
               for line in content.split("\n") if line.startswith(f"{key}=")):
            return 1.0
    return 0.0


@raising_as_osworld
def is_shortcut_on_desktop(shortcuts: Any, rule: Any, **options: Any) -> float:
    kind = rule["type"]
    if kind == "name":
        return _has_line(shortcuts, "Name", rule["name"], fold=True)
    if kind == "exec":
        return _has_line(shortcuts, "Exec", rule["exec"], fold=False)
    raise MetricFailed(f"is_shortcut_on_desktop: rule type {kind!r} is not supported (OSWorld's raises TypeError)")


SHORTCUT_GETTERS = {"shortcuts_on_desktop": _shortcuts_on_desktop}
SHORTCUT_METRICS = {"is_shortcut_on_desktop": is_shortcut_on_desktop}
