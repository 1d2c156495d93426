"""The supervisor's side of a node: references to actors in another process.

A `NodeConnection` owns one websocket to a node and one reader that pairs
replies with asks by id. `RemoteRef` gives callers the same `Ref` surface as
a local actor, with the same errors: a timeout is a `CallTimeout`, a refusal
a `RequestRefused`, anything else that failed over there an `ActorCrashed`.
When the connection drops, every ask still waiting fails at once with
`ActorStopped` — nothing hangs on a dead node.

`connect_node` and `run_local_node` are supervisor child start functions:
they report the connection through `task_status`, then keep running for as
long as the node lives and raise `NodeDied` (saying why) when it does not.

Both greet the node before they report it: the first ask on a connection is
`Hello`, and the node's `Welcome` (`NodeConnection.welcome`) says how many
seats it has. A node older than `Hello` cannot decode it and closes the
connection with 1008 (the only bytes it got were the hello, so that is all
the close can be about): this side connects again without a hello and takes
it for what such a node is, one without seats. A Welcome that does not
decode (a seat count below 1 or past `MAX_SEATS`) is refused naming the
field: the node is not used.
"""

from __future__ import annotations

import itertools
import json
import logging
import math
import os
import secrets
import signal
import subprocess
import sys
from collections import deque
from typing import Any, Callable

import anyio
from anyio.abc import ByteReceiveStream, Process, TaskGroup, TaskStatus
from anyio.streams.buffered import BufferedByteReceiveStream

from protocols.codec import MESSAGE_TYPES, decode, encode
from protocols.messages import Failure, Hello, Welcome
from runtime.errors import (
    ActorCrashed, ActorStopped, CallTimeout, ConnectionClosed, HandshakeError, NodeDied, ProtocolError, from_failure,
)
from runtime.lifeline import lifeline_env
from runtime.loop import cancel_scope_at
from runtime.websocket import ABNORMAL_CLOSURE, POLICY_VIOLATION, WebSocket, connect

__all__ = ["CANNOT_OPEN", "TOKEN_ENV", "NodeConnection", "RemoteRef", "connect_node", "open_connection", "run_local_node"]

TOKEN_ENV = "TROUPE_NODE_TOKEN"
"""Where a node finds its token: the environment, so that `ps` does not show it."""
_logger = logging.getLogger(__name__)


class _Pending:
    __slots__ = ("actor", "done", "error", "value")

    def __init__(self, actor: str) -> None:
        self.actor = actor
        self.done = anyio.Event()
        self.value: Any = None
        self.error: BaseException | None = None

    def settle(self, value: Any = None, error: BaseException | None = None) -> None:
        if not self.done.is_set():
            self.value, self.error = value, error
            self.done.set()


class NodeConnection:
    """A live connection to a node; `ref(name)` reaches one of its actors. `welcome`
    is what the node said it hosts (`Welcome()`, no seats, for a node older than `Hello`)."""

    def __init__(self, ws: WebSocket, url: str, *, pid: int | None = None, welcome: Welcome = Welcome()) -> None:
        self.url = url
        self.pid = pid
        self.welcome = welcome
        self._ws = ws
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self._lost: ConnectionClosed | None = None

    def ref(self, actor: str) -> RemoteRef:
        return RemoteRef(self, actor)

    @property
    def closed(self) -> ConnectionClosed | None:
        """How the connection ended, or None while it is up."""
        return self._lost

    async def run(self) -> ConnectionClosed:
        """Read replies until the connection ends, then fail what is pending; say how it ended."""
        try:
            while True:
                try:
                    data = await self._ws.receive()
                except ConnectionClosed as closed:
                    self._lose(closed)
                    return closed
                try:
                    envelope, message = decode(data)
                    if envelope.kind not in ("reply", "error"):
                        raise ProtocolError(f"a node may send only reply and error envelopes, not {envelope.kind!r}")
                except ProtocolError as exc:
                    await self._ws.close(POLICY_VIOLATION, str(exc))
                    closed = ConnectionClosed(POLICY_VIOLATION, str(exc))
                    self._lose(closed)
                    return closed
                self._deliver(envelope.kind, envelope.id, envelope.to, message)
        finally:
            self._lose(ConnectionClosed(ABNORMAL_CLOSURE, "reader stopped"))

    async def aclose(self) -> None:
        """Close the connection (bounded, shielded) and fail every pending ask."""
        with anyio.CancelScope(shield=True):
            self._lose(ConnectionClosed(1000, "closed by this side"))
            with cancel_scope_at(anyio.current_time() + self._ws.close_timeout):  # a stall does not count
                await self._ws.close(1000, "closed by the supervisor")
            await self._ws.abort(1000, "closed by the supervisor")

    def _lose(self, closed: ConnectionClosed) -> None:
        if self._lost is None:
            self._lost = closed
        for pending in self._pending.values():
            pending.settle(error=self._stopped(pending.actor))

    def _stopped(self, actor: str) -> ActorStopped:
        assert self._lost is not None
        return ActorStopped(actor, f"connection lost: {self._lost.code} {self._lost.reason}".rstrip())

    def _deliver(self, kind: str, id: int, to: str, message: Any) -> None:
        pending = self._pending.get(id)
        if pending is None:
            # A reply to an ask that timed out, or the error of a tell.
            if kind == "error":
                _logger.warning("%s: unsolicited error from %s: %s", self.url, to, message)
            return
        if kind == "reply":
            pending.settle(message)
        elif isinstance(message, Failure):
            pending.settle(error=from_failure(pending.actor, message))
        else:
            pending.settle(error=ActorCrashed(pending.actor, f"error reply carried a {type(message).__name__}"))

    async def _send(self, actor: str, data: bytes) -> None:
        if self._lost is not None:
            raise self._stopped(actor)
        try:
            await self._ws.send(data)
        except ConnectionClosed as closed:
            self._lose(closed)
            raise self._stopped(actor) from None

    async def _tell(self, actor: str, message: Any) -> None:
        _check_message(message)
        await self._send(actor, encode("tell", message, to=actor))

    async def _ask(self, actor: str, message: Any, timeout: float) -> Any:
        _check_message(message)
        id = next(self._ids)
        pending = self._pending[id] = _Pending(actor)
        try:
            with cancel_scope_at(anyio.current_time() + timeout):  # a stall of this process does not count
                await self._send(actor, encode("ask", message, id=id, to=actor))
                await pending.done.wait()
                if pending.error is not None:
                    raise pending.error
                return pending.value
            raise CallTimeout(actor, type(message).__name__, timeout)
        finally:
            del self._pending[id]


def _check_message(message: Any) -> None:
    if not isinstance(message, MESSAGE_TYPES):
        raise TypeError(f"only protocols messages cross a node connection, not {type(message).__name__}")


class RemoteRef:
    """A `runtime.actor.Ref` to an actor hosted by a node."""

    def __init__(self, connection: NodeConnection, name: str) -> None:
        self.name = name
        self._connection = connection

    async def tell(self, message: Any) -> None:
        await self._connection._tell(self.name, message)

    async def ask(self, message: Any, timeout: float = math.inf) -> Any:
        return await self._connection._ask(self.name, message, timeout)

    def __repr__(self) -> str:
        return f"RemoteRef({self.name!r} at {self._connection.url})"


# --- opening a connection ----------------------------------------------------------

_GREETING_TIMEOUT = 10.0
"""Seconds a node has to answer `Hello` (its websocket handshake has the same)."""

CANNOT_OPEN = (OSError, TimeoutError, HandshakeError, ConnectionClosed, ProtocolError)
"""What `open_connection` raises when there is no node to use at the URL."""


async def open_connection(url: str, token: str, *, pid: int | None = None) -> NodeConnection:
    """Connect to the node at `url` and greet it (see the module's docstring); raises one of CANNOT_OPEN."""
    ws = await connect(url, token=token)
    try:
        welcome = await _greet(ws)
    except BaseException:
        await ws.abort(1000, "closed by the supervisor")
        raise
    if welcome is None:
        ws = await connect(url, token=token)
        welcome = Welcome()
    return NodeConnection(ws, url, pid=pid, welcome=welcome)


async def _greet(ws: WebSocket) -> Welcome | None:
    """The node's Welcome, or None for a node older than `Hello` (it closed the connection)."""
    with anyio.fail_after(_GREETING_TIMEOUT):
        await ws.send(encode("ask", Hello()))
        try:
            data = await ws.receive()
        except ConnectionClosed as closed:
            if closed.code == POLICY_VIOLATION:
                return None
            raise
    try:
        _, welcome = decode(data)
    except ProtocolError as exc:
        raise ProtocolError(f"it answered Hello with what this side cannot use: {exc}") from None
    if not isinstance(welcome, Welcome):
        raise ProtocolError(f"it answered Hello with a {type(welcome).__name__}, not a Welcome")
    return welcome


# --- supervisor child start functions -----------------------------------------------


async def connect_node(
    url: str,
    token: str,
    *,
    host: Callable[[NodeConnection], Any] | None = None,
    task_status: TaskStatus[Any] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Connect to a running node, report the connection (or what `host` makes of it: one
    seat's actors, `runtime.seats`), and raise NodeDied when it ends."""
    try:
        connection = await open_connection(url, token)
    except CANNOT_OPEN as exc:
        raise NodeDied(f"cannot connect to node at {url}: {exc}") from exc
    try:
        task_status.started(connection if host is None else host(connection))
        closed = await connection.run()
    finally:
        await connection.aclose()
    raise NodeDied(
        f"node at {url} closed the connection: {closed.code} {closed.reason}".rstrip(),
        close_code=closed.code,
        close_reason=closed.reason,
    )


class _Tail:
    """The last lines of a pipe, kept in bounded memory while the pipe is drained."""

    def __init__(self, lines: int = 40, line_chars: int = 2000) -> None:
        self.lines: deque[str] = deque(maxlen=lines)
        self.line_chars = line_chars
        self.eof = anyio.Event()
        self._partial = b""

    def feed(self, data: bytes) -> None:
        data = self._partial + data
        *complete, self._partial = data.split(b"\n")
        self._partial = self._partial[-self.line_chars * 4:]
        for line in complete:
            self.lines.append(line.decode("utf-8", "replace")[-self.line_chars:])

    async def drain(self, stream: ByteReceiveStream) -> None:
        try:
            async for chunk in stream:
                self.feed(chunk)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            pass
        finally:
            if self._partial:
                self.feed(b"\n")
            self.eof.set()

    def text(self, lines: int | None = None) -> str:
        kept = list(self.lines)
        return "\n".join(kept[-lines:] if lines else kept)


async def run_local_node(
    app: str,
    *,
    token: str | None = None,
    backend: str = "asyncio",
    seats: int | None = None,
    env: dict[str, str] | None = None,
    shutdown_timeout: float = 5.0,
    ready_timeout: float = 30.0,
    task_status: TaskStatus[NodeConnection] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Spawn `python -m runtime.node --app app` here (with `--seats seats` if given), connect, and watch it.

    Reports the connection (with the process id) once connected; raises
    NodeDied, with the node's last stderr lines, when the process exits or
    the connection drops. When cancelled, the process gets SIGTERM, then
    SIGKILL after `shutdown_timeout` (a stall of this process not counted:
    `runtime.stalls`); it is always reaped.
    """
    token = token or secrets.token_urlsafe(32)
    command = [sys.executable, "-m", "runtime.node", "--listen", "127.0.0.1:0", "--app", app, "--backend", backend]
    if seats is not None:
        command += ["--seats", str(seats)]
    # The token goes through the environment, not argv, so `ps` does not show it.
    # The lifeline ends the node (and what it started) if this process dies unannounced.
    child_env = {**os.environ, **(env or {}), TOKEN_ENV: token, **lifeline_env()}
    stderr = _Tail()
    async with await anyio.open_process(command, env=child_env, stdin=subprocess.DEVNULL) as process:
        name = f"node {app} (pid {process.pid})"
        watch = _Watch()
        try:
            async with anyio.create_task_group() as tg:
                assert process.stderr is not None
                tg.start_soon(stderr.drain, process.stderr)
                try:
                    await _run(process, token, watch, tg, ready_timeout, shutdown_timeout, task_status)
                finally:
                    with anyio.CancelScope(shield=True):
                        await _stop(process, shutdown_timeout)
                        with cancel_scope_at(anyio.current_time() + 1.0):  # a stall of this process does not count
                            await stderr.eof.wait()  # the last words of a dying node
                    tg.cancel_scope.cancel()
        finally:
            with anyio.CancelScope(shield=True):
                await _stop(process, shutdown_timeout)
    raise NodeDied(
        watch.describe(name, process.returncode) + (f"\n--- last stderr lines ---\n{stderr.text(15)}" if stderr.lines else ""),
        returncode=process.returncode,
        close_code=watch.closed.code if watch.closed else None,
        close_reason=watch.closed.reason if watch.closed else None,
        stderr=stderr.text(),
    )


class _Watch:
    """What was seen of a local node's end, for NodeDied's message."""

    def __init__(self) -> None:
        self.problem: str | None = None
        self.closed: ConnectionClosed | None = None

    def describe(self, name: str, returncode: int | None) -> str:
        if returncode is None:
            exit = "did not exit"
        elif returncode < 0:
            exit = f"was killed by {_signal_name(-returncode)}"
        else:
            exit = f"exited with code {returncode}"
        parts = [f"{name} {exit}"]
        if self.problem:
            parts.append(self.problem)
        if self.closed is not None:
            parts.append(f"connection closed: {self.closed.code} {self.closed.reason}".rstrip())
        return "; ".join(parts)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


async def _run(
    process: Process,
    token: str,
    watch: _Watch,
    tg: TaskGroup,
    ready_timeout: float,
    shutdown_timeout: float,
    task_status: TaskStatus[NodeConnection],
) -> None:
    assert process.stdout is not None
    stdout = BufferedByteReceiveStream(process.stdout)
    address = None
    with cancel_scope_at(anyio.current_time() + ready_timeout):  # a stall of this process does not count
        address = await _ready_address(stdout)
        if address is None:
            watch.problem = "it never reported listening"
            await process.wait()
            return
    if address is None:
        watch.problem = f"it did not report listening within {ready_timeout:g} s"
        return
    tg.start_soon(_discard, stdout)  # actors may print; the pipe must never fill
    try:
        connection = await open_connection(f"ws://{address}", token, pid=process.pid)
    except CANNOT_OPEN as exc:
        watch.problem = f"could not connect to it: {exc}"
        return
    try:
        task_status.started(connection)
        read_done = anyio.Event()
        async with anyio.create_task_group() as race:

            async def read() -> None:
                watch.closed = await connection.run()
                read_done.set()
                race.cancel_scope.cancel()

            async def wait() -> None:
                returncode = await process.wait()
                # Fail pending asks now rather than when the socket notices,
                # but give the reader a moment to record how the node closed it.
                connection._lose(ConnectionClosed(ABNORMAL_CLOSURE, f"node process exited with code {returncode}"))
                with cancel_scope_at(anyio.current_time() + 0.5):  # a stall of this process does not count
                    await read_done.wait()
                race.cancel_scope.cancel()

            race.start_soon(read)
            race.start_soon(wait)
        if process.returncode is None:
            # The connection ended first; give the node a moment to exit on its
            # own so its exit code and last stderr lines are in the report.
            with cancel_scope_at(anyio.current_time() + shutdown_timeout):  # a stall does not count
                await process.wait()
    finally:
        await connection.aclose()


async def _ready_address(stdout: BufferedByteReceiveStream) -> str | None:
    """Read stdout up to the node's `{"listening": "host:port"}` line; None at EOF."""
    while True:
        try:
            line = await stdout.receive_until(b"\n", 65536)
        except (anyio.IncompleteRead, anyio.EndOfStream, anyio.DelimiterNotFound, anyio.BrokenResourceError):
            return None
        try:
            ready = json.loads(line)
        except ValueError:
            continue
        if isinstance(ready, dict) and isinstance(ready.get("listening"), str):
            return ready["listening"]


async def _discard(stream: ByteReceiveStream) -> None:
    try:
        async for _ in stream:
            pass
    except (anyio.BrokenResourceError, anyio.ClosedResourceError):
        pass


async def _stop(process: Process, timeout: float) -> None:
    """SIGTERM, then SIGKILL after `timeout`; always reap (no zombies). A stall of this process
    (`runtime.stalls`) does not count against `timeout`: a node exiting cleanly while this process
    was stopped is not killed for the time it was not watched."""
    if process.returncode is None:
        try:
            process.terminate()
        except ProcessLookupError:
            pass
        with cancel_scope_at(anyio.current_time() + timeout):
            await process.wait()
            return
        try:
            process.kill()
        except ProcessLookupError:
            pass
    await process.wait()
