"""troupe's OSWorld metrics agree with OSWorld's own functions (imported from ../shared/osworld/reference,
for tests only) on values and files built to sit on each function's edges: None, empty files, line
endings, text that is not UTF-8, rules without their key. Prints the agreement per function."""

from __future__ import annotations

import pytest

from bench.suites.osworld import metrics

from tests.osworld_reference import FILE, REFERENCE, Case, assert_agrees, general

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")

C = Case
CASES: dict[str, list[Case]] = {
    "exact_match": [C("a", {"expected": "a"}), C("a\n", {"expected": "a"}), C(None, {"expected": "a"}),
                    C([1, 2], {"expected": [1, 2]}), C("a", {"wanted": "a"})],
    "match_in_list": [C("Bing", {"expected": ["Microsoft Bing", "Bing"]}), C("bing", {"expected": ["Bing"]}),
                      C("Bin", {"expected": "Bing"}), C("x", {})],
    "is_in_list": [C(["a", "b"], {"expected": "a"}), C("abc", {"expected": "bc"}), C(["ab"], {"expected": "a"})],
    "literal_match": [C("A", "a"), C("A", "a", ignore_case=True), C(1, "1"),
                      C(["A", 1], ["a", "1"], type="list", ignore_case=True), C(["a"], ["a", "b"], type="list"),
                      C("a", "a", type="set")],
    "check_include_exclude": [C(None, {"include": ["x"]}), C("43 132\n", {"include": ["43 132"], "exclude": []}),
                              C("spotify not found", {"include": ["spotify"], "exclude": ["not found"]}),
                              C("anything", {}), C("x", ["x"])],
    "file_contains": [C(FILE, b"CPU %user %idle\n", {"expected": ["CPU", "%idle"]}),
                      C(FILE, b"CPU\n", {"expected": ["CPU", "%steal"]}), C(FILE, b"", {"expected": []}),
                      C(FILE, b"", {"expected": ["x"]}), C(None, {"expected": ["x"]}),
                      C(FILE, b"\xff\xfe CPU", {"expected": ["CPU"]}), C(FILE, b"CPU", {"wanted": ["CPU"]})],
    "check_line_number": [C(FILE, b"Linux\n12:00:01 AM CPU\n12:00:02 all\n", {"expected": "2"}),
                          C(FILE, b"12:00:01\r12:00:02\r12:00:03", {"expected": "3"}),
                          C(FILE, b"24:00:00\n23:59:60\n", {"expected": 1}), C(None, {"expected": "0"}),
                          C(FILE, b"12:00:01\n", {"expected": "one"}), C(FILE, b"\xff12:00:01\n", {"expected": "1"}),
                          C(FILE, b"12:00:01\x0c12:00:02\x1c12:00:03\n", {"expected": "1"})],
    "check_direct_json_object": [
        C({"q": "cats", "tbm": "isch"}, {"expected": {"q": "cats", "tbm": "isch"}}),
        C({"q": "cats", "tbm": "isch", "more": 1}, {"expected": {"q": "cats"}}),
        C({"q": "dogs"}, {"expected": {"q": "cats"}}), C({}, {"expected": {"q": ""}}),
        C({"q": None}, {"expected": {"q": None}}), C("{'q': 'cats'}", {"expected": {"q": "cats"}}),
        C(" {\"q\": \"cats\"} ", {"expected": {"q": "cats"}}), C("not json", {"expected": {"q": "cats"}}),
        C("[1]", {"expected": {"q": 1}}), C(None, {"expected": {"q": "cats"}}),
        C({"q": "cats"}, {"expected": {"q": "__EVALUATION_FAILED__"}}), C({"q": "cats"}, {"expected": {}}),
        C({"q": "cats"}, {}), C({"q": "cats"}, ["q"]), C({"q": "cats"}, {"expected": ["q"]}),
        C({"l": [2, 1]}, {"expected": {"l": [1, 2], "ignore_list_order": True}}),
        C({"l": [2, 1], "ignore_list_order": [True]}, {"expected": {"l": [1, 2], "ignore_list_order": [True]}}),
        C({"l": [2, 1]}, {"expected": {"l": [1, 2]}}),
        C({"size": ["l", "m"]}, {"expected": {"size": ["m", "xl"]}, "expect_in_result": True}),
        C({"size": "m"}, {"expected": {"size": ["m", "xl"]}, "expect_in_result": True}),
        C({"size": "s"}, {"expected": {"size": ["m", "xl"]}, "expect_in_result": True}),
        C({"size": ["l"]}, {"expected": {"size": []}, "expect_in_result": True}),
        C({"title": "Best cats of 2024"}, {"expected": {"title": "cats"}, "expect_in_result": True}),
        C({"title": None}, {"expected": {"title": "cats"}, "expect_in_result": True}),
        C({"n": 3}, {"expected": {"n": 3}, "expect_in_result": True}),
        C({"q": "cats"}, {"expected": {"q": "cats"}, "expect_in_result": False}),
    ],
    "diff_text_file": [C(FILE, b"a\nb\n", FILE, b"a\nc\n"), C(FILE, b"a\r\nb\r\n", FILE, b"a\nb\n"),
                       C(None, FILE, b"a\n"), C(FILE, b"", FILE, b"")],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_troupes_metric_agrees_with_osworlds_on_every_built_case(name, tmp_path, capsys):
    assert_agrees(name, getattr(general(), name), metrics.METRICS[name], CASES[name], tmp_path, capsys)
