"""Chrome's extensions in OSWorld's tasks: `find_unpacked_extension_path` and
`find_installed_extension_name`, as OSWorld's getters/chrome.py reads them, and the metric
`is_expected_installed_extensions`.

`find_installed_extension_name` gives every `extensions.settings` entry's
`manifest.name` (a Web Store extension's may be a `__MSG_...__` key, as
Chrome records it), or "Google" when anything is amiss; the metric scores 1
when every expected name is among them, "Zoom Chrome Extension" and "Zoom
for Google Chrome" taken as one (OSWorld's aliases), and 0 for nothing read.

`find_unpacked_extension_path` reads the profile's Preferences (found as chrome.py's
getters find it) and returns the `path` of every entry of
`extensions.settings`: an unpacked extension's folder (absolute), a packed
one's folder under the profile's Extensions (relative), a component's under
the browser's own resources. Anything amiss (no file, not JSON, an entry
without a path) gives its fallback, the string "Google", in which the
task's `is_in_list` then looks for the expected folder as a substring.

Chrome records an unpacked extension's folder with symlinks resolved, so
on troupe's local desktop, whose home stands for OSWorld's /home/user at
another place, a folder in the home is recorded under that place. Paths
under the VM user's home (where its Preferences are) are given as under
/home/user, the home OSWorld's tasks name; on OSWorld's VMs, whose user's
home is /home/user, that changes nothing.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from bench.suites.osworld.chrome import profile_file, profile_path
from bench.suites.osworld.episode import Episode

TASK_HOME = "/home/user"
"""The VM user's home as OSWorld's tasks name it."""
LINUX_PREFERENCES = "/.config/google-chrome/Default/Preferences"
"""Where Preferences lie under the home on Linux, as OSWorld's getters ask for it."""
FALLBACK = "Google"
"""What OSWorld's getter returns when it cannot read the paths."""


def as_task_path(path: Any, home: str) -> Any:
    """`path` with the VM user's `home` named as OSWorld's tasks name it."""
    if not isinstance(path, str) or not home or home == TASK_HOME:
        return path
    if path == home or path.startswith(home + "/"):
        return TASK_HOME + path[len(home):]
    return path


def _each_extension(content: bytes | None, read: Callable[[dict[str, Any]], Any]) -> list[Any] | str:
    """`read` of every `extensions.settings` entry in a Preferences file, or "Google" as OSWorld's getters
    give when anything fails."""
    try:
        settings = json.loads(content).get("extensions", {}).get("settings", {})
        return [read(settings[extension_id]) for extension_id in settings.keys()]
    except Exception:  # noqa: BLE001 - OSWorld's getters catch everything and return their fallback
        return FALLBACK


def extension_paths(content: bytes | None) -> list[Any] | str:
    """Every extension's `path` in a Preferences file."""
    return _each_extension(content, lambda entry: entry["path"])


def extension_names(content: bytes | None) -> list[Any] | str:
    """Every extension's manifest `name` in a Preferences file."""
    return _each_extension(content, lambda entry: entry["manifest"]["name"])


async def find_unpacked_extension_path(episode: Episode, spec: dict[str, Any]) -> list[Any] | str:
    path = await profile_path(episode, "Preferences")
    paths = extension_paths(await episode.vm_file(path))
    if isinstance(paths, str):
        return paths
    home = path.removesuffix(LINUX_PREFERENCES) if path.endswith(LINUX_PREFERENCES) else ""
    return [as_task_path(found, home) for found in paths]


async def find_installed_extension_name(episode: Episode, spec: dict[str, Any]) -> list[Any] | str:
    return extension_names(await profile_file(episode, "Preferences"))


ALIASES = ({"Zoom Chrome Extension", "Zoom for Google Chrome"},)
"""Names OSWorld's metric takes for one extension (the Chrome Web Store renamed it)."""


def _canonical(name: Any) -> Any:
    return next((sorted(group)[0] for group in ALIASES if name in group), name)


def is_expected_installed_extensions(installed: Any, expected: Any, **options: Any) -> float:
    """Every expected extension's name (aliases as one) is among the installed ones; nothing read scores 0."""
    if not installed:
        return 0.0
    return float({_canonical(name) for name in expected["expected"]} <= {_canonical(name) for name in installed})


EXTENSION_GETTERS = {"find_unpacked_extension_path": find_unpacked_extension_path,
                     "find_installed_extension_name": find_installed_extension_name}
EXTENSION_METRICS = {"is_expected_installed_extensions": is_expected_installed_extensions}
