"""Chrome's extensions in OSWorld's tasks: `find_unpacked_extension_path`, as OSWorld's getters/chrome.py
reads them.

OSWorld's getter reads the profile's Preferences (found as chrome.py's
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
from typing import Any

from bench.suites.osworld.chrome import profile_path
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


def extension_paths(content: bytes | None) -> list[Any] | str:
    """Every `extensions.settings` entry's path in a Preferences file, or "Google" as OSWorld's getter."""
    try:
        settings = json.loads(content).get("extensions", {}).get("settings", {})
        return [settings[extension_id]["path"] for extension_id in settings.keys()]
    except Exception:  # noqa: BLE001 - OSWorld's getter catches everything and returns its fallback
        return FALLBACK


async def find_unpacked_extension_path(episode: Episode, spec: dict[str, Any]) -> list[Any] | str:
    path = await profile_path(episode, "Preferences")
    paths = extension_paths(await episode.vm_file(path))
    if isinstance(paths, str):
        return paths
    home = path.removesuffix(LINUX_PREFERENCES) if path.endswith(LINUX_PREFERENCES) else ""
    return [as_task_path(found, home) for found in paths]


EXTENSION_GETTERS = {"find_unpacked_extension_path": find_unpacked_extension_path}
