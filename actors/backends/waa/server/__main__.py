"""`python -m actors.backends.waa.server`: start a fresh Xvfb desktop and serve WAA's endpoints on it.

Prints one line, `listening on http://127.0.0.1:PORT display :N`, once it
answers, so a parent process (a test, a script) knows where it is. Runs
until SIGTERM or SIGINT (or, with --stop-with-stdin, until its stdin
ends: a parent holding the other end of a pipe makes it stop when the
parent dies, SIGKILL included), then stops its applications and its
display.

Files are served from the session's home and the `--root` folders only, and
only pyautogui programs and WAA's browser commands (browser.py: Chromium
stands in for Chrome and Edge, with DevTools on --devtools-port) are
carried out: `--allow-commands` lets the token's
holder run any command as this user, and the server says so on stderr.
`--osworld` answers OSWorld's dialect too (osworld.py).
"""

from __future__ import annotations

import argparse
import functools
import os
import signal
import sys
import tempfile
import threading
from pathlib import Path

from actors.backends.waa.client import DEVTOOLS_PORT
from actors.backends.waa.server import guest_python, osworld, terminal
from actors.backends.waa.server.desktop import LinuxDesktop, MainThread
from actors.backends.waa.server.http import make_server
from actors.backends.x11.node import screen_size
from actors.backends.x11.session import Session


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m actors.backends.waa.server", description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=5000, help="port on 127.0.0.1 (0: any free one)")
    parser.add_argument("--token", default=os.environ.get("TROUPE_WAA_TOKEN"),
                        help="token every request must carry in X-WAA-Token (default: $TROUPE_WAA_TOKEN)")
    parser.add_argument("--size", type=screen_size, default=(1280, 800), help="screen size, WIDTHxHEIGHT")
    parser.add_argument("--root", type=Path, action="append", default=[], metavar="FOLDER",
                        help="a folder the tasks use besides the session's home (repeatable); "
                             "any other path is refused with 403")
    parser.add_argument("--devtools-port", type=int, default=DEVTOOLS_PORT,
                        help="where the browser WAA's Chrome and Edge tasks launch answers DevTools, on 127.0.0.1 "
                             f"(default {DEVTOOLS_PORT}, the port WAA's client connects to)")
    parser.add_argument("--osworld", action="store_true",
                        help="answer as OSWorld's server too: its own endpoints (/terminal, /window_size, /run_python, "
                             "...), /home/user as the session's home, and `sudo` and `apt` as its tasks call them "
                             "(sudo runs the command as this user; apt installs nothing)")
    parser.add_argument("--allow-commands", action="store_true",
                        help="run any command /execute, /setup/execute and /setup/launch ask for, shells included "
                             "(default: pyautogui programs only, parsed and never run as Python)")
    parser.add_argument("--stop-with-stdin", action="store_true",
                        help="stop, as on SIGTERM, when stdin reaches its end (a parent that holds a pipe to it "
                             "makes the server stop when the parent dies, however it dies)")
    args = parser.parse_args(argv)
    if not args.token:
        parser.error("a token is required (--token or $TROUPE_WAA_TOKEN): its holder drives this desktop")
    if args.allow_commands:
        print("WARNING: --allow-commands: whoever holds the token can run any command as this user "
              "(/execute, /setup/execute, /setup/launch)", file=sys.stderr, flush=True)

    stopped = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stopped.set())
    if args.stop_with_stdin:
        threading.Thread(target=lambda: (sys.stdin.buffer.read(), stopped.set()), name="stdin-watch",
                         daemon=True).start()
    session = Session.start(*args.size, accessibility=args.osworld)  # OSWorld's tree is AT-SPI's
    shims = Path(tempfile.mkdtemp(prefix="troupe-server-bin-"))
    session.owns(shims)
    terminals = None
    if args.allow_commands:
        guest_python.install(shims, session.env)
    if args.osworld:
        osworld.install_shims(shims, session.env)
        osworld.prepare_home(session.home)
        session.env["ACCESSIBILITY_ENABLED"] = "1"  # Chromium exports its tree when this says AT-SPI listens
        session.env["GNOME_ACCESSIBILITY"] = "1"  # Thunderbird (Gecko) exports its tree only when this says so
        # Thunderbird starts with the profile profiles.ini names the default, as a task unpacks it, where it
        # would otherwise want one named for its own install there and make a new, empty profile.
        session.env["MOZ_LEGACY_PROFILES"] = "1"
        session.env["SAL_USE_VCLPLUGIN"] = "gtk3"  # LibreOffice exports it with its GTK plugin, as on Ubuntu
        terminals = terminal.bind_keys(session.home, shims, session.env)
    main_thread = MainThread()
    desktop = LinuxDesktop(session, main_thread)
    server = make_server(desktop, args.token, args.port, roots=args.root, allow_commands=args.allow_commands,
                         devtools_port=args.devtools_port, also=functools.partial(osworld.add_endpoints, terminals=terminals) if args.osworld else None,
                         home_alias=osworld.HOME if args.osworld else None).start()
    try:
        print(f"listening on {server.url} display {session.display}", flush=True)
        main_thread.serve(stopped)
    finally:
        server.close()
        desktop.close()
        session.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
