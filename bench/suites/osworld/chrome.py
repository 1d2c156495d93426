"""Chrome in OSWorld's tasks: the profile and address-bar getters, their metrics and the
`update_browse_history` step, each as OSWorld's chrome.py does it.

OSWorld's getters find the profile by asking the VM: its platform
(`import platform; print(platform.system())`) and then the file's path
(`import os; print(os.path.join(os.getenv('HOME'), '.config/google-chrome/Default/Preferences'))`
on Linux), both as Python programs through /execute with its controller's
pyautogui prefix, then read the file through /file. A program the server
refuses leaves OSWorld's getter nothing to index, so it raises: an
evaluation error here. Reading the file is forgiving where OSWorld's is:
each getter's fallback (`"Google"`, `None`, `[]`, a default font size dict)
is what it returns when the file is missing or not JSON, quirks included
(`enable_do_not_track` reads "false" on failure, `new_startup_page`
"Google"). OSWorld reads an ARM host's snap Chromium path when the *host*
is ARM; troupe reads the VM's google-chrome profile always.

`active_url_from_accessTree` reads the address bar's text from the tree
/accessibility serves in OSWorld's XML, under an application named Google
Chrome (OSWorld's x86 VMs) or Chromium (its ARM VMs, and the Linux server).

`update_browse_history` fills a blank History database with the task's
visits (times counted back from now, in Chrome's microseconds since 1601)
and uploads it where the VM's Chrome keeps it. The blank database is the
user's cache `history_new.sqlite` (where OSWorld's harness keeps the one it
downloads), else one this machine's Chromium makes on a throwaway profile.
"""

from __future__ import annotations

import datetime
import functools
import json
import os
import shutil
import sqlite3
import subprocess
import tempfile
import time
import re
import urllib.parse
from pathlib import Path
from xml.etree import ElementTree
from typing import Any, Callable

import anyio

from actors.backends.waa.commands import command as pyautogui_command
from bench.formats.bookmarks import liked_authors_score
from bench.suites.osworld.episode import Episode
from bench.suites.osworld.errors import GetterFailed, MetricFailed, SetupFailed, StepFailed

PROFILE_PROGRAMS = {
    "Windows": "import os; print(os.path.join(os.getenv('LOCALAPPDATA'), 'Google\\\\Chrome\\\\User Data\\\\Default\\\\{name}'))",
    "Darwin": "import os; print(os.path.join(os.getenv('HOME'), 'Library/Application Support/Google/Chrome/Default/{name}'))",
    "Linux": "import os; print(os.path.join(os.getenv('HOME'), '.config/google-chrome/Default/{name}'))",
}
"""Per platform, the Python program with which OSWorld's getters ask the VM for a profile file's path."""
BLANK_HISTORY = "history_new.sqlite"
"""Where OSWorld's harness keeps the blank History it downloads, in the task's cache folder."""
_CHROME_EPOCH = datetime.datetime(1601, 1, 1)


async def python_output(episode: Episode, program: str) -> str:
    """What a Python program printed on the VM, as OSWorld's execute_python_command reads it."""
    response = await episode.client.post("/execute", json={"command": pyautogui_command(program), "shell": False},
                                         answer_server_errors=True)
    if response.status_code != 200:
        raise GetterFailed(f"the VM did not run {program!r} (HTTP {response.status_code}: {response.text[:200]}); "
                           "OSWorld's getter raises here")
    return response.json()["output"]


async def profile_path(episode: Episode, name: str) -> str:
    system = (await python_output(episode, "import platform; print(platform.system())")).strip()
    if system not in PROFILE_PROGRAMS:
        raise GetterFailed(f"Chrome's profile on {system!r}: OSWorld's getters know Windows, Darwin and Linux")
    return (await python_output(episode, PROFILE_PROGRAMS[system].format(name=name))).strip()


async def profile_file(episode: Episode, name: str) -> bytes | None:
    return await episode.vm_file(await profile_path(episode, name))


def _reading(name: str, fallback: Any) -> Callable[[Callable[[Any], Any]], Callable]:
    """A getter reading profile file `name` as JSON through `read`, `fallback` when anything fails."""
    def wrap(read: Callable[[Any], Any]) -> Callable:
        @functools.wraps(read)
        async def getter(episode: Episode, spec: dict[str, Any]) -> Any:
            content = await profile_file(episode, name)
            try:
                return read(json.loads(content))
            except Exception:  # noqa: BLE001 - OSWorld's getter catches everything and returns its fallback
                return fallback
        return getter
    return wrap


@_reading("Preferences", "Google")
def _default_search_engine(data: Any) -> Any:
    return data.get("default_search_provider_data", {}).get("template_url_data", {}).get("short_name", "Google")


@_reading("Preferences", None)
def _profile_name(data: Any) -> Any:
    return data.get("profile", {}).get("name", None)


@_reading("Preferences", {"default_fixed_font_size": 13, "default_font_size": 16})
def _chrome_font_size(data: Any) -> Any:
    return data.get("webkit", {}).get("webprefs", {"default_fixed_font_size": 13, "default_font_size": 16,
                                                   "minimum_font_size": 13})


@_reading("Preferences", "false")
def _enable_do_not_track(data: Any) -> str:
    return "true" if data.get("enable_do_not_track", {}) else "false"


@_reading("Preferences", "false")
def _enable_safe_browsing(data: Any) -> str:
    safebrowsing = data.get("safebrowsing", {})
    return "true" if bool(safebrowsing.get("enhanced", False)) or bool(safebrowsing.get("enabled", False)) else "false"


@_reading("Preferences", "Google")
def _new_startup_page(data: Any) -> str:
    if "session" not in data.keys():
        return "true"
    return "true" if data.get("session", {}).get("restore_on_startup", {}) == 5 else "false"


@_reading("Preferences", "Google")
def _data_delete_automacally(data: Any) -> str:
    return "true" if data["profile"].get("default_content_setting_values", None) is not None else "false"


async def _bookmarks(episode: Episode, spec: dict[str, Any]) -> Any:
    content = await profile_file(episode, "Bookmarks")
    if not content:
        return []
    try:
        return json.loads(content).get("roots", {})
    except ValueError as exc:
        raise GetterFailed(f"bookmarks: the Bookmarks file is not JSON ({exc}); OSWorld's getter raises here") from None


def rows(database: bytes, query: str) -> list[list[Any]]:
    """The rows `query` selects from a profile's SQLite database (History, Cookies), each a list."""
    with tempfile.TemporaryDirectory(prefix="troupe-osworld-") as folder:
        path = Path(folder) / "database"
        path.write_bytes(database)
        connection = sqlite3.connect(path)
        try:
            return [list(row) for row in connection.execute(query).fetchall()]
        finally:
            connection.close()


async def _history(episode: Episode, spec: dict[str, Any]) -> list[list[Any]] | None:
    content = await profile_file(episode, "History")
    try:
        return await anyio.to_thread.run_sync(rows, content, "SELECT url, title, last_visit_time FROM urls")
    except Exception:  # noqa: BLE001 - OSWorld's getter returns None on any failure
        return None


ADDRESS_BAR = "Address and search bar"
BROWSER_APPLICATIONS = ("Google Chrome", "Chromium")
"""The application names OSWorld's address-bar getter looks under: Google Chrome on its x86 VMs, Chromium
on its ARM ones (and on troupe's Linux server)."""


async def active_url_from_accessTree(episode: Episode, spec: dict[str, Any]) -> str | None:  # noqa: N802
    """The address bar's text in the tree, after `goto_prefix` ("https://" unless given), as OSWorld's
    getter reads it: None when there is no tree, no address bar, or the last one found is empty."""
    response = await episode.client.get("/accessibility", answer_server_errors=True)
    if response.status_code != 200:
        return None
    try:
        root = ElementTree.fromstring(response.json()["AT"])
    except ElementTree.ParseError as exc:
        raise GetterFailed(f"active_url_from_accessTree: the tree is not XML ({exc}); OSWorld's getter "
                           "raises here") from None
    bars = [entry for application in root.iter("application") if application.get("name") in BROWSER_APPLICATIONS
            for entry in application.iter("entry") if entry.get("name") == ADDRESS_BAR]
    if not bars or not bars[-1].text:
        return None
    return f"{spec.get('goto_prefix', 'https://')}{bars[0].text}"


CHROME_GETTERS = {
    "active_url_from_accessTree": active_url_from_accessTree,
    "default_search_engine": _default_search_engine,
    "profile_name": _profile_name,
    "chrome_font_size": _chrome_font_size,
    "enable_do_not_track": _enable_do_not_track,
    "enable_safe_browsing": _enable_safe_browsing,
    "new_startup_page": _new_startup_page,
    "data_delete_automacally": _data_delete_automacally,
    "bookmarks": _bookmarks,
    "history": _history,
}


def _rule_type(rule: Any, metric: str) -> str:
    if not isinstance(rule, dict) or "type" not in rule:
        raise MetricFailed(f"{metric}: expected a rule with `type`, got {rule!r} (OSWorld's function raises here)")
    return rule["type"]


LIKED_AUTHORS_RULE = "liked_authors_websites_urls"


def is_expected_bookmarks(bookmarks: Any, rule: Any, **options: Any) -> float:
    if not bookmarks:
        return 0.0
    kind = _rule_type(rule, "is_expected_bookmarks")
    children = bookmarks["bookmark_bar"]["children"]
    if kind == "bookmark_bar_folders_names":
        return float({b["name"] for b in children if b["type"] == "folder"} == set(rule["names"]))
    if kind == "bookmark_bar_websites_urls":
        return float({b["url"] for b in children if b["type"] == "url"} == set(rule["urls"]))
    if kind == LIKED_AUTHORS_RULE:
        return liked_authors_score(bookmarks, rule["urls"])
    raise MetricFailed(f"is_expected_bookmarks: rule type {kind!r} is not supported (OSWorld's function raises here)")


def check_font_size(font_size: Any, rule: Any, **options: Any) -> float:
    size = font_size["default_font_size"]
    kind = _rule_type(rule, "check_font_size")
    if kind == "value":
        return float(size == rule["value"])
    if kind == "range":
        return float(rule["min"] < size < rule["max"])
    raise MetricFailed(f"check_font_size: rule type {kind!r} is not supported (OSWorld's function raises here)")


def check_history_deleted(history: Any, rule: Any, **options: Any) -> float:
    if _rule_type(rule, "check_history_deleted") != "keywords":
        raise MetricFailed(f"check_history_deleted: rule type {rule['type']!r} is not supported (OSWorld's raises)")
    urls = [row[0] for row in history]
    return float(not any(keyword in url for keyword in rule["keywords"] for url in urls))


def is_expected_active_tab_approximate(active_tab: Any, rule: Any, **options: Any) -> float:
    """The active tab's URL is the rule's, ignoring the query."""
    if not active_tab:
        return 0.0
    if _rule_type(rule, "is_expected_active_tab_approximate") != "url":
        return 0.0  # OSWorld's logs an unknown type and scores 0
    actual = active_tab.get("url", None) if isinstance(active_tab, dict) else active_tab

    def without_query(url: str) -> str:
        return urllib.parse.urlunparse(urllib.parse.urlparse(url)._replace(query=""))

    return float(without_query(rule["url"]) == without_query(actual))


def is_expected_url_pattern_match(result: Any, rules: Any, **options: Any) -> float:
    """Every regex of `expected` is found in the URL (a string, or a dict's `url`)."""
    if not result:
        return 0.0
    if isinstance(result, str):
        url = result
    elif isinstance(result, dict) and "url" in result:
        url = result["url"]
    else:
        return 0.0
    return float(all(re.search(pattern, url) for pattern in rules["expected"]))


CHROME_METRICS = {"is_expected_bookmarks": is_expected_bookmarks, "check_font_size": check_font_size,
                  "check_history_deleted": check_history_deleted,
                  "is_expected_active_tab_approximate": is_expected_active_tab_approximate,
                  "is_expected_url_pattern_match": is_expected_url_pattern_match}
RULED = {"is_expected_bookmarks": frozenset({"bookmark_bar_folders_names", "bookmark_bar_websites_urls",
                                            LIKED_AUTHORS_RULE})}
"""Metrics whose rule types `--list` checks a task's against."""


@functools.cache
def _chromium_blank_history() -> bytes:
    """The History database of a fresh profile of this machine's Chromium (made on opening a local page,
    emptied of it)."""
    program = next((p for p in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser"))
                    if p and os.access(p, os.X_OK)), None)
    if program is None:
        raise SetupFailed(f"update_browse_history: no {BLANK_HISTORY} in the task's cache folder and no Chromium "
                          "here to make a blank History with")
    with tempfile.TemporaryDirectory(prefix="troupe-blank-history-") as folder:
        page = Path(folder) / "blank.html"
        page.write_text("<title>blank</title>")
        flags = ["--headless=new", f"--user-data-dir={folder}/profile", "--no-first-run", "--disable-gpu"]
        flags += ["--no-sandbox"] if os.geteuid() == 0 else []
        browser = subprocess.Popen([program, *flags, page.as_uri()], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        history = Path(folder) / "profile" / "Default" / "History"
        try:
            deadline = time.monotonic() + 30
            while not history.is_file():
                if time.monotonic() > deadline:
                    raise SetupFailed("update_browse_history: Chromium made no History database in 30 s")
                time.sleep(0.2)
            time.sleep(0.5)  # its tables are written as it is created; then let it settle
        finally:
            browser.terminate()
            browser.wait(10)
        connection = sqlite3.connect(history)
        try:
            tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            if not {"urls", "visits"} <= tables:
                raise SetupFailed(f"update_browse_history: Chromium's History has no urls and visits tables ({tables})")
            connection.execute("DELETE FROM visits")
            connection.execute("DELETE FROM urls")
            connection.commit()
        finally:
            connection.close()
        return history.read_bytes()


def with_visits(blank: bytes, visits: list[dict[str, Any]], now: datetime.datetime) -> bytes:
    """`blank` with each visit as OSWorld's step writes it: a `urls` row and a `visits` row."""
    with tempfile.TemporaryDirectory(prefix="troupe-osworld-") as folder:
        path = Path(folder) / "History"
        path.write_bytes(blank)
        connection = sqlite3.connect(path)
        try:
            for visit in visits:
                when = now - datetime.timedelta(seconds=visit["visit_time_from_now_in_seconds"])
                stamp = int((when - _CHROME_EPOCH).total_seconds() * 1_000_000)
                cursor = connection.execute("INSERT INTO urls (url, title, visit_count, typed_count, last_visit_time, "
                                            "hidden) VALUES (?, ?, ?, ?, ?, ?)", (visit["url"], visit["title"], 1, 0,
                                                                                 stamp, 0))
                connection.execute("INSERT INTO visits (url, visit_time, from_visit, transition, segment_id, "
                                   "visit_duration) VALUES (?, ?, ?, ?, ?, ?)", (cursor.lastrowid, stamp, 0,
                                                                                805306368, 0, 0))
            connection.commit()
        finally:
            connection.close()
        return path.read_bytes()


async def _update_browse_history(episode: Episode, p: dict[str, Any]) -> None:
    blank = episode.cached(BLANK_HISTORY) or await anyio.to_thread.run_sync(_chromium_blank_history)
    database = await anyio.to_thread.run_sync(with_visits, blank, p["history"], datetime.datetime.now())
    try:
        path = await profile_path(episode, "History")
    except GetterFailed as exc:
        raise SetupFailed(f"update_browse_history: {exc}") from None
    await episode.upload(path, database)
    response = await episode.client.post("/setup/execute", json={
        "command": ["sudo chown -R user:user /home/user/.config/google-chrome/Default/History"], "shell": True},
        answer_server_errors=True)
    if response.status_code != 200:
        raise StepFailed(f"update_browse_history's chown: HTTP {response.status_code}: {response.text[:200]}")


CHROME_STEPS = {"update_browse_history": _update_browse_history}
