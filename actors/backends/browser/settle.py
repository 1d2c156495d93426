"""Waiting for a page to settle after an action, instead of a fixed sleep.

A page has settled when its DOM has been quiet for `quiet` seconds (counted
from the end of the action, so a handler that changes the page a moment later
is still waited for), the document has loaded, and no request is in flight.
The wait is bounded: a page that never settles (an endless animation, a
polling loop) costs at most `limit` seconds and the step reports it, so the
agent knows the screen may still be moving.

The DOM is watched by a MutationObserver installed in every document before
its own scripts run (`INIT_SCRIPT`); the waiting itself is one call into the
page, not a polling loop over CDP.
"""

from __future__ import annotations

from dataclasses import dataclass

import anyio
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

INIT_SCRIPT = """
(() => {
  if (window.__troupeSettle) return;
  const state = window.__troupeSettle = {last: performance.now()};
  new MutationObserver(() => { state.last = performance.now(); })
    .observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
})();
"""

# Resolves once the DOM was quiet for `quiet` ms since max(last mutation, start), or at `limit` ms.
# Sleeps until the moment the page would have been quiet long enough, then looks again (a
# mutation meanwhile moved that moment): a wake-up per mutation burst, not a poll every few ms.
_WAIT_QUIET = """
async ([quiet, limit]) => {
  const start = performance.now();
  const state = window.__troupeSettle || {last: start};
  for (;;) {
    const now = performance.now();
    const calm = now - Math.max(state.last, start);
    const loaded = document.readyState === 'complete';
    if (loaded && calm >= quiet) return true;
    if (now - start >= limit) return false;
    const wait = Math.min(loaded ? quiet - calm : 5, limit - (now - start));
    await new Promise(resolve => setTimeout(resolve, Math.max(wait, 1)));
  }
}
"""


@dataclass(frozen=True)
class SettlePolicy:
    quiet: float = 0.03
    limit: float = 2.0


class NetworkWatch:
    """Requests of one page that have started and not yet finished or failed."""

    def __init__(self, page: Page) -> None:
        self.in_flight = 0
        self._idle = anyio.Event()
        self._idle.set()
        page.on("request", self._started)
        page.on("requestfinished", self._ended)
        page.on("requestfailed", self._ended)

    def _started(self, _request) -> None:
        self.in_flight += 1
        if self._idle.is_set():
            self._idle = anyio.Event()

    def _ended(self, _request) -> None:
        self.in_flight = max(0, self.in_flight - 1)
        if self.in_flight == 0:
            self._idle.set()

    async def idle(self) -> None:
        await self._idle.wait()


async def settle(page: Page, network: NetworkWatch, policy: SettlePolicy) -> tuple[float, str | None]:
    """Wait for `page` to settle; return the seconds waited and, past the limit, why it did not."""
    started = anyio.current_time()
    deadline = started + policy.limit
    while True:
        remaining = deadline - anyio.current_time()
        quiet = False
        with anyio.move_on_after(max(remaining, 0) + 0.5):  # a hung renderer never answers
            if network.in_flight:
                await network.idle()
            quiet = await _quiet(page, policy.quiet, deadline - anyio.current_time())
        waited = anyio.current_time() - started
        if quiet and not network.in_flight:
            return waited, None
        if anyio.current_time() >= deadline:
            busy = f"{network.in_flight} requests in flight" if network.in_flight else "the DOM kept changing"
            return waited, f"page did not settle within {policy.limit:g} s ({busy})"


async def _quiet(page: Page, quiet: float, remaining: float) -> bool:
    try:
        return await page.evaluate(_WAIT_QUIET, [quiet * 1000, max(remaining, 0) * 1000])
    except PlaywrightError as exc:
        if page.is_closed() or "destroyed" not in str(exc) and "navigat" not in str(exc):
            raise
        return False  # a navigation replaced the document mid-wait: wait again in the new one
