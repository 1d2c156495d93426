"""VLC's preferences as OSWorld's vlc metrics read them from `vlcrc` (the `vlc_config` getter's file).

vlcrc is a text file of `option=value` lines; VLC writes every option it
knows, those still at their default commented out (`#qt-bgcone=1`). OSWorld
reads it as UTF-8 (other bytes raise, so the task gets no score) split on
"\\n", and these read it the same way, including where that differs from how
VLC reads it:

- an option's value comes from every line containing `option=`, a commented
  `#option=value` line too, the last one winning, as the text after the
  line's last `=`, stripped; without one it is OSWorld's default for the
  option. It is compared as a string with the rule's value (an int rule as
  its digits): `check_qt_bgcone` (default 1), `check_qt_max_volume` (125),
  `check_qt_minimal_view` (0), `check_one_instance_when_started_from_file`
  (1), `check_play_and_exit` (0); a rule without its key raises;
- `is_vlc_recordings_folder`: the first uncommented line mentioning
  `input-record-path` holds exactly the rule's folder; none scores 0;
- `check_qt_slider_colours`: the value of the last line mentioning
  `qt-slider-colours` (default VLC's), type `match` equal to
  `expected_qt_slider_colours`, type `blackish` every RGB triple with each
  channel below `bench.formats.vlcrc.BLACKISH`; a rule that is not a dict,
  misses a key, or an unreadable list scores 0 (OSWorld catches those),
  another type gives OSWorld no score (its function returns None), so it
  raises here;
- `check_global_key_play_pause`: "1" when the last line containing
  `global-key-play-pause=` has a value, else "0"
  (bench.formats.vlcrc.play_pause_hotkey, WAA's reading too), compared
  with the rule's `expected_global_key_play_pause` as the others;
- `is_vlc_fullscreen`: the two sizes (`vm_screen_size`, `vm_window_size`:
  `{width, height}`) are equal; either one missing (None) scores 0, another
  kind of value raises, as OSWorld's function does on it.
"""

from __future__ import annotations

from typing import Any, Callable

from bench.formats.vlcrc import blackish, play_pause_hotkey, recordings_folder
from bench.suites.osworld.errors import MetricFailed

VLC_DEFAULT_SLIDER = "153;210;153;20;210;20;255;199;15;245;39;29"


def _lines(vlcrc: bytes | None, metric: str) -> list[str]:
    if vlcrc is None:
        raise MetricFailed(f"{metric}: no vlcrc to read (OSWorld's function raises opening it)")
    try:
        return vlcrc.decode("utf-8").split("\n")
    except UnicodeDecodeError as exc:
        raise MetricFailed(f"{metric}: the vlcrc is not UTF-8 ({exc}; OSWorld's function raises here)") from None


def _wanted(rule: Any, key: str, metric: str) -> Any:
    if not isinstance(rule, dict) or key not in rule:
        raise MetricFailed(f"{metric}: expected a rule with `{key}`, got {rule!r} (OSWorld's function raises here)")
    want = rule[key]
    return str(want) if isinstance(want, int) else want


def value_of(lines: list[str], marker: str, default: str) -> str:
    """The text after the last `=` of the last line containing `marker`, stripped; else `default`."""
    value = default
    for line in lines:
        if marker in line:
            value = line.split("=")[-1].strip()
    return value


def _option_check(name: str, option: str, key: str, default: str) -> Callable[..., float]:
    def metric(result: bytes | None, rule: Any, **options: Any) -> float:
        lines = _lines(result, name)
        return float(value_of(lines, f"{option}=", default) == _wanted(rule, key, name))
    metric.__name__ = name
    return metric


def is_vlc_recordings_folder(result: bytes | None, rule: Any, **options: Any) -> float:
    lines = _lines(result, "is_vlc_recordings_folder")
    want = _wanted(rule, "recording_file_path", "is_vlc_recordings_folder")
    return recordings_folder(lines, want)


def check_qt_slider_colours(result: bytes | None, rule: Any, **options: Any) -> float:
    colours = value_of(_lines(result, "check_qt_slider_colours"), "qt-slider-colours", VLC_DEFAULT_SLIDER)
    if not isinstance(rule, dict) or "type" not in rule:
        return 0.0  # OSWorld's function catches the failed lookup and scores 0
    if rule["type"] == "match":
        return float("expected_qt_slider_colours" in rule and colours == rule["expected_qt_slider_colours"])
    if rule["type"] == "blackish":
        return blackish(colours)
    raise MetricFailed(f"check_qt_slider_colours: rule type {rule['type']!r} is neither match nor blackish "
                       "(OSWorld's function returns None: no score)")


def check_global_key_play_pause(result: bytes | None, rule: Any, **options: Any) -> float:
    lines = _lines(result, "check_global_key_play_pause")
    want = _wanted(rule, "expected_global_key_play_pause", "check_global_key_play_pause")
    return float(play_pause_hotkey(lines) == want)


def is_vlc_fullscreen(result: Any, expected: Any, **options: Any) -> float:
    if result is None or expected is None:
        return 0.0
    try:
        return float(result["width"] == expected["width"] and result["height"] == expected["height"])
    except (KeyError, TypeError, IndexError) as exc:
        raise MetricFailed(f"is_vlc_fullscreen: expected two sizes with width and height, got {result!r} and "
                           f"{expected!r} ({exc!r}; OSWorld's function raises here)") from None


OPTION_CHECKS = {
    "check_qt_bgcone": ("qt-bgcone", "expected_qt_bgcone", "1"),
    "check_qt_max_volume": ("qt-max-volume", "expected_qt_max_volume", "125"),
    "check_qt_minimal_view": ("qt-minimal-view", "expected_qt_minimal_view", "0"),
    "check_one_instance_when_started_from_file": (
        "one-instance-when-started-from-file", "expected_one_instance_when_started_from_file", "1"),
    "check_play_and_exit": ("play-and-exit", "expected_play_and_exit", "0"),
}
"""Function -> (vlcrc option, the rule's key, OSWorld's default for the option)."""

VLC_METRICS: dict[str, Callable[..., float]] = {
    **{name: _option_check(name, *spec) for name, spec in OPTION_CHECKS.items()},
    "is_vlc_recordings_folder": is_vlc_recordings_folder,
    "check_qt_slider_colours": check_qt_slider_colours,
    "check_global_key_play_pause": check_global_key_play_pause,
    "is_vlc_fullscreen": is_vlc_fullscreen,
}
