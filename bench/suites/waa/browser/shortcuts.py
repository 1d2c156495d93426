"""Shortcuts on the VM's desktop, read as WAA reads them.

`shortcuts_on_desktop` lists the desktop (/desktop_path, then
/list_directory) and reads every file with the platform's shortcut
extension (.lnk on Windows, .desktop on Linux), keyed by file name: a .lnk
as the JSON LnkParse3 prints for it (`print_json(print_all=True)`, which
the metric searches for `data.description`), any other as UTF-8 text. A
platform WAA knows no extension for gives [].

`url_shortcuts_on_desktop` does the same for Internet shortcuts (.url,
read as text) on Windows only; elsewhere it gives [] (a list, on which WAA's
metric then raises).

WAA's getter raises where the listing or a file cannot be read (it indexes
None, parses nothing): `GetterCrash`, whose `unread-answer` fix reads the
shortcuts read so far. Files are fetched at desktop + "/" + name, joined by
WAA's Linux host as it joins them.
"""

from __future__ import annotations

import datetime
import io
import json
import posixpath
from typing import Any

import LnkParse3

from actors.backends.waa.client import WAAClient
from bench.suites.waa.browser.profile import LINUX, WINDOWS, vm_platform
from bench.suites.waa.guest import fetch_file, unread

SHORTCUTS = {WINDOWS: ".lnk", LINUX: ".desktop", "Darwin": ".webloc"}


def lnk_json(data: bytes) -> str:
    """What LnkParse3's print_json(print_all=True) prints for the shortcut, without the newline."""
    parsed = LnkParse3.lnk_file(io.BytesIO(data)).get_json(True)
    return json.dumps(parsed, indent=4, separators=(",", ": "), sort_keys=True,
                      default=lambda o: o.replace(microsecond=0).isoformat() if isinstance(o, datetime.datetime) else o)


async def _desktop_files(client: WAAClient, extension: str) -> tuple[str, list[str]]:
    response = await client.post("/desktop_path", answer_server_errors=True)
    desktop = response.json().get("desktop_path") if response.status_code == 200 else None
    listing = await client.post("/list_directory", json={"path": desktop}, answer_server_errors=True)
    try:
        children = listing.json()["directory_tree"]["children"]
        return desktop, [child["name"] for child in children if child["name"].endswith(extension)]
    except (ValueError, KeyError, TypeError):
        unread(f"/list_directory {desktop!r}: HTTP {listing.status_code}: {listing.text[:200]}", {})


async def _read_all(client: WAAClient, extension: str, lnk: bool) -> dict[str, str]:
    desktop, names = await _desktop_files(client, extension)
    shortcuts: dict[str, str] = {}
    for name in names:
        data = await fetch_file(client, posixpath.join(desktop, name), "shortcuts_on_desktop")
        try:
            shortcuts[name] = lnk_json(data) if lnk else data.decode("utf-8")
        except Exception as exc:  # noqa: BLE001 - LnkParse3 and decode raise many kinds on what is not a shortcut
            unread(f"{name} on the desktop cannot be read as WAA reads it ({type(exc).__name__}: {exc})", shortcuts)
    return shortcuts


async def shortcuts_on_desktop(client: WAAClient, spec: dict[str, Any]) -> dict[str, str] | list:
    platform = await vm_platform(client)
    if platform not in SHORTCUTS:
        return []
    return await _read_all(client, SHORTCUTS[platform], lnk=platform == WINDOWS)


async def url_shortcuts_on_desktop(client: WAAClient, spec: dict[str, Any]) -> dict[str, str] | list:
    if await vm_platform(client) != WINDOWS:
        return []
    return await _read_all(client, ".url", lnk=False)


SHORTCUT_GETTERS = {"shortcuts_on_desktop": shortcuts_on_desktop, "url_shortcuts_on_desktop": url_shortcuts_on_desktop}
