"""`python -m actors.waa.server`: start a fresh Xvfb desktop and serve WAA's endpoints on it.

Prints one line, `listening on http://127.0.0.1:PORT display :N`, once it
answers, so a parent process (a test, a script) knows where it is. Runs
until SIGTERM or SIGINT, then stops its applications and its display.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading

from actors.waa.server.desktop import LinuxDesktop, MainThread
from actors.waa.server.http import make_server
from actors.x11.node import screen_size
from actors.x11.session import Session


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m actors.waa.server", description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=5000, help="port on 127.0.0.1 (0: any free one)")
    parser.add_argument("--token", default=os.environ.get("TROUPE_WAA_TOKEN"),
                        help="token every request must carry in X-WAA-Token (default: $TROUPE_WAA_TOKEN)")
    parser.add_argument("--size", type=screen_size, default=(1280, 800), help="screen size, WIDTHxHEIGHT")
    args = parser.parse_args(argv)
    if not args.token:
        parser.error("a token is required (--token or $TROUPE_WAA_TOKEN): /execute runs shell commands")

    stopped = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stopped.set())
    session = Session.start(*args.size, accessibility=False)
    main_thread = MainThread()
    desktop = LinuxDesktop(session, main_thread)
    server = make_server(desktop, args.token, args.port)
    serving = threading.Thread(target=server.serve_forever, name="waa-http", daemon=True)
    serving.start()
    try:
        print(f"listening on http://127.0.0.1:{server.server_port} display {session.display}", flush=True)
        main_thread.serve(stopped)
    finally:
        server.shutdown()
        server.server_close()
        desktop.close()
        session.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
