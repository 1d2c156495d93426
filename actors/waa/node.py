"""The VM actors for one WAA server, in-process or in a node.

`python -m runtime.node --app actors.waa.node:build` reads the server's
address from $TROUPE_WAA_URL and its token from $TROUPE_WAA_TOKEN, so no
secret appears on a command line.
"""

from __future__ import annotations

import os

from actors.observer import Observer
from actors.vm_controller import VMController
from actors.waa.backend import WAABackend


class _ClosingVMController(VMController):
    """Closes the shared backend's connections when the VM actors stop."""

    async def on_stop(self) -> None:
        await self.backend.aclose()


def actors_for(backend: WAABackend) -> list:
    return [_ClosingVMController(backend), Observer(backend)]


def build() -> list:
    try:
        url = os.environ["TROUPE_WAA_URL"]
    except KeyError:
        raise RuntimeError("set TROUPE_WAA_URL to the WAA server (http://HOST:5000)") from None
    return actors_for(WAABackend(url, token=os.environ.get("TROUPE_WAA_TOKEN")))
