"""Getters that read a browser profile's JSON files (Preferences, Secure Preferences,
Local State, Bookmarks), each with WAA's reading and WAA's answer when it fails.

WAA wraps each reading in `try: ... except Exception:` and answers a fixed
value instead, so a missing file (its client reads None, which json.loads
refuses), a file that is not JSON or one without the keys looked up gives
that value; the readings below are written as WAA's lookups so that the same
inputs fail the same way:

| getter | file | reading | when it fails |
| --- | --- | --- | --- |
| default_search_engine | Chrome Preferences | the engine of `default_search_provider.guid` (Google, Yahoo!, Bing, DuckDuckGo), else `default_search_provider_data.template_url_data.short_name`, else "Google" | "Google" |
| profile_name | Chrome Preferences | `profile.name` | None |
| enable_do_not_track | Chrome Preferences | "true" when `enable_do_not_track` is truthy | "false" |
| enable_enhanced_safety_browsing | Chrome Preferences | "true" when `safebrowsing.enhanced` is truthy | "Google" |
| data_delete_automacally | Chrome Preferences | "true" when `profile.default_content_setting_values` is there | "Google" |
| chrome_font_size | Chrome Preferences | `webkit.webprefs` (default 13/16/13) | 13/16 |
| enabled_experiments | Chrome Local State | `browser.enabled_labs_experiments` | [] |
| default_search_engine_from_edge | Edge Preferences | the engine of `default_search_provider.synced_guid` (Edge's own numbering), else "Unknown" | "Unknown" |
| profile_name_from_edge | Edge Preferences | `profile.name` | None |
| enable_do_not_track_from_edge | Edge Preferences | 1.0 when `enable_do_not_track` is truthy, else 0.0 | 0.0 |
| enable_enhanced_safety_browsing_from_edge | Edge Preferences | 1.0 when `edge.super_duper_secure_mode.enabled` is truthy | 0.0 |
| data_delete_automacally_from_edge | Edge Preferences | 1.0 when `browser.clear_data_on_exit` is exactly WAA's eight choices | 0.0 |
| edge_font_size | Edge Preferences | `webkit.webprefs` (default 13/16) | 13/16 |
| edge_home_page | Edge Secure Preferences | `homepage` without "https://", "http://" and every "/"; "False" when empty | "error" |
| edge_default_download_folder | Edge Preferences | `download.default_directory`; "False" when empty | "error" |

`bookmarks` and `favorites` read the Bookmarks file's `roots` without a
safety net, as WAA does: no file (or an empty one) is [], a file that is not
JSON is WAA's crash (`GetterCrash`; the `unread-answer` fix reads []).

`edge_home_page` and `edge_default_download_folder` are WAA's getters/msedge.py:
the path comes from the guest's Python outside WAA's safety net (a guest
that does not say fails the getter), the reading inside it.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from actors.backends.waa.client import WAAClient
from bench.suites.waa.browser.profile import (
    CHROME_BOOKMARKS, CHROME_LOCAL_STATE, CHROME_PREFERENCES, EDGE_BOOKMARKS, EDGE_PREFERENCES,
    EDGE_SECURE_PREFERENCES, ProfileFile, locate,
)
from bench.suites.waa.guest import fetch_file, unread

CHROME_ENGINES = {
    "485bf7d3-0215-45af-87dc-538868000001": "Google",
    "485bf7d3-0215-45af-87dc-538868000003": "Bing",
    "485bf7d3-0215-45af-87dc-538868000002": "Yahoo!",
    "485bf7d3-0215-45af-87dc-538868000092": "DuckDuckGo",
}
EDGE_ENGINES = {
    "485bf7d3-0215-45af-87dc-538868000001": "Bing",
    "485bf7d3-0215-45af-87dc-538868000002": "Yahoo!",
    "485bf7d3-0215-45af-87dc-538868000003": "Google",
    "485bf7d3-0215-45af-87dc-538868000092": "DuckDuckGo",
    "485bf7d3-0215-45af-87dc-538868000015": "Yandex",
}
CLEAR_ON_EXIT = {"browsing_history": True, "cache": True, "cookies": True, "download_history": True,
                 "form_data": True, "hosted_apps_data": False, "passwords": True, "site_settings": True}
"""Edge's "clear browsing data when you close the browser" choices WAA's task wants, exactly."""
FONT_SIZES = {"default_fixed_font_size": 13, "default_font_size": 16}


def _chrome_engine(data: Any) -> str:
    engine = CHROME_ENGINES.get(data.get("default_search_provider", {}).get("guid"))
    return engine or data.get("default_search_provider_data", {}).get("template_url_data", {}).get("short_name",
                                                                                                   "Google")


def _edge_engine(data: Any) -> str:
    return EDGE_ENGINES.get(data.get("default_search_provider", {}).get("synced_guid"), {}) or "Unknown"


def _without_scheme_and_slashes(data: Any) -> str:
    home_page = data.get("homepage", {})
    return home_page.replace("https://", "").replace("http://", "").replace("/", "") if home_page else "False"


def _download_folder(data: Any) -> str:
    return data.get("download", {}).get("default_directory", {}) or "False"


def _truthy(value: Any, yes: Any = "true", no: Any = "false") -> Any:
    return yes if value else no


def reading(file: ProfileFile, read: Callable[[Any], Any], failed: Any):
    """A getter: `read` of the file's JSON, or `failed` when anything on the way raises, as in WAA."""

    async def getter(client: WAAClient, spec: dict[str, Any]) -> Any:
        content = await fetch_file(client, await locate(client, file))
        try:
            return read(json.loads(content))
        except Exception:  # noqa: BLE001 - WAA's getters answer a fixed value for any failure
            return failed() if callable(failed) else failed

    return getter


def roots(file: ProfileFile):
    """Bookmarks' `roots`: [] for no file or an empty one; JSON that does not parse is WAA's crash."""

    async def getter(client: WAAClient, spec: dict[str, Any]) -> Any:
        content = await fetch_file(client, await locate(client, file))
        if not content:
            return []
        try:
            data = json.loads(content)
        except ValueError as exc:
            unread(f"{file.name} is not JSON ({exc})", [])
        try:
            return data.get("roots", {})
        except AttributeError:
            unread(f"{file.name} is JSON but not an object", [])

    return getter


PREFERENCE_GETTERS = {
    "default_search_engine": reading(CHROME_PREFERENCES, _chrome_engine, "Google"),
    "profile_name": reading(CHROME_PREFERENCES, lambda d: d.get("profile", {}).get("name", None), None),
    "enable_do_not_track": reading(CHROME_PREFERENCES, lambda d: _truthy(d.get("enable_do_not_track", {})),
                                   "false"),
    "enable_enhanced_safety_browsing": reading(
        CHROME_PREFERENCES, lambda d: _truthy(d.get("safebrowsing", {}).get("enhanced", {})), "Google"),
    "data_delete_automacally": reading(
        CHROME_PREFERENCES, lambda d: _truthy(d["profile"].get("default_content_setting_values", None) is not None),
        "Google"),
    "chrome_font_size": reading(
        CHROME_PREFERENCES, lambda d: d.get("webkit", {}).get("webprefs", {**FONT_SIZES, "minimum_font_size": 13}),
        lambda: dict(FONT_SIZES)),
    "enabled_experiments": reading(
        CHROME_LOCAL_STATE, lambda d: d.get("browser", {}).get("enabled_labs_experiments", []), list),
    "bookmarks": roots(CHROME_BOOKMARKS),
    "default_search_engine_from_edge": reading(EDGE_PREFERENCES, _edge_engine, "Unknown"),
    "profile_name_from_edge": reading(EDGE_PREFERENCES, lambda d: d.get("profile", {}).get("name", None), None),
    "enable_do_not_track_from_edge": reading(
        EDGE_PREFERENCES, lambda d: _truthy(d.get("enable_do_not_track", {}), 1.0, 0.0), 0.0),
    "enable_enhanced_safety_browsing_from_edge": reading(
        EDGE_PREFERENCES, lambda d: _truthy(d["edge"]["super_duper_secure_mode"]["enabled"], 1.0, 0.0), 0.0),
    "data_delete_automacally_from_edge": reading(
        EDGE_PREFERENCES, lambda d: _truthy(d["browser"].get("clear_data_on_exit", None) == CLEAR_ON_EXIT, 1.0, 0.0),
        0.0),
    "edge_font_size": reading(EDGE_PREFERENCES, lambda d: d.get("webkit", {}).get("webprefs", dict(FONT_SIZES)),
                              lambda: dict(FONT_SIZES)),
    "edge_home_page": reading(EDGE_SECURE_PREFERENCES, _without_scheme_and_slashes, "error"),
    "edge_default_download_folder": reading(EDGE_PREFERENCES, _download_folder, "error"),
    "favorites": roots(EDGE_BOOKMARKS),
}
