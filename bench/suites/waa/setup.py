"""A task's `config` steps (before the agent) and `postconfig` steps (before
evaluation), each through the WAA server endpoint that does it, with WAA's
client's semantics.

WAA's client logs a step the server refuses and carries on, so a refused
step (a 4xx answer, a command that failed, a 5xx answer that outlived the
client's retries) is a `StepFailed` that `run_steps` records and goes past:
a postconfig `activate_window` on a window the agent closed costs nothing
but that window, and the metric still judges the files. A VM that cannot be
reached is `WAAUnavailable`, which is not caught here: that alone is an
environment failure.

Downloads are WAA's too: the host fetches each file (once per run, in a
`DownloadCache`) and uploads it with a multipart /setup/upload, so a VM
without internet can still be set up. A file that cannot be downloaded
after three tries stops the setup (`SetupFailed`), as it stops WAA's.

The Chrome and Edge steps (tabs over DevTools, the History database) are in
browser/, with WAA's semantics there.

`STEPS` is the set of step types this project can run; the suite's listing
reads it to say which tasks can be set up and which step types are missing.
A step whose type is not in it, or that misses a parameter, fails the reset
with a clear error (WAA's client raises there too) instead of being skipped.
"""

from __future__ import annotations

import tempfile
import uuid
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any, Awaitable, Callable

import anyio

from actors.backends.waa.client import CommandRefused, WAAClient
from bench.formats.task_downloads import DownloadFailed, fetch
from bench.suites.waa.browser import BROWSER_STEPS
from bench.suites.waa.errors import SetupFailed, StepFailed


class DownloadCache:
    """Files the host downloaded for `download` steps, one file per URL, kept
    for the run's lifetime in a temporary folder (as WAA's cache_dir)."""

    def __init__(self) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="troupe-waa-downloads-")
        self.fetched: list[str] = []

    async def get(self, url: str) -> bytes:
        cached = Path(self._folder.name) / uuid.uuid5(uuid.NAMESPACE_URL, url).hex
        if cached.exists():
            return await anyio.Path(cached).read_bytes()
        try:
            data = await fetch(url, timeout=120.0)
        except DownloadFailed as exc:
            raise SetupFailed(f"download {url} failed {exc}") from None
        await anyio.Path(cached).write_bytes(data)
        self.fetched.append(url)
        return data


Step = Callable[[WAAClient, dict[str, Any], DownloadCache], Awaitable[None]]


def _shell(parameters: dict[str, Any]) -> bool:
    """WAA files spell `shell` as a bool or as the string "true"."""
    value = parameters.get("shell", False)
    return value.lower() == "true" if isinstance(value, str) else bool(value)


async def _post(client: WAAClient, path: str, payload: dict[str, Any] | None = None, **kwargs: Any) -> None:
    response = await client.post(path, json=payload, answer_server_errors=True, **kwargs)
    if response.status_code != 200:
        raise StepFailed(f"{path}: HTTP {response.status_code}: {response.text[:300]}")


async def _launch(client: WAAClient, p: dict[str, Any], cache: DownloadCache) -> None:
    """WAA's client splits a one-string command at spaces unless it runs in a shell."""
    command, shell = p["command"], _shell(p)
    if not command:
        raise SetupFailed("launch: an empty command")
    if isinstance(command, str) and not shell:
        command = command.split()
    await _post(client, "/setup/launch", {"command": command, "shell": shell})


async def _execute(client: WAAClient, p: dict[str, Any], cache: DownloadCache) -> None:
    try:
        await client.execute(p["command"], shell=_shell(p), path="/setup/execute", answer_server_errors=True)
    except CommandRefused as exc:
        raise StepFailed(str(exc)) from exc


async def _open(client: WAAClient, p: dict[str, Any], cache: DownloadCache) -> None:
    await _post(client, "/setup/open_file", {"path": p["path"]})


async def _sleep(client: WAAClient, p: dict[str, Any], cache: DownloadCache) -> None:
    await anyio.sleep(float(p["seconds"]))


def _window(p: dict[str, Any]) -> dict[str, Any]:
    return {"window_name": p["window_name"], "strict": p.get("strict", False), "by_class": p.get("by_class", False)}


async def _activate_window(client: WAAClient, p: dict[str, Any], cache: DownloadCache) -> None:
    await _post(client, "/setup/activate_window", _window(p))


async def _close_window(client: WAAClient, p: dict[str, Any], cache: DownloadCache) -> None:
    await _post(client, "/setup/close_window", _window(p))


async def _close_all(client: WAAClient, p: dict[str, Any], cache: DownloadCache) -> None:
    await _post(client, "/setup/close_all", {})


async def _create_folder(client: WAAClient, p: dict[str, Any], cache: DownloadCache) -> None:
    await _post(client, "/setup/create_folder", {"path": p["path"]})


def _basename(path: str) -> str:
    return (PureWindowsPath if "\\" in path else PurePosixPath)(path).name


async def _download(client: WAAClient, p: dict[str, Any], cache: DownloadCache) -> None:
    """Each file: downloaded by the host (cached), then uploaded to its path on the VM."""
    for file in p["files"]:
        url, path = file["url"], file["path"]
        if not url or not path:
            raise SetupFailed(f"download: an empty url ({url!r}) or path ({path!r})")
        data = await cache.get(url)
        await _post(client, "/setup/upload", None, data={"file_path": path},
                    files={"file_data": (_basename(path), data)})


async def _recycle_file(client: WAAClient, p: dict[str, Any], cache: DownloadCache) -> None:
    await _post(client, "/setup/recycle", {"path": p["path"]})


STEPS: dict[str, Step] = {
    "launch": _launch,
    "execute": _execute,
    "command": _execute,
    "open": _open,
    "sleep": _sleep,
    "activate_window": _activate_window,
    "close_window": _close_window,
    "close_all": _close_all,
    "create_folder": _create_folder,
    "download": _download,
    "recycle_file": _recycle_file,
    **BROWSER_STEPS,
}


async def run_steps(client: WAAClient, steps: list[dict[str, Any]], *, phase: str, cache: DownloadCache) -> list[str]:
    """Run `steps` in order; `phase` ("config", "postconfig") names where a step came from.

    Returns what went wrong on the way, one line per step: a step the server
    refused, and a step the server answered only after retrying 5xx answers
    (with how many retries)."""
    problems: list[str] = []
    for index, step in enumerate(steps):
        kind = step.get("type")
        run = STEPS.get(kind)
        where = f"{phase}[{index}] ({kind})"
        if run is None:
            raise SetupFailed(f"{phase}[{index}]: step type {kind!r} is not supported (supported: {sorted(STEPS)})")
        retried = client.server_error_retries
        try:
            await run(client, step.get("parameters", {}), cache)
        except KeyError as exc:
            raise SetupFailed(f"{where}: missing parameter {exc}") from None
        except SetupFailed as exc:
            raise SetupFailed(f"{where}: {exc}") from None
        except StepFailed as exc:
            problems.append(f"{where} failed: {exc}")
        retries = client.server_error_retries - retried
        if retries:
            problems.append(f"{where}: the server answered 5xx and was retried {retries} times")
    return problems
