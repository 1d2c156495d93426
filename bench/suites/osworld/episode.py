"""What OSWorld's steps and getters share within one episode: its `DesktopEnv`, as troupe holds it.

OSWorld's getters take the env (its controller, VM address, cache folder); troupe's
take an `Episode`: the server's client, the task's folder in the user's cache, what
`command` steps saved with `stdout`/`stderr` (OSWorld writes those into the cache
folder, where `cache_file` getters read them), the screen size and the VM user's
password that placeholders name, and the VM user's home (command getters name it
/home/user, as the tasks do).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

import anyio

from actors.backends.waa.client import WAAClient
from bench.formats.task_downloads import DownloadFailed, fetch
from bench.suites.osworld.errors import SetupFailed
from bench.suites.osworld.google_drive import GoogleDrive

HOME = "/home/user"
"""The VM user's home as OSWorld's tasks name it."""
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
    """What this episode wrote into the task's cache folder, by name: outputs `command` steps saved
    (`stdout`: "grep.out"), and the files getters fetched and did not hand to a metric."""
    home: str | None = None
    """The VM user's home as the VM names it, once asked (`named_as_tasks_name_it`)."""
    drive: GoogleDrive | None = None
    """The Google account's Drive (--osworld-google), None without one."""

    def cached(self, name: str) -> bytes | None:
        """A file of the task's cache folder: one a step saved this episode, else the user's."""
        if name in self.saved:
            return self.saved[name]
        if self.cache is not None and (self.cache / name).is_file():
            return (self.cache / name).read_bytes()
        return None

    async def cached_or_fetched(self, url: str, name: str) -> bytes:
        """The cache folder's `name`, else `url`'s bytes, then kept there as OSWorld's harness keeps them."""
        cached = self.cached(name)
        if cached is not None:
            return cached
        try:
            data = await fetch(url, timeout=300.0)
        except DownloadFailed as exc:
            where = f"in {self.cache}" if self.cache is not None else "(no --osworld-cache given)"
            raise SetupFailed(f"{name} is not {where} and {url} could not be fetched {exc}") from None
        if self.cache is not None:
            await anyio.Path(self.cache).mkdir(parents=True, exist_ok=True)
            await anyio.Path(self.cache / name).write_bytes(data)
        return data

    async def named_as_tasks_name_it(self, text: str) -> str:
        """What a command printed, with the VM user's home named as the tasks name it: on troupe's
        local desktops the session's home stands for /home/user, so a path the agent copied from its
        terminal or file manager reads as it would on OSWorld's VM (where this changes nothing)."""
        if self.home is None:
            response = await self.client.post("/execute", json={"command": "echo ~", "shell": True},
                                              answer_server_errors=True)
            try:
                answer = response.json() if response.status_code == 200 else {}
            except ValueError:
                answer = {}
            self.home = str(answer.get("output") or "").strip() if isinstance(answer, dict) else ""
        if self.home in ("", "/", HOME):
            return text
        return re.sub(re.escape(self.home) + r"(?=/|\b|$)", HOME, text)

    async def vm_file(self, path: str) -> bytes | None:
        """A file's bytes through /file; None when the server gives none (OSWorld's get_file)."""
        response = await self.client.post("/file", data={"file_path": path}, answer_server_errors=True)
        return response.content if response.status_code == 200 else None

    async def upload(self, path: str, data: bytes) -> None:
        """`data` to `path` on the VM through /setup/upload; SetupFailed when refused, as OSWorld raises."""
        response = await self.client.post("/setup/upload", data={"file_path": path},
                                          files={"file_data": (PurePosixPath(path).name, data)},
                                          answer_server_errors=True)
        if response.status_code != 200:
            raise SetupFailed(f"upload of {path}: HTTP {response.status_code}: {response.text[:300]}")
