"""One token check for node, viewer and WAA server: constant-time, and text of any alphabet.

Each server is started for real on 127.0.0.1 and sent tokens as a client
would, including raw non-ASCII header bytes that no troupe client sends.
"""

import http.client
import urllib.parse
from functools import partial

import anyio
import pytest

from actors.backends.waa.client import TOKEN_HEADER
from actors.backends.waa.server.http import make_server
from bench.viewer.server import ViewerServer
from runtime.errors import HandshakeError
from runtime.events import EventBus
from runtime.tokens import header_bytes, header_text, token_matches
from runtime.websocket import connect, serve

TOKEN = "clé-secrète-☃"


def test_token_matches_compares_text_as_utf8_and_never_raises():
    assert token_matches(TOKEN, TOKEN)
    assert token_matches(TOKEN.encode(), TOKEN)
    assert not token_matches("clé-secrète-", TOKEN)
    assert not token_matches(None, TOKEN)
    assert not token_matches("\udcff", TOKEN)  # a byte a header parser could not decode
    assert not token_matches(b"\xff\xfe", "plain")


def test_a_token_travels_in_a_header_as_its_utf8_bytes():
    assert header_bytes(header_text(TOKEN)) == TOKEN.encode()
    assert header_bytes(None) is None
    with pytest.raises(ValueError, match="control characters"):
        header_text("line\nbreak")


async def raw_upgrade(port: int, authorization: bytes) -> bytes:
    """The status line a server answers to an upgrade carrying these raw Authorization bytes."""
    async with await anyio.connect_tcp("127.0.0.1", port) as stream:
        await stream.send(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                          b"Authorization: " + authorization + b"\r\n\r\n")
        with anyio.fail_after(5):
            return (await stream.receive()).split(b"\r\n", 1)[0]


@pytest.mark.anyio
async def test_node_websocket_takes_a_non_ascii_token_and_refuses_wrong_ones_without_crashing():
    async def hello(ws):
        await ws.send(b"hello")

    async with anyio.create_task_group() as tg:
        port = await tg.start(partial(serve, hello, token=TOKEN))
        url = f"ws://127.0.0.1:{port}"
        ws = await connect(url, token=TOKEN)
        assert await ws.receive() == b"hello"
        await ws.close()
        with pytest.raises(HandshakeError, match="invalid token"):
            await connect(url, token="clé")
        assert await raw_upgrade(port, b"Bearer " + TOKEN.encode()) == b"HTTP/1.1 101 Switching Protocols"
        assert await raw_upgrade(port, b"Bearer \xff\xfe\x80") == b"HTTP/1.1 401 Unauthorized"
        with pytest.raises(ValueError, match="control characters"):
            await connect(url, token="a\r\nX-Injected: 1")
        tg.cancel_scope.cancel()


async def viewer_status(port: int, path: str, headers: dict[str, str] | None = None) -> int:
    def get() -> int:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        try:
            connection.request("GET", path, headers=headers or {})
            return connection.getresponse().status
        finally:
            connection.close()

    return await anyio.to_thread.run_sync(get)


@pytest.mark.anyio
async def test_viewer_page_takes_the_token_in_the_url_or_a_bearer_header():
    async with anyio.create_task_group() as tg:
        port = await tg.start(ViewerServer(EventBus(), token=TOKEN).run)
        assert await viewer_status(port, "/?token=" + urllib.parse.quote(TOKEN)) == 200
        assert await viewer_status(port, "/", {"Authorization": "Bearer " + header_text(TOKEN)}) == 200
        assert await viewer_status(port, "/?token=" + urllib.parse.quote("clé")) == 401
        assert await viewer_status(port, "/?token=%FF%FE") == 401
        assert await viewer_status(port, "/") == 401
        tg.cancel_scope.cancel()


@pytest.fixture
def waa_server():
    with make_server(None, TOKEN, 0) as server:  # /probe never touches the desktop
        yield server.port


def waa_probe(port: int, token: bytes | None) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.putrequest("GET", "/probe")
        if token is not None:
            connection.putheader(TOKEN_HEADER, token)
        connection.endheaders()
        return connection.getresponse().status
    finally:
        connection.close()


def test_waa_server_takes_a_non_ascii_token_and_refuses_wrong_ones_without_crashing(waa_server):
    assert waa_probe(waa_server, TOKEN.encode()) == 200
    assert waa_probe(waa_server, "clé".encode()) == 401
    assert waa_probe(waa_server, b"\xff\xfe\x80") == 401
    assert waa_probe(waa_server, None) == 401
