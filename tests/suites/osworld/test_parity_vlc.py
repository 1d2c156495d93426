"""troupe's VLC metrics agree with OSWorld's own (metrics/vlc.py, imported from ../shared/osworld/reference
for tests only) on vlcrc files built to sit on each function's edges: the option commented out at its
default, set, set twice, spaced around `=`, with CRLF line ends, absent, a file that is not UTF-8, int and
string rules, rules without their key. Prints the agreement per function."""

from __future__ import annotations

import pytest

from bench.formats.vlcrc import UNCHANGED
from bench.suites.osworld import metrics

from tests.osworld_reference import FILE, REFERENCE, Case, assert_agrees, vlc

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")

C = Case
HEADER = b"### vlcrc\n# Define the colors of the volume slider (string)\n"
FRESH = UNCHANGED.encode()
"""The vlcrc a fresh local home gets, as OSWorld's image has one."""


def option_cases(option: str, key: str, set_to: str, default: str) -> list[Case]:
    """The cases every `option=value` check shares, for one option, a value that differs from its
    default, and that default."""
    o = option.encode()
    other = set_to.encode()
    rule, int_rule = {key: set_to}, {key: int(set_to)} if set_to.isdigit() else {key: set_to}
    return [
        C(FILE, HEADER + b"#" + o + b"=" + default.encode() + b"\n", rule),  # VLC's untouched file: the default
        C(FILE, FRESH, rule),
        C(FILE, HEADER + b"#" + o + b"=" + default.encode() + b"\n", {key: default}),
        C(FILE, HEADER + o + b"=" + other + b"\n", rule),
        C(FILE, HEADER + o + b"=" + other + b"\n", int_rule),
        C(FILE, o + b"=" + other + b"\r\n", int_rule),  # CRLF: the value is stripped
        C(FILE, o + b"=" + other + b"\n#" + o + b"=" + default.encode() + b"\n", rule),  # the last line wins
        C(FILE, b"#" + o + b"=" + other + b"\n", rule),  # a commented line counts as set
        C(FILE, o + b" = " + other + b"\n", rule),  # spaced: not `option=`
        C(FILE, b"x" + o + b"=" + other + b"\n", rule),  # any line containing `option=`
        C(FILE, b"", rule), C(FILE, b"", {key: default}),
        C(FILE, o + b"=" + other + b"\n\xff\xfe\n", rule),  # not UTF-8: OSWorld raises
        C(FILE, o + b"=" + other + b"\n", {"wanted": set_to}),
        C(FILE, o + b"=" + other + b"\n", {key: True}),
        C(None, rule),
    ]


SLIDER = b"qt-slider-colours="
CASES: dict[str, list[Case]] = {
    "check_qt_bgcone": option_cases("qt-bgcone", "expected_qt_bgcone", "0", "1"),
    "check_qt_max_volume": option_cases("qt-max-volume", "expected_qt_max_volume", "200", "125"),
    "check_qt_minimal_view": option_cases("qt-minimal-view", "expected_qt_minimal_view", "1", "0"),
    "check_one_instance_when_started_from_file": option_cases(
        "one-instance-when-started-from-file", "expected_one_instance_when_started_from_file", "0", "1"),
    "check_play_and_exit": option_cases("play-and-exit", "expected_play_and_exit", "1", "0"),
    "is_vlc_recordings_folder": [
        C(FILE, HEADER + b"#input-record-path=\n", {"recording_file_path": "/home/user/Desktop"}),
        C(FILE, FRESH, {"recording_file_path": "/home/user/Desktop"}),
        C(FILE, b"input-record-path=/home/user/Desktop\n", {"recording_file_path": "/home/user/Desktop"}),
        C(FILE, b"input-record-path=/home/user/Desktop/\n", {"recording_file_path": "/home/user/Desktop"}),
        C(FILE, b"input-record-path = /home/user/Desktop \r\n", {"recording_file_path": "/home/user/Desktop"}),
        C(FILE, b"input-record-path=/tmp\ninput-record-path=/home/user/Desktop\n",
          {"recording_file_path": "/home/user/Desktop"}),  # the first line decides
        C(FILE, b"  \n\n input-record-path=/home/user/Desktop\n", {"recording_file_path": "/home/user/Desktop"}),
        C(FILE, b"input-record-path=a=b\n", {"recording_file_path": "b"}),
        C(FILE, b"", {"recording_file_path": "/home/user/Desktop"}),
        C(FILE, b"\xff\n", {"recording_file_path": "/home/user/Desktop"}),
        C(FILE, b"input-record-path=/x\n", {"folder": "/x"}), C(FILE, b"", {}),
    ],
    "check_qt_slider_colours": [
        C(FILE, HEADER + b"#" + SLIDER + b"153;210;153;20;210;20;255;199;15;245;39;29\n", {"type": "blackish"}),
        C(FILE, FRESH, {"type": "blackish"}),
        C(FILE, SLIDER + b"0;0;0;20;20;20;50;50;50;99;99;99\n", {"type": "blackish"}),
        C(FILE, SLIDER + b"0;0;0;20;20;20;50;50;50;99;99;100\n", {"type": "blackish"}),
        C(FILE, SLIDER + b"0;0;0;1\n", {"type": "blackish"}),  # an incomplete triple is dropped
        C(FILE, SLIDER + b"0;0;x\n", {"type": "blackish"}), C(FILE, SLIDER + b"\n", {"type": "blackish"}),
        C(FILE, SLIDER + b" 1 ; 2 ;3\r\n", {"type": "blackish"}),
        C(FILE, SLIDER + b"1;2;3\n", {"type": "match", "expected_qt_slider_colours": "1;2;3"}),
        C(FILE, SLIDER + b"1;2;3\n", {"type": "match", "expected_qt_slider_colours": "1;2;4"}),
        C(FILE, SLIDER + b"1;2;3\n", {"type": "match"}), C(FILE, SLIDER + b"1;2;3\n", {}),
        C(FILE, SLIDER + b"1;2;3\n", {"type": "dark"}), C(FILE, SLIDER + b"1;2;3\n", ["blackish"]),
        C(FILE, b"qt-slider-colours 0;0;0\n", {"type": "blackish"}),  # no `=`: the whole line is the value
        C(FILE, b"", {"type": "blackish"}), C(FILE, b"\xff", {"type": "blackish"}),
    ],
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_troupes_vlc_metric_agrees_with_osworlds_on_every_built_case(name, tmp_path, capsys):
    assert_agrees(name, getattr(vlc(), name), metrics.METRICS[name], CASES[name], tmp_path, capsys)
