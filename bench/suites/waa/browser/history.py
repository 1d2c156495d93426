"""The profile's SQLite files as WAA's client writes and reads them: browsing history and cookies.

Setup steps (`update_browse_history`, `update_browse_history_edge`): WAA
fills a blank History database with the task's visits and uploads it over
the profile's (before the task launches the browser). Each visit is one
`urls` row (visit count 1, typed 0, not hidden) and one `visits` row
(transition 805306368, a typed link that starts and ends a chain) at now
minus `visit_time_from_now_in_seconds`, in microseconds since 1601 counted
from the host's local clock, as WAA counts them. The blank database is
`blank_history.sql`. WAA then asks the guest to `sudo chown` the file to a
Linux user; that is sent too, and a guest that refuses it is logged, as WAA
logs it. A VM whose platform has no History path stops the setup.

Getters:

- `history`, `history_for_edge`: `SELECT url, title, last_visit_time FROM urls`;
- `cookie_data`, `cookie_data_for_edge`: `SELECT * FROM cookies`, whole rows
  (the domain is the second column); for Edge, WAA first kills Edge through
  the guest's Python (`taskkill /F /IM msedge.exe /T`) so that the file can
  be read, and a guest that gives that command no output reads as None.

Each is a list of rows, or None where WAA's getter catches a failure: no file,
a file that is not SQLite or lacks the table, a spec without `dest` (WAA
names its cache file after it).
"""

from __future__ import annotations

import logging
import sqlite3
from datetime import datetime, timedelta
from importlib import resources
from typing import Any

from actors.backends.waa.client import CommandRefused, WAAClient
from bench.suites.waa.browser.profile import (
    CHROME_COOKIES, CHROME_HISTORY, EDGE_COOKIES, EDGE_HISTORY, ProfileFile, locate,
)
from bench.suites.waa.errors import GetterFailed, SetupFailed, StepFailed
from bench.suites.waa.guest import fetch_file, python

logger = logging.getLogger(__name__)

TYPED_LINK_CHAIN = 805306368
"""The `transition` WAA gives each visit: typed (1) | chain start | chain end."""
CHROME_EPOCH = datetime(1601, 1, 1)
CHOWN = {CHROME_HISTORY: "sudo chown -R user:user /home/user/.config/google-chrome/Default/History",
         EDGE_HISTORY: "sudo chown -R user:user /home/user/.config/microsoft-edge/Default/History"}
KILL_EDGE = "import os; os.system('taskkill /F /IM msedge.exe /T')"


def blank_history() -> sqlite3.Connection:
    db = sqlite3.connect(":memory:")
    db.executescript(resources.files(__package__).joinpath("blank_history.sql").read_text())
    return db


def history_database(visits: list[dict[str, Any]], now: datetime) -> bytes:
    """The blank History with one url and one visit per entry, as WAA inserts them."""
    db = blank_history()
    for visit in visits:
        when = now - timedelta(seconds=visit["visit_time_from_now_in_seconds"])
        stamp = int((when - CHROME_EPOCH).total_seconds() * 1_000_000)
        url_id = db.execute("INSERT INTO urls (url, title, visit_count, typed_count, last_visit_time, hidden) "
                            "VALUES (?, ?, 1, 0, ?, 0)", (visit["url"], visit["title"], stamp)).lastrowid
        db.execute("INSERT INTO visits (url, visit_time, from_visit, transition, segment_id, visit_duration) "
                   "VALUES (?, ?, 0, ?, 0, 0)", (url_id, stamp, TYPED_LINK_CHAIN))
    db.commit()
    return db.serialize()


def history_step(file: ProfileFile):
    async def step(client: WAAClient, p: dict[str, Any], cache: Any) -> None:
        data = history_database(p["history"], datetime.now())
        try:
            path = await locate(client, file)
        except GetterFailed as exc:
            raise SetupFailed(str(exc)) from None
        response = await client.post("/setup/upload", data={"file_path": path}, files={"file_data": ("History", data)},
                                     answer_server_errors=True)
        if response.status_code != 200:
            raise StepFailed(f"uploading {file.name} to {path}: HTTP {response.status_code}: {response.text[:200]}")
        try:
            await client.execute([CHOWN[file]], shell=True, path="/setup/execute", answer_server_errors=True)
        except CommandRefused as exc:
            logger.info("the guest refused WAA's chown of the History file, as a Windows VM does: %s", exc)

    return step


def _rows(content: bytes | None, query: str) -> list[list[Any]] | None:
    if content is None:
        return None
    db = sqlite3.connect(":memory:")
    try:
        db.deserialize(content)
        return [list(row) for row in db.execute(query)]
    except sqlite3.Error:
        return None
    finally:
        db.close()


def table_getter(file: ProfileFile, query: str, kill_first: str | None = None):
    async def getter(client: WAAClient, spec: dict[str, Any]) -> list[list[Any]] | None:
        if "user_data_dir" in spec:
            raise GetterFailed(f"{file.name}: a `user_data_dir` other than the default profile is not supported")
        path = await locate(client, file)
        if kill_first is not None:
            answer = await python(client, kill_first)
            if not isinstance(answer, dict) or not isinstance(answer.get("output"), str):
                return None
        if "dest" not in spec:
            return None
        return _rows(await fetch_file(client, path), query)

    return getter


HISTORY = "SELECT url, title, last_visit_time FROM urls"
COOKIES = "SELECT * FROM cookies"

HISTORY_STEPS = {"update_browse_history": history_step(CHROME_HISTORY),
                 "update_browse_history_edge": history_step(EDGE_HISTORY)}
HISTORY_GETTERS = {
    "history": table_getter(CHROME_HISTORY, HISTORY),
    "history_for_edge": table_getter(EDGE_HISTORY, HISTORY),
    "cookie_data": table_getter(CHROME_COOKIES, COOKIES),
    "cookie_data_for_edge": table_getter(EDGE_COOKIES, COOKIES, kill_first=KILL_EDGE),
}
