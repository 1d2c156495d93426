"""How WAA's client connects to the VM's browser (the session itself: actors.backends.waa.devtools).

WAA's setup steps try to connect 15 times, five seconds apart (here the pauses
grow to that five, so a browser that is already up costs no wait). Its getters
try once and, when that fails, ask the server to launch Chrome and try once
more five seconds later (`reconnecting`).
"""

from __future__ import annotations

import logging
from typing import Callable, TypeVar

import anyio
from playwright.sync_api import Browser

from actors.backends.waa.client import WAAClient
from actors.backends.waa.devtools import DevToolsUnavailable, with_browser

logger = logging.getLogger(__name__)

T = TypeVar("T")

SETUP_ATTEMPTS = 15
"""WAA's setup steps' connection attempts."""
RELAUNCH = ["google-chrome", "--remote-debugging-port=1337"]
"""What WAA's getters ask /setup/launch to start when the browser does not answer."""
RELAUNCH_WAIT = 5.0
"""Seconds WAA's getters wait after that launch before trying again."""


async def reconnecting(client: WAAClient, work: Callable[[Browser], T]) -> T:
    """As WAA's getters connect: once, then after asking the server to launch Chrome, once more."""
    try:
        return await with_browser(client, work)
    except DevToolsUnavailable as exc:
        logger.warning("%s; launching Chrome as WAA's getters do", exc)
    await client.post("/setup/launch", json={"command": RELAUNCH, "shell": False}, answer_server_errors=True)
    await anyio.sleep(RELAUNCH_WAIT)
    return await with_browser(client, work)
