"""troupe's compare_csv agrees with OSWorld's own (metrics/table.py, imported from
../shared/osworld/reference for tests only) on CSV files built to sit on its edges: line endings,
trailing spaces and blank lines, case, encodings (UTF-8, a byte-order mark, Latin-1), a list of gold
files, no result, no gold file. Prints the agreement."""

from __future__ import annotations

import pytest

from bench.suites.osworld.csv_files import compare_csv

from tests.osworld_reference import FILE, REFERENCE, Case, Named, assert_agrees, table

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")

C = Case
GOLD = b"id,name\n1,Ann\n2,Bob\n"
COMPARE = [
    C(FILE, GOLD, FILE, GOLD),
    C(FILE, b"id,name\r\n1,Ann\r\n2,Bob\r\n", FILE, GOLD),
    C(FILE, b"id,name\r1,Ann\r2,Bob", FILE, GOLD),
    C(FILE, b"id,name\n1,Ann\n2,Bob\n\n", FILE, GOLD),
    C(FILE, b"id,name \n1,Ann\n 2,Bob\n", FILE, GOLD),
    C(FILE, b"id,name \n1,Ann\n 2,Bob\n", FILE, GOLD, strict=False),
    C(FILE, b"ID,Name\n1,ANN\n2,Bob\n", FILE, GOLD),
    C(FILE, b"ID,Name\n1,ANN\n2,Bob\n", FILE, GOLD, ignore_case=True),
    C(FILE, b"ID,Name \n1,ANN\n2,Bob\n", FILE, GOLD, ignore_case=True, strict=False),
    C(FILE, b"id,name\n2,Bob\n1,Ann\n", FILE, GOLD),
    C(FILE, b"\xef\xbb\xbfid,name\n1,Ann\n2,Bob\n", FILE, GOLD),
    C(FILE, "id,name\n1,Zoë\n".encode("latin-1"), FILE, "id,name\n1,Zoë\n".encode()),
    C(FILE, "id,name\n1,Zoë\n".encode("latin-1"), FILE, "id,name\n1,Zoë\n".encode("latin-1")),
    C(FILE, b"id,name\n1,Ann\x0c2,Bob\n", FILE, b"id,name\n1,Ann\n2,Bob\n"),
    C(FILE, b"", FILE, b""),
    C(FILE, b"", FILE, b"\n"),
    C(FILE, GOLD, [Named(b"other\n", ".csv"), Named(GOLD, ".csv")]),
    C(FILE, GOLD, [Named(b"other\n", ".csv"), Named(b"more\n", ".csv")]),
    C(FILE, GOLD, []),
    C(None, FILE, GOLD),
    C(FILE, GOLD, None),
]


def test_compare_csv_agrees_with_osworlds_own(tmp_path, capsys):
    assert_agrees("compare_csv", table().compare_csv, compare_csv, COMPARE, tmp_path, capsys, suffix=".csv")

