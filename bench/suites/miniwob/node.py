"""The node app for MiniWoB++ episodes: `python -m runtime.node --app bench.suites.miniwob.node:build [--seats N]`.

A browser (see actors.backends.browser.node) with the `miniwob:` site plugged in,
for one VM slot or for N sharing the browser.
"""

from __future__ import annotations

from runtime.actor import Actor

from actors.backends.browser.node import browser_actors
from bench.suites.miniwob.site import SITE, MiniWobSite


def build(seats: int | None = None) -> list[Actor]:
    return browser_actors(seats, sites={SITE: MiniWobSite()})
