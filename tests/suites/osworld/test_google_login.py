"""OSWorld's `login` step over DevTools on a fresh local desktop (Debian's Chromium), against a page on
127.0.0.1 with the fields and buttons of Google's sign-in page (Google itself is not reachable here):
the email and password typed where OSWorld types them, and a page without the fields a setup error
naming the field and not the secrets."""

from __future__ import annotations

import shutil
from urllib.parse import parse_qs, urlsplit

import pytest

from actors.backends.waa.client import WAAClient
from bench.suites.osworld.episode import Episode
from bench.suites.osworld.errors import SetupFailed
from bench.suites.osworld.getters import resolve
from bench.suites.osworld.google_account import GoogleAccount
from bench.suites.osworld.google_drive import GoogleDrive
from bench.suites.osworld.local import LocalServer
from bench.suites.osworld.setup import run_steps
from tests.fake_google import EMAIL, PASSWORD, osworld_settings
from tests.web_pages import serving

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")]

SIGN_IN = """<title>Sign in</title>
<input type="email" id="email">
<div id="identifierNext"><div><button onclick="document.getElementById('next').hidden = false">Next</button></div></div>
<div id="next" hidden><input type="password" id="password">
<div id="passwordNext"><div><button onclick="location.href = '/drive#' + new URLSearchParams(
  {run: location.hash.slice(1), email: document.getElementById('email').value, password: document.getElementById('password').value})">Next</button>
</div></div></div>"""
PAGES = {"/signin": SIGN_IN, "/drive": "<title>My Drive</title><p>signed in</p>"}
"""The sign-in page sends what was typed to /drive in its address's fragment, with its own fragment (the run's
name: both backends' runs share one desktop)."""
LOGIN = {"type": "login", "parameters": {"settings_file": "evaluation_examples/settings/google/settings.json",
                                         "platform": "googledrive"}}


@pytest.fixture(scope="module")
def desktop():
    """One desktop for both backends' runs (each opens its own tabs)."""
    server = LocalServer.start()
    with serving(PAGES) as web:
        yield server, web
    server.stop()


async def test_login_types_the_account_into_the_sign_in_page_as_osworld_does(desktop, tmp_path, anyio_backend):
    server, web = desktop
    account = GoogleAccount.load(osworld_settings(tmp_path, "http://127.0.0.1:9/token"))
    client = WAAClient(server.url, token=server.token, devtools=server.devtools)
    try:
        episode = Episode(client, None, drive=GoogleDrive(account, page=f"{web}/signin#{anyio_backend}"))
        launch = {"type": "launch", "parameters": {"command": ["google-chrome", "--remote-debugging-port=1337"]}}
        assert await run_steps(episode, [launch, LOGIN], phase="config") == []
        tabs = await resolve(episode, {"type": "open_tabs_info"})
        signed = [parse_qs(urlsplit(tab["url"]).fragment) for tab in tabs if "/drive#" in tab["url"]]
        assert {"run": [anyio_backend], "email": [EMAIL], "password": [PASSWORD]} in signed
        episode.drive = GoogleDrive(account, page=f"{web}/drive")  # no sign-in fields: OSWorld's ends
        with pytest.raises(SetupFailed, match=r"config\[0\] \(login\): Google's sign-in page at .* did not give "
                                              r"the email field \(input\[type=\"email\"\]\) within 3 s") as failed:
            await run_steps(episode, [LOGIN], phase="config")
        assert EMAIL not in str(failed.value) and PASSWORD not in str(failed.value)
    finally:
        await client.aclose()


async def test_login_without_an_account_or_on_another_platform_is_a_setup_error():
    client = WAAClient("http://127.0.0.1:9")
    try:
        with pytest.raises(SetupFailed, match="no Google account given"):
            await run_steps(Episode(client, None), [LOGIN], phase="config")
        other = {"type": "login", "parameters": {"platform": "dropbox"}}
        with pytest.raises(SetupFailed, match="platform 'dropbox' is not one OSWorld signs into"):
            await run_steps(Episode(client, None), [other], phase="config")
    finally:
        await client.aclose()
