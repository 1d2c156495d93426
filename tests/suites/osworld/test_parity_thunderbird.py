"""troupe's Thunderbird metrics agree with OSWorld's own (metrics/thunderbird.py, imported from
../shared/osworld/reference for tests only) on prefs.js files built to sit on their edges: a key set,
unset, set twice, indented, with an escaped quote, a multi-line string matched by re.S, CRLF line ends,
a value that is not JSON, text that is not UTF-8, `unexpect` keys matching or not, a method neither
knows, a rule without `ref`, no file; and msgFilterRules.dat files as Thunderbird writes them, with the
two filter tasks' filters solved and each way not (disabled, another action or folder, a second
condition), conditions quoted, OR-ed or ALL, escaped quotes in names, a filter without a condition line,
two condition lines, a field before any name, a last line without its newline, CRLF line ends.
Prints the agreement per function."""

from __future__ import annotations

import pytest

from bench.suites.osworld.thunderbird import check_thunderbird_filter, check_thunderbird_prefs

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
    C(FILE, prefs(QUOTE), {"expect": {"mail.identity.id1.auto_quote": {"method": "eq"}}}),
    C(FILE, prefs('user_pref("a.b", null);'), {"expect": {"a.b": {"method": "eq"}}}),
    C(FILE, prefs(QUOTE), {}), C(FILE, b"\xff\xfe not utf-8 " + prefs(QUOTE), EXPECT_QUOTE),
    C(FILE, b"", EXPECT_QUOTE), C(None, EXPECT_QUOTE),
]


def test_check_thunderbird_prefs_agrees_with_osworlds_own(tmp_path, capsys):
    assert_agrees("check_thunderbird_prefs", thunderbird().check_thunderbird_prefs, check_thunderbird_prefs,
                  CASES, tmp_path, capsys)


def filters(*blocks: str, header: str = 'version="9"\nlogging="no"\n') -> bytes:
    return (header + "".join(blocks)).encode()


def a_filter(name: str = "Promotions", enabled: str = "yes", action: str = "Move to folder",
             value: str = "mailbox://nobody@Local%20Folders/Promotions",
             condition: str = "AND (subject,contains,discount)") -> str:
    return (f'name="{name}"\nenabled="{enabled}"\ntype="17"\naction="{action}"\nactionValue="{value}"\n'
            f'condition="{condition}"\n')


PROMOTIONS = {"expect": [{"enabled": "yes", "action": "Move to folder",
                          "actionValue": "mailbox://nobody@Local%20Folders/Promotions",
                          "condition": ["AND (subject,contains,discount)"]}]}
"""thunderbird/5203d847's rule."""
FORWARD = {"expect": [{"enabled": "yes", "action": "Forward", "actionValue": "anonym-x2024@gmail.com",
                       "condition": ["ALL"]}]}
"""thunderbird/9b7bc335's rule."""
FORWARDING = a_filter("Forward all", action="Forward", value="anonym-x2024@gmail.com", condition="ALL")
TWO = 'AND (subject,contains,discount) AND (from,contains,\\"shop, inc\\")'
FILTER_CASES = [
    C(FILE, filters(a_filter()), PROMOTIONS), C(FILE, filters(a_filter(enabled="no")), PROMOTIONS),
    C(FILE, filters(a_filter(value="mailbox://nobody@Local%20Folders/Deals")), PROMOTIONS),
    C(FILE, filters(a_filter(action="Copy to folder")), PROMOTIONS),
    C(FILE, filters(a_filter(condition="OR (subject,contains,discount)")), PROMOTIONS),
    C(FILE, filters(a_filter(condition="AND (subject,contains,discount) AND (from,contains,shop)")), PROMOTIONS),
    C(FILE, filters(a_filter(condition=TWO)), PROMOTIONS), C(FILE, filters(a_filter(condition=TWO)),
                                                            {"expect": [{"condition": ["AND (subject,contains,discount)",
                                                                                       'AND (from,contains,"shop, inc")']}]}),
    C(FILE, filters(a_filter(condition='AND (subject,contains,\\"discount\\")')), PROMOTIONS),
    C(FILE, filters(a_filter(condition="AND (subject,doesn't contain,discount)")),
      {"expect": [{"condition": ["AND (subject,doesn't contain,discount)"]}]}),
    C(FILE, filters(a_filter("First", condition="ALL"), a_filter()), PROMOTIONS),
    C(FILE, filters(a_filter(), FORWARDING), {**PROMOTIONS, **FORWARD}),
    C(FILE, filters(a_filter(), FORWARDING), {"expect": PROMOTIONS["expect"] + FORWARD["expect"]}),
    C(FILE, filters(FORWARDING), FORWARD), C(FILE, filters(a_filter(condition="ALL")), FORWARD),
    C(FILE, filters(FORWARDING), {**FORWARD, "unexpect": [{"action": "Forward"}]}),
    C(FILE, filters(a_filter()), {**PROMOTIONS, "unexpect": [{"action": "Forward"}]}),
    C(FILE, filters(a_filter('say \\"hi\\"')), {"expect": [{"name": 'say "hi"'}]}),
    C(FILE, filters(a_filter("C:\\\\mail")), {"expect": [{"name": "C:\\mail"}]}),
    C(FILE, filters('name="No condition"\nenabled="yes"\n', a_filter()), {"expect": [{"name": "No condition"}]}),
    C(FILE, filters(a_filter() + 'condition="ALL"\n'), {"expect": [{"condition": ["ALL"]}]}),
    C(FILE, filters('enabled="yes"\n' + a_filter()), PROMOTIONS),
    C(FILE, filters(a_filter()).rstrip(b"\n"), PROMOTIONS), C(FILE, filters(a_filter()).replace(b"\n", b"\r\n"), PROMOTIONS),
    C(FILE, filters(), PROMOTIONS), C(FILE, filters(), {}), C(FILE, b"", {"expect": []}),
    C(FILE, filters(a_filter()), {"expect": ["Promotions"]}), C(FILE, filters(), {"expect": ["Promotions"]}),
    C(FILE, filters(a_filter()), ["Promotions"]), C(FILE, b"\xff" + filters(a_filter()), PROMOTIONS),
    C(None, PROMOTIONS),
]


def test_check_thunderbird_filter_agrees_with_osworlds_own(tmp_path, capsys):
    assert check_thunderbird_filter(filters(a_filter()), PROMOTIONS) == 1.0
    assert check_thunderbird_filter(filters(a_filter(enabled="no")), PROMOTIONS) == 0.0
    assert_agrees("check_thunderbird_filter", thunderbird().check_thunderbird_filter, check_thunderbird_filter,
                  FILTER_CASES, tmp_path, capsys)
