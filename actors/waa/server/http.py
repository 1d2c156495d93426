"""The WAA server's endpoints over HTTP, answered by a LinuxDesktop.

Same paths, bodies and answers as WAA's Flask server (port 5000), so the
WAA backend cannot tell the two apart. Two differences, both for safety:
every request must carry the token (`X-WAA-Token`), because /execute runs
shell commands as the protocol demands; and `python -c` programs are read
by the pyautogui allow-list, never run. The server binds 127.0.0.1 only.
"""

from __future__ import annotations

import email.parser
import email.policy
import hmac
import json
import shlex
import shutil
import subprocess
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

import httpx

from actors.waa.client import TOKEN_HEADER
from actors.waa.server.desktop import LinuxDesktop
from actors.waa.server.pyautogui_script import ScriptRefused, is_pyautogui_command, parse

MAX_BODY = 256 * 1024 * 1024

Reply = tuple[int, str, bytes]


def _json(status: int, data: Any) -> Reply:
    return status, "application/json", json.dumps(data).encode()


def _text(status: int, text: str) -> Reply:
    return status, "text/plain; charset=utf-8", text.encode()


class BadRequest(ValueError):
    """A request without a field it needs; answered 400 with the field named."""


def _field(body: dict[str, Any], name: str) -> Any:
    if not isinstance(body, dict) or name not in body:
        raise BadRequest(f"{name} is required")
    return body[name]


def _shell(body: dict[str, Any]) -> bool:
    value = body.get("shell", False)
    return value.lower() == "true" if isinstance(value, str) else bool(value)


class Endpoints:
    """One method per WAA endpoint; each takes the parsed body and returns a Reply."""

    def __init__(self, desktop: LinuxDesktop) -> None:
        self.desktop = desktop
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
            "/desktop_path": lambda body: _json(200, {"desktop_path": str(self._folder("Desktop"))}),
            "/documents_path": lambda body: _json(200, {"documents_path": str(self._folder("Documents"))}),
            "/screen_size": self.screen_size,
        }

    def _folder(self, name: str):
        folder = self.desktop.home / name
        folder.mkdir(exist_ok=True)
        return folder

    def screenshot(self, query: dict[str, str]) -> Reply:
        png, _, _ = self.desktop.screenshot()
        return 200, "image/png", png

    def screen_size(self, body: Any) -> Reply:
        _, width, height = self.desktop.screenshot()
        return _json(200, {"width": width, "height": height})

    def execute(self, body: Any) -> Reply:
        shell = _shell(body)
        command = body.get("command", "" if shell else []) if isinstance(body, dict) else None
        if command is None:
            raise BadRequest("command is required")
        if is_pyautogui_command(command):
            try:
                self.desktop.run_ops(parse(command[2]))
            except ScriptRefused as exc:
                return _json(400, {"status": "error", "message": f"refused: {exc}"})
            return _json(200, {"status": "success", "output": "", "error": "", "returncode": 0})
        if isinstance(command, str) and not shell:
            command = shlex.split(command)
        if isinstance(command, list):
            command = [str(self.desktop.path(a)) if a.startswith("~/") else a for a in command]
        try:
            done = self.desktop.execute(command, shell)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return _json(500, {"status": "error", "message": str(exc)})
        return _json(200, {"status": "success", "output": done.stdout, "error": done.stderr,
                           "returncode": done.returncode})

    def launch(self, body: Any) -> Reply:
        shell = _shell(body)
        command = _field(body, "command")
        if isinstance(command, str) and not shell:
            command = shlex.split(command)
        try:
            self.desktop.launch(command, shell)
        except FileNotFoundError as exc:
            return _text(404, str(exc))
        return _text(200, f"{command} launched successfully")

    def open_file(self, body: Any) -> Reply:
        path = self.desktop.path(_field(body, "path"))
        if not path.exists():
            return _text(404, f"File not found: {path}")
        opener = shutil.which("xdg-open")
        if opener is None:
            return _text(501, "no xdg-open on this desktop: open files with a launch step instead")
        self.desktop.launch([opener, str(path)], False)
        return _text(200, "File opened successfully")

    def _window(self, body: Any, then: Callable[[int], None], done: str) -> Reply:
        try:
            window_id = self.desktop.find_window(_field(body, "window_name"), bool(body.get("strict", False)))
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
        path = self.desktop.path(_field(body, "path"))
        path.mkdir(parents=True, exist_ok=True)
        return _json(200, {"status": "success", "message": f"{path} created."})

    def download_file(self, body: Any) -> Reply:
        url, path = _field(body, "url"), self.desktop.path(_field(body, "path"))
        try:
            response = httpx.get(url, follow_redirects=True, timeout=60.0)
            response.raise_for_status()
        except httpx.HTTPError as exc:
            return _text(500, f"Failed to download {url}: {exc}")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(response.content)
        return _text(200, "File downloaded successfully")

    def upload(self, form: Any) -> Reply:
        path, data = form.get("file_path"), form.get("file_data")
        if not isinstance(path, str) or not isinstance(data, bytes):
            raise BadRequest("file_path and file_data are required")
        self.desktop.path(path).write_bytes(data)
        return _text(200, "File Uploaded")

    def recycle(self, body: Any) -> Reply:
        path = self.desktop.path(_field(body, "path"))
        trash = self.desktop.home / ".local/share/Trash/files"
        trash.mkdir(parents=True, exist_ok=True)
        try:
            shutil.move(path, trash / path.name)
        except OSError as exc:
            return _json(400, {"status": "error", "message": f"Failed to recycle {path}: {exc}"})
        return _json(200, {"status": "success", "message": f"{path} recycled"})

    def file(self, form: Any) -> Reply:
        path = self.desktop.path(_field(form, "file_path"))
        if not path.is_file():
            return _json(404, {"error": "File not found"})
        return 200, "application/octet-stream", path.read_bytes()

    def _exists(self, body: Any, key: str, test: Callable[[Any], bool], kind: str) -> Reply:
        folder, name = _field(body, "path"), _field(body, key)
        if test(self.desktop.path(folder) / name):
            return _json(200, {"status": "success", "message": f"{kind} {name} exists in {folder}."})
        return _json(400, {"status": "error", "message": f"{kind} {name} does not exist in {folder}."})

    def file_exists(self, body: Any) -> Reply:
        return self._exists(body, "file_name", lambda p: p.is_file(), "File")

    def folder_exists(self, body: Any) -> Reply:
        return self._exists(body, "folder_name", lambda p: p.is_dir(), "Folder")


def _body(handler: BaseHTTPRequestHandler) -> Any:
    """JSON, a urlencoded form, or a multipart form (files as bytes), by Content-Type."""
    length = int(handler.headers.get("Content-Length") or 0)
    if length > MAX_BODY:
        raise BadRequest(f"body of {length} bytes is over the {MAX_BODY} byte limit")
    raw = handler.rfile.read(length) if length else b""
    kind = handler.headers.get("Content-Type", "")
    if kind.startswith("application/x-www-form-urlencoded"):
        return {k: v[-1] for k, v in urllib.parse.parse_qs(raw.decode()).items()}
    if kind.startswith("multipart/form-data"):
        message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
            f"Content-Type: {kind}\r\n\r\n".encode() + raw)
        return {part.get_param("name", header="content-disposition"):
                part.get_payload(decode=True) if part.get_filename() else part.get_content()
                for part in message.iter_parts()}
    if not raw:
        return {}
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise BadRequest(f"body is not valid JSON: {exc}") from None


def make_handler(endpoints: Endpoints, token: str) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "troupe-waa-linux"

        def do_GET(self) -> None:
            self._serve(endpoints.get, lambda: dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query)))

        def do_POST(self) -> None:
            self._serve(endpoints.post, lambda: _body(self))

        def _serve(self, routes: dict[str, Callable[[Any], Reply]], body: Callable[[], Any]) -> None:
            path = urllib.parse.urlsplit(self.path).path
            if not hmac.compare_digest(self.headers.get(TOKEN_HEADER, ""), token):
                reply = _json(401, {"status": "error", "message": f"missing or wrong {TOKEN_HEADER} header"})
            elif path not in routes:
                reply = _json(404, {"status": "error", "message": f"no endpoint {self.command} {path}"})
            else:
                try:
                    reply = routes[path](body())
                except BadRequest as exc:
                    reply = _json(400, {"status": "error", "message": str(exc)})
                except Exception as exc:  # WAA answers 500 with the message, and so do we
                    reply = _json(500, {"status": "error", "message": f"{type(exc).__name__}: {exc}"})
            status, kind, data = reply
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: a run makes thousands of requests."""

    return Handler


def make_server(desktop: LinuxDesktop, token: str, port: int) -> ThreadingHTTPServer:
    if not token:
        raise ValueError("the WAA Linux server needs a token: it runs shell commands for whoever holds it")
    server = ThreadingHTTPServer(("127.0.0.1", port), make_handler(Endpoints(desktop), token))
    server.daemon_threads = True
    return server
