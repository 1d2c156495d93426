"""The baseline for troupe's browser episodes: a plain Playwright loop, as a gym-style harness runs one.

One browser, one episode at a time, every call awaited in turn, in the
calling process: reset (close the last context, make a fresh one, load the
task's page, start it), observe (a screenshot, then the accessibility tree
with layout boxes), decide (the scripted MiniWoB agent's plan, grounded in
that tree), act (the same pointer code troupe uses), wait for the page to
settle (troupe's bounded quiet-DOM wait, not a fixed sleep, so the
comparison is of the harness around the browser and not of sleeps), and read
the reward. BrowserGym itself is not a dependency; this loop does what it
does per step, without its extras (no DOM tree, no set-of-marks), so it is a
fast stand-in for it.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field

import anyio
from playwright.async_api import BrowserContext, CDPSession, async_playwright

from actors.backends.browser.actions import perform
from actors.backends.browser.launch import LAUNCH_ARGS, find_browser
from actors.backends.browser.pages import page_spec
from actors.backends.browser.settle import INIT_SCRIPT, NetworkWatch, SettlePolicy, settle
from actors.normalize.cdp import layout_boxes, normalize
from bench.suites.miniwob.agent import NotFound, plan_for
from bench.suites.miniwob.site import MiniWobServer, start_miniwob
from bench.suites.miniwob.suite import REWARD_GLOBALS
from protocols import Task, UIElement

LOAD_TIMEOUT = 15.0


@dataclass
class LoopFigures:
    wall: float = 0.0
    ready: float = 0.0
    """Seconds from the start until the browser was launched."""
    resets: list[float] = field(default_factory=list)
    """Seconds from the start of each reset to its first observation."""
    steps: list[float] = field(default_factory=list)
    """Seconds of act + wait + observe, per step."""
    successes: int = 0


async def run_plain_loop(tasks: list[Task], executable: str | None = None) -> LoopFigures:
    """Run MiniWoB `tasks` one after the other, browser launch included; asyncio only (Playwright)."""
    figures = LoopFigures()
    started = anyio.current_time()
    server = MiniWobServer()
    try:
        async with async_playwright() as playwright:
            path = find_browser(executable, playwright.chromium.executable_path)
            browser = await playwright.chromium.launch(executable_path=path, args=list(LAUNCH_ARGS))
            figures.ready = anyio.current_time() - started
            context: BrowserContext | None = None
            for task in tasks:
                spec = page_spec(task.raw_config)
                assert spec.site is not None
                began = anyio.current_time()
                if context is not None:
                    await context.close()
                width, height = spec.viewport
                context = await browser.new_context(viewport={"width": width, "height": height})
                await context.add_init_script(INIT_SCRIPT)
                page = await context.new_page()
                network = NetworkWatch(page)
                cdp = await context.new_cdp_session(page)
                await page.goto(server.url(spec.site[1]), wait_until="load", timeout=LOAD_TIMEOUT * 1000)
                instruction = await start_miniwob(page, spec, LOAD_TIMEOUT)
                tree = await _observe(cdp)
                figures.resets.append(anyio.current_time() - began)
                for intent in plan_for(instruction) or []:
                    try:
                        action = intent(tree)
                    except NotFound:
                        break
                    step_began = anyio.current_time()
                    await perform(page, cdp, action)
                    await settle(page, network, SettlePolicy())
                    tree = await _observe(cdp)
                    figures.steps.append(anyio.current_time() - step_began)
                reward = await page.evaluate("names => names.map(n => window[n])", list(REWARD_GLOBALS))
                figures.successes += bool(reward[0] and reward[0] > 0)
            await browser.close()
    finally:
        server.close()
    figures.wall = anyio.current_time() - started
    return figures


async def _observe(cdp: CDPSession) -> UIElement | None:
    """A screenshot, then the tree: one after the other, as a gym harness takes them."""
    shot = await cdp.send("Page.captureScreenshot", {"format": "png"})
    base64.b64decode(shot["data"])
    ax = await cdp.send("Accessibility.getFullAXTree", {})
    snapshot = await cdp.send("DOMSnapshot.captureSnapshot", {"computedStyles": []})
    return normalize(ax["nodes"], layout_boxes(snapshot))
