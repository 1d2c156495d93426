"""The WAA server's endpoints over HTTP, answered by a LinuxDesktop.

Same paths, bodies and answers as WAA's Flask server (port 5000), so the
WAA backend cannot tell the two apart. The differences are all for safety,
because a Linux host is not a throwaway VM:

- every request must carry the token (`X-WAA-Token`);
- `python -c` programs are read by the pyautogui allow-list, never run, and
  nothing else is run either: /execute, /setup/execute and /setup/launch
  with any other command (a shell, `python3 -Ic`, `env python3 -c`, ...)
  answer 403 unless the server was started with `--allow-commands`, which
  runs them, a program outside the allow-list with the guest's `python`
  and `pyautogui` (`guest_python`);
- every path is confined to the session's home and the `--root` folders
  (`roots.Roots`), anything else answers 403;
- WAA's browser commands (launching Chrome or Edge, the socat forward to
  DevTools, taskkill of the browser) are recognized, never run: they start
  and stop this server's Chromium (`browser.Chromium`), whose windows answer
  to Chrome's and Edge's titles;
- bodies, programs and sleeps are bounded, a malformed request answers 400
  (not 500, which a client retries), and a connection that stops sending
  is dropped after READ_TIMEOUT.

The server binds 127.0.0.1 only.
"""

from __future__ import annotations

import dataclasses
import email.parser
import email.policy
import functools
import json
import os
import shlex
import shutil
import subprocess
import urllib.parse
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, Callable

import httpx

from protocols import TroupeError
from runtime.http_server import LoopbackHTTPServer, QuietHandler, send_reply
from runtime.tokens import header_bytes, token_matches

from actors.backends.waa.client import DEVTOOLS_PORT, TOKEN_HEADER
from actors.backends.waa.browser_commands import Forward, Launch, launch_of, stop_of
from actors.backends.waa.server.browser import Chromium, window_title
from actors.backends.waa.server.desktop import LinuxDesktop
from actors.backends.waa.server.listing import directory_tree
from actors.backends.waa.server.pyautogui_script import ScriptRefused, is_pyautogui_command, parse
from actors.backends.waa.server.roots import OutsideRoots, Roots

MAX_UPLOAD = 256 * 1024 * 1024
"""The largest /setup/upload body: a task's file."""
MAX_BODY = 4 * 1024 * 1024
"""The largest body of any other request."""
MAX_PROGRAM = 64 * 1024
"""The largest pyautogui program, in UTF-8 bytes (WAA's are a few hundred): its syntax tree takes up
to ~400 times that (bench/perf/waa_memory.py)."""
MAX_OPS = 10_000
"""The most input primitives one program may ask for: all are sent under the input lock."""
READ_TIMEOUT = 10.0
"""Seconds a connection may take to send each part of its request before it is dropped."""
MAX_CONNECTIONS = 32
"""Connections served at once; more are answered 503 at once instead of each holding a thread."""
MAX_LARGE = 2
"""Requests with a large body (a program near MAX_PROGRAM, an upload) handled at once; the rest wait
their turn before their body is read, so that their parses cannot add up."""

Reply = tuple[int, str, bytes]


def _json(status: int, data: Any) -> Reply:
    return status, "application/json", json.dumps(data).encode()


def _text(status: int, text: str) -> Reply:
    return status, "text/plain; charset=utf-8", text.encode()


class BadRequest(TroupeError, ValueError):
    """A request without a field it needs, or with one of the wrong type; answered 400 with the field named."""


class TooLarge(TroupeError, ValueError):
    """A body or a program over its limit; answered 413 with the limit named."""


class CommandsNotAllowed(TroupeError, PermissionError):
    """A command other than a pyautogui program, without --allow-commands; answered 403."""


def _field(body: Any, name: str, kind: type | tuple[type, ...] = str) -> Any:
    if not isinstance(body, dict) or name not in body:
        raise BadRequest(f"{name} is required")
    if not isinstance(body[name], kind):
        raise BadRequest(f"{name} must be {_kind_name(kind)}, got {type(body[name]).__name__}")
    return body[name]


def _kind_name(kind: type | tuple[type, ...]) -> str:
    return " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))


def _command(body: Any) -> list[str] | str:
    """The body's command: a string, or a list of strings."""
    command = _field(body, "command", (str, list))
    if isinstance(command, list) and not all(isinstance(a, str) for a in command):
        raise BadRequest("command must be a string or a list of strings")
    return command


def _split(command: list[str] | str, shell: bool) -> list[str] | str:
    """A one-string command outside a shell as its arguments, split as a shell would."""
    if not isinstance(command, str) or shell:
        return command
    try:
        return shlex.split(command)
    except ValueError as exc:  # an unclosed quote
        raise BadRequest(f"command {command!r} cannot be split into arguments: {exc}") from None


def _shell(body: Any) -> bool:
    if not isinstance(body, dict):
        raise BadRequest("the body must be a JSON object")
    value = body.get("shell", False)
    return value.lower() == "true" if isinstance(value, str) else bool(value)


class Endpoints:
    """One method per WAA endpoint; each takes the parsed body and returns a Reply."""

    def __init__(self, desktop: LinuxDesktop, roots: Iterable[Path] = (), allow_commands: bool = False,
                 devtools_port: int = DEVTOOLS_PORT, home_alias: str | None = None) -> None:
        self.desktop = desktop
        self.devtools_port = devtools_port
        self._extra_roots = tuple(roots)
        self.home_alias = home_alias
        self.allow_commands = allow_commands
        self.get: dict[str, Callable[[dict[str, str]], Reply]] = {
            "/probe": lambda q: _json(200, {"status": "Probe successful", "message": "Service is operational"}),
            "/screenshot": self.screenshot,
            "/accessibility": lambda q: _json(200, {"AT": desktop.accessibility_xml()}),
            "/platform": lambda q: _text(200, "Linux"),
        }
        self.post: dict[str, Callable[[Any], Reply]] = {
            "/execute": self.execute, "/setup/execute": self.execute,
            "/setup/launch": self.launch, "/setup/open_file": self.open_file,
            "/setup/activate_window": self.activate_window, "/setup/close_window": self.close_window,
            "/setup/close_all": self.close_all, "/setup/create_folder": self.create_folder,
            "/setup/download_file": self.download_file, "/setup/upload": self.upload, "/setup/recycle": self.recycle,
            "/file": self.file, "/file_exists": self.file_exists, "/folder_exists": self.folder_exists,
            "/list_directory": self.list_directory,
            "/desktop_path": lambda body: _json(200, {"desktop_path": str(self._folder("Desktop"))}),
            "/documents_path": lambda body: _json(200, {"documents_path": str(self._folder("Documents"))}),
            "/screen_size": self.screen_size,
        }

    @functools.cached_property
    def browser(self) -> Chromium:
        return Chromium(self.desktop, self.devtools_port)

    @functools.cached_property
    def roots(self) -> Roots:
        return Roots(self.desktop.home, self._extra_roots, self.home_alias)

    def _folder(self, name: str):
        folder = self.desktop.home / name
        folder.mkdir(exist_ok=True)
        return folder

    def _path(self, body: Any, name: str) -> Path:
        """The body's path field `name`, resolved and confined to the roots."""
        return self.roots.confine(_field(body, name))

    def require_commands(self, what: str) -> None:
        """Refuse `what` (CommandsNotAllowed, answered 403) unless the server runs commands."""
        if not self.allow_commands:
            raise CommandsNotAllowed(f"{what}: this server runs pyautogui programs only "
                                     "(start it with --allow-commands to run other commands)")

    def screenshot(self, query: dict[str, str]) -> Reply:
        png, _, _ = self.desktop.screenshot()
        return 200, "image/png", png

    def screen_size(self, body: Any) -> Reply:
        _, width, height = self.desktop.screenshot()
        return _json(200, {"width": width, "height": height})

    def execute(self, body: Any) -> Reply:
        shell = _shell(body)
        command = _command(body)
        if is_pyautogui_command(command):
            reply = self._run_program(command[2])
            if reply is not None:
                return reply
        stop = stop_of(command)
        if stop is not None:
            stopped = self.browser.stop(stop)
            return _json(200, {"status": "success", "output": f"stopped {stopped} {stop.browser} process(es)",
                               "error": "" if stopped else f'The process "{stop.browser}.exe" not found.',
                               "returncode": 0 if stopped else 128})
        self.require_commands(f"command {command!r}" + (" in a shell" if shell else ""))
        command = self._on_this_desktop(_split(command, shell))
        try:
            done = self.desktop.execute(command, shell)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return _json(500, {"status": "error", "message": str(exc)})
        return _json(200, {"status": "success", "output": done.stdout, "error": done.stderr,
                           "returncode": done.returncode})

    def _on_this_desktop(self, command: list[str] | str) -> list[str] | str:
        """The command with the VM's home standing for this session's: `~/` arguments, and the home
        alias anywhere in its text."""
        if isinstance(command, str):
            return self.roots.in_command(command)
        return [str(self.roots.vm_path(a)) if a.startswith("~/") else self.roots.in_command(a) for a in command]

    def _run_program(self, program: str) -> Reply | None:
        """An allow-listed pyautogui program carried out; one that is not is refused, or None when the
        server runs commands: it then runs as the command it is."""
        if len(program.encode("utf-8", "surrogatepass")) > MAX_PROGRAM:
            raise TooLarge(f"the program is over the {MAX_PROGRAM} byte limit")
        try:
            ops = parse(program)
        except ScriptRefused as exc:
            if self.allow_commands:
                return None
            return _json(400, {"status": "error", "message": f"refused: {exc}"})
        if len(ops) > MAX_OPS:
            raise TooLarge(f"the program asks for {len(ops)} input steps, over the limit of {MAX_OPS}")
        self.desktop.run_ops(ops)
        return _json(200, {"status": "success", "output": "", "error": "", "returncode": 0})

    def launch(self, body: Any) -> Reply:
        shell = _shell(body)
        command = _command(body)
        stop = stop_of(command)
        if stop is not None:  # OSWorld's tasks launch `pkill chrome`
            self.browser.stop(stop)
            return _text(200, f"{command} launched successfully")
        browser = launch_of(command)
        if isinstance(browser, Forward):
            return _text(200, f"{command} launched successfully (DevTools already listens on {self.devtools_port})")
        if isinstance(browser, Launch):
            extensions = tuple(str(self.roots.confine(folder)) for folder in browser.extensions)
            try:
                self.browser.launch(dataclasses.replace(browser, extensions=extensions))
            except FileNotFoundError as exc:
                return _text(404, str(exc))
            return _text(200, f"{command} launched successfully")
        self.require_commands(f"launch {command!r}")
        command = self._on_this_desktop(_split(command, shell))
        try:
            self.desktop.launch(command, shell)
        except FileNotFoundError as exc:
            return _text(404, str(exc))
        return _text(200, f"{command} launched successfully")

    def open_file(self, body: Any) -> Reply:
        path = self._path(body, "path")
        if not path.exists():
            return _text(404, f"File not found: {path}")
        opener = shutil.which("xdg-open")
        if opener is None:
            return _text(501, "no xdg-open on this desktop: open files with a launch step instead")
        self.desktop.launch([opener, str(path)], False)
        return _text(200, "File opened successfully")

    def _window(self, body: Any, then: Callable[[int], None], done: str) -> Reply:
        try:
            name = _field(body, "window_name")
            by_class = _field(body, "by_class", bool) if "by_class" in body else False
            name = name if by_class else window_title(name)
            window_id = self.desktop.find_window(name, _field(body, "strict", bool) if "strict" in body else False,
                                                 by_class=by_class)
        except LookupError as exc:
            return _text(404, str(exc))
        then(window_id)
        return _text(200, done)

    def activate_window(self, body: Any) -> Reply:
        return self._window(body, self.desktop.activate, "Window activated successfully")

    def close_window(self, body: Any) -> Reply:
        return self._window(body, self.desktop.close_window, "Window closed successfully.")

    def close_all(self, body: Any) -> Reply:
        self.desktop.close_all()
        return _text(200, "All windows closed successfully.")

    def create_folder(self, body: Any) -> Reply:
        path = self._path(body, "path")
        path.mkdir(parents=True, exist_ok=True)
        return _json(200, {"status": "success", "message": f"{path} created."})

    def download_file(self, body: Any) -> Reply:
        url, path = _field(body, "url"), self._path(body, "path")
        try:
            response = httpx.get(url, follow_redirects=True, timeout=60.0)
            response.raise_for_status()
        except httpx.HTTPError as exc:
            return _text(500, f"Failed to download {url}: {exc}")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(response.content)
        return _text(200, "File downloaded successfully")

    def upload(self, form: Any) -> Reply:
        target, data = self._path(form, "file_path"), _field(form, "file_data", bytes)
        target.parent.mkdir(parents=True, exist_ok=True)  # as download_file does: setup downloads arrive here
        target.write_bytes(data)
        return _text(200, "File Uploaded")

    def recycle(self, body: Any) -> Reply:
        path = self._path(body, "path")
        trash = self.desktop.home / ".local/share/Trash/files"
        trash.mkdir(parents=True, exist_ok=True)
        try:
            shutil.move(path, trash / path.name)
        except OSError as exc:
            return _json(400, {"status": "error", "message": f"Failed to recycle {path}: {exc}"})
        return _json(200, {"status": "success", "message": f"{path} recycled"})

    def file(self, form: Any) -> Reply:
        path = self._path(form, "file_path")
        if not path.is_file():
            return _json(404, {"error": "File not found"})
        return 200, "application/octet-stream", path.read_bytes()

    def list_directory(self, body: Any) -> Reply:
        """WAA's answers, its 400s' bodies included: `{"directory_tree": tree}` for a folder."""
        if not isinstance(body, dict) or "path" not in body:
            return _json(400, {"error": "Missing 'path' parameter"})
        folder = self._path(body, "path")
        if not folder.is_dir():
            return _json(400, {"error": "The provided path is not a directory"})
        return _json(200, {"directory_tree": directory_tree(folder, os.path.basename(body["path"]), self.roots)})

    def _exists(self, body: Any, key: str, test: Callable[[Any], bool], kind: str) -> Reply:
        folder, name = _field(body, "path"), _field(body, key)
        if test(self.roots.confine(str(self.roots.vm_path(folder) / name))):
            return _json(200, {"status": "success", "message": f"{kind} {name} exists in {folder}."})
        return _json(400, {"status": "error", "message": f"{kind} {name} does not exist in {folder}."})

    def file_exists(self, body: Any) -> Reply:
        return self._exists(body, "file_name", lambda p: p.is_file(), "File")

    def folder_exists(self, body: Any) -> Reply:
        return self._exists(body, "folder_name", lambda p: p.is_dir(), "Folder")


def _content_length(handler: BaseHTTPRequestHandler, limit: int) -> int:
    """The declared body length: digits only (`-1` would read until the client closes), at most `limit`."""
    declared = handler.headers.get("Content-Length") or "0"
    if not (declared.isascii() and declared.isdigit()):
        raise BadRequest(f"Content-Length must be a whole number of bytes, got {declared!r}")
    if int(declared) > limit:
        raise TooLarge(f"body of {declared} bytes is over the {limit} byte limit")
    return int(declared)


def _body(handler: BaseHTTPRequestHandler, limit: int) -> Any:
    """JSON, a urlencoded form, or a multipart form (files as bytes), by Content-Type."""
    length = _content_length(handler, limit)
    raw = handler.rfile.read(length) if length else b""
    if len(raw) < length:
        raise BadRequest(f"the body ended after {len(raw)} of its {length} bytes")
    kind = handler.headers.get("Content-Type", "")
    try:
        if kind.startswith("application/x-www-form-urlencoded"):
            return {k: v[-1] for k, v in urllib.parse.parse_qs(raw.decode()).items()}
        if kind.startswith("multipart/form-data"):
            message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
                f"Content-Type: {kind}\r\n\r\n".encode() + raw)
            return {part.get_param("name", header="content-disposition"):
                    part.get_payload(decode=True) if part.get_filename() else part.get_content()
                    for part in message.iter_parts()}
        return json.loads(raw) if raw else {}
    except (ValueError, LookupError) as exc:  # not UTF-8, a bad charset, not JSON
        raise BadRequest(f"the {kind or 'JSON'} body cannot be read: {exc}") from None


_REFUSALS: tuple[tuple[type[Exception], int], ...] = (
    (BadRequest, 400), (TooLarge, 413), (OutsideRoots, 403), (CommandsNotAllowed, 403),
    (TimeoutError, 408),
)
"""The client's mistakes, by the status that names them: answered without a retry-inviting 500."""


def make_handler(endpoints: Endpoints, token: str) -> type[BaseHTTPRequestHandler]:
    class Handler(QuietHandler):
        server_version = "troupe-waa-linux"
        timeout = READ_TIMEOUT  # per socket read: a half-sent request holds its thread no longer

        def do_GET(self) -> None:
            self._serve(endpoints.get, lambda: dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query)))

        def do_POST(self) -> None:
            limit = MAX_UPLOAD if urllib.parse.urlsplit(self.path).path == "/setup/upload" else MAX_BODY
            self._serve(endpoints.post, lambda: _body(self, limit))

        def _serve(self, routes: dict[str, Callable[[Any], Reply]], body: Callable[[], Any]) -> None:
            path = urllib.parse.urlsplit(self.path).path
            if not token_matches(header_bytes(self.headers.get(TOKEN_HEADER)), token):
                reply = _json(401, {"status": "error", "message": f"missing or wrong {TOKEN_HEADER} header"})
            elif path not in routes:
                reply = _json(404, {"status": "error", "message": f"no endpoint {self.command} {path}"})
            else:
                try:
                    reply = routes[path](body())
                except Exception as exc:  # WAA answers 500 with the message, and so do we, but for a bad request
                    status = next((status for kind, status in _REFUSALS if isinstance(exc, kind)), 500)
                    message = str(exc) if status != 500 else f"{type(exc).__name__}: {exc}"
                    reply = _json(status, {"status": "error", "message": message})
                    self.close_connection = True  # the body may be unread: what follows is not a request
            send_reply(self, *reply)

    return Handler


def make_server(desktop: LinuxDesktop, token: str, port: int, *, roots: Iterable[Path] = (),
                allow_commands: bool = False, devtools_port: int = DEVTOOLS_PORT,
                also: Callable[[Endpoints], None] | None = None, home_alias: str | None = None) -> LoopbackHTTPServer:
    """The server, bound to 127.0.0.1:`port` and not yet started: paths confined to the desktop's
    home and `roots` (`home_alias` naming the home as the tasks do), commands other than pyautogui
    programs run only when `allow_commands`, the browser's DevTools on 127.0.0.1:`devtools_port`;
    `also` adds another dialect's endpoints (osworld.add_endpoints)."""
    if not token:
        raise ValueError("the WAA Linux server needs a token: it runs input and file requests for whoever holds it")
    endpoints = Endpoints(desktop, roots, allow_commands, devtools_port, home_alias)
    if also is not None:
        also(endpoints)
    return LoopbackHTTPServer(make_handler(endpoints, token), port=port, name="waa-http",
                              max_connections=MAX_CONNECTIONS, max_large=MAX_LARGE)
