"""troupe's compare_csv and check_csv agree with OSWorld's own (metrics/table.py and metrics/general.py,
imported from ../shared/osworld/reference for tests only) on CSV files built to sit on their edges:
line endings, trailing spaces and blank lines, case, encodings (UTF-8, a byte-order mark, Latin-1), a
list of gold files, records expected and unexpected, missing fields, no result. Prints the agreement
per function."""

from __future__ import annotations

import pytest

from bench.suites.osworld.csv_files import check_csv, compare_csv

from tests.osworld_reference import FILE, REFERENCE, Case, assert_agrees, general_with_utils, table

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
    C(FILE, GOLD, [FILE, b"other\n", FILE, GOLD]),
    C(FILE, GOLD, [FILE, b"other\n", FILE, b"more\n"]),
    C(FILE, GOLD, []),
    C(None, FILE, GOLD),
    C(FILE, GOLD, None),
]
RULES = {"unexpect": [{"url": "imap://outlook.office365.com", "user": "anonym-x2024@outlook.com"}]}
ACCOUNTS = b"url,user,password\nimap://outlook.office365.com,anonym-x2024@outlook.com,secret\n"
OTHER = b"url,user,password\nimap://mail.example.org,ann@example.org,secret\n"
CHECK = [
    C(FILE, ACCOUNTS, RULES),
    C(FILE, OTHER, RULES),
    C(FILE, b"url,user,password\n", RULES),
    C(FILE, b"", RULES),
    C(FILE, b"url,user\r\nimap://outlook.office365.com,anonym-x2024@outlook.com\r\n", RULES),
    C(FILE, b"url,login\nimap://outlook.office365.com,anonym-x2024@outlook.com\n", RULES),
    C(FILE, b'url,user\n"imap://outlook.office365.com","anonym-x2024@outlook.com"\n', RULES),
    C(FILE, OTHER, {"expect": [{"user": "ann@example.org"}]}),
    C(FILE, OTHER, {"expect": [{"user": "ann@example.org"}, {"user": "bob@example.org"}]}),
    C(FILE, OTHER + b"imap://b,bob@example.org,x\n", {"expect": [{"user": "ann@example.org"},
                                                                 {"user": "bob@example.org"}]}),
    C(FILE, OTHER, {"expect": [{"user": "ann@example.org"}], **RULES}),
    C(FILE, ACCOUNTS, {"expect": [{"user": "anonym-x2024@outlook.com"}], **RULES}),
    C(FILE, OTHER, {}),
    C(FILE, OTHER, {"expect": ["not a record"]}),
    C(FILE, b"", {"expect": ["not a record"]}),
    C(FILE, "url,user\nimap://x,zoë\n".encode("latin-1"), RULES),
    C(FILE, OTHER, None),
    C(None, RULES),
]


def test_compare_csv_agrees_with_osworlds_own(tmp_path, capsys):
    assert_agrees("compare_csv", table().compare_csv, compare_csv, COMPARE, tmp_path, capsys, suffix=".csv")


def test_check_csv_agrees_with_osworlds_own(tmp_path, capsys):
    assert_agrees("check_csv", general_with_utils().check_csv, check_csv, CHECK, tmp_path, capsys, suffix=".csv")
