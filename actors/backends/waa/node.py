"""The VM actors for one WAA server, in-process or in a node.

`python -m runtime.node --app actors.backends.waa.node:build` drives a bare
WAA VM (no task preparation or evaluation reads); a suite's node app passes
its own `TaskSteps`. The server's address comes from $TROUPE_WAA_URL and its
token from $TROUPE_WAA_TOKEN, so no secret appears on a command line; where
the VM's browser answers DevTools from $TROUPE_WAA_DEVTOOLS (default: port
9222 on the server's host).
"""

from __future__ import annotations

import os

from actors.backends.waa.backend import NoTaskSteps, TaskSteps, WAABackend
from actors.observer import Observer
from actors.vm_controller import VMController


class _ClosingVMController(VMController):
    """Closes the shared backend's connections when the VM actors stop."""

    async def on_stop(self) -> None:
        await self.backend.aclose()


def actors_for(backend: WAABackend) -> list:
    return [_ClosingVMController(backend), Observer(backend)]


def build(steps: TaskSteps = NoTaskSteps()) -> list:
    try:
        url = os.environ["TROUPE_WAA_URL"]
    except KeyError:
        raise RuntimeError("set TROUPE_WAA_URL to the WAA server (http://HOST:5000)") from None
    return actors_for(WAABackend(url, token=os.environ.get("TROUPE_WAA_TOKEN"), steps=steps,
                                 devtools=os.environ.get("TROUPE_WAA_DEVTOOLS")))
