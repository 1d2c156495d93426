"""VLC preference checks on its `vlcrc`, as the `vlc_config` getter fetches it,
with the reference semantics of WAA's own vlc.py.

vlcrc is an INI-like text file of `option=value` lines; VLC writes every
option it knows, leaving those still at their default commented out
(`#qt-bgcone=1`). WAA reads it line by line, as text, and these checks read
it the same way, including where that differs from how VLC reads it:

- an option's value is taken from every line that contains `option=`, a
  commented `#option=value` line too, the last one winning, as the text after
  the line's last `=`, stripped; a line spaced as `option = value` does not
  count. Without such a line the value is WAA's default for the option
  (bgcone 1, max volume 125, minimal view 0, one instance 1, video
  autoresize 0). It is compared as a string with the rule's value (an int
  rule as its digits): `check_qt_bgcone`, `check_qt_max_volume`,
  `check_qt_minimal_view`, `check_qt_video_resize`,
  `check_one_instance_when_started_from_file`;
- `check_global_key_play_pause`: "1" when the last `global-key-play-pause=`
  line has any value (even `Unset`), else "0", compared as a string;
- `is_vlc_recordings_folder`: the first uncommented line that mentions
  `input-record-path` holds exactly the rule's folder (no case folding, no
  separator rewriting); none scores 0;
- `check_qt_slider_colours`: the value of the last line mentioning
  `qt-slider-colours` (default VLC's), type `match` equal to
  `expected_qt_slider_colours`, type `blackish` every RGB triple with each
  channel below `bench.formats.vlcrc.BLACKISH` (an unreadable list scores 0);
  another type scores 0
  (WAA's function returns None, which its `evaluate()` scores 0).

WAA opens the file it fetched, so a vlcrc that is not there (VLC never
saved its preferences) makes WAA's check raise: `ReferenceCrash`, whose fix
reads it as an empty file (every option at its default). WAA decodes the
file as UTF-8 and raises on other bytes: `ReferenceCrash` too, whose
`text-encoding` fix reads it as Latin-1.
"""

from __future__ import annotations

from typing import Any, Callable

from bench.formats.vlcrc import blackish, play_pause_hotkey, recordings_folder
from bench.suites.waa.errors import MetricFailed, ReferenceCrash, rule_field

VLC_DEFAULT_SLIDER = "153;210;153;20;210;20;255;199;15;245;39;29"


def _lines(vlcrc: bytes | str) -> list[str]:
    return (vlcrc.decode("latin-1") if isinstance(vlcrc, bytes) else vlcrc).split("\n")


def value_of(vlcrc: bytes | str, marker: str, default: str) -> str:
    """The text after the last `=` of the last line containing `marker`, stripped; else `default`."""
    value = default
    for line in _lines(vlcrc):
        if marker in line:
            value = line.split("=")[-1].strip()
    return value


def _as_text(want: Any) -> Any:
    return str(want) if isinstance(want, int) and not isinstance(want, bool) else want


def _guarded(func: str, check: Callable[[bytes | str, Any], float]) -> Callable[..., float]:
    """`check(vlcrc, rules)`; a missing vlcrc raises as WAA's open(None) does, with the fix reading it empty."""
    def metric(result: bytes | None, expected: Any, **_: Any) -> float:
        if not isinstance(expected, dict):
            raise MetricFailed(f"{func}: expected a rule, got {expected!r}")
        if result is None:
            raise ReferenceCrash(f"{func}: VLC's vlcrc is not on the VM", fix="missing-file",
                                 fixed=check(b"", expected))
        try:
            text = result.decode("utf-8") if isinstance(result, bytes) else result
        except UnicodeDecodeError as exc:
            raise ReferenceCrash(f"{func}: the vlcrc is not UTF-8 ({exc})", fix="text-encoding",
                                 fixed=check(result, expected)) from None
        return check(text, expected)
    metric.__name__ = func
    return metric


def _option_check(func: str, option: str, rule: str, default: str) -> Callable[..., float]:
    def check(vlcrc: bytes | str, expected: dict[str, Any]) -> float:
        return float(value_of(vlcrc, f"{option}=", default) == _as_text(rule_field(expected, func, rule)))
    return _guarded(func, check)


def _hotkey(vlcrc: bytes | str, expected: dict[str, Any]) -> float:
    want = rule_field(expected, "check_global_key_play_pause", "expected_global_key_play_pause")
    return float(play_pause_hotkey(_lines(vlcrc)) == _as_text(want))


def _recordings_folder(vlcrc: bytes | str, expected: dict[str, Any]) -> float:
    want = rule_field(expected, "is_vlc_recordings_folder", "recording_file_path")
    return recordings_folder(_lines(vlcrc), want)


def _slider(vlcrc: bytes | str, expected: dict[str, Any]) -> float:
    kind = rule_field(expected, "check_qt_slider_colours", "type")
    colours = value_of(vlcrc, "qt-slider-colours", VLC_DEFAULT_SLIDER)
    if kind == "match":
        return float(colours == rule_field(expected, "check_qt_slider_colours", "expected_qt_slider_colours"))
    if kind == "blackish":
        return blackish(colours)
    return 0.0  # WAA's check returns None for another type, which its evaluate() scores 0


OPTION_CHECKS = {
    "check_qt_bgcone": ("qt-bgcone", "expected_qt_bgcone", "1"),
    "check_qt_max_volume": ("qt-max-volume", "expected_qt_max_volume", "125"),
    "check_qt_minimal_view": ("qt-minimal-view", "expected_qt_minimal_view", "0"),
    "check_qt_video_resize": ("qt-video-autoresize", "qt-video-autoresize", "0"),
    "check_one_instance_when_started_from_file": (
        "one-instance-when-started-from-file", "expected_one_instance_when_started_from_file", "1"),
}
"""Function -> (vlcrc option, the rule's key, WAA's default for the option)."""


VLC_METRICS: dict[str, Callable[..., float]] = {
    **{name: _option_check(name, *spec) for name, spec in OPTION_CHECKS.items()},
    "check_global_key_play_pause": _guarded("check_global_key_play_pause", _hotkey),
    "is_vlc_recordings_folder": _guarded("is_vlc_recordings_folder", _recordings_folder),
    "check_qt_slider_colours": _guarded("check_qt_slider_colours", _slider),
}
