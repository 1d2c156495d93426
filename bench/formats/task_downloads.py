"""A setup step's file fetched from its URL as WAA's and OSWorld's SetupControllers fetch it.

Both controllers try a download up to three times and then give up, so a
link that fails once in a while still sets the task up; where the fetched
file is kept (WAA's per-run folder, OSWorld's cache folder) and what a
failure means for the task are each suite's own.
"""

from __future__ import annotations

import httpx

from protocols import TroupeError

__all__ = ["DOWNLOAD_TRIES", "DownloadFailed", "fetch"]

DOWNLOAD_TRIES = 3


class DownloadFailed(TroupeError):
    """Every try of a download failed; the message names the last problem."""


async def fetch(url: str, timeout: float) -> bytes:
    """The body of the first of DOWNLOAD_TRIES answers to `url` that is not an HTTP error."""
    problem = ""
    async with httpx.AsyncClient(timeout=timeout, follow_redirects=True) as web:
        for _ in range(DOWNLOAD_TRIES):
            try:
                response = await web.get(url)
                response.raise_for_status()
            except httpx.HTTPError as exc:
                problem = f"{type(exc).__name__}: {exc}"
                continue
            return response.content
    raise DownloadFailed(f"{DOWNLOAD_TRIES} times; last: {problem}")
