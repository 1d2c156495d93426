"""VLC preference checks on its `vlcrc`, as the `vlc_config` getter fetches it.

vlcrc is an INI-like text file of `option=value` lines; VLC writes every
option it knows, leaving those still at their default commented out
(`#qt-bgcone=1`). So an option without an active line has VLC's default
value, which this module therefore knows for each option it checks.

Each task names its check as a function and its wanted value under a rule
key; most are "this option now has this number":

- `check_qt_bgcone`, `check_qt_max_volume`, `check_qt_minimal_view`,
  `check_qt_video_resize`, `check_one_instance_when_started_from_file`;
- `check_global_key_play_pause`: a global play/pause hotkey is (1) or is not
  (0) assigned;
- `is_vlc_recordings_folder`: recordings go to the given folder (compared
  as a Windows path: case and a trailing separator do not matter);
- `check_qt_slider_colours` with `{"type": "blackish"}`: every colour of
  the volume slider is dark, each channel at most `DARK` (our threshold: a
  quarter of full scale).
"""

from __future__ import annotations

from typing import Any, Callable

from actors.waa.errors import MetricFailed, rule_field

DARK = 64


def options(vlcrc: bytes | str) -> dict[str, str]:
    """The active `option=value` lines; a later line wins, as when VLC reads it."""
    text = vlcrc.decode("utf-8", "replace") if isinstance(vlcrc, bytes) else vlcrc
    found: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if line and line[0] not in "#[;" and "=" in line:
            key, value = line.split("=", 1)
            found[key.strip()] = value.strip()
    return found


def _integer(value: str, func: str, option: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise MetricFailed(f"{func}: vlcrc's {option}={value!r} is not a number") from None


def _number_check(func: str, option: str, rule: str, default: str) -> Callable[..., float]:
    def check(result: bytes | None, expected: Any, **_: Any) -> float:
        want = rule_field(expected, func, rule)
        if result is None:
            return 0.0
        return float(_integer(options(result).get(option, default), func, option) == int(want))
    check.__name__ = func
    return check


def _hotkey_check(result: bytes | None, expected: Any, **_: Any) -> float:
    want = rule_field(expected, "check_global_key_play_pause", "expected_global_key_play_pause")
    if result is None:
        return 0.0
    assigned = options(result).get("global-key-play-pause", "") not in ("", "Unset")
    return float(assigned == bool(want))


def _windows_path(path: str) -> str:
    return path.replace("/", "\\").rstrip("\\").lower()


def is_vlc_recordings_folder(result: bytes | None, expected: Any, **_: Any) -> float:
    want = rule_field(expected, "is_vlc_recordings_folder", "recording_file_path")
    if result is None:
        return 0.0
    return float(_windows_path(options(result).get("input-record-path", "")) == _windows_path(want))


VLC_DEFAULT_SLIDER = "153;210;153;20;210;20;255;199;15;245;39;29"


def check_qt_slider_colours(result: bytes | None, expected: Any, **_: Any) -> float:
    kind = rule_field(expected, "check_qt_slider_colours", "type")
    if kind != "blackish":
        raise MetricFailed(f"check_qt_slider_colours: only type 'blackish' is known, got {kind!r}")
    if result is None:
        return 0.0
    value = options(result).get("qt-slider-colours", VLC_DEFAULT_SLIDER)
    channels = [_integer(part, "check_qt_slider_colours", "qt-slider-colours") for part in value.split(";") if part]
    return float(bool(channels) and all(c <= DARK for c in channels))


NUMBER_CHECKS = {
    "check_qt_bgcone": ("qt-bgcone", "expected_qt_bgcone", "1"),
    "check_qt_max_volume": ("qt-max-volume", "expected_qt_max_volume", "125"),
    "check_qt_minimal_view": ("qt-minimal-view", "expected_qt_minimal_view", "0"),
    "check_qt_video_resize": ("qt-video-autoresize", "qt-video-autoresize", "1"),
    "check_one_instance_when_started_from_file": (
        "one-instance-when-started-from-file", "expected_one_instance_when_started_from_file", "1"),
}
"""Function -> (vlcrc option, the rule's key, VLC's default for the option)."""


VLC_METRICS: dict[str, Callable[..., float]] = {
    **{name: _number_check(name, *spec) for name, spec in NUMBER_CHECKS.items()},
    "check_global_key_play_pause": _hotkey_check,
    "is_vlc_recordings_folder": is_vlc_recordings_folder,
    "check_qt_slider_colours": check_qt_slider_colours,
}
