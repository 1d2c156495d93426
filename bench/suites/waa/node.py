"""WAA's own steps around an episode, and the VM actors that run them.

Setup (`config`) runs at reset; at evaluation `postconfig` runs and the
getters read the `result` and `expected` values the metric compares. A
getter that fails leaves None and its reason under `errors`, so the checker
can say why; one that raises where WAA's own getter raises (`GetterCrash`)
leaves None under `crashes` with the fix and the value it would read. A setup or postconfig step the server refused is listed under
`setup_errors` (WAA logs it and goes on; so does the episode), as is a step
that was answered only after 5xx retries.

`python -m runtime.node --app bench.suites.waa.node:build` reads the server's
address from $TROUPE_WAA_URL and its token from $TROUPE_WAA_TOKEN.
"""

from __future__ import annotations

from typing import Any

from protocols import Task

from actors.backends.waa import node
from actors.backends.waa.backend import WAABackend
from actors.backends.waa.client import CommandRefused, WAAClient
from bench.suites.waa.errors import GetterCrash
from bench.suites.waa.getters import GetterFailed, resolve, specs
from bench.suites.waa.setup import DownloadCache, run_steps


class WAATaskSteps:
    """One VM's task steps: the episode's setup problems are kept from
    `prepare` to `inspect`, and downloads are cached for the run."""

    def __init__(self) -> None:
        self.downloads = DownloadCache()
        self._setup_errors: list[str] = []

    async def prepare(self, client: WAAClient, task: Task) -> None:
        self._setup_errors = []
        self._setup_errors = await run_steps(client, task.raw_config.get("config", []), phase="config",
                                             cache=self.downloads)

    async def inspect(self, client: WAAClient, spec: dict[str, Any]) -> dict[str, Any]:
        failed = await run_steps(client, spec.get("postconfig", []), phase="postconfig", cache=self.downloads)
        state: dict[str, Any] = {"result": [], "expected": [], "errors": [], "crashes": [],
                                 "setup_errors": [*self._setup_errors, *failed]}
        for key in ("result", "expected"):
            for index, item in enumerate(specs(spec.get(key))):
                try:
                    value = await resolve(client, item)
                except GetterCrash as exc:
                    state["crashes"].append({"at": f"{key}[{index}]", "reason": str(exc), "fix": exc.fix,
                                             "value": exc.value})
                    value = None
                except (GetterFailed, CommandRefused) as exc:
                    state["errors"].append(f"{key}[{index}]: {exc}")
                    value = None
                state[key].append(value)
        return state


def waa_backend(url: str, **options: Any) -> WAABackend:
    """A backend for the WAA server at `url` that runs WAA's task steps."""
    return WAABackend(url, steps=WAATaskSteps(), **options)


actors_for = node.actors_for


def build() -> list:
    return node.build(WAATaskSteps())
