"""troupe's Thunderbird metrics agree with OSWorld's own (metrics/thunderbird.py, imported from
../shared/osworld/reference for tests only) on prefs.js files built to sit on their edges: a key set,
unset, set twice, indented, with an escaped quote, a multi-line string matched by re.S, CRLF line ends,
a value that is not JSON, text that is not UTF-8, `unexpect` keys matching or not, a method neither
knows, no file. Prints the agreement per function."""

from __future__ import annotations

import pytest

from bench.suites.osworld.thunderbird import check_thunderbird_prefs

from tests.osworld_reference import FILE, REFERENCE, Case, assert_agrees, thunderbird

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")


def prefs(*lines: str) -> bytes:
    return ("// Mozilla User Preferences\n\n" + "\n".join(lines) + "\n").encode()


QUOTE = 'user_pref("mail.identity.id1.auto_quote", false);'
SIGNATURE = 'user_pref("mail.identity.id1.htmlSigText", "Anonym\\nXYZ Lab");'
SYNC = 'user_pref("mail.server.default.autosync_offline_stores", false);'
EXPECT_QUOTE = {"expect": {"mail.identity.id1.auto_quote": {"method": "eq", "ref": False}}}
EXPECT_SIGNATURE = {"expect": {"mail.identity.id1.htmlSigText": {"method": "re.S", "ref": "Anonym\\nXYZ Lab"}}}
FILTERS = {"expect": {"mail.server.default.applyIncomingFilters": {"method": "eq", "ref": True}},
           "unexpect": {"mail.server.default.autosync_offline_stores": {"method": "eq", "ref": False}}}
FILTERS_ON = 'user_pref("mail.server.default.applyIncomingFilters", true);'
C = Case
CASES = [
    C(FILE, prefs(QUOTE), EXPECT_QUOTE), C(FILE, prefs(), EXPECT_QUOTE),
    C(FILE, prefs(QUOTE.replace("false", "true")), EXPECT_QUOTE),
    C(FILE, prefs(QUOTE, QUOTE.replace("false", "true")), EXPECT_QUOTE),
    C(FILE, prefs(QUOTE.replace("false", "true"), QUOTE), EXPECT_QUOTE),
    C(FILE, prefs("   " + QUOTE + "  "), EXPECT_QUOTE), C(FILE, prefs(QUOTE).replace(b"\n", b"\r\n"), EXPECT_QUOTE),
    C(FILE, prefs(QUOTE.replace("false", "0")), EXPECT_QUOTE), C(FILE, prefs(QUOTE.replace(");", ") ;")), EXPECT_QUOTE),
    C(FILE, prefs(SIGNATURE), EXPECT_SIGNATURE), C(FILE, prefs(SIGNATURE.replace("\\n", " ")), EXPECT_SIGNATURE),
    C(FILE, prefs(FILTERS_ON), FILTERS), C(FILE, prefs(FILTERS_ON, SYNC), FILTERS),
    C(FILE, prefs(FILTERS_ON, SYNC.replace("false", "true")), FILTERS), C(FILE, prefs(SYNC), FILTERS),
    C(FILE, prefs('user_pref("a.b", not json);', QUOTE), EXPECT_QUOTE),
    C(FILE, prefs('user_pref("a.\\"quoted\\"", 1);'), {"expect": {'a.\\"quoted\\"': {"method": "eq", "ref": 1}}}),
    C(FILE, prefs(QUOTE), {"expect": {"mail.identity.id1.auto_quote": {"method": "nonsense", "ref": False}}}),
    C(FILE, prefs(QUOTE), {"expect": {"mail.identity.id1.auto_quote": {"method": "re", "ref": "x"}}}),
    C(FILE, prefs(QUOTE), {}), C(FILE, b"\xff\xfe not utf-8 " + prefs(QUOTE), EXPECT_QUOTE),
    C(FILE, b"", EXPECT_QUOTE), C(None, EXPECT_QUOTE),
]


def test_check_thunderbird_prefs_agrees_with_osworlds_own(tmp_path, capsys):
    assert_agrees("check_thunderbird_prefs", thunderbird().check_thunderbird_prefs, check_thunderbird_prefs,
                  CASES, tmp_path, capsys)
