"""A task's `config` steps (before the agent) and `postconfig` steps (before evaluation),
each as OSWorld's SetupController runs it, through the server endpoint that does it.

OSWorld's controller raises on some refusals and only logs others, and that
decides whether the task gets a score at all:

- raises (`SetupFailed`: the reset fails, or the evaluation is an error, as
  OSWorld's run records no score): an unknown step type, a missing
  parameter, a download whose file it cannot get or upload, an `open` the
  server answers with an error;
- logs and goes on (`StepFailed`, listed under the episode's setup errors
  and named in the verdict): `launch`, `execute`/`command` (retried while an
  `until` condition is unmet, up to five refusals), `activate_window`,
  `close_window` and `change_wallpaper` refused by the server. An `until`
  condition still unmet after UNTIL_SECONDS fails the step (OSWorld's loop
  would wait for ever).

After a step launches Chrome, the next waits for its DevTools to answer (at
most 30 s), as OSWorld's harness waits 60 s after setup; a `sleep` right
after such a launch is that wait, at most as long as the sleep. After a step
launches LibreOffice, the next waits for its window (OSWorld's /window_size
names it; at most 30 s): its tasks' next step sleeps a fixed few seconds and
then presses keys into the document, which a loaded machine may not have
shown yet.

`execute` and `command` substitute OSWorld's placeholders first:
`{CLIENT_PASSWORD}`, `{SCREEN_WIDTH}`, `{SCREEN_HEIGHT}` and their `_HALF`s.
Downloads come from the user's cache folder (`<cache>/<task id>/<uuid5(url)>_<name>`,
the layout OSWorld's harness leaves); a file it lacks is fetched from its URL and
kept there, as OSWorld's harness keeps it.
"""

from __future__ import annotations

import itertools
import logging
from typing import Any, Awaitable, Callable

import anyio
import httpx

from actors.backends.waa.client import WAAClient
from bench.suites.osworld.chrome import CHROME_STEPS
from bench.suites.osworld.chrome_tabs import TAB_STEPS
from bench.suites.osworld.episode import Episode
from bench.suites.osworld.errors import SetupFailed, StepFailed
from bench.suites.osworld.google_login import LOGIN_STEPS
from bench.suites.osworld.googledrive import GOOGLEDRIVE_STEPS
from bench.suites.osworld.needs import cache_name

logger = logging.getLogger(__name__)

UNTIL_REFUSALS = 5
"""Refused `execute` requests after which OSWorld stops waiting for an `until` condition."""
UNTIL_INTERVAL = 0.3
UNTIL_SECONDS = 120.0
"""How long an `until` condition is waited for. OSWorld's loop waits for ever while the server answers;
troupe fails the step after this long instead of holding the VM."""

Step = Callable[[Episode, dict[str, Any]], Awaitable[None]]


def substitute(command: str | list[str], episode: Episode) -> str | list[str]:
    """OSWorld's placeholders, replaced as its SetupController replaces them."""
    width, height = episode.screen
    values = {"{CLIENT_PASSWORD}": episode.password, "{SCREEN_WIDTH_HALF}": str(width // 2),
              "{SCREEN_HEIGHT_HALF}": str(height // 2), "{SCREEN_WIDTH}": str(width), "{SCREEN_HEIGHT}": str(height)}

    def one(text: str) -> str:
        for placeholder, value in values.items():
            text = text.replace(placeholder, value)
        return text

    return one(command) if isinstance(command, str) else [one(item) for item in command]


async def _post(client: WAAClient, path: str, payload: dict[str, Any] | None = None,
                **kwargs: Any) -> httpx.Response:
    return await client.post(path, json=payload, answer_server_errors=True, **kwargs)


def _logged(response: httpx.Response, what: str) -> None:
    if response.status_code != 200:
        raise StepFailed(f"{what}: HTTP {response.status_code}: {response.text[:300]}")


async def _download(episode: Episode, p: dict[str, Any]) -> None:
    for file in p["files"]:
        url, path = file["url"], file["path"]
        if not url or not path:
            raise SetupFailed(f"download: an empty url ({url!r}) or path ({path!r})")
        await episode.upload(path, await episode.cached_or_fetched(url, cache_name(url, path)))


async def _open(episode: Episode, p: dict[str, Any]) -> None:
    if not p["path"]:
        raise SetupFailed("open: an empty path")
    response = await _post(episode.client, "/setup/open_file", {"path": p["path"]}, timeout=1810.0)
    if response.status_code >= 400:
        raise SetupFailed(f"open {p['path']}: HTTP {response.status_code}: {response.text[:300]}")


async def _launch(episode: Episode, p: dict[str, Any]) -> None:
    command, shell = p["command"], p.get("shell", False)
    if not command:
        raise SetupFailed("launch: an empty command")
    if not shell and isinstance(command, str) and len(command.split()) > 1:
        command = command.split()
    _logged(await _post(episode.client, "/setup/launch", {"command": command, "shell": shell}), f"launch {command}")


async def _execute(episode: Episode, p: dict[str, Any]) -> None:
    """OSWorld's `_execute_setup`: once, or until the `until` condition holds (at most five refusals);
    `stdout` and `stderr` name files of the task's cache folder that keep the output."""
    if not p["command"]:
        raise SetupFailed("execute: an empty command")
    command, until = substitute(p["command"], episode), p.get("until") or {}
    refusals = 0
    deadline = anyio.current_time() + UNTIL_SECONDS
    while True:
        response = await _post(episode.client, "/setup/execute", {"command": command, "shell": p.get("shell", False)})
        results = response.json() if response.status_code == 200 else None
        if results is None:
            refusals += 1
            logger.warning("execute %r: HTTP %s: %s", command, response.status_code, response.text[:300])
        else:
            for key, field in (("stdout", "output"), ("stderr", "error")):
                if p.get(key):
                    episode.saved[p[key]] = str(results.get(field, "")).encode()
        done = not until or (results is not None and (
            ("returncode" in until and results.get("returncode") == until["returncode"])
            or ("stdout" in until and until["stdout"] in results.get("output", ""))
            or ("stderr" in until and until["stderr"] in results.get("error", ""))))
        if done or refusals >= UNTIL_REFUSALS:
            break
        if anyio.current_time() > deadline:
            raise SetupFailed(f"execute {command!r}: its `until` condition {until} did not hold within "
                              f"{UNTIL_SECONDS:g} s")
        await anyio.sleep(UNTIL_INTERVAL)
    if results is None:
        raise StepFailed(f"execute {command!r}: HTTP {response.status_code}: {response.text[:300]}")


async def _sleep(episode: Episode, p: dict[str, Any]) -> None:
    await anyio.sleep(float(p["seconds"]))


BROWSERS = frozenset({"google-chrome", "chromium", "chrome"})
BROWSER_START_SECONDS = 30.0
"""How long a step after launching Chrome waits for its DevTools (OSWorld's harness sleeps 60 s after setup)."""
WINDOW_CLASSES = {"libreoffice": "libreoffice", "soffice": "libreoffice", "vlc": "vlc"}
"""Programs whose window the step after their launch waits for, and the window's class."""
WINDOW_SECONDS = 30.0


def _launched(step: dict[str, Any] | None) -> str:
    """The program a `launch` step starts, after a shell command's variable assignments ("" for any other step)."""
    command = (step or {}).get("parameters", {}).get("command") if (step or {}).get("type") == "launch" else None
    if isinstance(command, str):
        return next(itertools.dropwhile(lambda word: "=" in word, command.split()), "")
    return (command or [""])[0]


def _launches_browser(step: dict[str, Any] | None) -> bool:
    return _launched(step) in BROWSERS


async def _until_window(episode: Episode, window_class: str, seconds: float) -> None:
    """Until a window of `window_class` is shown (OSWorld's /window_size finds it), at most `seconds`."""
    with anyio.move_on_after(seconds):
        while (await episode.client.post("/window_size", data={"app_class_name": window_class},
                                         answer_server_errors=True)).status_code != 200:
            await anyio.sleep(0.1)


async def _until_devtools(episode: Episode, seconds: float) -> None:
    """What OSWorld's sleep after launching Chrome waits for: its DevTools answering, at most `seconds`."""
    async with httpx.AsyncClient(timeout=1.0) as http:
        with anyio.move_on_after(seconds):
            while True:
                try:
                    if (await http.get(f"{episode.client.devtools}/json/version")).status_code == 200:
                        return
                except httpx.HTTPError:
                    pass
                await anyio.sleep(0.1)


def _window(p: dict[str, Any]) -> dict[str, Any]:
    if not p["window_name"]:
        raise SetupFailed("an empty window_name")
    return {"window_name": p["window_name"], "strict": p.get("strict", False), "by_class": p.get("by_class", False)}


async def _activate_window(episode: Episode, p: dict[str, Any]) -> None:
    _logged(await _post(episode.client, "/setup/activate_window", _window(p)), f"activate_window {p['window_name']!r}")


async def _close_window(episode: Episode, p: dict[str, Any]) -> None:
    _logged(await _post(episode.client, "/setup/close_window", _window(p)), f"close_window {p['window_name']!r}")


async def _change_wallpaper(episode: Episode, p: dict[str, Any]) -> None:
    if not p["path"]:
        raise SetupFailed("change_wallpaper: an empty path")
    _logged(await _post(episode.client, "/setup/change_wallpaper", {"path": p["path"]}), "change_wallpaper")


STEPS: dict[str, Step] = {
    "download": _download,
    "open": _open,
    "launch": _launch,
    "execute": _execute,
    "command": _execute,
    "sleep": _sleep,
    "activate_window": _activate_window,
    "close_window": _close_window,
    "change_wallpaper": _change_wallpaper,
    **CHROME_STEPS,
    **TAB_STEPS,
    **GOOGLEDRIVE_STEPS,
    **LOGIN_STEPS,
}


async def run_steps(episode: Episode, steps: list[dict[str, Any]], *, phase: str) -> list[str]:
    """Run `steps` in order ("config" or "postconfig" in `phase`); the refusals OSWorld logs, one line each."""
    problems: list[str] = []
    for index, step in enumerate(steps):
        kind = step.get("type")
        where = f"{phase}[{index}] ({kind})"
        run = STEPS.get(kind)
        if run is None:
            raise SetupFailed(f"{where}: step type {kind!r} is not supported (supported: {sorted(STEPS)})")
        if kind == "sleep" and index and _launches_browser(steps[index - 1]):
            run = lambda episode, p: _until_devtools(episode, float(p["seconds"]))  # noqa: E731
        try:
            await run(episode, step.get("parameters", {}))
        except KeyError as exc:
            raise SetupFailed(f"{where}: missing parameter {exc}") from None
        except SetupFailed as exc:
            raise SetupFailed(f"{where}: {exc}") from None
        except StepFailed as exc:
            problems.append(f"{where} failed: {exc}")
        else:
            if _launches_browser(step):
                await _until_devtools(episode, BROWSER_START_SECONDS)
            elif _launched(step) in WINDOW_CLASSES:
                await _until_window(episode, WINDOW_CLASSES[_launched(step)], WINDOW_SECONDS)
    return problems
