"""OSWorld's `login` step: the VM's Chrome signed into the Google account, over DevTools.

As OSWorld's `_login_setup`: connect to Chrome's DevTools (15 attempts), open
a new tab on Google Drive's page (`GoogleDrive.page`; a page that does not
load within 60 s is logged, and the sign-in goes on), type the account's
email into `input[type="email"]` (shown within 3 s), press
`#identifierNext > div > button`, type the password into
`input[type="password"]` (shown within 5 s), press
`#passwordNext > div > button` and wait at most 5 s for the page to load.
OSWorld catches Python's TimeoutError around that, which Playwright's is not,
so a field that does not show ends its setup: here too, a setup error naming
the field. `platform` other than `googledrive` is a setup error, as OSWorld
raises NotImplementedError. The email and password go to the browser only:
errors name the stage, never what was typed.
"""

from __future__ import annotations

import logging
from typing import Any

from playwright.sync_api import Browser
from playwright.sync_api import Error as PlaywrightError

from actors.backends.waa.devtools import DevToolsUnavailable, with_browser
from bench.suites.osworld.chrome_tabs import OPEN_TIMEOUT_MS, SETUP_ATTEMPTS
from bench.suites.osworld.episode import Episode
from bench.suites.osworld.errors import SetupFailed
from bench.suites.osworld.googledrive import NO_ACCOUNT

logger = logging.getLogger(__name__)

EMAIL_FIELD, EMAIL_NEXT = 'input[type="email"]', "#identifierNext > div > button"
PASSWORD_FIELD, PASSWORD_NEXT = 'input[type="password"]', "#passwordNext > div > button"
EMAIL_MS, PASSWORD_MS, LOAD_MS = 3_000, 5_000, 5_000
"""OSWorld's waits for the email field, the password field and the signed-in page."""


async def _login(episode: Episode, p: dict[str, Any]) -> None:
    if p["platform"] != "googledrive":
        raise SetupFailed(f"platform {p['platform']!r} is not one OSWorld signs into (googledrive)")
    if episode.drive is None:
        raise SetupFailed(NO_ACCOUNT)
    url, account = episode.drive.page, episode.drive.account

    def sign_in(browser: Browser) -> None:
        page = browser.contexts[0].new_page()
        try:
            page.goto(url, timeout=OPEN_TIMEOUT_MS)
        except PlaywrightError as exc:
            logger.warning("login: opening %s: %s", url, str(exc).splitlines()[0])
        stage = f"the email field ({EMAIL_FIELD}) within {EMAIL_MS / 1000:g} s"
        try:
            page.wait_for_selector(EMAIL_FIELD, state="visible", timeout=EMAIL_MS)
            page.fill(EMAIL_FIELD, account.email)
            stage = f"the email's Next button ({EMAIL_NEXT})"
            page.click(EMAIL_NEXT)
            stage = f"the password field ({PASSWORD_FIELD}) within {PASSWORD_MS / 1000:g} s"
            page.wait_for_selector(PASSWORD_FIELD, state="visible", timeout=PASSWORD_MS)
            page.fill(PASSWORD_FIELD, account.password)
            stage = f"the password's Next button ({PASSWORD_NEXT})"
            page.click(PASSWORD_NEXT)
            stage = f"the signed-in page's load within {LOAD_MS / 1000:g} s"
            page.wait_for_load_state("load", timeout=LOAD_MS)
        except PlaywrightError as exc:
            raise SetupFailed(f"Google's sign-in page at {url} did not give {stage} ({type(exc).__name__})") from None

    try:
        await with_browser(episode.client, sign_in, attempts=SETUP_ATTEMPTS)
    except DevToolsUnavailable as exc:
        raise SetupFailed(str(exc)) from None


LOGIN_STEPS = {"login": _login}
