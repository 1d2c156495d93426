"""OSWorld's steps around an episode, and the VM actors that run them.

At reset the task's `config` steps run (OSWorld's SetupController); at
evaluation, once the settings applications have yet to write are written
(`settled`: what was waited for, settling.py, where OSWorld sleeps 20 s), its
`postconfig` steps run, then the getters read the `result`
and `expected` values the checker compares. What the checker needs to apply
evaluate()'s rules is kept apart: a getter that found no file (`absent`), one
that could not read (`errors`), a postconfig step OSWorld raises on
(`postconfig_failed`), and the steps the server refused (`setup_errors`); and
the files the episode left in the task's cache folder (`cache`, cached_file.py).

`python -m runtime.node --app bench.suites.osworld.node:build` reads the
server's address from $TROUPE_OSWORLD_URL ("local": a fresh local desktop
per episode, local.py), the cache folder from $TROUPE_OSWORLD_CACHE, the
VM user's password from $TROUPE_OSWORLD_PASSWORD and OSWorld's settings folder
with the Google account (google_account.py) from $TROUPE_OSWORLD_GOOGLE.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from protocols import Task

from actors.backends.waa import node
from actors.backends.waa.backend import WAABackend
from actors.backends.waa.client import CommandRefused, WAAClient
from bench.suites.osworld.episode import DEFAULT_PASSWORD, Episode
from bench.suites.osworld.errors import GetterFailed, NoFile, SetupFailed
from bench.suites.osworld.google_account import GoogleAccount
from bench.suites.osworld.google_drive import GoogleDrive
from bench.suites.osworld.getters import resolve
from bench.suites.osworld.vm_image import furnish
from bench.suites.osworld.local import LocalDesktops
from bench.suites.osworld.settling import settle
from bench.suites.osworld.setup import run_steps

PROBE = "/platform"
"""OSWorld's server has no /probe; its controller waits for any answer, and /platform always gives one."""


class OSWorldTaskSteps:
    """One VM's task steps; the episode (its cache folder, saved outputs, setup problems) lives from
    `prepare` to `inspect`. `fresh_homes`: each episode's home is new, and gets what OSWorld's image
    holds there (vm_image.py) before the task's setup."""

    def __init__(self, cache: Path | None = None, password: str = DEFAULT_PASSWORD, *,
                 fresh_homes: bool = False, drive: GoogleDrive | None = None) -> None:
        self.cache = cache
        self.password = password
        self.drive = drive
        self.fresh_homes = fresh_homes
        self.episode: Episode | None = None
        self._setup_errors: list[str] = []

    async def _screen(self, client: WAAClient) -> tuple[int, int]:
        response = await client.post("/screen_size", answer_server_errors=True)
        if response.status_code != 200:
            raise SetupFailed(f"/screen_size answered HTTP {response.status_code}: {response.text[:200]}")
        size = response.json()
        return int(size["width"]), int(size["height"])

    async def prepare(self, client: WAAClient, task: Task) -> None:
        folder = None if self.cache is None else self.cache / task.task_id.split("/", 1)[1]
        self.episode = Episode(client, folder, self.password, await self._screen(client), drive=self.drive)
        if self.fresh_homes:
            await furnish(self.episode)
        self._setup_errors = await run_steps(self.episode, task.raw_config.get("config", []), phase="config")

    async def inspect(self, client: WAAClient, spec: dict[str, Any]) -> dict[str, Any]:
        episode = self.episode or Episode(client, None, self.password, drive=self.drive)
        state: dict[str, Any] = {"result": [], "expected": [], "absent": [], "errors": [],
                                 "setup_errors": list(self._setup_errors)}
        state["settled"] = await settle(episode, spec)
        try:
            state["setup_errors"] += await run_steps(episode, spec.get("postconfig", []), phase="postconfig")
        except SetupFailed as exc:
            state["postconfig_failed"] = str(exc)
            return state
        for key in ("result", "expected"):
            value = spec.get(key)
            for index, item in enumerate(value if isinstance(value, list) else [value] if value else []):
                state[key].append(await self._read(episode, item, f"{key}[{index}]", state))
        state["cache"] = dict(episode.saved)
        return state

    @staticmethod
    async def _read(episode: Episode, item: Any, where: str, state: dict[str, Any]) -> Any:
        if not item:
            return None
        try:
            return await resolve(episode, item)
        except NoFile:
            state["absent"].append(where)
        except (GetterFailed, CommandRefused) as exc:
            state["errors"].append(f"{where}: {exc}")
        return None


LOCAL = "local"
"""The server address that asks for a fresh local desktop per episode instead of a VM."""


def osworld_backend(url: str, *, cache: Path | None = None, password: str = DEFAULT_PASSWORD,
                    google: Path | None = None, **options: Any) -> WAABackend:
    """A backend for the OSWorld server at `url` (or `LOCAL`) that runs OSWorld's task steps, with the
    Google account of OSWorld's settings folder `google` when given."""
    drive = None if google is None else GoogleDrive(GoogleAccount.load(google))
    steps = OSWorldTaskSteps(cache, password, fresh_homes=url == LOCAL, drive=drive)
    if url == LOCAL:
        return LocalDesktops(steps=steps, probe_path=PROBE, **options)
    return WAABackend(url, steps=steps, probe_path=PROBE, **options)


actors_for = node.actors_for


def build() -> list:
    try:
        url = os.environ["TROUPE_OSWORLD_URL"]
    except KeyError:
        raise RuntimeError("set TROUPE_OSWORLD_URL to the OSWorld server (http://HOST:5000)") from None
    cache = os.environ.get("TROUPE_OSWORLD_CACHE")
    google = os.environ.get("TROUPE_OSWORLD_GOOGLE")
    return actors_for(osworld_backend(url, cache=Path(cache) if cache else None,
                                      password=os.environ.get("TROUPE_OSWORLD_PASSWORD") or DEFAULT_PASSWORD,
                                      google=Path(google) if google else None))
