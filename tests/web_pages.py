"""Web pages served from 127.0.0.1 on a real socket, for the browser tests (no internet)."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@contextlib.contextmanager
def serving(pages: dict[str, str], headers: dict[str, dict[str, str]] | None = None) -> Iterator[str]:
    """`pages` (path -> HTML, with `headers` per path) on a free port of 127.0.0.1 until the block ends,
    404 for any other path; yields the base URL."""

    class Pages(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = pages.get(self.path)
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Type", "text/html")
            for name, value in (headers or {}).get(self.path, {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write((body or "").encode())

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Pages)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
