"""troupe's OSWorld metrics agree with OSWorld's own functions (imported from ../shared/osworld/reference,
for tests only) on values and files built to sit on each function's edges: None, empty files, line
endings, text that is not UTF-8, rules without their key. Prints the agreement per function."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench.suites.osworld import metrics

from tests.osworld_reference import REFERENCE, general

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")

FILE = object()
"""Marks an argument that is a file: OSWorld's function gets its path, troupe's its bytes."""

class Case:
    """One call: its arguments (FILE, data for a file) and the options."""

    def __init__(self, *arguments: Any, **options: Any) -> None:
        self.arguments, self.options = arguments, options

    def __repr__(self) -> str:
        return f"Case{self.arguments!r} {self.options!r}"

    def calls(self, folder: Path, index: int) -> tuple[list[Any], list[Any]]:
        """OSWorld's arguments (a file as its path) and troupe's (a file as its bytes)."""
        theirs, ours = [], []
        items = list(self.arguments)
        while items:
            item = items.pop(0)
            if item is FILE:
                data = items.pop(0)
                path = folder / f"case{index}-{len(theirs)}.txt"
                path.write_bytes(data)
                theirs.append(str(path))
                ours.append(data)
            else:
                theirs.append(item)
                ours.append(item)
        return theirs, ours


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
                          C(FILE, b"12:00:01\n", {"expected": "one"}), C(FILE, b"\xff12:00:01\n", {"expected": "1"})],
    "diff_text_file": [C(FILE, b"a\nb\n", FILE, b"a\nc\n"), C(FILE, b"a\r\nb\r\n", FILE, b"a\nb\n"),
                       C(None, FILE, b"a\n"), C(FILE, b"", FILE, b"")],
}


def outcome(function, arguments: list[Any], options: dict[str, Any]) -> Any:
    """The score, or "raises": OSWorld then records no score, and troupe's checker an evaluation error."""
    try:
        return float(function(*arguments, **options))
    except Exception:  # noqa: BLE001 - a raise is an outcome to agree on
        return "raises"


@pytest.mark.parametrize("name", sorted(CASES))
def test_troupes_metric_agrees_with_osworlds_on_every_built_case(name, tmp_path, capsys):
    reference = getattr(general(), name)
    ours = metrics.METRICS[name]
    agreed, differences = 0, []
    for index, case in enumerate(CASES[name]):
        theirs_args, our_args = case.calls(tmp_path, index)
        theirs, mine = outcome(reference, theirs_args, case.options), outcome(ours, our_args, case.options)
        if theirs == mine:
            agreed += 1
        else:
            differences.append((case, theirs, mine))
    with capsys.disabled():
        print(f"\nparity {name}: {agreed}/{len(CASES[name])} cases agree with OSWorld's function")
    assert not differences
