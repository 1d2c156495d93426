"""The vlc_playing_info getter against a stand-in of VLC's web interface on a real socket: it asks
/requests/status.xml with OSWorld's password (empty user name), gives the XML on 200, None on any other
answer (a wrong password's 401), and an evaluation error when nothing answers, as OSWorld's getter raises."""

from __future__ import annotations

import base64
import socket

import pytest

from actors.backends.waa.client import WAAClient
from bench.suites.osworld.episode import Episode
from bench.suites.osworld.errors import GetterFailed
from bench.suites.osworld.getters import resolve
from runtime.http_server import LoopbackHTTPServer, QuietHandler, send_reply

pytestmark = pytest.mark.anyio

STATUS_XML = b"<?xml version='1.0' encoding='utf-8'?><root><state>playing</state></root>"


def vlc_web(password: str) -> LoopbackHTTPServer:
    """VLC's Lua HTTP interface as far as the getter reaches it: Basic auth, status.xml."""
    wanted = "Basic " + base64.b64encode(f":{password}".encode()).decode()

    class Handler(QuietHandler):
        def do_GET(self):
            if self.headers.get("Authorization") != wanted:
                return send_reply(self, 401, "text/plain", b"Unauthorized")
            if self.path != "/requests/status.xml":
                return send_reply(self, 404, "text/plain", b"no")
            send_reply(self, 200, "text/xml", STATUS_XML)

    return LoopbackHTTPServer(Handler, name="vlc-web")


async def playing_info(vlc: str) -> object:
    client = WAAClient("http://127.0.0.1:1", vlc=vlc)
    try:
        return await resolve(Episode(client, None), {"type": "vlc_playing_info", "dest": "status.xml"})
    finally:
        await client.aclose()


async def test_the_getter_reads_status_xml_with_osworlds_password():
    with vlc_web("password") as web:
        assert await playing_info(web.url) == STATUS_XML


async def test_another_answer_is_none():
    with vlc_web("something else") as web:
        assert await playing_info(web.url) is None


async def test_no_vlc_answering_is_an_evaluation_error():
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    with pytest.raises(GetterFailed, match="VLC's web interface .* did not answer"):
        await playing_info(f"http://127.0.0.1:{port}")


def test_a_vms_vlc_answers_on_port_8080_of_its_host():
    assert WAAClient("http://10.0.0.7:5000").vlc == "http://10.0.0.7:8080"
    with pytest.raises(ValueError, match="VLC address must start with http"):
        WAAClient("http://10.0.0.7:5000", vlc="10.0.0.7:8080")
