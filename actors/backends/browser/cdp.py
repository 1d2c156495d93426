"""CDP calls, without the cost of Playwright's public wrapper on their replies.

`CDPSession.send` passes every reply through Playwright's API mapping, which
walks it value by value looking for its own objects to wrap; a CDP reply
holds none. On an accessibility tree and a DOM snapshot that walk is
~120,000 Python calls per 40 observations, about 12 ms of the node's CPU
per observation, spent on the step's critical path. The implementation
object behind the public one sends the same message and returns the reply
as it arrived.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import CDPSession


async def cdp_send(cdp: CDPSession, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """`cdp.send(method, params)`, its reply unwrapped."""
    return await cdp._impl_obj.send(method, params, None)
