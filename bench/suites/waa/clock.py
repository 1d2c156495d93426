"""Clock app getters: WAA asks its own server, which reads the Clock app's UI Automation tree.

- `check_if_timer_started`: POST /check_if_timer_started `{hours, minutes,
  seconds}` (the task's values, as the task writes them);
- `check_if_world_clock_exists`: POST /check_if_world_clock_exists `{city,
  country}`.

Each is "True" when the server answers 200 and "False" for any other answer
(400 is its no; a 500 from a UI Automation failure reads as no too, as in
WAA's controller). The task compares it with exact_match against "True".
"""

from __future__ import annotations

from typing import Any

from actors.backends.waa.client import WAAClient
from bench.suites.waa.guest import endpoint_agrees


async def check_if_timer_started(client: WAAClient, spec: dict[str, Any]) -> str:
    body = {"hours": spec["hours"], "minutes": spec["minutes"], "seconds": spec["seconds"]}
    return str(await endpoint_agrees(client, "/check_if_timer_started", body))


async def check_if_world_clock_exists(client: WAAClient, spec: dict[str, Any]) -> str:
    body = {"city": spec["city"], "country": spec["country"]}
    return str(await endpoint_agrees(client, "/check_if_world_clock_exists", body))


CLOCK_GETTERS = {
    "check_if_timer_started": check_if_timer_started,
    "check_if_world_clock_exists": check_if_world_clock_exists,
}
