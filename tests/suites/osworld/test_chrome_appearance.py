"""chrome_appearance_mode_ui reads the mode of chrome://settings/appearance as OSWorld's own getter
(getters/chrome.py, imported from ../shared/osworld/reference for tests only) reads it, both run against
the same Chromium on a fresh local desktop: the appearance task's dark profile (not on the GTK theme, which
OSWorld's probe reads as light), and a dark one on the GTK theme."""

from __future__ import annotations

import shutil
import urllib.parse
from types import SimpleNamespace

import anyio
import pytest

from actors.backends.waa.client import WAAClient
from bench.suites.osworld.catalog import Catalog
from bench.suites.osworld.episode import Episode
from bench.suites.osworld.getters import resolve
from bench.suites.osworld.local import LocalServer
from bench.suites.osworld.setup import run_steps

from tests.osworld_reference import REFERENCE, chrome_getters
from tests.paths import ROOT

OSWORLD = ROOT.parent / "shared" / "osworld" / "evaluation_examples"
APPEARANCE = "chrome/93eabf48-6a27-4cb6-b963-7d5fe1e0d3a9"
pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(not REFERENCE.is_dir() or not OSWORLD.is_dir(), reason="no shared OSWorld data"),
              pytest.mark.skipif(shutil.which("chromium") is None, reason="Debian's chromium is not installed")]

ON_GTK_THEME = """
import json, os
path = os.path.expanduser('~/.config/google-chrome/Default/Preferences')
data = json.load(open(path))
data.setdefault('extensions', {}).setdefault('theme', {})['system_theme'] = 1
json.dump(data, open(path, 'w'))
"""
"""The profile on the GTK theme (OSWorld's probe reads its system_theme 1 as "dark")."""


@pytest.fixture
def desktop():
    server = LocalServer.start()
    yield server
    server.stop()


def osworlds_reading(devtools: str) -> str:
    env = SimpleNamespace(vm_ip="127.0.0.1", chromium_port=urllib.parse.urlsplit(devtools).port)
    return chrome_getters().get_chrome_appearance_mode_ui(env, {})


async def both_readings(episode: Episode, devtools: str) -> tuple[str, str]:
    ours = await resolve(episode, {"type": "chrome_appearance_mode_ui"})
    theirs = await anyio.to_thread.run_sync(osworlds_reading, devtools)
    return ours, theirs


@pytest.mark.parametrize("anyio_backend", ["asyncio"])  # a comparison of readings: the getter runs on both
async def test_the_appearance_getter_reads_what_osworlds_reads(desktop):  # loops in test_local_chrome
    task = next(t for t in Catalog.load(OSWORLD).tasks if t.task_id == APPEARANCE)
    client = WAAClient(desktop.url, token=desktop.token, devtools=desktop.devtools)
    episode = Episode(client, None)
    try:
        await client.post("/setup/launch", json={"command": ["pkill", "chrome"]})
        assert await run_steps(episode, task.raw_config["config"], phase="config") == []
        assert await both_readings(episode, desktop.devtools) == ("light", "light")  # system_theme 0 reads light
        await client.post("/setup/launch", json={"command": ["pkill", "chrome"]})
        edited = await client.post("/execute", json={"command": ["python3", "-c", ON_GTK_THEME]})
        assert edited.json()["returncode"] == 0, edited.json()
        await run_steps(episode, task.raw_config["config"][1:2], phase="config")  # Chrome started again
        assert await both_readings(episode, desktop.devtools) == ("dark", "dark")
    finally:
        await client.aclose()
