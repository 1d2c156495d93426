"""OSWorld with no VM: each episode on a fresh desktop of troupe's Linux server in OSWorld's dialect.

Reset stops the previous episode's server (its Xvfb display, applications and
home folder go with it) and takes a fresh one of `python -m
actors.backends.waa.server --osworld --allow-commands`: a fresh display, a
fresh home standing for OSWorld's /home/user, its own DevTools port and
VLC web-interface port (vm_image.py writes the latter into the home's vlcrc),
on 127.0.0.1 with a token of its own, holding a pipe to the server's stdin
so that the server stops when this process dies, however it dies
(--stop-with-stdin). Where OSWorld reverts a VM snapshot and
then sleeps 60 s, this waits for the server's first line, which it prints
once it answers. One spare server is started while an episode runs, so the
next reset finds it ready (an idle Xvfb and window manager, a few MiB).
"""

from __future__ import annotations

import concurrent.futures
import re
import secrets
import socket
import subprocess
import sys
from dataclasses import dataclass
from typing import Any

import anyio

from protocols import Task

from actors.backends.waa.backend import WAABackend
from actors.backends.waa.client import WAAClient, WAAUnavailable

SCREEN = (1920, 1080)
"""OSWorld's VMs' screen size, which its tasks' coordinates assume."""
_LISTENING = re.compile(r"listening on (\S+) display (\S+)\n")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class LocalServer:
    url: str
    token: str
    devtools: str
    vlc: str
    process: subprocess.Popen

    @classmethod
    def start(cls, size: tuple[int, int] = SCREEN) -> LocalServer:
        token, devtools_port, vlc_port = secrets.token_hex(16), _free_port(), _free_port()
        process = subprocess.Popen(
            [sys.executable, "-m", "actors.backends.waa.server", "--port", "0", "--token", token, "--osworld",
             "--allow-commands", "--size", f"{size[0]}x{size[1]}", "--devtools-port", str(devtools_port),
             "--stop-with-stdin"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.PIPE, text=True)
        line = process.stdout.readline()
        match = _LISTENING.fullmatch(line)
        if match is None:
            process.kill()
            process.wait()
            raise WAAUnavailable(f"troupe's Linux server did not start (it said {line!r})")
        return cls(match[1], token, f"http://127.0.0.1:{devtools_port}", f"http://127.0.0.1:{vlc_port}", process)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process.stdin.close()
        self.process.stdout.close()


class LocalDesktops(WAABackend):
    """A WAABackend whose server is a fresh local desktop per episode."""

    def __init__(self, *, size: tuple[int, int] = SCREEN, **options: Any) -> None:
        super().__init__("http://127.0.0.1:1", **options)
        self.size = size
        self.server: LocalServer | None = None
        self._starter = self._stopper = None
        self._spare: concurrent.futures.Future[LocalServer] | None = None

    async def _fresh(self) -> LocalServer:
        """The spare server if one was started, else one started now; then the next spare is started."""
        spare, self._spare = self._spare, None
        server = await anyio.to_thread.run_sync(spare.result) if spare else None
        if server is None or server.process.poll() is not None:
            server = await anyio.to_thread.run_sync(LocalServer.start, self.size)
        self._spare = self._starter.submit(LocalServer.start, self.size)
        return server

    async def reset(self, task: Task, attempt: int) -> None:
        if self._starter is None:  # first reset, or the first after aclose: a VM actor restarts on this backend
            self._starter = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="osworld-spare")
            self._stopper = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="osworld-stop")
        if self.server is not None:  # stopped while the next episode starts: nothing of it is read again
            self._stopper.submit(self.server.stop)
        self.server = await self._fresh()
        await self.client.aclose()
        self.client = WAAClient(self.server.url, token=self.server.token, retry=self.client.retry,
                                devtools=self.server.devtools, vlc=self.server.vlc)
        await super().reset(task, attempt)

    async def aclose(self) -> None:
        await super().aclose()
        if self._starter is None:
            return
        server, spare, self.server, self._spare = self.server, self._spare, None, None
        if server is not None:
            self._stopper.submit(server.stop)
        if spare is not None:
            self._stopper.submit(lambda: spare.result().stop())
        starter, stopper, self._starter, self._stopper = self._starter, self._stopper, None, None
        await anyio.to_thread.run_sync(starter.shutdown)
        await anyio.to_thread.run_sync(stopper.shutdown)
