"""The Linux WAA server's browser: Debian's Chromium standing in for the Chrome and Edge of WAA's tasks.

WAA's browser tasks launch `google-chrome --remote-debugging-port=1337` (or
`msedge`, often through `start` or `cmd /c start`), forward the VM's port
9222 to it with `socat`, and kill the browser with `taskkill /IM chrome.exe
/F` before reading its profile. This server recognizes those commands and
never runs them:

- a launch of google-chrome, chrome, chromium or msedge (".exe" or not)
  starts Chromium on the profile WAA's Linux getters read
  (~/.config/google-chrome for Chrome, ~/.config/microsoft-edge for Edge),
  with DevTools on 127.0.0.1 at the server's DevTools port (9222 unless
  --devtools-port says otherwise) and the http(s) URLs the command names; of
  the task's own flags (Windows ones) only `--load-extension=FOLDER[,...]`
  is kept, Chrome's way to load unpacked extensions, each folder confined to
  the server's roots as a file request's path is. A Chromium already
  running on that profile opens the URLs in a new window, as Chrome does;
- the socat forward is answered as done: DevTools already listens where
  WAA's client connects;
- a window WAA names by its browser's title ("Google Chrome", "Microsoft
  Edge": `activate_window`, `close_window`) is Chromium's, whose title ends
  in "Chromium" instead (`window_title`);
- `taskkill /IM chrome.exe` or `/IM msedge.exe` (and OSWorld's `pkill
  chrome`, sent as a launch) closes that Chromium as a
  user closing it would (DevTools' Browser.close), so it writes what it has
  not written yet: History, Cookies and Preferences are committed every few
  seconds (10 to 30) and are complete afterwards. Windows' `taskkill /F`
  gives Chrome no such chance, so on a WAA VM a change made in the seconds
  before it can be lost; here it is kept. (SIGTERM would lose it too:
  Chromium takes it as the session ending and skips those writes.) When
  both browsers run and so only one can hold the DevTools port, or
  Chromium does not close in time, the process is terminated instead.

None of them needs --allow-commands: they start and stop this one program
with fixed arguments.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import subprocess

import httpx
from websockets.sync.client import connect

from actors.backends.waa.browser_commands import CHROME, EDGE, LOAD_EXTENSION, Launch, Stop
from actors.backends.waa.server.desktop import LinuxDesktop

logger = logging.getLogger(__name__)

PROFILES = {CHROME: ".config/google-chrome", EDGE: ".config/microsoft-edge"}
BROWSER_TITLES = re.compile(r"Google Chrome|Microsoft Edge", re.IGNORECASE)
"""What Chrome's and Edge's window titles end in ("New Tab - Google Chrome"), where Chromium's say "Chromium"."""
STOP_TIMEOUT = 10.0
"""Seconds Chromium gets to write its profile and exit once asked to close, before it is terminated."""


def window_title(name: str) -> str:
    """The title WAA's window `name` has here: Chrome's and Edge's are Chromium's, which stands in for both."""
    return BROWSER_TITLES.sub("Chromium", name)


class Chromium:
    """The Chromium processes this server started, one profile per browser WAA names."""

    def __init__(self, desktop: LinuxDesktop, devtools_port: int) -> None:
        self.desktop = desktop
        self.devtools_port = devtools_port

    def _program(self) -> str:
        for candidate in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
            if candidate and os.access(candidate, os.X_OK):
                return candidate
        raise FileNotFoundError("Chromium is not installed (Debian package 'chromium'; scripts/setup.sh installs it)")

    def arguments(self, launch: Launch) -> list[str]:
        profile = self.desktop.home / PROFILES[launch.browser]
        flags = [f"--user-data-dir={profile}", f"--remote-debugging-port={self.devtools_port}",
                 "--remote-debugging-address=127.0.0.1", "--no-first-run", "--no-default-browser-check",
                 "--password-store=basic", "--disable-dev-shm-usage", "--disable-gpu"]
        if os.geteuid() == 0:
            flags.append("--no-sandbox")  # Chromium refuses to run as root with its sandbox
        if "DBUS_SESSION_BUS_ADDRESS" in self.desktop.session.env:
            flags.append("--force-renderer-accessibility")  # the desktop exports AT-SPI: Chromium's pages too
        if launch.extensions:
            flags.append(LOAD_EXTENSION + ",".join(launch.extensions))
        return [self._program(), *flags, *launch.urls]

    def launch(self, launch: Launch) -> None:
        argv = self.arguments(launch)
        self.desktop.launched.append(self.desktop.main.call(lambda: self.desktop.session.spawn(argv,
                                                                                               name=launch.browser)))

    def _close_over_devtools(self) -> bool:
        """Ask the Chromium holding the DevTools port to close, as its window's close button would;
        False when it could not be asked (one just launched has no DevTools yet)."""
        try:
            address = httpx.get(f"http://127.0.0.1:{self.devtools_port}/json/version", timeout=5.0).json()
            with connect(address["webSocketDebuggerUrl"], open_timeout=5.0, close_timeout=1.0) as socket:
                socket.send(json.dumps({"id": 1, "method": "Browser.close"}))
                socket.recv(timeout=5.0)
        except Exception as exc:  # noqa: BLE001 - any failure falls back to terminating the process
            logger.info("Chromium did not take Browser.close over DevTools (%s); terminating it", exc)
            return False
        return True

    def stop(self, stop: Stop) -> int:
        """Close every Chromium started for that browser; how many were running."""
        alive = [p for p in self.desktop.launched if p.popen.poll() is None and p.name in PROFILES]
        running = [p for p in alive if p.name == stop.browser]
        holds_devtools = len(running) == len(alive)  # no other browser could have taken the port
        closing = bool(running) and holds_devtools and self._close_over_devtools()
        for proc in running:
            try:
                proc.popen.wait(STOP_TIMEOUT if closing else 0)
            except subprocess.TimeoutExpired:
                proc.popen.terminate()
                try:
                    proc.popen.wait(STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    proc.popen.kill()
                    proc.popen.wait()
        self.desktop.launched[:] = [p for p in self.desktop.launched if p.popen.poll() is None]
        return len(running)
