"""The HTTP conversation with a WAA VM server, and what counts as the VM being gone.

A WAA VM under load refuses connections while it boots, drops them when its
Flask server restarts, and answers 500 when a handler throws. Those are
retried with exponential backoff; when the retries run out the error is
`WAAUnavailable`, which crashes the VM actor so the episode becomes an
environment failure and the supervisor restarts the VM. A 4xx answer is the
request's own fault and is returned to the caller, never retried. Timeouts
are not retried either: a command that timed out may have run, and running
it twice is worse than failing once.

A caller that treats a server error as an answer (WAA's setup steps: its
client logs a refused step and goes on) asks `answer_server_errors=True`
and gets the last 5xx response once the retries run out; only a server that
cannot be reached is then `WAAUnavailable`. `server_error_retries` counts
the retries that 5xx answers caused, so callers can say how often it happened.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass
from typing import Any

import anyio
import httpx

from protocols import TroupeError
from runtime.backoff import Backoff

DEVTOOLS_PORT = 9222
"""Where a WAA VM's browser answers the DevTools protocol, on the VM's host (WAA's tasks forward it with socat)."""
VLC_PORT = 8080
"""Where a VM's VLC answers its web interface, on the VM's host (WAA's and OSWorld's getters read it there)."""

TOKEN_HEADER = "X-WAA-Token"
"""Sent when a token is set; the Linux server requires it, a real WAA VM ignores it."""


class WAAUnavailable(TroupeError, ConnectionError):
    """The server could not be reached, or kept failing, after every retry."""


@dataclass(frozen=True)
class Retry:
    """`attempts` tries in all, sleeping `backoff`, 2·`backoff`, ... (capped) between them."""

    attempts: int = 4
    backoff: float = 0.5
    max_backoff: float = 8.0

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError(f"`attempts` must be at least 1, got {self.attempts}")
        if self.backoff < 0:
            raise ValueError(f"`backoff` must not be negative, got {self.backoff}")

    def delay(self, failures: int) -> float:
        return Backoff(self.backoff, 2.0, self.max_backoff).delay(failures)


_RETRIED = (httpx.ConnectError, httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)


class WAAClient:
    """One server, one connection pool. `timeout` is the default per request. `devtools` is where
    the VM's browser answers the DevTools protocol (default: port 9222 on the server's host, as
    WAA's client assumes); the browser tasks' steps and getters connect there. `vlc` is where its
    VLC answers its web interface (default: port 8080 on the server's host)."""

    def __init__(self, url: str, *, token: str | None = None, retry: Retry = Retry(), timeout: float = 60.0,
                 devtools: str | None = None, vlc: str | None = None) -> None:
        if not url.startswith(("http://", "https://")):
            raise ValueError(f"WAA server URL must start with http:// or https://, got {url!r}")
        for name, address in (("DevTools", devtools), ("VLC", vlc)):
            if address is not None and not address.startswith(("http://", "https://")):
                raise ValueError(f"the {name} address must start with http:// or https://, got {address!r}")
        self.url = url.rstrip("/")
        host = urllib.parse.urlsplit(url).hostname
        self.devtools = (devtools or f"http://{host}:{DEVTOOLS_PORT}").rstrip("/")
        self.vlc = (vlc or f"http://{host}:{VLC_PORT}").rstrip("/")
        self.retry = retry
        headers = {TOKEN_HEADER: token} if token else {}
        self._http = httpx.AsyncClient(base_url=self.url, headers=headers, timeout=timeout)
        self.server_error_retries = 0

    async def aclose(self) -> None:
        await self._http.aclose()

    async def request(self, method: str, path: str, *, retry: Retry | None = None, answer_server_errors: bool = False,
                      **kwargs: Any) -> httpx.Response:
        """Send, retrying connection errors and 5xx; a 4xx answer is returned as is, and so is
        the last 5xx answer when `answer_server_errors`."""
        retry = retry or self.retry
        problem = ""
        response: httpx.Response | None = None
        for attempt in range(1, retry.attempts + 1):
            try:
                response = await self._http.request(method, path, **kwargs)
            except _RETRIED as exc:
                problem, response = f"{type(exc).__name__}: {exc}", None
            except httpx.TimeoutException as exc:
                raise WAAUnavailable(f"{method} {self.url}{path} timed out ({type(exc).__name__})") from exc
            else:
                if response.status_code < 500:
                    return response
                problem = f"HTTP {response.status_code}: {response.text[:200]}"
            if attempt < retry.attempts:
                self.server_error_retries += response is not None
                await anyio.sleep(retry.delay(attempt))
        if answer_server_errors and response is not None:
            return response
        raise WAAUnavailable(f"{method} {self.url}{path} failed {retry.attempts} times; last: {problem}")

    async def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return await self.request("GET", path, **kwargs)

    async def post(self, path: str, **kwargs: Any) -> httpx.Response:
        return await self.request("POST", path, **kwargs)

    async def probe(self, retry: Retry, path: str = "/probe") -> None:
        """Wait until the server answers `path` (WAA's /probe; OSWorld's server has none, and its
        client waits for any answer, so its suite asks /platform), within `retry`'s bounds."""
        response = await self.get(path, retry=retry)
        if response.status_code != 200:
            raise WAAUnavailable(f"GET {self.url}{path} answered HTTP {response.status_code}: {response.text[:200]}")

    async def execute(self, command: list[str] | str, *, shell: bool = False, path: str = "/execute",
                      answer_server_errors: bool = False) -> dict[str, Any]:
        """Run a command on the VM; `{status, output, error, returncode}` as the server reports it."""
        response = await self.post(path, json={"command": command, "shell": shell},
                                   answer_server_errors=answer_server_errors)
        if response.status_code != 200:
            raise CommandRefused(f"{path} refused {command!r}: HTTP {response.status_code}: {response.text[:300]}")
        return response.json()


class CommandRefused(TroupeError, RuntimeError):
    """The server refused a command (a 4xx, or a 5xx the caller asked to have answered)."""
