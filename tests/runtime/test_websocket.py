from contextlib import asynccontextmanager

import anyio
import msgspec
import pytest
from websockets.client import ClientProtocol
from websockets.frames import Opcode
from websockets.http11 import Response
from websockets.server import ServerProtocol
from websockets.uri import parse_uri

from protocols import Observation, Viewport
from runtime.websocket import (
    DEFAULT_MAX_SIZE, MAX_ALLOWED_SIZE, ConnectionClosed, HandshakeError, connect, serve,
)

pytestmark = pytest.mark.anyio

TOKEN = "s3cret-token"


class Echo:
    """Server handler: echoes binary messages; records how its connections ended."""

    def __init__(self):
        self.closed: list[ConnectionClosed] = []
        self.ended = anyio.Event()

    async def __call__(self, ws):
        try:
            while True:
                data = await ws.receive()
                if data == b"raise":
                    raise ValueError("handler gave up: " + "é" * 100)
                await ws.send(data)
        except ConnectionClosed as exc:
            self.closed.append(exc)
        finally:
            self.ended.set()


@asynccontextmanager
async def serving(handler, **kwargs):
    """`handler` served (with TOKEN unless `token` is given) while the block runs: yields the port."""
    kwargs.setdefault("token", TOKEN)
    async with anyio.create_task_group() as tg:
        yield await tg.start(lambda task_status: serve(handler, task_status=task_status, **kwargs))
        tg.cancel_scope.cancel()


class RawClient:
    """A client driving websockets' Sans-I/O protocol by hand, to send what
    `WebSocket` never would (text frames, pings, an abrupt EOF)."""

    @classmethod
    async def open(cls, port, token=TOKEN):
        self = cls()
        self.stream = await anyio.connect_tcp("127.0.0.1", port)
        self.protocol = ClientProtocol(parse_uri(f"ws://127.0.0.1:{port}"), max_size=None)
        request = self.protocol.connect()
        request.headers["Authorization"] = f"Bearer {token}"
        self.protocol.send_request(request)
        await self.flush()
        events = await self.events()
        assert isinstance(events[0], Response) and events[0].status_code == 101
        return self

    async def flush(self):
        for chunk in self.protocol.data_to_send():
            if chunk:
                await self.stream.send(chunk)
            else:
                await self.stream.send_eof()

    async def events(self):
        with anyio.fail_after(5):
            while True:
                try:
                    self.protocol.receive_data(await self.stream.receive())
                except (anyio.EndOfStream, anyio.BrokenResourceError):
                    self.protocol.receive_eof()
                await self.flush()
                events = self.protocol.events_received()
                if events or self.protocol.state.name == "CLOSED":
                    return events


async def test_observation_with_a_1mb_screenshot_round_trips_byte_for_byte():
    screenshot = bytes(range(256)) * 4096  # 1 MiB, every byte value
    observation = Observation(screenshot=screenshot, viewport=Viewport(1280, 800), url="https://example.org")
    async with serving(Echo()) as port:
        ws = await connect(f"ws://127.0.0.1:{port}", token=TOKEN)
        await ws.send(msgspec.msgpack.encode(observation))
        back = msgspec.msgpack.decode(await ws.receive(), type=Observation)
        assert back == observation and len(back.screenshot) == 2**20
        await ws.close()
        assert (ws.close_code, ws.close_reason) == (1000, "normal closure")


async def test_missing_or_wrong_token_is_refused_in_the_handshake_and_the_right_one_accepted():
    async with serving(Echo()) as port:
        url = f"ws://127.0.0.1:{port}"
        with pytest.raises(HandshakeError, match="HTTP 401.*missing token") as missing:
            await connect(url)
        assert missing.value.status == 401
        with pytest.raises(HandshakeError, match="HTTP 401.*invalid token"):
            await connect(url, token=TOKEN + "x")
        with pytest.raises(HandshakeError, match="invalid token"):
            await connect(url, token="")
        ws = await connect(url, token=TOKEN)
        await ws.send(b"in")
        assert await ws.receive() == b"in"
        await ws.close()


async def test_a_server_without_a_token_must_say_so_and_then_accepts_anyone():
    with pytest.raises(TypeError):
        await serve(Echo())  # token is a required keyword
    async with serving(Echo(), token=None) as port:
        ws = await connect(f"ws://127.0.0.1:{port}")
        await ws.send(b"open")
        assert await ws.receive() == b"open"


async def test_oversized_message_closes_with_1009_and_the_server_keeps_serving():
    echo = Echo()
    async with serving(echo, max_size=64 * 1024) as port:
        ws = await connect(f"ws://127.0.0.1:{port}", token=TOKEN)
        await ws.send(b"x" * (64 * 1024 + 1))
        with pytest.raises(ConnectionClosed) as info:
            await ws.receive()
        assert info.value.code == 1009 and "exceeds limit" in info.value.reason
        with anyio.fail_after(5):
            await echo.ended.wait()
        assert echo.closed[0].code == 1009

        other = await connect(f"ws://127.0.0.1:{port}", token=TOKEN)
        await other.send(b"y" * (64 * 1024))  # exactly at the limit is fine
        assert await other.receive() == b"y" * (64 * 1024)


async def test_the_client_bounds_what_it_accepts_too():
    echo = Echo()
    async with serving(echo) as port:
        ws = await connect(f"ws://127.0.0.1:{port}", token=TOKEN, max_size=1000)
        await ws.send(b"z" * 1001)  # the server echoes it; the client refuses it
        with pytest.raises(ConnectionClosed) as info:
            await ws.receive()
        assert info.value.code == 1009
        with anyio.fail_after(5):
            await echo.ended.wait()
        assert echo.closed[0].code == 1009


async def test_max_size_is_bounded():
    assert DEFAULT_MAX_SIZE > 2**20  # raised above websockets' 1 MiB default for screenshots
    with pytest.raises(ValueError, match="exceeds the allowed maximum"):
        await connect("ws://127.0.0.1:9", max_size=MAX_ALLOWED_SIZE + 1)
    with pytest.raises(ValueError, match="exceeds the allowed maximum"):
        await serve(Echo(), token=None, max_size=MAX_ALLOWED_SIZE + 1)
    with pytest.raises(ValueError, match="positive"):
        await connect("ws://127.0.0.1:9", max_size=0)


async def test_text_messages_close_the_connection_with_1003():
    echo = Echo()
    async with serving(echo) as port:
        raw = await RawClient.open(port)
        raw.protocol.send_text(b"{\"json\": true}")
        await raw.flush()
        events = await raw.events()
        close = [e for e in events if e.opcode is Opcode.CLOSE]
        assert close, events
        assert raw.protocol.close_rcvd.code == 1003
        assert "text messages are not supported" in raw.protocol.close_rcvd.reason
        while raw.protocol.state.name != "CLOSED":  # finish the closing handshake
            await raw.events()
        with anyio.fail_after(5):
            await echo.ended.wait()
        assert echo.closed[0].code == 1003


async def test_pings_are_answered_and_fragmented_messages_reassembled():
    async with serving(Echo()) as port:
        raw = await RawClient.open(port)
        raw.protocol.send_ping(b"are you there")
        await raw.flush()
        events = await raw.events()
        assert [(e.opcode, e.data) for e in events] == [(Opcode.PONG, b"are you there")]

        raw.protocol.send_binary(b"frag", fin=False)
        raw.protocol.send_continuation(b"ment", fin=False)
        raw.protocol.send_continuation(b"ed", fin=True)
        await raw.flush()
        events = await raw.events()
        assert [(e.opcode, e.data) for e in events] == [(Opcode.BINARY, b"fragmented")]


async def test_abrupt_eof_from_the_client_is_a_1006_connection_closed_on_the_server():
    echo = Echo()
    async with serving(echo) as port:
        raw = await RawClient.open(port)
        await raw.stream.aclose()
        with anyio.fail_after(5):
            await echo.ended.wait()
        assert echo.closed[0].code == 1006
        assert "without a close frame" in echo.closed[0].reason


async def test_abrupt_eof_from_the_server_is_a_1006_connection_closed_on_the_client():
    async def accept_then_vanish(stream):
        protocol = ServerProtocol()
        while not (events := protocol.events_received()):
            protocol.receive_data(await stream.receive())
        protocol.send_response(protocol.accept(events[0]))
        for chunk in protocol.data_to_send():
            await stream.send(chunk)
        await stream.aclose()

    async with anyio.create_task_group() as tg:
        listener = await anyio.create_tcp_listener(local_host="127.0.0.1")
        port = listener.extra(anyio.abc.SocketAttribute.local_port)
        tg.start_soon(listener.serve, accept_then_vanish)
        ws = await connect(f"ws://127.0.0.1:{port}")
        with pytest.raises(ConnectionClosed) as info:
            await ws.receive()
        assert info.value.code == 1006
        with pytest.raises(ConnectionClosed):
            await ws.send(b"anyone?")
        tg.cancel_scope.cancel()


async def test_a_handler_exception_closes_with_1011_and_a_truncated_reason_but_the_server_goes_on():
    async with serving(Echo()) as port:
        ws = await connect(f"ws://127.0.0.1:{port}", token=TOKEN)
        await ws.send(b"raise")
        with pytest.raises(ConnectionClosed) as info:
            await ws.receive()
        assert info.value.code == 1011
        assert info.value.reason.startswith("ValueError: handler gave up: éé")
        assert 100 < len(info.value.reason.encode()) <= 123

        ws = await connect(f"ws://127.0.0.1:{port}", token=TOKEN)
        await ws.send(b"still there?")
        assert await ws.receive() == b"still there?"


async def test_close_reason_is_cut_to_123_bytes_on_a_character_boundary():
    echo = Echo()
    async with serving(echo) as port:
        ws = await connect(f"ws://127.0.0.1:{port}", token=TOKEN)
        await ws.close(4000, "ü" * 200)
        with anyio.fail_after(5):
            await echo.ended.wait()
        assert echo.closed[0].code == 4000
        assert echo.closed[0].reason == "ü" * 61  # 122 bytes; a 62nd would need 124
        with pytest.raises(ValueError):
            await ws.close(1006)  # reserved: never sent in a close frame


async def test_concurrent_senders_and_a_cancelled_send_never_corrupt_the_stream():
    async with serving(Echo()) as port:
        ws = await connect(f"ws://127.0.0.1:{port}", token=TOKEN)
        sent = {bytes([i]) * (100_000 + i) for i in range(20)}
        async with anyio.create_task_group() as senders:
            for message in sent:
                senders.start_soon(ws.send, message)
        received = {await ws.receive() for _ in sent}
        assert received == sent

        big = b"B" * (8 * 2**20)
        with anyio.CancelScope() as scope:
            scope.cancel()
            await ws.send(big)  # a started write completes: half a frame would break the stream
        await ws.send(b"after")
        assert await ws.receive() == big
        assert await ws.receive() == b"after"


async def test_connect_errors_are_clear():
    with pytest.raises(ValueError, match="wss"):
        await connect("wss://127.0.0.1:9")
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1")
    port = listener.extra(anyio.abc.SocketAttribute.local_port)
    await listener.aclose()
    with pytest.raises(OSError):
        await connect(f"ws://127.0.0.1:{port}")


async def test_messages_sent_just_before_a_close_are_delivered_before_connection_closed():
    async def last_words(ws):
        for i in range(3):
            await ws.send(b"last words %d" % i)
        await ws.close(4001, "bye")

    async with serving(last_words) as port:
        ws = await connect(f"ws://127.0.0.1:{port}", token=TOKEN)
        await anyio.sleep(0.05)  # let everything arrive, so one read holds the messages and the close
        assert [await ws.receive() for _ in range(3)] == [b"last words 0", b"last words 1", b"last words 2"]
        with pytest.raises(ConnectionClosed) as info:
            await ws.receive()
        assert (info.value.code, info.value.reason) == (4001, "bye")
