"""Where an episode's page comes from: a URL, or a site a suite plugs in.

A task says which page to open in `raw_config["browser"]` (a `PageSpec`):
an ordinary URL, or `<site>:<name>` for a page a `Site` serves and starts
(a suite's site, such as `mysite:task-17`). `PageSpec.page` is what loading
depends on (the page and the viewport, not the seed): two tasks with the same
one can be loaded ahead into a fresh page the same way. Only data crosses the
socket: the code that serves and starts a site's pages lives in the node, in
the suite's node app, which hands its sites to the backend.
"""

from __future__ import annotations

import re
from typing import Any, Protocol

import msgspec
from playwright.async_api import Page

URL_PREFIXES = ("http://", "https://", "file:", "data:", "about:")
_SITE_NAME = re.compile(r"[a-z][a-z0-9_-]*:(?!//)")
"""`<site>:<name>`; `scheme://` is a URL whose scheme is not one a browser page is opened from."""


class PageSpec(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """`start`: a URL (http, https, file, data, about) or `<site>:<name>`; `seed` and
    `episode_seconds` are for sites that generate their task from a seed."""

    start: str
    seed: int | None = None
    viewport: tuple[int, int] = (1280, 720)
    episode_seconds: float = 3600.0

    def __post_init__(self) -> None:
        if not (self.start.startswith(URL_PREFIXES) or _SITE_NAME.match(self.start)):
            raise ValueError(f"`start` must be a URL or <site>:<name>, got {self.start!r}")
        if min(self.viewport) <= 0:
            raise ValueError(f"`viewport` must be positive, got {self.viewport}")

    @property
    def page(self) -> tuple[str, tuple[int, int]]:
        """What loading the page depends on: its `start` and the viewport."""
        return self.start, self.viewport

    @property
    def site(self) -> tuple[str, str] | None:
        """(site, name) for `<site>:<name>`, None for a URL."""
        if self.start.startswith(URL_PREFIXES):
            return None
        site, _, name = self.start.partition(":")
        return site, name


def page_spec(raw_config: dict[str, Any]) -> PageSpec:
    """The task's page, or a ValueError naming the field that is wrong."""
    try:
        return msgspec.convert(raw_config.get("browser"), PageSpec)
    except msgspec.ValidationError as exc:
        raise ValueError(f"task raw_config['browser']: {exc}") from None


class Site(Protocol):
    """Pages a suite serves, in two parts: loading one (which depends only on its name, so it
    can be done ahead, while the previous episode still runs) and starting its task."""

    async def load(self, page: Page, name: str, load_timeout: float) -> None:
        """Load page `name` into a fresh page; a ValueError names a page the site does not have."""

    async def start(self, page: Page, spec: PageSpec, timeout: float) -> str | None:
        """Start the task of the loaded page; return the instruction it generated, if any."""

    def close(self) -> None:
        """Release what the site holds (a server, a thread); called when the browser closes."""
