"""Chrome's appearance mode ("light", "dark" or "system") as OSWorld's `chrome_appearance_mode_ui` and
`chrome_color_scheme` getters read it.

`chrome_appearance_mode_ui` opens chrome://settings/appearance in a new tab
of the browser's first context over DevTools and reads the page: the
settings app's preferences `browser.theme.color_scheme` and
`color_scheme2` (1 light, 2 dark, 0 system, or those words) and
`extensions.theme.system_theme` (0 light, 1 dark), then the text of every
selected or checked control in the page and its shadow roots ("light",
"dark", else "device", "system" or "default" in it). Light wins over dark,
dark over system. OSWorld reads the page once, 2.5 s after it loaded; here
the page is read until its mode menu shows a choice (at most
SETTINGS_SECONDS), then once more. The tab stays open, as OSWorld leaves
it, so a getter after this one reads the address bar of the settings tab.

Two readings of OSWorld's quirks follow: Chromium's settings page exposes
no `browser.theme` preferences, and a profile that does not use the GTK
theme has `extensions.theme.system_theme` 0, which the probe reads as
"light" whatever the mode menu shows; and when the browser does not answer
DevTools, the page raises or names no mode, the getter reads the profile's
Preferences files instead (`chrome_color_scheme`).

`chrome_color_scheme` lists the Linux profiles' Preferences files (Default,
Guest Profile, Profile *) under the user's ~/.config/google-chrome and
/home/user's and /home/ubuntu's, newest first, through a Python program on
the VM; each names `color_scheme2`, else `color_scheme` (a number or word),
"light" when `extensions.theme.system_theme` is 0, else that scheme, else
"system". The first file with light or dark decides, else the first
readable; OSWorld reads them up to five times a second apart (Chrome writes
Preferences some seconds after a change), returning at once on light, else
the last reading; "system" when nothing could be read.
"""

from __future__ import annotations

import json
import time
from typing import Any

import anyio
from playwright.sync_api import Browser

from actors.backends.waa.devtools import with_browser
from bench.suites.osworld.chrome import PROFILE_PROGRAMS, python_output
from bench.suites.osworld.episode import Episode

MODES = ("light", "dark", "system")
SETTINGS_URL = "chrome://settings/appearance"
SETTINGS_SECONDS = 10.0
"""How long the settings page may take to show its mode menu (OSWorld reads it after a fixed 2.5 s)."""
LOAD_TIMEOUT_MS = 30_000
"""OSWorld's limit on loading the settings page."""
READINGS, READING_INTERVAL = 5, 1.0
"""How often, and how far apart, OSWorld's chrome_color_scheme reads the Preferences files."""

READ_PAGE = r"""
() => {
  const lowered = (value) => String(value || '').toLowerCase();
  const found = [];
  const prefs = document.querySelector('settings-ui')?.prefs;
  const pref = (path) => {
    let node = prefs;
    for (const key of path.split('.')) node = node && typeof node === 'object' ? node[key] : undefined;
    return node && typeof node === 'object' && Object.prototype.hasOwnProperty.call(node, 'value') ? node : null;
  };
  for (const path of ['browser.theme.color_scheme', 'browser.theme.color_scheme2']) {
    const v = pref(path)?.value;
    if (v === undefined) continue;
    if (v === 1 || v === '1' || lowered(v) === 'light') found.push('light');
    if (v === 2 || v === '2' || lowered(v) === 'dark') found.push('dark');
    if (v === 0 || v === '0' || ['system', 'default', 'device'].includes(lowered(v))) found.push('system');
  }
  const systemTheme = pref('extensions.theme.system_theme');
  if (systemTheme) {
    const v = systemTheme.value;
    if (v === 0 || v === '0' || v === false) found.push('light');
    if (v === 1 || v === '1' || v === true) found.push('dark');
  }
  const fromText = (text) => {
    const t = lowered(text);
    if (t.includes('light')) return 'light';
    if (t.includes('dark')) return 'dark';
    if (t.includes('device') || t.includes('system') || t.includes('default')) return 'system';
    return null;
  };
  const roots = [document];
  for (let i = 0; i < roots.length; i++) {
    for (const element of roots[i].querySelectorAll('*')) if (element.shadowRoot) roots.push(element.shadowRoot);
  }
  let menuShown = false;
  for (const root of roots) {
    for (const element of root.querySelectorAll('[selected],[checked],[aria-checked="true"],option:checked')) {
      const mode = fromText((element.innerText || element.textContent || '').trim());
      if (mode) found.push(mode);
      if (mode && element.matches('option:checked')) menuShown = true;
    }
  }
  const mode = ['light', 'dark', 'system'].find((m) => found.includes(m)) || null;
  return {mode, settled: Boolean(prefs) && menuShown};
}
"""
"""The settings page's mode as OSWorld's probe reads it, and whether the page has shown its mode menu."""


def read_settings_page(browser: Browser) -> str | None:
    """The mode chrome://settings/appearance shows, in a new tab left open."""
    page = browser.contexts[0].new_page()
    page.goto(SETTINGS_URL, wait_until="domcontentloaded", timeout=LOAD_TIMEOUT_MS)
    deadline = time.monotonic() + SETTINGS_SECONDS
    while not page.evaluate(READ_PAGE)["settled"] and time.monotonic() < deadline:
        page.wait_for_timeout(100)
    return page.evaluate(READ_PAGE)["mode"]


async def _chrome_appearance_mode_ui(episode: Episode, spec: dict[str, Any]) -> str:
    try:
        mode = await with_browser(episode.client, read_settings_page)
    except Exception:  # noqa: BLE001 - OSWorld's getter falls back to the profile on any failure
        mode = None
    return mode if mode in MODES else await chrome_color_scheme(episode)


LIST_PREFERENCES = """
import glob, json, os
paths = {}
for root in (os.path.expanduser('~/.config/google-chrome'), '/home/user/.config/google-chrome',
             '/home/ubuntu/.config/google-chrome'):
    for pattern in ('Default', 'Guest Profile', 'Profile *'):
        for path in sorted(glob.glob(os.path.join(root, pattern, 'Preferences'))):
            if os.path.isfile(path) and path not in paths:
                try:
                    paths[path] = os.path.getmtime(path)
                except OSError:
                    paths[path] = 0
print(json.dumps([{'path': path, 'mtime': mtime} for path, mtime in paths.items()]))
"""
"""The Linux profiles' Preferences files and their modification times, as OSWorld's getter lists them."""


def scheme_in(preferences: dict[str, Any]) -> str:
    """The mode one Preferences file names, as OSWorld's getter reads it."""
    theme = preferences.get("browser", {}).get("theme", {})
    raw = theme.get("color_scheme2", theme.get("color_scheme", None))
    mode = None
    if isinstance(raw, str):
        mode = {"system": "system", "default": "system", "0": "system", "light": "light", "1": "light",
                "dark": "dark", "2": "dark"}.get(raw.strip().lower())
    elif isinstance(raw, (int, float)):
        mode = {0: "system", 1: "light", 2: "dark"}.get(int(raw))
    if preferences.get("extensions", {}).get("theme", {}).get("system_theme", None) in [0, "0", False]:
        return "light"
    return mode or "system"


async def _preference_paths(episode: Episode) -> list[str]:
    platform = (await python_output(episode, "import platform; print(platform.system())")).strip()
    if platform != "Linux":
        return [(await python_output(episode, PROFILE_PROGRAMS[platform].format(name="Preferences"))).strip()]
    listed = (await python_output(episode, LIST_PREFERENCES)).strip()
    found = sorted(json.loads(listed) if listed else [], key=lambda item: item.get("mtime", 0), reverse=True)
    paths = [item["path"] for item in found if item.get("path")]
    return paths or [(await python_output(episode, PROFILE_PROGRAMS["Linux"].format(name="Preferences"))).strip()]


async def chrome_color_scheme(episode: Episode, spec: dict[str, Any] | None = None) -> str:
    try:
        paths = await _preference_paths(episode)
        mode = "system"
        for reading in range(READINGS):
            best = None
            for path in paths:
                try:
                    found = scheme_in(json.loads(await episode.vm_file(path)))
                except Exception:  # noqa: BLE001 - OSWorld's getter skips a file it cannot read
                    continue
                if found in ("light", "dark"):
                    best = found
                    break
                best = best or found
            if best == "light":
                return best
            mode = best or mode
            if reading + 1 < READINGS:
                await anyio.sleep(READING_INTERVAL)
        return mode
    except Exception:  # noqa: BLE001 - OSWorld's getter answers "system" on any failure
        return "system"


APPEARANCE_GETTERS = {"chrome_appearance_mode_ui": _chrome_appearance_mode_ui,
                      "chrome_color_scheme": chrome_color_scheme}
