"""A headless Chromium for tests of pages (the live viewer, report.html), via Playwright's sync API."""

from contextlib import contextmanager

from playwright.sync_api import sync_playwright

from actors.backends.browser.launch import LAUNCH_ARGS, find_browser


@contextmanager
def chromium_page():
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=find_browser(None, playwright.chromium.executable_path), args=list(LAUNCH_ARGS))
        try:
            yield browser.new_page(viewport={"width": 1200, "height": 900})
        finally:
            browser.close()
