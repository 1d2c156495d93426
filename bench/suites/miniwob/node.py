"""The node app for MiniWoB++ episodes: `python -m runtime.node --app bench.suites.miniwob.node:build`.

A browser (see actors.backends.browser.node) with the `miniwob:` site plugged in.
"""

from __future__ import annotations

from runtime.actor import Actor

from actors.backends.browser.backend import BrowserBackend
from actors.backends.browser.node import actors_for
from bench.suites.miniwob.site import SITE, MiniWobSite


def build() -> list[Actor]:
    return actors_for(BrowserBackend(sites={SITE: MiniWobSite()}))
