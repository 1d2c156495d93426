"""troupe's check_config_status agrees with OSWorld's own (metrics/gimp.py, imported from
../shared/osworld/reference for tests only) on gimprc and sessionrc files built to sit on its edges:
GIMP's own lines, quoted values, nested settings with a two-word key, comments, blank and space-only
lines, CRLF, no file, an empty file, text that is not UTF-8, rules without their keys. Prints the agreement."""

from __future__ import annotations

import pytest

from bench.suites.osworld import metrics

from tests.osworld_reference import FILE, REFERENCE, Case, assert_agrees, gimp

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")

C = Case
GIMPRC = b"# GIMP gimprc\n#\n# This is your personal gimprc file.\n\n(undo-levels 100)\n(theme \"Light\")\n" \
         b"(default-image\n    (width 1920))\n# end of gimprc\n"
SESSIONRC = b"# GIMP sessionrc\n\n(session-info \"toplevel\"\n    (factory-entry \"gimp-single-image-window\")\n" \
            b"    (position 0 0))\n(hide-docks yes)\n(single-window-mode yes)\n# end of sessionrc\n"
UNDO, THEME, DOCKS = ({"type:": "key-value", "key": "undo-levels", "value": "100"},
                      {"type:": "key-value", "key": "theme", "value": "\"Light\""},
                      {"type:": "key-value", "key": "hide-docks", "value": "yes"})
CASES = [
    C(FILE, GIMPRC, UNDO), C(FILE, GIMPRC, THEME), C(FILE, GIMPRC, {**THEME, "value": "Light"}),
    C(FILE, GIMPRC.replace(b"100", b"5"), UNDO), C(FILE, SESSIONRC, DOCKS),
    C(FILE, SESSIONRC.replace(b"(hide-docks yes)", b"(hide-docks no)"), DOCKS),
    C(FILE, GIMPRC.replace(b"\n", b"\r\n"), UNDO), C(FILE, b"#(undo-levels 100)\n", UNDO),
    C(FILE, b"(undo-levels 100) \n", UNDO), C(FILE, b"((undo-levels 100))\n", UNDO),
    C(FILE, b"(undo-levels 100)", UNDO), C(FILE, b"\n\n(undo-levels 100)\n", UNDO),
    C(FILE, b"   \n(undo-levels 100)\n", UNDO),  # a space-only line: OSWorld indexes an empty list
    C(FILE, b"   \n", {"key": 5, "value": "1"}),  # ... unless the key is neither a word nor a pair
    C(FILE, SESSIONRC, {"key": ["session-info", "\"toplevel\""], "value": "\"toplevel\""}),
    C(FILE, SESSIONRC, {"key": ["position", "0"], "value": "0))"}),
    C(FILE, b"(hide-docks)\n", {"key": ["hide-docks", "yes"], "value": "yes"}),
    C(FILE, b"(hide-docks)\n", {"key": ["other", "yes"], "value": "yes"}),
    C(FILE, b"(hide-docks yes)\n", {"key": ["a", "b", "c"], "value": "yes"}),
    C(FILE, b"(hide-docks yes)\n", {"value": "yes"}), C(FILE, b"(hide-docks yes)\n", {"key": "hide-docks"}),
    C(FILE, b"(other yes)\n", {"key": "hide-docks"}), C(FILE, b"# only a comment\n", {}),
    C(FILE, b"", DOCKS), C(None, DOCKS), C(FILE, b"(hide-docks yes)\n\xff\n", DOCKS),
    C(FILE, b"(hide-docks\xc2\xa0yes)\n", DOCKS),  # a no-break space splits words in Python
]


def test_troupes_check_config_status_agrees_with_osworlds_on_every_built_case(tmp_path, capsys):
    assert_agrees("check_config_status", gimp().check_config_status, metrics.METRICS["check_config_status"], CASES,
                  tmp_path, capsys)
