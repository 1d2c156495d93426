"""A task's setup steps (create files and folders, launch, open, wait for a window) on a fresh desktop.

    "config": [
      {"type": "create_file", "parameters": {"path": "notes.txt", "content": "buy milk\\n"}},
      {"type": "open", "parameters": {"path": "notes.txt"}},
      {"type": "wait_window", "parameters": {"title": "notes.txt"}}
    ]

Paths are relative to the episode's home folder and may not leave it. A step
of an unknown type, or with a parameter missing or mistyped, is refused
before anything runs, with the step's index and the field named.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any, Awaitable, Callable

import anyio
import msgspec

from actors.errors import ConfigError
from actors.backends.x11.session import Session


class Launch(msgspec.Struct, forbid_unknown_fields=True):
    """Start an application and leave it running; `watched` ones take the desktop down if they die."""

    command: list[str]
    watched: bool = True


class Execute(msgspec.Struct, forbid_unknown_fields=True):
    """Run a command to completion (it must succeed)."""

    command: list[str]
    timeout: float = 30.0


class CreateFile(msgspec.Struct, forbid_unknown_fields=True):
    path: str
    content: str = ""


class CreateFolder(msgspec.Struct, forbid_unknown_fields=True):
    path: str


class Open(msgspec.Struct, forbid_unknown_fields=True):
    """Open a file in `app`, or in the default application for its extension."""

    path: str
    app: str | None = None


class WaitWindow(msgspec.Struct, forbid_unknown_fields=True):
    title: str
    timeout: float = 20.0


class Sleep(msgspec.Struct, forbid_unknown_fields=True):
    seconds: float


STEP_TYPES: dict[str, type[msgspec.Struct]] = {
    "launch": Launch, "execute": Execute, "create_file": CreateFile, "create_folder": CreateFolder,
    "open": Open, "wait_window": WaitWindow, "sleep": Sleep,
}
DEFAULT_APPS = {".txt": "mousepad", ".md": "mousepad", ".csv": "mousepad", ".conf": "mousepad", ".ini": "mousepad",
                ".py": "mousepad"}


def parse_steps(config: Any) -> list[msgspec.Struct]:
    if not isinstance(config, list):
        raise ConfigError(f"setup config must be a list of steps, got {type(config).__name__}")
    steps = []
    for index, step in enumerate(config):
        if not isinstance(step, dict) or "type" not in step:
            raise ConfigError(f"setup step {index}: expected an object with a `type`, got {step!r}")
        kind = step["type"]
        if kind not in STEP_TYPES:
            raise ConfigError(f"setup step {index}: unknown type {kind!r}; known types: {', '.join(sorted(STEP_TYPES))}")
        try:
            steps.append(msgspec.convert(step.get("parameters", {}), STEP_TYPES[kind]))
        except msgspec.ValidationError as exc:
            raise ConfigError(f"setup step {index} ({kind}): {exc}") from None
    return steps


def home_path(home: Path, path: str) -> Path:
    """`path` inside `home` ("~/" allowed); refuse one that leaves it."""
    relative = PurePosixPath(path.removeprefix("~/"))
    if relative.is_absolute() or ".." in relative.parts:
        raise ConfigError(f"path {path!r} must be relative to the home folder and stay inside it")
    return home / relative


async def run_steps(session: Session, steps: list[msgspec.Struct],
                    wait_window: Callable[[str, float], Awaitable[str]]) -> None:
    """Carry out parsed steps in order. Processes are started from this (the event loop's)
    thread, so they die with the node (see actors.backends.x11.session); waits run in worker threads."""
    for index, step in enumerate(steps):
        try:
            await _run(session, step, wait_window)
        except ConfigError:
            raise
        except Exception as exc:  # noqa: BLE001 - any failure is reported with the step it came from
            raise ConfigError(f"setup step {index} ({type(step).__name__}): {type(exc).__name__}: {exc}") from exc


async def _run(session: Session, step: msgspec.Struct, wait_window: Callable[[str, float], Awaitable[str]]) -> None:
    match step:
        case Launch(command=command, watched=watched):
            session.spawn(command, watched=watched)
        case Open(path=path, app=app):
            target = home_path(session.home, path)
            app = app or DEFAULT_APPS.get(target.suffix)
            if app is None:
                raise ConfigError(f"no default application for {target.suffix or 'files without an extension'}; "
                                 "give `app`")
            session.spawn([app, str(target)], watched=True)
        case Execute(command=command, timeout=timeout):
            with anyio.fail_after(timeout):
                await anyio.run_process(command, env=session.env, cwd=session.home, check=True)
        case CreateFile(path=path, content=content):
            target = home_path(session.home, path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content)
        case CreateFolder(path=path):
            home_path(session.home, path).mkdir(parents=True, exist_ok=True)
        case WaitWindow(title=title, timeout=timeout):
            await wait_window(title, timeout)
        case Sleep(seconds=seconds):
            await anyio.sleep(seconds)
