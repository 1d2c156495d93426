"""One Chromium as a VM: the VMBackend and ScreenBackend of the browser.

One browser per node process (`chromium`), for one VM slot or for several,
each slot a backend of its own; one fresh browser context per episode (that is
the reset: no cookies, storage, files, downloads or history leak between
episodes), made ahead while the episode before runs (see `ahead`), so a reset
that finds its page loaded only starts it. Actions wait for the page to
settle instead of sleeping; observations take the screenshot and the
accessibility tree at the same time over one CDP session.

A browser that dies is not a step error: every call checks, and raises
`chromium.BrowserCrashed`, which crashes the hosting actor and with it the node, so
the supervisor restarts the node and retries the episode on a fresh browser.
A page that fails under a live browser (its renderer crashed, a load broke
off) is refused instead: the episode is retried on a fresh VM all the same,
and the browser's other slots go on.
"""

from __future__ import annotations

import base64
import keyword
from typing import Any, Mapping

import anyio
from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError

from protocols import Acted, Action, Task, UIElement, Viewport, Wait
from runtime.errors import Refused

from actors.backends.browser.actions import ActionError, perform
from actors.backends.browser.ahead import Ahead
from actors.backends.browser.cdp import cdp_send
from actors.backends.browser.chromium import Chromium
from actors.backends.browser.environment import Environment
from actors.backends.browser.settle import SettlePolicy, settle
from actors.backends.browser.pages import PageSpec, Site, page_spec
from actors.normalize.cdp import layout_boxes, normalize

SCREENSHOT = {"format": "png", "optimizeForSpeed": True}
"""PNG still, but encoded with zlib's fastest setting: measured on a small form page at 1280x720,
about 30% less CPU per capture (26-30 ms -> 20-21 ms, all processes) for a file about 1.8x
as large (19 KB -> 33 KB), which a loopback socket carries in well under a millisecond."""

_SCREENSHOT_RETRY_PAUSES = (0.05, 0.2, 0.5, None)
"""Pauses between tries of a capture the renderer could not serve yet; None: give up."""


class BrowserBackend:
    """One VM slot's browser: its own `Chromium` (launched by `start`, closed by `close`), or
    one shared with the node's other slots (`browser=`, started and closed by its owner)."""

    def __init__(self, executable: str | None = None, *, sites: Mapping[str, Site] | None = None,
                 browser: Chromium | None = None, settle_policy: SettlePolicy = SettlePolicy(),
                 action_timeout: float = 10.0, load_timeout: float = 15.0) -> None:
        if browser is not None and (executable is not None or sites is not None):
            raise ValueError("a shared browser brings its own executable and sites; give them to its Chromium")
        self._owns = browser is None
        self.chromium = Chromium(executable, sites=sites) if browser is None else browser
        self.settle_policy = settle_policy
        self.action_timeout = action_timeout
        self.load_timeout = load_timeout
        self._env: Environment | None = None
        self._ahead = Ahead(self._open, self._load)
        self._instruction: str | None = None

    # --- life ------------------------------------------------------------------

    async def start(self) -> None:
        """Launch the browser unless it is shared; begin making the first environment."""
        if self._owns:
            await self.chromium.start()
        self.chromium.check()
        self._ahead.prepare([], None)

    async def close(self) -> None:
        """Close this slot's environments, and the browser unless it is shared."""
        await self._ahead.aclose()
        if self._owns:
            await self.chromium.close()  # and every context in it
        elif self._env is not None:
            await self._env.close()
        self._env = None

    def _check(self, exc: BaseException | None = None) -> None:
        self.chromium.check(exc)

    def _failed(self, exc: PlaywrightError) -> Refused:
        """What a Playwright error of this slot's page becomes: BrowserCrashed (raised here) when
        the browser is gone, else a refusal (a crash of the actor would end the node, and with it
        every slot on the browser)."""
        self._check(exc)
        return Refused(f"the page failed: {str(exc).splitlines()[0]}")

    # --- VMBackend -------------------------------------------------------------

    async def reset(self, task: Task, attempt: int) -> None:
        """Hand the episode the environment made ahead if it fits the task (else a fresh one),
        load the task's page unless it already is, start it; then prepare the next."""
        await self.chromium.unless_lost(self._reset(task))

    async def _reset(self, task: Task) -> None:
        self._check()
        try:
            spec = page_spec(task.raw_config)
        except ValueError as exc:
            raise Refused(f"task {task.task_id}: {exc}") from None
        site = self._site(spec)
        env = await self._ahead.take(spec)
        done_with = [] if self._env is None else [self._env]
        self._env = None
        try:
            self._check()  # a preparation that failed because the browser died
            if env is None:
                env = await self._open(spec.viewport)
            self._env = env
            env.hand_over()
            if env.loaded is None:
                await env.fit(spec.viewport)
                await self._load(env, spec)
            env.loaded = None  # started below: never to be taken for loaded again
            self._instruction = None if site is None else await site.start(env.page, spec, self.load_timeout)
        except PlaywrightError as exc:
            raise self._failed(exc) from exc
        finally:
            self._ahead.prepare(done_with, spec)

    def _site(self, spec: PageSpec) -> Site | None:
        if spec.site is None:
            return None
        site = self.chromium.sites.get(spec.site[0])
        if site is None:
            known = ", ".join(sorted(self.chromium.sites)) or "none in this node"
            raise Refused(f"no site {spec.site[0]!r} in this browser (sites: {known})")
        return site

    async def _open(self, viewport: tuple[int, int]) -> Environment:
        """A fresh environment, within `load_timeout`: Playwright never answers for a new page
        whose renderer died while it was made (a reset waited for it until its caller gave up)."""
        with anyio.move_on_after(self.load_timeout):
            return await Environment.open(self.chromium.browser, viewport)
        raise Refused(f"the page failed: a fresh one was not made within {self.load_timeout:g} s")

    async def _load(self, env: Environment, spec: PageSpec) -> None:
        """Load `spec`'s page into `env`'s fresh page, without starting it."""
        site = self._site(spec)
        if site is None:
            await env.page.goto(spec.start, wait_until="load", timeout=self.load_timeout * 1000)
            return
        assert spec.site is not None
        try:
            await site.load(env.page, spec.site[1], self.load_timeout)
        except ValueError as exc:
            raise Refused(str(exc)) from None

    async def act(self, step: int, action: Action) -> Acted:
        page, cdp = self._live_page()
        assert self._env is not None and self._env.network is not None
        started = anyio.current_time()
        error: str | None = None
        timeout = self.action_timeout + (action.seconds if isinstance(action, Wait) else 0)
        try:
            with anyio.fail_after(timeout):
                await perform(page, cdp, action)
        except ActionError as exc:
            return Acted(duration=anyio.current_time() - started, error=str(exc))
        except TimeoutError:
            error = f"the {action.__struct_config__.tag} did not complete within {timeout:g} s"
        except PlaywrightError as exc:
            self._check(exc)
            error = f"the {action.__struct_config__.tag} failed: {str(exc).splitlines()[0]}"
        duration = anyio.current_time() - started
        if action.terminal:
            return Acted(duration=duration)
        try:
            waited, unsettled = await settle(page, self._env.network, self.settle_policy)
        except PlaywrightError as exc:
            raise self._failed(exc) from exc
        return Acted(duration=duration, settle=waited, error=error or unsettled)

    async def inspect(self, spec: dict[str, Any]) -> dict[str, Any]:
        """`spec["globals"]` names page globals (identifiers only) to read, e.g. a reward the page keeps."""
        page, _ = self._live_page()
        names = spec.get("globals", [])
        bad = [name for name in names if not _identifier(name)]
        if bad:
            raise Refused(f"inspect: `globals` must name JavaScript identifiers, got {bad!r}")
        try:
            values = await page.evaluate("names => names.map(n => window[n] === undefined ? null : window[n])", names)
        except PlaywrightError as exc:
            raise self._failed(exc) from exc
        assert self._env is not None
        return {"globals": dict(zip(names, values)), "url": page.url, "downloads": list(self._env.downloads)}

    # --- ScreenBackend ---------------------------------------------------------

    async def screenshot(self) -> tuple[bytes, Viewport]:
        page, cdp = self._live_page()
        for pause in _SCREENSHOT_RETRY_PAUSES:
            try:
                shot = await cdp_send(cdp, "Page.captureScreenshot", SCREENSHOT)
                break
            except PlaywrightError as exc:
                # A busy headless renderer sometimes has no frame to give yet; it will shortly.
                if "Unable to capture screenshot" not in str(exc) or pause is None:
                    raise self._failed(exc) from exc
                self._check(exc)
                await anyio.sleep(pause)
        size = page.viewport_size or {"width": 0, "height": 0}
        return base64.b64decode(shot["data"]), Viewport(size["width"], size["height"])

    async def tree(self) -> UIElement | None:
        _, cdp = self._live_page()
        replies: dict[str, Any] = {}

        async def call(method: str, params: dict[str, Any]) -> None:
            try:
                replies[method] = await cdp_send(cdp, method, params)
            except PlaywrightError as exc:
                raise self._failed(exc) from exc

        async with anyio.create_task_group() as tg:
            tg.start_soon(call, "Accessibility.getFullAXTree", {})
            tg.start_soon(call, "DOMSnapshot.captureSnapshot", {"computedStyles": []})
        boxes = layout_boxes(replies["DOMSnapshot.captureSnapshot"])
        return normalize(replies["Accessibility.getFullAXTree"]["nodes"], boxes)

    async def details(self) -> dict[str, Any]:
        page, cdp = self._live_page()
        try:
            title, element_focused = await page.evaluate(_DETAILS)
            focused = await self._focused(cdp) if element_focused else None
        except PlaywrightError as exc:
            raise self._failed(exc) from exc
        return {"url": page.url, "window_title": title, "app_name": "chromium",
                "focused_element": focused, "instruction": self._instruction}

    async def _focused(self, cdp: CDPSession) -> str | None:
        """The node_id (DOM backend node id) of the focused element, None when it is the page itself."""
        found = await cdp_send(cdp, "Runtime.evaluate", {"expression": "document.activeElement"})
        object_id = found.get("result", {}).get("objectId")
        if object_id is None:
            return None
        try:
            node = (await cdp_send(cdp, "DOM.describeNode", {"objectId": object_id}))["node"]
        finally:
            await cdp_send(cdp, "Runtime.releaseObject", {"objectId": object_id})
        return None if node.get("nodeName") in ("BODY", "HTML") else str(node["backendNodeId"])

    def _live_page(self) -> tuple[Page, CDPSession]:
        self._check()
        if self._env is None:
            raise Refused("the browser has not been reset to a task yet")
        if self._env.crashed:
            raise Refused("the page failed: its renderer crashed")
        return self._env.page, self._env.cdp


# Title, HTML, and whether an element (not the page itself) has the focus: only then is it
# worth the three CDP round trips that find its backend node id.
_DETAILS = """
() => {
  const e = document.activeElement;
  return [document.title, !!e && e !== document.body && e !== document.documentElement];
}
"""


def _identifier(name: Any) -> bool:
    return isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name)
