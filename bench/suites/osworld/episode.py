"""What OSWorld's steps and getters share within one episode: its `DesktopEnv`, as troupe holds it.

OSWorld's getters take the env (its controller, VM address, cache folder); troupe's
take an `Episode`: the server's client, the task's folder in the user's cache, what
`command` steps saved with `stdout`/`stderr` (OSWorld writes those into the cache
folder, where `cache_file` getters read them), the screen size and the VM user's
password that placeholders name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from actors.backends.waa.client import WAAClient

DEFAULT_PASSWORD = "password"
"""OSWorld's client password for its own VM images (AWS ones use another; --osworld-password)."""


@dataclass
class Episode:
    client: WAAClient
    cache: Path | None
    """The task's folder in the user's cache (`<cache>/<task id>`), or None without a cache."""
    password: str = DEFAULT_PASSWORD
    screen: tuple[int, int] = (1920, 1080)
    saved: dict[str, bytes] = field(default_factory=dict)
    """Outputs `command` steps saved by name (`stdout`: "grep.out")."""

    def cached(self, name: str) -> bytes | None:
        """A file of the task's cache folder: one a step saved this episode, else the user's."""
        if name in self.saved:
            return self.saved[name]
        if self.cache is not None and (self.cache / name).is_file():
            return (self.cache / name).read_bytes()
        return None
