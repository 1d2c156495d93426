"""Real HTTP servers on 127.0.0.1 for the WAA tests: the Linux WAA server in its own
process, and a scriptable stand-in that can fail the ways a WAA VM fails."""

from __future__ import annotations

import json
import re
import secrets
import subprocess
import sys
import threading
import urllib.parse
from dataclasses import dataclass, field
from typing import Callable

from actors.backends.sim.png import solid_png
from runtime.http_server import LoopbackHTTPServer, QuietHandler, send_reply
from tests.paths import ROOT

LINUX_TASKS = ROOT / "bench" / "waa" / "linux_tasks"


@dataclass
class LinuxServer:
    url: str
    token: str
    display: str
    process: subprocess.Popen


def start_linux_server(size: str = "1024x768", flags: tuple[str, ...] = (), stderr: int | None = None) -> LinuxServer:
    """The server in its own process; `flags` such as `--allow-commands`, `--root DIR`."""
    token = secrets.token_hex(8)
    process = subprocess.Popen(
        [sys.executable, "-m", "actors.backends.waa.server", "--port", "0", "--token", token, "--size", size, *flags],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=stderr, text=True,
    )
    line = process.stdout.readline()
    match = re.fullmatch(r"listening on (\S+) display (\S+)\n", line)
    if match is None:
        process.kill()
        raise RuntimeError(f"the Linux WAA server did not start: {line!r}")
    return LinuxServer(match[1], token, match[2], process)


def stop(server: LinuxServer) -> None:
    server.process.terminate()
    server.process.wait(10)


@dataclass
class Behaviour:
    """What the stand-in does: `failing` commands answer 500, `hang_tree` never answers /accessibility,
    `refusing` POST paths answer with their (status, body); `answer(path, body)` may answer any other
    JSON POST with its (status, body), or None to leave it to the rest; `gets` answer GET paths (with
    their query) with their (status, body); `files` are served at
    GET /files/<name> (as a web server) and, by their VM path, at POST /file, unless `read(path)`
    answers that path first with its (status, body); `uploads` keeps each /setup/upload body.
    A form body (OSWorld's /window_size) reaches `answer` as a dict too.
    `prefix` is stripped from every path: WAA's own client asks `http://{vm_ip}:5000/...`, so given
    the vm_ip "127.0.0.1:PORT/vm" its requests arrive as "/vm:5000/..."."""

    failing: set[str] = field(default_factory=set)
    hang_tree: bool = False
    refusing: dict[str, tuple[int, bytes]] = field(default_factory=dict)
    answer: Callable[[str, dict], tuple[int, bytes] | None] | None = None
    gets: dict[str, tuple[int, bytes]] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)
    uploads: list[bytes] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)
    read: Callable[[str], tuple[int, bytes] | None] | None = None
    prefix: str = ""


class StandIn:
    """A WAA server that answers from `behaviour`, serving a small PNG and an empty desktop tree."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.behaviour = behaviour
        self.server = LoopbackHTTPServer(self._handler(), name="waa-stand-in")
        self.url = self.server.url

    def __enter__(self) -> StandIn:
        self.server.start()
        return self

    def __exit__(self, *exc) -> None:
        self.behaviour.release.set()
        self.server.close()

    def _handler(self):
        behaviour = self.behaviour
        png = solid_png(64, 40, (30, 60, 90))

        class Handler(QuietHandler):
            def do_GET(self):
                self.path = self.path.removeprefix(behaviour.prefix)
                behaviour.requests.append(f"GET {self.path}")
                if self.path in behaviour.gets:
                    return self._send(*behaviour.gets[self.path])
                if self.path.startswith("/accessibility"):
                    if behaviour.hang_tree:
                        behaviour.release.wait(60)
                        return
                    return self._send(200, json.dumps({"AT": "<desktop name='Desktop'/>"}).encode())
                if self.path == "/screenshot":
                    return self._send(200, png, "image/png")
                if self.path.startswith("/files/"):
                    name = self.path.removeprefix("/files/")
                    if name not in behaviour.files:
                        return self._send(404, b"no such file")
                    return self._send(200, behaviour.files[name], "application/octet-stream")
                self._send(200, b'{"status": "Probe successful"}')

            def do_POST(self):
                self.path = self.path.removeprefix(behaviour.prefix)
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                if self.path == "/setup/upload":
                    behaviour.requests.append(f"POST {self.path}")
                    behaviour.uploads.append(raw)
                    return self._send(200, b"File Uploaded")
                if self.path == "/file":
                    path = urllib.parse.parse_qs(raw.decode())["file_path"][0]
                    behaviour.requests.append(f"POST {self.path} {path}")
                    if self.path in behaviour.refusing:
                        return self._send(*behaviour.refusing[self.path])
                    reply = behaviour.read(path) if behaviour.read else None
                    if reply is not None:
                        return self._send(*reply)
                    if path not in behaviour.files:
                        return self._send(404, b'{"error": "File not found"}')
                    return self._send(200, behaviour.files[path], "application/octet-stream")
                form = self.headers.get("Content-Type", "").startswith("application/x-www-form-urlencoded")
                body = dict(urllib.parse.parse_qsl(raw.decode())) if form else json.loads(raw or b"{}")
                behaviour.requests.append(f"POST {self.path} {json.dumps(body.get('command'))}")
                if self.path in behaviour.refusing:
                    return self._send(*behaviour.refusing[self.path])
                reply = behaviour.answer(self.path, body) if behaviour.answer else None
                if reply is not None:
                    return self._send(*reply)
                if json.dumps(body.get("command")) in behaviour.failing:
                    return self._send(500, b'{"status": "error", "message": "boom"}')
                self._send(200, b'{"status": "success", "output": "", "error": "", "returncode": 0}')

            def _send(self, status, data, kind="application/json"):
                send_reply(self, status, kind, data)

        return Handler
