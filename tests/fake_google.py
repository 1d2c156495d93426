"""Google's OAuth token endpoint and Drive's v2 REST API, as far as troupe's OSWorld Drive code uses them,
on a real socket of 127.0.0.1: POST /token (grant_type=refresh_token), GET /drive/v2/files?q= (Drive's
search language: title, mimeType, trashed, `'id' in parents`, and/or/not, parentheses), POST
/drive/v2/files (a folder), POST /upload/drive/v2/files?uploadType=multipart (multipart/related),
DELETE /drive/v2/files/ID (with its contents), POST /drive/v2/files/ID/trash and GET
/drive/v2/files/ID?alt=media (a listed file's `downloadUrl`). Requests without the token it issued get
401, as Drive answers them."""

from __future__ import annotations

import contextlib
import email.parser
import email.policy
import itertools
import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

FOLDER = "application/vnd.google-apps.folder"
CLIENT_ID, CLIENT_SECRET, REFRESH_TOKEN = "client-7.apps.example", "secret-client-Zq81", "refresh-Xw5519"
EMAIL, PASSWORD = "agent@example.org", "password-Kp402"
"""The account the settings folders hold (the secrets are made to be searched for)."""
_TERM = re.compile(r"""(['"])(.*?)\1\s+in\s+parents|(title|mimeType)\s*(!=|=)\s*(['"])(.*?)\5|trashed\s*=\s*(true|false)""")


def matches(query: str, file: dict[str, Any]) -> bool:
    """Whether `file` matches a Drive search `query` (the subset OSWorld's tasks write)."""
    def term(found: re.Match) -> str:
        if found.group(2) is not None:
            return repr(found.group(2) in [parent["id"] for parent in file["parents"]])
        if found.group(3) is not None:
            equal = file[found.group(3)] == found.group(6)
            return repr(equal if found.group(4) == "=" else not equal)
        return repr(file["labels"]["trashed"] == (found.group(7) == "true"))

    return bool(eval(_TERM.sub(term, query), {"__builtins__": {}}))  # only True, False, and, or, not and parentheses are left


@dataclass
class Drive:
    refresh_token: str
    client_id: str
    client_secret: str
    files: dict[str, dict[str, Any]] = field(default_factory=dict)
    content: dict[str, bytes] = field(default_factory=dict)
    tokens: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    url: str = ""
    _ids: Iterator[int] = field(default_factory=itertools.count)

    def add(self, title: str, parent: str = "root", data: bytes | None = None, mime: str | None = None,
            trashed: bool = False) -> str:
        file_id = f"f{next(self._ids)}"
        self.files[file_id] = {"id": file_id, "title": title, "mimeType": mime or (FOLDER if data is None else
                                                                                   "application/octet-stream"),
                               "parents": [{"id": parent}], "labels": {"trashed": trashed}}
        if data is not None:
            self.content[file_id] = data
            self.files[file_id]["downloadUrl"] = f"{self.url}/drive/v2/files/{file_id}?alt=media"
        return file_id

    def path_of(self, file_id: str) -> list[str]:
        names = []
        while file_id != "root":
            file = self.files[file_id]
            names.insert(0, file["title"])
            file_id = file["parents"][0]["id"]
        return names

    def remove(self, file_id: str) -> None:
        for child in [f for f, file in self.files.items() if {"id": file_id} in file["parents"]]:
            self.remove(child)
        self.files.pop(file_id, None)
        self.content.pop(file_id, None)


def _handler(drive: Drive) -> type[BaseHTTPRequestHandler]:
    class Google(BaseHTTPRequestHandler):
        def _answer(self, status: int, body: Any = None) -> None:
            data = b"" if body is None else json.dumps(body).encode() if not isinstance(body, bytes) else body
            self.send_response(status)
            self.send_header("Content-Type", "application/json" if not isinstance(body, bytes) else
                             "application/octet-stream")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _body(self) -> bytes:
            return self.rfile.read(int(self.headers.get("Content-Length", 0)))

        def _authorized(self) -> bool:
            if self.headers.get("Authorization", "").removeprefix("Bearer ") in drive.tokens:
                return True
            self._body()
            self._answer(401, {"error": {"code": 401, "message": "Request had invalid authentication credentials."}})
            return False

        def _route(self, method: str) -> None:
            parts = urlsplit(self.path)
            path, query = parts.path, parse_qs(parts.query)
            drive.requests.append(f"{method} {path}")
            if method == "POST" and path == "/token":
                form = parse_qs(self._body().decode())
                given = (form.get("grant_type"), form.get("refresh_token"), form.get("client_id"),
                         form.get("client_secret"))
                if given != (["refresh_token"], [drive.refresh_token], [drive.client_id], [drive.client_secret]):
                    return self._answer(400, {"error": "invalid_grant", "error_description": "Bad Request"})
                drive.tokens.append(f"access-{len(drive.tokens)}")
                return self._answer(200, {"access_token": drive.tokens[-1], "expires_in": 3599,
                                          "token_type": "Bearer"})
            if not self._authorized():
                return None
            found = re.fullmatch(r"/drive/v2/files/([^/]+)(/trash)?", path)
            if method == "GET" and path == "/drive/v2/files":
                items = [file for file in drive.files.values() if matches(query["q"][0], file)]
                return self._answer(200, {"kind": "drive#fileList", "items": items})
            if method == "POST" and path == "/drive/v2/files":
                metadata = json.loads(self._body())
                parent = (metadata.get("parents") or [{"id": "root"}])[0]["id"]
                return self._answer(200, drive.files[drive.add(metadata["title"], parent, mime=metadata["mimeType"])])
            if method == "POST" and path == "/upload/drive/v2/files" and query.get("uploadType") == ["multipart"]:
                message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
                    f"Content-Type: {self.headers['Content-Type']}\r\n\r\n".encode() + self._body())
                meta_part, data_part = message.iter_parts()
                metadata = json.loads(meta_part.get_payload(decode=True))
                parent = (metadata.get("parents") or [{"id": "root"}])[0]["id"]
                return self._answer(200, drive.files[drive.add(metadata["title"], parent,
                                                               data_part.get_payload(decode=True),
                                                               mime=metadata.get("mimeType"))])
            if found and found.group(1) in drive.files:
                file_id = found.group(1)
                if method == "DELETE":
                    drive.remove(file_id)
                    return self._answer(204)
                if method == "POST" and found.group(2):
                    drive.files[file_id]["labels"]["trashed"] = True
                    return self._answer(200, drive.files[file_id])
                if method == "GET" and query.get("alt") == ["media"] and file_id in drive.content:
                    return self._answer(200, drive.content[file_id])
            return self._answer(404, {"error": {"code": 404, "message": f"File not found: {path}"}})

        def do_GET(self) -> None:
            self._route("GET")

        def do_POST(self) -> None:
            self._route("POST")

        def do_DELETE(self) -> None:
            self._route("DELETE")

        def log_message(self, *args) -> None:
            pass

    return Google


@contextlib.contextmanager
def fake_google(refresh_token: str, client_id: str, client_secret: str) -> Iterator[Drive]:
    """A Drive holding nothing, served until the block ends; its `url` is the token endpoint's and
    Drive's base (`<url>/token`)."""
    drive = Drive(refresh_token, client_id, client_secret)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(drive))
    drive.url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        yield drive
    finally:
        server.shutdown()
        server.server_close()


def osworld_settings(root: Path, token_uri: str, **credentials: str) -> Path:
    """OSWorld's checkout layout under `root`: evaluation_examples/settings/{googledrive,google}/...;
    the settings folder."""
    folder = root / "evaluation_examples" / "settings"
    (folder / "googledrive").mkdir(parents=True)
    (folder / "google").mkdir()
    (folder / "googledrive" / "settings.yml").write_text(
        "client_config_backend: settings\nclient_config:\n  client_id: x\n  client_secret: x\n"
        "save_credentials: True\nsave_credentials_backend: file\n"
        "save_credentials_file: evaluation_examples/settings/googledrive/credentials.json\n"
        "get_refresh_token: True\noauth_scope:\n  - https://www.googleapis.com/auth/drive\n")
    fields = {"access_token": "stale", "client_id": CLIENT_ID, "client_secret": CLIENT_SECRET,
              "refresh_token": REFRESH_TOKEN, "token_expiry": "2024-01-01T00:00:00Z", "token_uri": token_uri,
              "_module": "oauth2client.client", "_class": "OAuth2Credentials", **credentials}
    (folder / "googledrive" / "credentials.json").write_text(json.dumps(fields))
    (folder / "google" / "settings.json").write_text(json.dumps({"email": EMAIL, "password": PASSWORD}))
    return folder
