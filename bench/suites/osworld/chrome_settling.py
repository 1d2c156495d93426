"""What OSWorld's 20 s sleep before evaluation gives a running Chrome, waited for as a condition: the
profile files its getters read holding what Chrome holds in memory.

A running Chrome keeps its prefs and bookmarks in memory and writes them
later: Preferences 10 s after a change (10.0 s measured on Debian's
Chromium 156), Bookmarks 2.5 s after (2.5 s measured), both at once when it
exits. OSWorld's harness sleeps 20 s, so its getters read what Chrome held
when the agent was done; troupe evaluates at once. No DevTools call makes
Chrome write sooner (Memory.simulatePressureNotification and
SystemInfo.getInfo measured: nothing written); closing it does (0.16 s), but
that changes the state (Chrome gone, its exit's own writes) where OSWorld
leaves it running. So, for a task whose getters read Preferences or
Bookmarks with Chrome still running at evaluation (no `pkill chrome` in the
postconfig: 3299584d's startup page, the unpacked and installed extension
getters, a82b78bb's bookmarks), troupe reads what Chrome holds, over DevTools
in a background tab it closes again (chrome://prefs-internals: each pref's
value and whether the user set it; chrome://bookmarks' own
`chrome.bookmarks.getTree`), then reads the file the getter reads (found as
OSWorld's getters find it) until it agrees on what that getter reads: the
prefs under the getter's paths (a pref the user set has that value in the
file, a default one is absent from it; one an extension or policy controls
is not compared), or every bookmark's id, folder, place, title and URL. In
agreement at once, it costs one DevTools read; at most CHROME_SETTLE_SECONDS
(OSWorld's own 20 s). A Chrome that does not answer DevTools is not running:
it wrote its files as it exited.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import anyio
from playwright.sync_api import Browser, Error as PlaywrightError

from actors.backends.waa.devtools import DevToolsUnavailable, with_browser
from actors.backends.waa.browser_commands import stop_of
from bench.suites.osworld.chrome import profile_path
from bench.suites.osworld.episode import Episode

logger = logging.getLogger(__name__)

PREFERENCES, BOOKMARKS = "Preferences", "Bookmarks"
GETTER_READS: dict[str, tuple[str, tuple[str, ...]]] = {
    "new_startup_page": (PREFERENCES, ("session",)),
    "find_unpacked_extension_path": (PREFERENCES, ("extensions.settings",)),
    "find_installed_extension_name": (PREFERENCES, ("extensions.settings",)),
    "default_search_engine": (PREFERENCES, ("default_search_provider_data",)),
    "profile_name": (PREFERENCES, ("profile.name",)),
    "chrome_font_size": (PREFERENCES, ("webkit.webprefs",)),
    "enable_do_not_track": (PREFERENCES, ("enable_do_not_track",)),
    "enable_safe_browsing": (PREFERENCES, ("safebrowsing",)),
    "data_delete_automacally": (PREFERENCES, ("profile.default_content_setting_values",)),
    "bookmarks": (BOOKMARKS, ()),
}
"""Per getter reading a profile file Chrome writes late: the file, and the prefs (dotted, each a pref or
a group of them) it reads there."""
HELD_PAGES = {PREFERENCES: ("chrome://prefs-internals", "() => JSON.parse(document.body.innerText)"),
              BOOKMARKS: ("chrome://bookmarks", "() => new Promise(resolve => chrome.bookmarks.getTree(resolve))")}
"""Where Chrome shows what it holds of each file, and the script reading it there."""
CHROME_SETTLE_SECONDS = 20.0
"""At most this long is waited for Chrome's files: OSWorld's own sleep before it evaluates."""
CHROME_SETTLE_INTERVAL = 0.25


def profile_reads(spec: dict[str, Any]) -> dict[str, set[str]]:
    """The profile files the evaluation's getters read while Chrome may still be running, with the prefs
    read in each; none when the postconfig closes Chrome first (`pkill chrome`: it writes as it exits)."""
    for step in spec.get("postconfig", []) or []:
        command = (step.get("parameters") or {}).get("command") if isinstance(step, dict) else None
        if command and stop_of(command) is not None:
            return {}
    reads: dict[str, set[str]] = {}
    for key in ("result", "expected"):
        value = spec.get(key)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict) and item.get("type") in GETTER_READS:
                name, prefs = GETTER_READS[item["type"]]
                reads.setdefault(name, set()).update(prefs)
    return reads


def held_in_memory(browser: Browser, names: set[str]) -> dict[str, Any]:
    """What Chrome holds of each named file, read in a tab opened in the background and closed again."""
    context = browser.contexts[0]
    with context.expect_page() as opened:
        browser.new_browser_cdp_session().send("Target.createTarget", {"url": "about:blank", "background": True})
    page = opened.value
    try:
        held = {}
        for name in sorted(names):
            address, script = HELD_PAGES[name]
            page.goto(address)
            held[name] = page.evaluate(script)
        return held
    finally:
        page.close()


def _is_pref(node: Any) -> bool:
    return isinstance(node, dict) and set(node) == {"metadata", "value"}


def _prefs_under(tree: dict[str, Any], path: str) -> dict[str, dict[str, Any]]:
    """The prefs chrome://prefs-internals shows at or under a dotted path, by dotted name."""
    node: Any = tree
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return {}
        node = node[part]
    if _is_pref(node):
        return {path: node}
    if not isinstance(node, dict):
        return {}
    return {f"{path}.{name}": pref for key in node for name, pref in _prefs_under(node, key).items()}


def _in_file(data: Any, name: str) -> tuple[bool, Any]:
    for part in name.split("."):
        if not isinstance(data, dict) or part not in data:
            return False, None
        data = data[part]
    return True, data


def unwritten_prefs(held: dict[str, Any], content: bytes | None, paths: set[str]) -> list[str]:
    """The prefs under `paths` whose value in Preferences (`content`) is not the one Chrome holds."""
    try:
        data = json.loads(content or b"")
    except ValueError:
        data = {}
    unwritten = []
    for path in sorted(paths):
        for name, pref in sorted(_prefs_under(held, path).items()):
            found, value = _in_file(data, name)
            if "user_controlled" in pref["metadata"]:
                written = found and value == pref["value"]
            else:
                written = not found or "default" not in pref["metadata"]
            if not written:
                unwritten.append(name)
    return unwritten


def _held_bookmarks(nodes: list[dict[str, Any]], parent: str | None = None) -> set[tuple]:
    marks: set[tuple] = set()
    for index, node in enumerate(nodes):
        if parent not in (None, "0"):
            marks.add((node.get("id"), parent, index, node.get("title"), node.get("url")))
        marks |= _held_bookmarks(node.get("children") or [], node.get("id"))
    return marks


def _written_bookmarks(nodes: list[dict[str, Any]], parent: str) -> set[tuple]:
    marks: set[tuple] = set()
    for index, node in enumerate(nodes):
        if isinstance(node, dict):
            marks.add((node.get("id"), parent, index, node.get("name"), node.get("url")))
            marks |= _written_bookmarks(node.get("children") or [], node.get("id"))
    return marks


def bookmarks_unwritten(held: list[dict[str, Any]], content: bytes | None) -> bool:
    """Whether the Bookmarks file (`content`, None when there is none) lacks a bookmark or folder Chrome
    holds, or has one Chrome no longer holds, or places or names one otherwise."""
    try:
        roots = json.loads(content).get("roots", {}) if content else {}
    except (ValueError, AttributeError):
        return True
    written = {mark for root in roots.values() if isinstance(root, dict)
               for mark in _written_bookmarks(root.get("children") or [], root.get("id"))}
    return _held_bookmarks(held) != written


def _unwritten(name: str, held: Any, content: bytes | None, paths: set[str]) -> list[str]:
    if name == BOOKMARKS:
        return ["bookmarks"] if bookmarks_unwritten(held, content) else []
    return unwritten_prefs(held, content, paths)


async def settle_chrome(episode: Episode, spec: dict[str, Any]) -> str:
    """Wait until the profile files the evaluation reads hold what the running Chrome holds (at most
    CHROME_SETTLE_SECONDS); what was waited for and how long, or "" when they already did (or Chrome is
    not running, or no getter reads them)."""
    reads = profile_reads(spec)
    if not reads:
        return ""
    started = anyio.current_time()
    try:
        held = await with_browser(episode.client, lambda browser: held_in_memory(browser, set(reads)))
    except DevToolsUnavailable:
        return ""
    except PlaywrightError as exc:
        logger.info("could not read what Chrome holds: %s", exc)
        return f"could not read what Chrome holds over DevTools ({str(exc).splitlines()[0]}); evaluated at once"
    paths = {name: await profile_path(episode, name) for name in reads}
    waited: set[str] = set()
    pending: dict[str, list[str]] = {}
    with anyio.move_on_after(CHROME_SETTLE_SECONDS):
        while True:
            pending = {name: unwritten for name in sorted(reads)
                       if (unwritten := _unwritten(name, held[name], await episode.vm_file(paths[name]), reads[name]))}
            if not pending:
                break
            waited |= {f"{name} ({', '.join(unwritten)})" if name == PREFERENCES else name
                       for name, unwritten in pending.items()}
            await anyio.sleep(CHROME_SETTLE_INTERVAL)
    if not waited:
        return ""
    seconds = anyio.current_time() - started
    what = "Chrome's " + " and ".join(sorted(waited))
    if pending:
        return f"{what} still not as Chrome holds it after {seconds:.1f} s; evaluated anyway"
    return f"waited {seconds:.1f} s for {what} to be written as Chrome holds it"
