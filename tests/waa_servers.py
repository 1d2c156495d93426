"""Real HTTP servers on 127.0.0.1 for the WAA tests: the Linux WAA server in its own
process, and a scriptable stand-in that can fail the ways a WAA VM fails."""

from __future__ import annotations

import json
import re
import secrets
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from actors.sim.png import solid_png

ROOT = Path(__file__).resolve().parents[1]
LINUX_TASKS = ROOT / "bench" / "waa" / "linux_tasks"


@dataclass
class LinuxServer:
    url: str
    token: str
    display: str
    process: subprocess.Popen


def start_linux_server(size: str = "1024x768") -> LinuxServer:
    token = secrets.token_hex(8)
    process = subprocess.Popen(
        [sys.executable, "-m", "actors.waa.server", "--port", "0", "--token", token, "--size", size],
        cwd=ROOT, stdout=subprocess.PIPE, text=True,
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
    """What the stand-in does: `failing` commands answer 500, `hang_tree` never answers /accessibility."""

    failing: set[str] = field(default_factory=set)
    hang_tree: bool = False
    requests: list[str] = field(default_factory=list)
    release: threading.Event = field(default_factory=threading.Event)


class StandIn:
    """A WAA server that answers from `behaviour`, serving a small PNG and an empty desktop tree."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.behaviour = behaviour
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> StandIn:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.behaviour.release.set()
        self.server.shutdown()
        self.server.server_close()

    def _handler(self):
        behaviour = self.behaviour
        png = solid_png(64, 40, (30, 60, 90))

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                behaviour.requests.append(f"GET {self.path}")
                if self.path.startswith("/accessibility"):
                    if behaviour.hang_tree:
                        behaviour.release.wait(60)
                        return
                    return self._send(200, json.dumps({"AT": "<desktop name='Desktop'/>"}).encode())
                if self.path == "/screenshot":
                    return self._send(200, png, "image/png")
                self._send(200, b'{"status": "Probe successful"}')

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                behaviour.requests.append(f"POST {self.path} {json.dumps(body.get('command'))}")
                if json.dumps(body.get("command")) in behaviour.failing:
                    return self._send(500, b'{"status": "error", "message": "boom"}')
                self._send(200, b'{"status": "success", "output": "", "error": "", "returncode": 0}')

            def _send(self, status, data, kind="application/json"):
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        return Handler
