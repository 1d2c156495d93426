"""Google Drive's REST API (v2, the version PyDrive speaks), as far as OSWorld's steps and getter use it.

The access token comes from the account's refresh token through its token
endpoint (`grant_type=refresh_token`, as oauth2client refreshes), asked once
and again when Drive answers 401. `api` is Drive's address, a parameter so
tests can point the client at a local server (DRIVE_API, read when a client is made); `page` is
Drive's web page, likewise. Errors name the request and
Google's answer, never a token.
"""

from __future__ import annotations

import json
import mimetypes
from typing import Any

import httpx

from bench.suites.osworld.google_account import GoogleAccount
from protocols import TroupeError

DRIVE_API = "https://www.googleapis.com"
DRIVE_PAGE = "https://drive.google.com/drive/my-drive"
"""Drive's web page, where the `login` step signs in (google_login.py)."""
FOLDER = "application/vnd.google-apps.folder"


class DriveFailed(TroupeError, RuntimeError):
    """Google's token endpoint or Drive refused a request; the message says which and why."""


def _reason(response: httpx.Response) -> str:
    try:
        answer = response.json()
    except ValueError:
        return response.text[:200]
    error = answer.get("error") if isinstance(answer, dict) else None
    if isinstance(error, dict):  # Drive: {"error": {"code", "message"}}
        return str(error.get("message", ""))[:200]
    detail = answer.get("error_description", "") if isinstance(answer, dict) else ""
    return f"{error}" + (f" ({detail})" if detail else "")  # the token endpoint: {"error", "error_description"}


class GoogleDrive:
    def __init__(self, account: GoogleAccount, *, api: str | None = None, page: str | None = None,
                 timeout: float = 60.0) -> None:
        self.account = account
        self.api = (api or DRIVE_API).rstrip("/")
        self.page = page or DRIVE_PAGE
        self.timeout = timeout
        self._token: str | None = None

    async def _refresh(self, web: httpx.AsyncClient) -> str:
        account = self.account
        response = await web.post(account.token_uri, data={
            "grant_type": "refresh_token", "refresh_token": account.refresh_token,
            "client_id": account.client_id, "client_secret": account.client_secret})
        if response.status_code != 200:
            raise DriveFailed(f"Google's token endpoint {account.token_uri} refused the refresh token of "
                              f"{account.credentials_file}: HTTP {response.status_code}: {_reason(response)}")
        token = response.json().get("access_token")
        if not isinstance(token, str) or not token:
            raise DriveFailed(f"Google's token endpoint {account.token_uri} answered no access_token")
        return token

    async def _call(self, method: str, url: str, what: str, headers: dict[str, str] | None = None,
                    **kwargs: Any) -> httpx.Response:
        async with httpx.AsyncClient(timeout=self.timeout, follow_redirects=True) as web:
            for attempt in range(2):
                try:
                    if self._token is None or attempt:
                        self._token = await self._refresh(web)
                    response = await web.request(method, url, **kwargs, headers={
                        **(headers or {}), "Authorization": f"Bearer {self._token}"})
                except httpx.HTTPError as exc:
                    raise DriveFailed(f"Google Drive {what}: {type(exc).__name__}: {exc}") from None
                if response.status_code != 401:
                    break
        if response.status_code >= 400:
            raise DriveFailed(f"Google Drive {what}: HTTP {response.status_code}: {_reason(response)}")
        return response

    async def list(self, query: str) -> list[dict[str, Any]]:
        """Every file `query` (Drive's search language) matches, all pages, as PyDrive's GetList."""
        items: list[dict[str, Any]] = []
        params: dict[str, Any] = {"q": query, "maxResults": 1000}
        while True:
            page = (await self._call("GET", f"{self.api}/drive/v2/files", f"list {query!r}", params=params)).json()
            items += page.get("items", [])
            if not page.get("nextPageToken"):
                return items
            params["pageToken"] = page["nextPageToken"]

    async def create_folder(self, title: str, parent: str) -> str:
        metadata = {"title": title, "mimeType": FOLDER, **_parents(parent)}
        response = await self._call("POST", f"{self.api}/drive/v2/files", f"create folder {title!r}", json=metadata)
        return response.json()["id"]

    async def upload(self, title: str, data: bytes, parent: str) -> str:
        """A file of `data` named `title` in folder `parent`, its type guessed from its name as PyDrive's is."""
        mime = mimetypes.guess_type(title)[0] or "application/octet-stream"
        metadata = json.dumps({"title": title, "mimeType": mime, **_parents(parent)}).encode()
        boundary = "troupe-drive-upload"
        body = b"".join([
            f"--{boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n".encode(), metadata,
            f"\r\n--{boundary}\r\nContent-Type: {mime}\r\n\r\n".encode(), data, f"\r\n--{boundary}--\r\n".encode()])
        response = await self._call("POST", f"{self.api}/upload/drive/v2/files", f"upload {title!r}",
                                    params={"uploadType": "multipart"}, content=body,
                                    headers={"Content-Type": f"multipart/related; boundary={boundary}"})
        return response.json()["id"]

    async def delete(self, file_id: str) -> None:
        await self._call("DELETE", f"{self.api}/drive/v2/files/{file_id}", f"delete {file_id}")

    async def trash(self, file_id: str) -> None:
        await self._call("POST", f"{self.api}/drive/v2/files/{file_id}/trash", f"trash {file_id}")

    async def content(self, file: dict[str, Any]) -> bytes | None:
        """A listed file's bytes as PyDrive's GetContentFile(mimetype=its own type) fetches them: from its
        `downloadUrl`, else its export link for its own type; None when it has neither (a folder, a Google
        document, which exports only to other types)."""
        url = file.get("downloadUrl") or (file.get("exportLinks") or {}).get(file.get("mimeType"))
        if not url:
            return None
        return (await self._call("GET", url, f"download {file.get('title')!r}")).content


def _parents(parent: str) -> dict[str, Any]:
    return {} if parent == "root" else {"parents": [{"id": parent}]}
