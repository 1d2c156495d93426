"""The baselines for troupe's browser episodes: plain Playwright loops, as gym-style harnesses run them.

One episode at a time, every call awaited in turn, in the calling process:
reset (a fresh context, the task's page loaded and started), observe (a
screenshot, then the accessibility tree with layout boxes), decide (the
scripted MiniWoB agent's plan, grounded in that tree), act (the same pointer
code troupe uses), wait, and read the reward. BrowserGym itself is not a
dependency; two harnesses stand in for it, differing in what they do between
those calls:

- `LEAN`: one browser for all episodes, and after an action troupe's bounded
  quiet-DOM wait instead of a sleep. The fastest loop this machine runs, so
  the comparison with it is of the harness around the browser alone.
- `BROWSERGYM`: what BrowserGym's `BrowserEnv` does by default (read from
  its env.py): `reset()` closes the browser and launches a new one, and
  `step()` sleeps `pre_observation_delay` (0.5 s) after the action, then
  waits for every frame's DOM to be loaded, before observing. Its chat
  window, DOM extraction and set-of-marks are left out, so this is still
  faster than BrowserGym.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field

import anyio
from playwright.async_api import Browser, CDPSession, Page, Playwright, async_playwright

from actors.backends.browser.actions import perform
from actors.backends.browser.launch import LAUNCH_ARGS, find_browser
from actors.backends.browser.pages import PageSpec, page_spec
from actors.backends.browser.settle import INIT_SCRIPT, NetworkWatch, SettlePolicy, settle
from actors.normalize.cdp import layout_boxes, normalize
from bench.suites.miniwob.agent import NotFound, plan_for
from bench.suites.miniwob.site import MiniWobServer, start_miniwob
from bench.suites.miniwob.suite import REWARD_GLOBALS
from protocols import Task, UIElement

LOAD_TIMEOUT = 15.0


@dataclass(frozen=True)
class Harness:
    """What a gym-style loop does between the calls every harness makes."""

    name: str
    browser_per_episode: bool
    """Launch a new browser at every reset (and close the last one), as BrowserGym does."""
    pre_observation_delay: float
    """Seconds slept after each action before anything else."""
    settle: bool
    """After the action (and the delay), wait for the page to be quiet as troupe does, bounded;
    otherwise wait for every frame's DOM content to be loaded, as BrowserGym does."""


LEAN = Harness("plain loop", browser_per_episode=False, pre_observation_delay=0.0, settle=True)
BROWSERGYM = Harness("gym-style loop", browser_per_episode=True, pre_observation_delay=0.5, settle=False)


@dataclass
class LoopFigures:
    wall: float = 0.0
    ready: float = 0.0
    """Seconds from the start until the first browser was launched."""
    resets: list[float] = field(default_factory=list)
    """Seconds from the start of each reset to its first observation (a browser launch included
    when the harness launches one per episode)."""
    steps: list[float] = field(default_factory=list)
    """Seconds of act + wait + observe, per step."""
    successes: int = 0


async def run_plain_loop(tasks: list[Task], harness: Harness = LEAN, executable: str | None = None) -> LoopFigures:
    """Run MiniWoB `tasks` one after the other, browser launch included; asyncio only (Playwright)."""
    figures = LoopFigures()
    started = anyio.current_time()
    server = MiniWobServer()
    try:
        async with async_playwright() as playwright:
            path = find_browser(executable, playwright.chromium.executable_path)
            browser = await _launch(playwright, path)
            figures.ready = anyio.current_time() - started
            for task in tasks:
                began = anyio.current_time()
                if harness.browser_per_episode and figures.resets:  # every episode after the first
                    await browser.close()
                    browser = await _launch(playwright, path)
                for context in browser.contexts:
                    await context.close()
                spec = page_spec(task.raw_config)
                page, cdp, instruction = await _start_task(browser, server, spec)
                network = NetworkWatch(page)
                tree = await _observe(cdp)
                figures.resets.append(anyio.current_time() - began)
                for intent in plan_for(instruction) or []:
                    try:
                        action = intent(tree)
                    except NotFound:
                        break
                    step_began = anyio.current_time()
                    await perform(page, cdp, action)
                    await _wait(page, network, harness)
                    tree = await _observe(cdp)
                    figures.steps.append(anyio.current_time() - step_began)
                reward = await page.evaluate("names => names.map(n => window[n])", list(REWARD_GLOBALS))
                figures.successes += bool(reward[0] and reward[0] > 0)
            await browser.close()
    finally:
        server.close()
    figures.wall = anyio.current_time() - started
    return figures


async def _launch(playwright: Playwright, path: str) -> Browser:
    return await playwright.chromium.launch(executable_path=path, args=list(LAUNCH_ARGS))


async def _start_task(browser: Browser, server: MiniWobServer, spec: PageSpec) -> tuple[Page, CDPSession, str]:
    """A fresh context with the task's page loaded and started: the page, its CDP session, the instruction."""
    assert spec.site is not None
    width, height = spec.viewport
    context = await browser.new_context(viewport={"width": width, "height": height})
    await context.add_init_script(INIT_SCRIPT)
    page = await context.new_page()
    cdp = await context.new_cdp_session(page)
    await page.goto(server.url(spec.site[1]), wait_until="load", timeout=LOAD_TIMEOUT * 1000)
    return page, cdp, await start_miniwob(page, spec, LOAD_TIMEOUT)


async def _wait(page: Page, network: NetworkWatch, harness: Harness) -> None:
    if harness.pre_observation_delay:
        await anyio.sleep(harness.pre_observation_delay)
    if harness.settle:
        await settle(page, network, SettlePolicy())
    else:
        for frame in page.frames:
            await frame.wait_for_load_state("domcontentloaded", timeout=LOAD_TIMEOUT * 1000)


async def _observe(cdp: CDPSession) -> UIElement | None:
    """A screenshot, then the tree: one after the other, as a gym harness takes them."""
    shot = await cdp.send("Page.captureScreenshot", {"format": "png"})
    base64.b64decode(shot["data"])
    ax = await cdp.send("Accessibility.getFullAXTree", {})
    snapshot = await cdp.send("DOMSnapshot.captureSnapshot", {"computedStyles": []})
    return normalize(ax["nodes"], layout_boxes(snapshot))
