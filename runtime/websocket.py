"""One websocket implementation for asyncio and trio.

websockets' Sans-I/O protocol objects (`ClientProtocol`, `ServerProtocol`)
do the framing, masking, ping answers and close handshake; this module only
moves their bytes over anyio TCP streams, so the same code runs on either
backend. Only binary messages are carried (msgpack envelopes with raw PNG
bytes); a text message is a peer speaking another protocol and closes the
connection with 1003.

Two rules keep the byte stream sound when several tasks share a socket:

- every write goes through `_flush`: one task at a time takes whatever the
  protocol has queued, in the order it was queued;
- a write that has started is finished even if its task is cancelled
  (shielded, but bounded by `write_timeout`): half a frame on the wire
  would corrupt every message after it. A write that cannot finish in time
  kills the connection instead.

Every way a connection ends (close frame, oversized message, text frame,
abrupt EOF, reset) surfaces as one `ConnectionClosed(code, reason)`.
"""

from __future__ import annotations

import logging
import urllib.parse
from collections import deque
from functools import partial
from collections.abc import Awaitable, Callable

import anyio
from anyio.abc import SocketAttribute, SocketStream, TaskStatus
from websockets.client import ClientProtocol
from websockets.exceptions import InvalidStatus, InvalidURI
from websockets.exceptions import ProtocolError as _WsProtocolError
from websockets.frames import Close, Frame, Opcode
from websockets.http11 import Request, Response
from websockets.protocol import State
from websockets.server import ServerProtocol
from websockets.uri import parse_uri

from runtime.admission import Admission, accept_forever
from runtime.errors import ConnectionClosed, HandshakeError, describe
from runtime.loop import cancel_scope_at
from runtime.tokens import header_bytes, header_text, token_matches

__all__ = [
    "ABNORMAL_CLOSURE", "DEFAULT_HANDSHAKE_TIMEOUT", "DEFAULT_MAX_PENDING", "DEFAULT_MAX_SIZE", "MAX_ALLOWED_SIZE",
    "MESSAGE_TOO_BIG", "POLICY_VIOLATION", "WebSocket", "connect", "serve", "token_refusal",
]

DEFAULT_MAX_SIZE = 32 * 2**20
"""Largest incoming message by default: screenshots travel raw, but bounded."""

MAX_ALLOWED_SIZE = 256 * 2**20
"""A `max_size` above this is refused: one message must never exhaust memory."""

DEFAULT_HANDSHAKE_TIMEOUT = 5.0
"""Seconds a server gives a new connection to finish its opening handshake."""

DEFAULT_MAX_PENDING = 64
"""Connections a server lets sit in their handshake at once (they have not shown a token yet)."""

MAX_REASON_BYTES = 123  # a control frame carries 125 bytes, 2 of them the code

ABNORMAL_CLOSURE = 1006

POLICY_VIOLATION = 1008
"""The close code for a peer that sent what this end does not accept (bad bytes, any input to a one-way stream)."""

MESSAGE_TOO_BIG = 1009
"""The close code for a message past `max_size`, or past what the server may hold for all its peers."""

_FRAGMENT_OVERHEAD = 64
"""Bytes a held fragment costs beyond its payload: a million 1-byte frames are not 1 MB of memory."""

_CHUNK = 256 * 1024
_logger = logging.getLogger(__name__)

HttpHandler = Callable[[Request], Awaitable[tuple[int, str, bytes]]]
"""Answers a plain HTTP request (not a websocket upgrade): (status, content type, body)."""


def truncate_reason(reason: str) -> str:
    """Cut `reason` to the 123 UTF-8 bytes a close frame allows, never inside a character."""
    return reason.encode()[:MAX_REASON_BYTES].decode("utf-8", "ignore")


def _check_max_size(max_size: int) -> None:
    if not isinstance(max_size, int) or max_size <= 0:
        raise ValueError(f"max_size must be a positive number of bytes, got {max_size!r}")
    if max_size > MAX_ALLOWED_SIZE:
        raise ValueError(f"max_size {max_size} exceeds the allowed maximum of {MAX_ALLOWED_SIZE} bytes")


class WebSocket:
    """An open websocket connection carrying binary messages.

    `send` and `close` may be called from any number of tasks; `receive`
    from one task at a time.
    """

    close_timeout: float = 5.0
    """How long `close` waits for the peer to finish the closing handshake (time this process was
    stalled not counted: `runtime.stalls`)."""

    write_timeout: float = 60.0
    """How long one write may block (peer not reading) before the connection is declared dead."""

    def __init__(self, stream: SocketStream, protocol: ClientProtocol | ServerProtocol) -> None:
        self._stream = stream
        self._protocol = protocol
        self._writing: anyio.Event | None = None
        self._messages: deque[bytes] = deque()
        self._fragments: list[bytes] = []
        self._fragment_is_text = False
        self._refused = False
        self._handshake: Request | Response | None = None
        self._receiving = False
        self._eof = False
        self._stream_closed = False
        self._lost: str | None = None
        self._finished = anyio.Event()
        self._admission: Admission | None = None  # a server's connection counts its bytes against the server's budget
        self._fragment_cost = 0

    # --- public surface -----------------------------------------------------

    async def send(self, data: bytes) -> None:
        """Send one binary message; raise ConnectionClosed if the connection is over."""
        if self._protocol.state is not State.OPEN or self._lost is not None:
            raise self._closed_error()
        self._protocol.send_binary(data)
        await self._flush()
        if self._lost is not None:
            raise self._closed_error()

    async def receive(self) -> bytes:
        """Return the next binary message, or raise ConnectionClosed once there is none."""
        if self._receiving:
            raise anyio.BusyResourceError("receiving from")
        self._receiving = True
        try:
            while not self._messages:
                if self._protocol.state is not State.OPEN or self._eof:
                    await self._finish()
                    raise self._closed_error()
                await self._read_some()
            message = self._messages.popleft()
            self._account()
            return message
        finally:
            self._receiving = False

    async def close(self, code: int = 1000, reason: str = "") -> None:
        """Start (or join) the closing handshake and wait, bounded, until it is done."""
        await self._send_close(code, reason)
        if self._receiving:
            # Another task is reading: it will see the peer's answer and finish.
            with cancel_scope_at(anyio.current_time() + self.close_timeout):  # a stall of this process does not count
                await self._finished.wait()
            if not self._finished.is_set():
                await self._abort()
            return
        self._receiving = True
        try:
            await self._finish()
        finally:
            self._receiving = False

    @property
    def path(self) -> str:
        """The path (with its query) the client asked for; a server can serve several streams on one port.
        "" on the client's side."""
        return self._handshake.path if isinstance(self._handshake, Request) else ""

    @property
    def close_code(self) -> int | None:
        """How the connection ended, or None while it is open."""
        if self._protocol.state is State.OPEN and self._lost is None and not self._eof:
            return None
        return self._closed_error().code

    @property
    def close_reason(self) -> str | None:
        if self._protocol.state is State.OPEN and self._lost is None and not self._eof:
            return None
        return self._closed_error().reason

    # --- closing ------------------------------------------------------------

    async def _send_close(self, code: int, reason: str) -> None:
        if not _valid_code(code):
            raise ValueError(f"{code} is not a close code an endpoint may send")
        if self._protocol.state is State.OPEN and self._lost is None:
            self._protocol.send_close(code, truncate_reason(reason))
            await self._flush()

    async def _finish(self) -> None:
        """Drive the closing handshake to its end (bounded), then release the socket."""
        with cancel_scope_at(anyio.current_time() + self.close_timeout):  # a stall of this process does not count
            await self._flush()
            while self._protocol.state is not State.CLOSED and not self._eof and self._lost is None:
                await self._read_some()
        await self._abort()

    async def _abort(self) -> None:
        if self._admission is not None:
            self._admission.hold(self, 0)
            self._admission = None
        if not self._stream_closed:
            self._stream_closed = True
            await anyio.aclose_forcefully(self._stream)
        self._finished.set()

    async def abort(self, code: int = 1001, reason: str = "") -> None:
        """Send a close frame if possible, then release the socket without waiting.

        For shutdown paths: shielded and bounded, so a cancelled owner still
        tells the peer why, but never hangs on a peer that does not answer (1 s,
        a stall of this process not counted).
        """
        with anyio.CancelScope(shield=True):
            with cancel_scope_at(anyio.current_time() + 1.0):  # a stall of this process does not count
                try:
                    await self._send_close(code, reason)
                except ValueError:
                    pass
            self._lost = self._lost or "connection dropped by this side"
            await self._abort()

    def _closed_error(self) -> ConnectionClosed:
        p = self._protocol
        close: Close | None
        if p.close_sent is not None and p.close_rcvd_then_sent is False:
            close = p.close_sent  # we started the closing handshake
        elif p.close_rcvd is not None:
            close = p.close_rcvd
        else:
            close = p.close_sent  # we failed the connection (1009, 1003, ...)
        if close is not None:
            reason = close.reason or _DEFAULT_REASONS.get(close.code, "")
            return ConnectionClosed(int(close.code), reason)
        if self._lost is not None:
            return ConnectionClosed(ABNORMAL_CLOSURE, self._lost)
        return ConnectionClosed(ABNORMAL_CLOSURE, "connection lost without a close frame (EOF)")

    # --- moving bytes ----------------------------------------------------------

    async def _read_some(self) -> None:
        """Feed one chunk of network data (or EOF) to the protocol and act on it."""
        try:
            data = await self._stream.receive(_CHUNK)
        except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            self._eof = True
            self._protocol.receive_eof()
        else:
            self._protocol.receive_data(data)
        for event in self._protocol.events_received():
            self._on_event(event)
        self._account()
        await self._flush(wait=False)

    def _account(self) -> None:
        """Tell the server's budget what this connection holds; fail it with 1009 past the budget."""
        if self._admission is None or self._refused:
            return
        admission = self._admission
        held = len(self._protocol.reader.buffer) + self._fragment_cost + sum(map(len, self._messages))
        if not admission.hold(self, held):
            admission.hold(self, 0)
            self._admission = None
            self._refused = True
            self._fragments, self._fragment_cost = [], 0
            self._protocol.fail(MESSAGE_TOO_BIG, f"server busy: it holds at most {admission.max_buffered} bytes "
                                                 "of messages for all its peers")

    def _on_event(self, event: Request | Response | Frame) -> None:
        if isinstance(event, (Request, Response)):
            self._handshake = event
            return
        if self._refused:
            return  # we failed the connection; nothing after that counts
        # No check of the protocol state here: messages that arrived in the
        # same read as the peer's close frame came before it and are delivered.
        opcode = event.opcode
        if opcode is Opcode.TEXT or opcode is Opcode.BINARY:
            self._fragments = [bytes(event.data)]
            self._fragment_cost = len(event.data) + _FRAGMENT_OVERHEAD
            self._fragment_is_text = opcode is Opcode.TEXT
        elif opcode is Opcode.CONT:
            self._fragments.append(bytes(event.data))
            self._fragment_cost += len(event.data) + _FRAGMENT_OVERHEAD
        else:
            return  # ping (already answered by the protocol), pong, close
        if not event.fin:
            return
        data = self._fragments[0] if len(self._fragments) == 1 else b"".join(self._fragments)
        self._fragments, self._fragment_cost = [], 0
        if self._fragment_is_text:
            self._refused = True
            self._protocol.fail(1003, "text messages are not supported; send binary msgpack")
            return
        self._messages.append(data)

    async def _flush(self, *, wait: bool = True) -> None:
        """Write what the protocol queued, in order; see the module docstring.

        One task writes at a time and keeps writing until the queue is empty,
        so data queued meanwhile by others goes out in order. A sender
        (`wait=True`) returns once its data is on the wire. The reader
        (`wait=False`) never waits for a writer: it must go back to reading,
        or two peers sending large messages to each other could both stop
        reading while their writes wait for the other side.
        """
        while True:
            writing = self._writing
            if writing is not None:
                if not wait:
                    return
                await writing.wait()
                continue
            chunks = self._protocol.data_to_send()
            if not chunks:
                return
            if self._stream_closed:
                return
            done = self._writing = anyio.Event()
            try:
                with anyio.CancelScope(shield=True):
                    await self._write(chunks)
            finally:
                self._writing = None
                done.set()
            if not wait:
                return

    async def _write(self, chunks: list[bytes]) -> None:
        for chunk in chunks:
            with anyio.move_on_after(self.write_timeout) as scope:
                try:
                    if chunk:
                        await self._stream.send(chunk)
                    else:
                        await self._stream.send_eof()
                except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError) as exc:
                    self._lost = f"connection lost while sending: {type(exc).__name__} {exc}".strip()
            if scope.cancelled_caught:
                self._lost = f"peer did not read for {self.write_timeout:g} s"
            if self._lost is not None:
                await self._abort()
                return

    async def _read_handshake(self) -> Request | Response | None:
        while self._handshake is None and self._protocol.handshake_exc is None and not self._eof:
            await self._read_some()
        return self._handshake


def _valid_code(code: int) -> bool:
    try:
        Close(code, "").check()
    except _WsProtocolError:
        return False
    return True


_DEFAULT_REASONS = {
    1000: "normal closure",
    1001: "going away",
    1005: "no status code in the close frame",
}


# --- client -----------------------------------------------------------------------


async def connect(
    url: str,
    *,
    token: str | None = None,
    max_size: int = DEFAULT_MAX_SIZE,
    timeout: float = 10,
) -> WebSocket:
    """Open a websocket to `url` (ws:// only), sending `token` as a bearer token.

    Raises HandshakeError if the server refuses, TimeoutError if it does not
    answer within `timeout`, OSError if nothing listens there.
    """
    _check_max_size(max_size)
    try:
        uri = parse_uri(url)
    except InvalidURI as exc:
        raise ValueError(str(exc)) from None
    if uri.secure:
        raise ValueError(f"{url}: wss:// is not supported; nodes talk over loopback or a tunnel")
    authorization = None if token is None else f"Bearer {header_text(token)}"
    try:
        with anyio.fail_after(timeout):
            stream = await anyio.connect_tcp(uri.host, uri.port)
            try:
                return await _client_handshake(stream, uri, url, authorization, max_size)
            except BaseException:
                await anyio.aclose_forcefully(stream)
                raise
    except TimeoutError:
        raise TimeoutError(f"websocket handshake with {url} took longer than {timeout:g} s") from None


async def _client_handshake(stream: SocketStream, uri, url: str, authorization: str | None, max_size: int) -> WebSocket:
    protocol = ClientProtocol(uri, max_size=max_size)
    request = protocol.connect()
    if authorization is not None:
        request.headers["Authorization"] = authorization
    protocol.send_request(request)
    ws = WebSocket(stream, protocol)
    await ws._flush()
    response = await ws._read_handshake()
    if protocol.handshake_exc is None and protocol.state is State.OPEN:
        return ws
    exc = protocol.handshake_exc
    if isinstance(exc, InvalidStatus):
        body = bytes(exc.response.body).decode("utf-8", "replace").strip()
        status = exc.response.status_code
        raise HandshakeError(f"{url} refused the websocket handshake: HTTP {status}: {body}", status, body)
    detail = str(exc) if exc is not None else "connection closed before the handshake response"
    if response is None and exc is None:
        detail = "connection closed before the handshake response"
    raise HandshakeError(f"websocket handshake with {url} failed: {detail}")


# --- server -----------------------------------------------------------------------


async def serve(
    handler: Callable[[WebSocket], Awaitable[None]],
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    token: str | None,
    max_size: int = DEFAULT_MAX_SIZE,
    handshake_timeout: float = DEFAULT_HANDSHAKE_TIMEOUT,
    max_pending: int = DEFAULT_MAX_PENDING,
    max_buffered: int | None = None,
    http: HttpHandler | None = None,
    query_token: bool = False,
    task_status: TaskStatus[int] = anyio.TASK_STATUS_IGNORED,
) -> None:
    """Accept websocket connections until cancelled; report the bound port.

    Each connection runs `handler` in its own task, owned by this function's
    task group. `token=None` disables authentication and must be asked for
    explicitly. A handler's exception closes its connection with 1011 and the
    error text; it never stops the server.

    `http`, if given, answers requests that are not websocket upgrades (so one
    port can serve a web page and its event stream); without it they get 426.
    `query_token` also accepts the token as `?token=` in the URL, because a
    browser's WebSocket cannot send an Authorization header.

    Floods are bounded (runtime.admission): accept errors such as running out
    of open files are survived, at most `max_pending` connections sit in
    their handshake (each for `handshake_timeout` seconds at most; one more
    evicts the oldest), and all
    connections together hold at most `max_buffered` bytes of messages
    (default: twice `max_size`).
    """
    _check_max_size(max_size)
    admission = Admission(max_pending=max_pending, max_buffered=max_buffered or 2 * max_size)
    connection = partial(_serve_connection, handler, _Gate(token, query_token, http), max_size, handshake_timeout, admission)
    listener = await anyio.create_tcp_listener(local_host=host, local_port=port)
    async with listener:
        bound = listener.extra(SocketAttribute.local_port)
        async with anyio.create_task_group() as tg:
            task_status.started(bound)
            for each in listener.listeners:
                tg.start_soon(accept_forever, each, connection, tg, admission)


class _Gate:
    """What a server checks before it upgrades: the token, and who answers plain HTTP."""

    def __init__(self, token: str | None, query_token: bool, http: HttpHandler | None) -> None:
        self.token = token
        self.query_token = query_token
        self.http = http


async def _serve_connection(
    handler: Callable[[WebSocket], Awaitable[None]],
    gate: _Gate,
    max_size: int,
    handshake_timeout: float,
    admission: Admission,
    stream: SocketStream,
) -> None:
    ws: WebSocket | None = None
    try:
        try:
            with anyio.move_on_after(handshake_timeout) as handshake:
                admission.handshaking(stream, handshake)
                ws = await _accept(stream, gate, max_size)
        finally:
            admission.handshake_over(stream)
        if ws is None:
            return
        ws._admission = admission
        try:
            await handler(ws)
        except Exception as exc:
            _logger.warning("websocket handler failed", exc_info=True)
            await ws.close(1011, describe(exc))
        else:
            await ws.close(1000)
    finally:
        if ws is not None and not ws._stream_closed:
            await ws.abort(1001, "server shutting down")
        with anyio.CancelScope(shield=True):
            await anyio.aclose_forcefully(stream)


async def _accept(stream: SocketStream, gate: _Gate, max_size: int) -> WebSocket | None:
    protocol = ServerProtocol(max_size=max_size)
    ws = WebSocket(stream, protocol)
    request = await ws._read_handshake()
    if not isinstance(request, Request):
        await ws._flush()  # a malformed request may have an error response queued
        return None
    if gate.http is not None and request.headers.get("Upgrade", "").lower() != "websocket":
        protocol.send_response(await _answer_http(protocol, gate.http, request))
        await ws._flush()
        return None
    response = protocol.accept(request)
    if response.status_code == 101 and gate.token is not None:
        refusal = token_refusal(request, gate.token, in_query=gate.query_token)
        if refusal is not None:
            response = protocol.reject(401, f"Failed to open a WebSocket connection: {refusal}.\n")
            response.headers["WWW-Authenticate"] = 'Bearer realm="troupe"'
    protocol.send_response(response)
    await ws._flush()
    return ws if response.status_code == 101 else None


async def _answer_http(protocol: ServerProtocol, http: HttpHandler, request: Request) -> Response:
    try:
        status, content_type, body = await http(request)
    except Exception as exc:
        _logger.warning("HTTP handler failed", exc_info=True)
        status, content_type, body = 500, "text/plain; charset=utf-8", f"{type(exc).__name__}: {exc}\n".encode()
    response = protocol.reject(status, "")
    for name, value in (("Content-Type", content_type), ("Content-Length", str(len(body)))):
        if name in response.headers:
            del response.headers[name]
        response.headers[name] = value
    response.body = body
    return response


def _query_token(request: Request) -> str | None:
    """The `token` query parameter of the request's URL, if any."""
    values = urllib.parse.parse_qs(urllib.parse.urlsplit(request.path).query).get("token")
    return values[0] if values else None


def token_refusal(request: Request, token: str, *, in_query: bool = False) -> str | None:
    """Why the request does not carry `token` as a bearer token, or None if it does.

    `in_query` also takes `?token=` in the URL, for browsers (a page link, a
    browser's WebSocket, which cannot send headers).
    """
    values = request.headers.get_all("Authorization")
    if not values and in_query and (in_url := _query_token(request)) is not None:
        return None if token_matches(in_url, token) else "invalid token"
    if not values:
        where = "open the URL with ?token=<token>, or send" if in_query else "send"
        return f"missing token ({where} 'Authorization: Bearer <token>')"
    if len(values) > 1:
        return "more than one Authorization header"
    scheme, _, credentials = values[0].partition(" ")
    if scheme.lower() != "bearer":
        return f"unsupported authorization scheme {scheme!r} (expected Bearer)"
    if not token_matches(header_bytes(credentials.strip()), token):
        return "invalid token"
    return None
