"""OSWorld's `run_sqlite3` (metrics/general.py): the first column of the first row the task's `sql` returns
from the database file a getter read (Thunderbird's global-messages-db.sqlite), as a number (NULL and 0
score 0).

The database is opened as OSWorld opens its downloaded copy: the file alone,
in a folder of its own (no journal beside it). No file, a file that is not a
database, SQL that fails, no row, or a value that is no number raise in
OSWorld: `MetricFailed` here.
"""

from __future__ import annotations

import contextlib
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from bench.suites.osworld.errors import raising_as_osworld


@raising_as_osworld
def run_sqlite3(result: bytes | None, rules: Any, **options: Any) -> float:
    if result is None:
        raise TypeError("no database file")
    with tempfile.TemporaryDirectory(prefix="osworld-sqlite-") as folder:
        path = Path(folder) / "database.sqlite"
        path.write_bytes(result)
        with contextlib.closing(sqlite3.connect(path)) as connection:
            return float(connection.execute(rules["sql"]).fetchone()[0] or 0)


SQLITE_METRICS = {"run_sqlite3": run_sqlite3}
