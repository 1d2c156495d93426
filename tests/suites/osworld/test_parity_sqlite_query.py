"""troupe's run_sqlite3 agrees with OSWorld's own (metrics/general.py, imported from ../shared/osworld/reference
for tests only) on databases built like Thunderbird's global-messages-db.sqlite (its messages and
messageAttributes tables) under thunderbird/dd84e895's query: every message of the Bills folder starred,
one not, none in the folder; a database in WAL mode; and on queries whose first value is NULL, a fraction,
text, no row at all, or that fail; files that are empty or not a database, no file. Prints the agreement."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from bench.suites.osworld.sqlite_query import run_sqlite3

from tests.osworld_reference import FILE, REFERENCE, Case, assert_agrees, general

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")

STARRED = {"sql": "SELECT COALESCE((SELECT COUNT(*) FROM messageAttributes WHERE attributeID = 58 AND value = 1 AND "
                  "messageID IN (SELECT id FROM messages WHERE folderID = 13)), 0) = (SELECT COUNT(*) FROM messages "
                  "WHERE folderID = 13);"}
"""thunderbird/dd84e895's rule: every message in folder 13 (Bills) has the starred attribute (58) set."""
STAR = 58
BILLS = 13


def gloda(folder: Path, messages: list[tuple[int, int]], starred: list[int], wal: bool = False) -> bytes:
    """A database with Gloda's two tables: `messages` (id, folder) and the starred attribute of `starred`."""
    path = folder / f"gloda-{len(list(folder.iterdir()))}.sqlite"
    with closing(sqlite3.connect(path)) as connection:
        if wal:
            connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("CREATE TABLE messages (id INTEGER PRIMARY KEY, folderID INTEGER, headerMessageID TEXT)")
        connection.execute("CREATE TABLE messageAttributes (conversationID INTEGER, messageID INTEGER, "
                           "attributeID INTEGER, value NUMERIC)")
        connection.executemany("INSERT INTO messages VALUES (?, ?, ?)",
                               [(id_, folder_id, f"<{id_}@example.org>") for id_, folder_id in messages])
        connection.executemany("INSERT INTO messageAttributes VALUES (?, ?, ?, 1)",
                               [(id_, id_, STAR) for id_ in starred])
        connection.commit()
    return path.read_bytes()


@pytest.fixture(scope="module")
def cases(tmp_path_factory) -> list[Case]:
    folder = tmp_path_factory.mktemp("gloda")
    mail = [(1, BILLS), (2, BILLS), (3, BILLS), (4, 7)]
    solved, half = gloda(folder, mail, [1, 2, 3]), gloda(folder, mail, [1, 2, 4])
    empty_bills = gloda(folder, [(4, 7)], [])
    return [
        Case(FILE, solved, STARRED), Case(FILE, half, STARRED), Case(FILE, empty_bills, STARRED),
        Case(FILE, gloda(folder, mail, [1, 2, 3], wal=True), STARRED),
        Case(FILE, gloda(folder, mail, [1, 2], wal=True), STARRED),
        Case(FILE, solved, {"sql": "SELECT NULL"}), Case(FILE, solved, {"sql": "SELECT 0.25"}),
        Case(FILE, solved, {"sql": "SELECT '2.5'"}), Case(FILE, solved, {"sql": "SELECT 'starred'"}),
        Case(FILE, solved, {"sql": "SELECT id FROM messages WHERE folderID = 99"}),
        Case(FILE, solved, {"sql": "SELECT COUNT(*) FROM messages; SELECT 1"}),
        Case(FILE, solved, {"sql": "SELECT * FROM nowhere"}), Case(FILE, solved, {"query": "SELECT 1"}),
        Case(FILE, solved, ["SELECT 1"]), Case(FILE, b"", {"sql": "SELECT 1"}), Case(FILE, b"", STARRED),
        Case(FILE, b"not a database, only text" * 100, STARRED), Case(None, STARRED),
    ]


def test_run_sqlite3_agrees_with_osworlds_own(cases, tmp_path, capsys):
    assert [run_sqlite3(case.arguments[1], STARRED) for case in cases[:3]] == [1.0, 0.0, 1.0]
    assert_agrees("run_sqlite3", general().run_sqlite3, run_sqlite3, cases, tmp_path, capsys, suffix=".sqlite")
