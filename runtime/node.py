"""A node: a process that hosts actors and serves them over a websocket.

On a real VM the node runs next to the screen; the supervisor talks to its
actors through `runtime.remote`. What a node hosts is decided by the command
line (`--app module:callable`), never by the socket: a peer can only send
`ask` and `tell` envelopes to actors that are already there.

Per connection, tells are forwarded in the order they arrive (and wait while
the actor's mailbox is full: that is the backpressure) while each ask runs in
its own task, so one slow ask does not hold up the others. Bytes that are not
a valid envelope close that connection with 1008 and the reason; the node
goes on serving everyone else.

A hosted actor that crashes takes the node down with it: a crashed browser
or desktop is a crashed node, and the supervisor restarts the whole thing.
An actor left busy with an ask whose connection closed (a VM slot gave up on
a call that hangs and starts again: on a node someone else started, the run
cannot restart the node) is interrupted and run again, the same instance
(`_Hosted`): otherwise a `--connect` seat would stay stuck for the rest of
the run.

    python -m runtime.node --listen 127.0.0.1:0 --token TOKEN --app pkg.mod:build [--seats N]

With `--seats N` the app is called as `build(seats=N)` and hosts N copies of
its actors, named per seat (`runtime.seats`): N VM slots in one process.

A client learns what the node hosts by asking it `Hello` first: the node
itself answers `Welcome`, with its seats (None without `--seats`) and an id
drawn when it started. A client also speaks to nodes older than `Hello`:
those close the connection on it with 1008 (`runtime.remote`).
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import math
import os
import secrets
import signal
import sys
import traceback
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import Any

import anyio
from anyio.abc import TaskGroup, TaskStatus

from protocols.codec import MESSAGE_TYPES, Envelope, decode, encode
from protocols.messages import MAX_SEATS, Ack, Hello, Welcome
from runtime.actor import Actor, LocalRef, run_actor
from runtime.errors import ActorError, ActorStopped, ConnectionClosed, NodeCrashed, ProtocolError, UnknownActor, describe, to_failure
from runtime.lifeline import die_with_parent
from runtime.remote import TOKEN_ENV
from runtime.websocket import DEFAULT_HANDSHAKE_TIMEOUT, DEFAULT_MAX_SIZE, POLICY_VIOLATION, WebSocket, serve

__all__ = ["load_app", "main", "serve_node"]


class _Hosted:
    """A hosted actor, as a Ref to whichever run of it serves now.

    `interrupt` cancels a busy actor's run: the letter it was handling and those
    queued fail, its `on_stop` runs, and it is run again (`on_start`, a fresh
    mailbox); asks that come meanwhile wait for the new run. Its state is the
    same instance's, so whatever the next asker sends first should give it a
    fresh start: a VM slot's episode begins with `Reset`."""

    def __init__(self, actor: Actor) -> None:
        self.name = actor.name
        self.ref: LocalRef | None = None
        self.serving = anyio.Event()
        self.scope = anyio.CancelScope()

    def started(self, ref: LocalRef) -> None:
        self.ref = ref
        self.serving.set()

    def interrupt(self) -> None:
        """Run the actor again if it is busy (one waiting for a letter has nothing to interrupt)."""
        if self.ref is None or self.ref.idle:
            return
        self.ref = None
        self.serving = anyio.Event()
        self.scope.cancel()

    async def ask(self, message: Any, timeout: float = math.inf) -> Any:
        return await self._call(lambda ref: ref.ask(message, timeout))

    async def tell(self, message: Any) -> None:
        await self._call(lambda ref: ref.tell(message))

    async def _call(self, call: Callable[[LocalRef], Awaitable[Any]]) -> Any:
        while True:
            serving = self.serving
            if not serving.is_set():  # an Event's wait checkpoints even when set: a round per ask
                await serving.wait()
            try:
                return await call(self.ref)
            except ActorStopped:
                if self.serving is serving:
                    raise  # not run again: it really stopped
            # interrupted before the letter got in: to the next run


class _Node:
    def __init__(self, seats: int | None) -> None:
        self.hosted: dict[str, _Hosted] = {}
        self.welcome = Welcome(seats=seats, node=secrets.token_hex(8))
        # Why connections are closed when the node stops; a crash replaces it.
        self.closing = (1001, "node shutting down")

    async def host(self, actor: Actor, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Run `actor`, and again whenever it is interrupted; report once it first started."""
        hosted = self.hosted[actor.name] = _Hosted(actor)
        report = task_status
        while True:
            hosted.scope = anyio.CancelScope()
            with hosted.scope:
                try:
                    await run_actor(actor, task_status=_Started(hosted, report))
                except Exception as exc:
                    reason = f"hosted actor {actor.name!r} crashed: {describe(exc)}"
                    self.closing = (1011, reason)
                    raise NodeCrashed(reason) from exc
            if not hosted.scope.cancelled_caught:
                return
            report = anyio.TASK_STATUS_IGNORED

    async def handle(self, ws: WebSocket) -> None:
        waiting: Counter[str] = Counter()  # this connection's asks in flight, by actor
        try:
            async with anyio.create_task_group() as asks:
                try:
                    await self._read(ws, asks, waiting)
                finally:
                    asks.cancel_scope.cancel()  # nobody is left to read the answers
                    for name in +waiting:  # their actors may be stuck on them
                        self.hosted[name].interrupt()
        finally:
            if ws.close_code is None:
                await ws.abort(*self.closing)

    async def _read(self, ws: WebSocket, asks: TaskGroup, waiting: Counter[str]) -> None:
        while True:
            try:
                data = await ws.receive()
            except ConnectionClosed:
                return
            try:
                envelope, message = decode(data)
                if envelope.kind not in ("ask", "tell"):
                    raise ProtocolError(f"a node accepts only ask and tell envelopes, not {envelope.kind!r}")
            except ProtocolError as exc:
                await ws.close(POLICY_VIOLATION, str(exc))
                return
            if isinstance(message, Hello):
                if envelope.kind == "ask":
                    await _send(ws, encode("reply", self.welcome, id=envelope.id, to=envelope.to))
                continue
            if envelope.kind == "ask":
                asks.start_soon(self._answer, ws, envelope, message, waiting)
                continue
            try:
                await self._ref(envelope.to).tell(message)
            except (ActorError, UnknownActor) as exc:
                # A tell has no one waiting for it; id 0 marks the error as unsolicited.
                await _send(ws, encode("error", to_failure(exc), id=0, to=envelope.to))

    async def _answer(self, ws: WebSocket, envelope: Envelope, message: Any, waiting: Counter[str]) -> None:
        waiting[envelope.to] += 1
        try:
            reply = await self._ref(envelope.to).ask(message)
            if reply is None:
                reply = Ack()
            if not isinstance(reply, MESSAGE_TYPES):
                raise TypeError(f"{envelope.to} replied with a {type(reply).__name__}, which is not a protocols message")
            data = encode("reply", reply, id=envelope.id, to=envelope.to)
        except Exception as exc:  # noqa: BLE001 - every failure goes back to the asker
            data = encode("error", to_failure(exc), id=envelope.id, to=envelope.to)
        finally:
            waiting[envelope.to] -= 1
        await _send(ws, data)

    def _ref(self, name: str) -> _Hosted:
        try:
            return self.hosted[name]
        except KeyError:
            hosted = ", ".join(sorted(self.hosted)) or "nothing"
            raise UnknownActor(f"no actor named {name!r} on this node; it hosts: {hosted}") from None


class _Started:
    """The task_status of one run of a hosted actor: each run makes it the one that serves;
    the first also reports to whoever started the node."""

    def __init__(self, hosted: _Hosted, report: TaskStatus[None]) -> None:
        self._hosted = hosted
        self._report = report

    def started(self, ref: LocalRef) -> None:
        self._hosted.started(ref)
        self._report.started()


async def _send(ws: WebSocket, data: bytes) -> None:
    try:
        await ws.send(data)
    except ConnectionClosed:
        pass  # the reader sees the close and ends the connection


async def serve_node(
    actors: Sequence[Actor],
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    token: str | None,
    seats: int | None = None,
    max_size: int = DEFAULT_MAX_SIZE,
    max_buffered: int | None = None,
    handshake_timeout: float = DEFAULT_HANDSHAKE_TIMEOUT,
    task_status: TaskStatus[int] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Run `actors` and serve them until cancelled; report the bound port.

    `seats` is what the node tells a client's `Hello`: how many VM slots
    `actors` are (1 to MAX_SEATS, each seat's named by
    `runtime.seats.seat_name`), or None.

    `max_size` bounds one incoming message, `max_buffered` the bytes of all
    connections' unfinished messages together (default: twice `max_size`),
    `handshake_timeout` how long a new connection may take to show its
    token; see runtime.admission for the bounds of a flood.

    Raises (in an ExceptionGroup, as task groups do) NodeCrashed when a
    hosted actor crashes.
    """
    names = [actor.name for actor in actors]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise ValueError(f"two hosted actors share a name: {', '.join(duplicates)}")
    node = _Node(seats)
    async with anyio.create_task_group() as tg:
        for actor in actors:
            await tg.start(node.host, actor)
        bound = await tg.start(partial(serve, node.handle, host=host, port=port, token=token, max_size=max_size,
                                       max_buffered=max_buffered, handshake_timeout=handshake_timeout))
        task_status.started(bound)


# --- command line ------------------------------------------------------------------


def load_app(spec: str, seats: int | None = None) -> Callable[[], Sequence[Actor]]:
    """Import `module:callable` (the callable may be a dotted attribute path); with `seats`,
    the callable must take `seats=` and is called with it."""
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(f"--app must look like module:callable, got {spec!r}")
    target: Any = importlib.import_module(module_name)
    for part in attribute.split("."):
        target = getattr(target, part)
    if not callable(target):
        raise TypeError(f"{spec} is not callable")
    if seats is None:
        return target
    try:
        inspect.signature(target).bind(seats=seats)
    except TypeError:
        raise TypeError(f"{spec} takes no `seats` argument: it cannot host several VM slots") from None
    except ValueError:
        pass  # no signature to read (a builtin): calling it will tell
    return partial(target, seats=seats)


def _parse_listen(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {value!r}")
    return host.strip("[]"), int(port)


async def _run(build: Callable[[], Sequence[Actor]], host: str, port: int, token: str, options: dict[str, Any]) -> None:
    actors = list(build())
    for actor in actors:
        if not isinstance(actor, Actor):
            raise TypeError(f"the app returned {actor!r}, which is not a runtime.actor.Actor")
    async with anyio.create_task_group() as tg:
        tg.start_soon(_stop_on_signal, tg.cancel_scope)
        bound = await tg.start(partial(serve_node, actors, host=host, port=port, token=token, **options))
        print(json.dumps({"listening": f"{host}:{bound}"}), flush=True)


async def _stop_on_signal(scope: anyio.CancelScope) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for signum in signals:
            print(f"troupe node: stopping on {signal.Signals(signum).name}", file=sys.stderr, flush=True)
            scope.cancel()
            return


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m runtime.node", description="Host actors and serve them over a websocket.")
    parser.add_argument("--listen", type=_parse_listen, default=("127.0.0.1", 0), help="HOST:PORT (port 0: any free port)")
    parser.add_argument("--token", default=None, help=f"bearer token clients must send (default: ${TOKEN_ENV})")
    parser.add_argument("--app", required=True, help="module:callable returning the actors to host")
    parser.add_argument("--backend", choices=("asyncio", "trio"), default="asyncio")
    parser.add_argument("--seats", type=int, default=None,
                        help="host this many VM slots: the app is called with seats=N (see runtime.seats)")
    parser.add_argument("--max-size", type=int, default=DEFAULT_MAX_SIZE, help="largest incoming message in bytes")
    parser.add_argument("--max-buffered", type=int, default=None,
                        help="bytes of unfinished messages all connections may hold together (default: twice --max-size)")
    parser.add_argument("--handshake-timeout", type=float, default=DEFAULT_HANDSHAKE_TIMEOUT,
                        help="seconds a new connection may take to finish its handshake")
    args = parser.parse_args(argv)
    if args.max_buffered is not None and args.max_buffered <= 0:
        parser.error(f"--max-buffered must be a positive number of bytes, got {args.max_buffered}")
    if args.seats is not None and not 1 <= args.seats <= MAX_SEATS:
        parser.error(f"--seats must be from 1 to {MAX_SEATS}, got {args.seats}")
    if not 0 < args.handshake_timeout <= 3600:
        parser.error(f"--handshake-timeout must be in (0, 3600] seconds, got {args.handshake_timeout}")
    token = args.token or os.environ.get(TOKEN_ENV)
    if not token:
        parser.error(f"no token: pass --token or set {TOKEN_ENV}; a node never runs unauthenticated")
    try:
        build = load_app(args.app, args.seats)
    except Exception as exc:  # noqa: BLE001 - import errors of any kind are reported the same way
        parser.error(f"cannot load --app {args.app}: {type(exc).__name__}: {exc}")
    host, port = args.listen
    die_with_parent()  # a node started by run_local_node ends with its starter, even a SIGKILLed one
    try:
        options = {"seats": args.seats, "max_size": args.max_size, "max_buffered": args.max_buffered,
                   "handshake_timeout": args.handshake_timeout}
        anyio.run(_run, build, host, port, token, options, backend=args.backend)
    except BaseException as exc:  # noqa: BLE001 - the process reports and exits
        # The traceback first, the one-line summaries last: whoever keeps only
        # the tail of stderr (run_local_node does) still gets them.
        traceback.print_exception(exc, file=sys.stderr)
        for leaf in _leaves(exc):
            print(f"troupe node: {type(leaf).__name__}: {leaf}", file=sys.stderr)
        sys.stderr.flush()
        return 1
    return 0


if __name__ == "__main__":
    # Import the module by its real name so its classes are the ones the rest
    # of the process (and the app) sees, not copies living in __main__.
    from runtime.node import main as _main

    sys.exit(_main())
