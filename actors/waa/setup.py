"""A task's `config` steps (before the agent) and `postconfig` steps (before
evaluation), each through the WAA server endpoint that does it.

`STEPS` is the set of step types this project can run; the suite's listing
reads it to say which tasks can be set up and which step types are missing.
A step whose type is not in it fails the reset with a clear error instead of
being skipped, since a task set up halfway would be judged unfairly.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable

import anyio

from actors.waa.client import CommandRefused, WAAClient

Step = Callable[[WAAClient, dict[str, Any]], Awaitable[None]]


class SetupFailed(RuntimeError):
    """A step was refused by the server or cannot be run; the message names the step."""


def _shell(parameters: dict[str, Any]) -> bool:
    """WAA files spell `shell` as a bool or as the string "true"."""
    value = parameters.get("shell", False)
    return value.lower() == "true" if isinstance(value, str) else bool(value)


async def _post(client: WAAClient, path: str, payload: dict[str, Any]) -> None:
    response = await client.post(path, json=payload)
    if response.status_code != 200:
        raise SetupFailed(f"{path} {payload!r}: HTTP {response.status_code}: {response.text[:300]}")


async def _launch(client: WAAClient, p: dict[str, Any]) -> None:
    await _post(client, "/setup/launch", {"command": p["command"], "shell": _shell(p)})


async def _execute(client: WAAClient, p: dict[str, Any]) -> None:
    try:
        await client.execute(p["command"], shell=_shell(p), path="/setup/execute")
    except CommandRefused as exc:
        raise SetupFailed(str(exc)) from exc


async def _open(client: WAAClient, p: dict[str, Any]) -> None:
    await _post(client, "/setup/open_file", {"path": p["path"]})


async def _sleep(client: WAAClient, p: dict[str, Any]) -> None:
    await anyio.sleep(float(p["seconds"]))


async def _activate_window(client: WAAClient, p: dict[str, Any]) -> None:
    await _post(client, "/setup/activate_window", {
        "window_name": p["window_name"], "strict": p.get("strict", False), "by_class": p.get("by_class", False),
    })


async def _close_window(client: WAAClient, p: dict[str, Any]) -> None:
    await _post(client, "/setup/close_window", {
        "window_name": p["window_name"], "strict": p.get("strict", False), "by_class": p.get("by_class", False),
    })


async def _close_all(client: WAAClient, p: dict[str, Any]) -> None:
    await _post(client, "/setup/close_all", {})


async def _create_folder(client: WAAClient, p: dict[str, Any]) -> None:
    await _post(client, "/setup/create_folder", {"path": p["path"]})


async def _download(client: WAAClient, p: dict[str, Any]) -> None:
    """The VM fetches each file itself (a real run needs network from the VM)."""
    for file in p["files"]:
        await _post(client, "/setup/download_file", {"url": file["url"], "path": file["path"]})


async def _recycle_file(client: WAAClient, p: dict[str, Any]) -> None:
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
}


async def run_steps(client: WAAClient, steps: list[dict[str, Any]], *, phase: str) -> None:
    """Run `steps` in order; `phase` ("config", "postconfig") names where a failing step came from."""
    for index, step in enumerate(steps):
        kind = step.get("type")
        run = STEPS.get(kind)
        if run is None:
            raise SetupFailed(f"{phase}[{index}]: step type {kind!r} is not supported (supported: {sorted(STEPS)})")
        try:
            await run(client, step.get("parameters", {}))
        except KeyError as exc:
            raise SetupFailed(f"{phase}[{index}] ({kind}): missing parameter {exc}") from None
        except SetupFailed as exc:
            raise SetupFailed(f"{phase}[{index}] ({kind}): {exc}") from None
