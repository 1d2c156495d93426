"""Chrome's cookies in OSWorld's tasks, as its getters/chrome.py and metrics/chrome.py read them.

- `cookie_data`: every row of the profile's `Cookies` database (`SELECT *
  FROM cookies`), the file found as chrome.py's getters find profile files
  (`.config/google-chrome/Default/Cookies` on Linux: where OSWorld looks,
  though Chrome since version 96 keeps it under `Default/Network/`). A file
  that is not there or is not such a database gives None, as OSWorld's
  getter returns it;
- `is_cookie_deleted`: rule type "domains": 0 when some cookie's domain
  (its row's second column, `host_key`) is the same as a listed domain by
  OSWorld's `compare_urls` (chrome_tabs.py), else 1. No cookies read (None)
  raises, as OSWorld's does; so does another rule type.
"""

from __future__ import annotations

from typing import Any

import anyio

from bench.suites.osworld.chrome import profile_file, rows
from bench.suites.osworld.chrome_tabs import compare_urls
from bench.suites.osworld.episode import Episode
from bench.suites.osworld.errors import MetricFailed

COOKIES = "Cookies"
ALL_COOKIES = "SELECT * FROM cookies"


async def _cookie_data(episode: Episode, spec: dict[str, Any]) -> list[list[Any]] | None:
    content = await profile_file(episode, COOKIES)
    try:
        return await anyio.to_thread.run_sync(rows, content, ALL_COOKIES)
    except Exception:  # noqa: BLE001 - OSWorld's getter returns None on any failure
        return None


def is_cookie_deleted(cookie_data: Any, rule: Any, **options: Any) -> float:
    if rule["type"] != "domains":
        raise MetricFailed(f"is_cookie_deleted: rule type {rule['type']!r} is not supported (OSWorld's raises)")
    if cookie_data is None:
        raise MetricFailed("is_cookie_deleted: no cookies were read (OSWorld's function raises on None)")
    domains = [cookie[1] for cookie in cookie_data]
    return float(not any(compare_urls(wanted, domain) for wanted in rule["domains"] for domain in domains))


COOKIE_GETTERS = {"cookie_data": _cookie_data}
COOKIE_METRICS = {"is_cookie_deleted": is_cookie_deleted}
