"""How long a well-behaved client waits while slow clients hold a server's connections.

    python -m bench.perf.admission [--slow 300]

Starts a node (`python -m runtime.node`), the viewer of a run folder
(`python -m bench.viewer`) and the WAA Linux server
(`python -m actors.backends.waa.server`, on its own Xvfb), each a process of
its own on 127.0.0.1. Opens `--slow` connections to each that send part of a
request and then nothing, and times a client that behaves: a websocket
handshake with the token (node), the page (viewer), /probe (WAA). Prints
one line per server and exits 1 if any of them kept the client waiting
over `LIMIT` seconds.
"""

from __future__ import annotations

import argparse
import json
import secrets
import socket
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx

from actors.backends.waa.client import TOKEN_HEADER
from bench.perf.servers import server_process
from runtime.websocket import connect

__all__ = ["LIMIT", "Served", "measure", "main"]

LIMIT = 1.0
_SLOW_START = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"  # and never the blank line that ends it


@dataclass(frozen=True)
class Served:
    server: str
    slow: int
    seconds: float
    answer: str


def _last_port(line: str) -> int:
    digits = line.split("//")[-1].split()[0].split(":")[1].split("/")[0]
    return int(digits)


@contextmanager
def _slow(port: int, count: int) -> Iterator[None]:
    """`count` connections to `port` that each send part of a request, held until the block ends."""
    held: list[socket.socket] = []
    try:
        for _ in range(count):
            connection = socket.create_connection(("127.0.0.1", port), timeout=10)
            connection.sendall(_SLOW_START)
            held.append(connection)
        time.sleep(0.3)  # the server has them all
        yield
    finally:
        for connection in held:
            connection.close()


def _timed(call: Callable[[], str]) -> tuple[float, str]:
    """How long `call` took, and what it got: its answer, or the error that ended it."""
    started = time.perf_counter()
    try:
        answer = call()
    except Exception as exc:  # a refused client is a measurement here, not a failure of the benchmark
        answer = f"{type(exc).__name__}: {exc}"
    return time.perf_counter() - started, answer


def measure(slow: int = 300) -> list[Served]:
    token = secrets.token_urlsafe(16)
    served: list[Served] = []
    with ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="troupe-admission-")))
        (folder / "results.jsonl").touch()
        node, _ = stack.enter_context(server_process(
            ["-m", "runtime.node", "--app", "actors.backends.sim.node:build"], {"TROUPE_NODE_TOKEN": token},
            lambda line: int(json.loads(line)["listening"].rsplit(":", 1)[1])))
        viewer, _ = stack.enter_context(server_process(["-m", "bench.viewer", str(folder), "--token", token], {},
                                                       _last_port))
        waa, _ = stack.enter_context(server_process(
            ["-m", "actors.backends.waa.server", "--port", "0", "--token", token], {}, _last_port))

        async def handshake() -> str:
            ws = await connect(f"ws://127.0.0.1:{node}", token=token, timeout=10)
            await ws.close()
            return "websocket open"

        clients = {
            "node (websocket)": (node, lambda: anyio.run(handshake)),
            "viewer (page)": (viewer, lambda: str(httpx.get(f"http://127.0.0.1:{viewer}/?token={token}",
                                                              timeout=10).status_code)),
            "WAA server (/probe)": (waa, lambda: str(httpx.get(f"http://127.0.0.1:{waa}/probe",
                                                               headers={TOKEN_HEADER: token}, timeout=10).status_code)),
        }
        for name, (port, client) in clients.items():
            with _slow(port, slow):
                seconds, answer = _timed(client)
            served.append(Served(name, slow, seconds, answer))
    return served


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.perf.admission", description=__doc__.splitlines()[0])
    parser.add_argument("--slow", type=int, default=300, help="slow connections held at each server (default: 300)")
    args = parser.parse_args(argv)
    results = measure(args.slow)
    for one in results:
        print(f"{one.server:22} {one.slow} slow connections held: a good client served in {one.seconds * 1000:7.1f} ms "
              f"({one.answer})")
    return 0 if all(one.seconds <= LIMIT and one.answer in ("200", "websocket open") for one in results) else 1


if __name__ == "__main__":
    sys.exit(main())
