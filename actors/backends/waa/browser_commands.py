"""The browser commands WAA's and OSWorld's tasks send as launches, as a server recognizes them (server/
browser.py runs Chromium for them) and as a suite reads a task's steps: a launch of Chrome or Edge
(`google-chrome --remote-debugging-port=1337`, through `start` or `cmd /c start` too), WAA's socat
forward to DevTools, and a stop (`taskkill /IM chrome.exe`, OSWorld's `pkill chrome`)."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import PureWindowsPath

CHROME, EDGE = "chrome", "msedge"
PROGRAMS = {"google-chrome": CHROME, "chrome": CHROME, "chromium": CHROME, "msedge": EDGE}
LOAD_EXTENSION = "--load-extension="


@dataclass(frozen=True)
class Launch:
    browser: str
    urls: tuple[str, ...]
    extensions: tuple[str, ...] = ()
    """Folders of unpacked extensions to load, as the command names them."""


@dataclass(frozen=True)
class Forward:
    """WAA's socat from port 9222 to the browser's debugging port."""


@dataclass(frozen=True)
class Stop:
    browser: str


def _words(command: list[str] | str) -> list[str]:
    """The command's words, without a leading `cmd /c` or `start` (Windows' ways to launch)."""
    words = shlex.split(command) if isinstance(command, str) else list(command)
    if [w.lower() for w in words[:2]] == ["cmd", "/c"]:
        words = words[2:]
        if len(words) == 1:
            words = shlex.split(words[0])
    if words and words[0].lower() == "start":
        words = words[1:]
    return words


def _program(word: str) -> str:
    name = PureWindowsPath(word).name.lower()
    return name.removesuffix(".exe")


def launch_of(command: list[str] | str) -> Launch | Forward | None:
    """What a /setup/launch command asks of the browser, if it is one of WAA's browser launches."""
    try:
        words = _words(command)
    except ValueError:
        return None
    if not words:
        return None
    if words[0] == "socat" and any(w.startswith("tcp-listen:9222") for w in words[1:]):
        return Forward()
    browser = PROGRAMS.get(_program(words[0]))
    if browser is None:
        return None
    extensions = [folder for w in words[1:] if w.startswith(LOAD_EXTENSION)
                  for folder in w.removeprefix(LOAD_EXTENSION).split(",") if folder]
    return Launch(browser, tuple(w for w in words[1:] if w.startswith(("http://", "https://"))), tuple(extensions))


def stop_of(command: list[str] | str) -> Stop | None:
    """The browser a `taskkill /IM chrome.exe ...` (or msedge.exe) command stops, or OSWorld's
    `pkill chrome` (or `killall`, any of the Chrome names), if it is one."""
    try:
        words = [w.lower() for w in _words(command)]
    except ValueError:
        return None
    if len(words) >= 2 and words[0] in ("pkill", "killall") and PROGRAMS.get(words[-1]) == CHROME:
        return Stop(CHROME)
    if not words or words[0] not in ("taskkill", "taskkill.exe") or "/im" not in words:
        return None
    image = words[words.index("/im") + 1] if words.index("/im") + 1 < len(words) else ""
    browser = {"chrome.exe": CHROME, "msedge.exe": EDGE}.get(image)
    return Stop(browser) if browser else None
