"""The loopback HTTP server's failures: a client that hangs up is nothing, a handler's bug is logged."""

import logging
import socket
import struct
import time

from runtime.http_server import LoopbackHTTPServer, QuietHandler, send_reply


class _Handler(QuietHandler):
    def do_GET(self) -> None:
        if self.path == "/bug":
            raise LookupError("a handler's own bug")
        time.sleep(0.2)  # the client hangs up meanwhile
        send_reply(self, 200, "text/plain", b"x" * 2**20)


def _request(port: int, path: str, *, reset: bool) -> None:
    with socket.create_connection(("127.0.0.1", port)) as client:
        client.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        if reset:  # close with RST, as a killed browser's socket does
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        else:
            client.recv(1024)


def test_a_client_that_hangs_up_is_not_reported_and_a_handlers_bug_is_logged(capsys, caplog):
    with caplog.at_level(logging.WARNING, logger="runtime.http_server"):
        with LoopbackHTTPServer(_Handler, name="test") as server:
            _request(server.port, "/slow", reset=True)
            _request(server.port, "/bug", reset=False)
            time.sleep(0.5)  # the slow reply meets the closed socket
    assert capsys.readouterr().err == ""
    failures = [record for record in caplog.records if record.name == "runtime.http_server"]
    assert len(failures) == 1 and "LookupError" in failures[0].exc_text, caplog.text
