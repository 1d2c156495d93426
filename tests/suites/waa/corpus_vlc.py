"""Cases for the VLC preference checks on vlcrc files as VLC writes them: every option, those at
their default commented out; values set, spaced, repeated, CRLF line ends, a BOM, bytes that are
not UTF-8, and no file at all."""

from __future__ import annotations

from typing import Any

from tests.suites.waa.corpus import Case, File

HEADER = b"\xef\xbb\xbf###\n###  vlc 3.0.20\n###\n\n[qt] # Qt interface\n\n"
DEFAULTS = {
    "qt-bgcone": "1", "qt-max-volume": "125", "qt-minimal-view": "0", "qt-video-autoresize": "1",
    "one-instance-when-started-from-file": "1", "global-key-play-pause": "", "input-record-path": "",
    "qt-slider-colours": "153;210;153;20;210;20;255;199;15;245;39;29",
}


def vlcrc(set_: dict[str, str] = {}, *, crlf: bool = False, extra: bytes = b"") -> bytes:
    """VLC's vlcrc: each option commented at its default, or set when in `set_`."""
    lines = []
    for option, default in DEFAULTS.items():
        lines.append(f"# {option} (string)")
        lines.append(f"{option}={set_[option]}" if option in set_ else f"#{option}={default}")
    text = HEADER + "\n".join(lines).encode("utf-8") + b"\n" + extra
    return text.replace(b"\n", b"\r\n") if crlf else text


CHECKS = {
    "check_qt_bgcone": ("qt-bgcone", "expected_qt_bgcone", (0, 1, "0")),
    "check_qt_max_volume": ("qt-max-volume", "expected_qt_max_volume", (100, 125, 200, "200")),
    "check_qt_minimal_view": ("qt-minimal-view", "expected_qt_minimal_view", (1, 0)),
    "check_qt_video_resize": ("qt-video-autoresize", "qt-video-autoresize", (0, 1)),
    "check_one_instance_when_started_from_file": ("one-instance-when-started-from-file",
                                                  "expected_one_instance_when_started_from_file", (0, 1)),
    "check_global_key_play_pause": ("global-key-play-pause", "expected_global_key_play_pause", (1, 0)),
}


def _files(option: str, value: str) -> dict[str, bytes | None]:
    return {
        "default": vlcrc(),
        "set": vlcrc({option: value}),
        "set-crlf": vlcrc({option: value}, crlf=True),
        "spaced": vlcrc(extra=f"{option} = {value}\n".encode()),
        "set-twice": vlcrc({option: value}, extra=f"{option}=9\n".encode()),
        "unset-after-set": vlcrc({option: value}, extra=f"#{option}=\n".encode()),
        "latin-1": vlcrc({option: value}, extra="# caf\xe9\n".encode("latin-1")),
        "empty": b"",
        "missing": None,
    }


def _option_cases() -> list[Case]:
    cases = []
    for func, (option, key, wanted_values) in CHECKS.items():
        for wanted in wanted_values:
            value = str(wanted) if func != "check_global_key_play_pause" else "Ctrl+Space"
            for kind, data in _files(option, value).items():
                name = f"{func}-{kind}-{wanted!r}"
                cases.append(Case(func, name, None if data is None else File(f"{name}/vlcrc", data), {key: wanted}))
    return cases


def _folder_cases() -> list[Case]:
    want = {"recording_file_path": "C:\\Users\\Docker\\Downloads"}
    files = {
        "set": vlcrc({"input-record-path": "C:\\Users\\Docker\\Downloads"}),
        "set-crlf": vlcrc({"input-record-path": "C:\\Users\\Docker\\Downloads"}, crlf=True),
        "trailing-slash": vlcrc({"input-record-path": "C:\\Users\\Docker\\Downloads\\"}),
        "other-case": vlcrc({"input-record-path": "c:\\users\\docker\\downloads"}),
        "default": vlcrc(),
        "equals-in-path": vlcrc({"input-record-path": "C:\\a=b"}),
        "latin-1": vlcrc({"input-record-path": "C:\\Users\\Docker\\Downloads"}, extra=b"# caf\xe9\n"),
        "missing": None,
    }
    return [Case("is_vlc_recordings_folder", f"recordings-{kind}", None if data is None else
                 File(f"recordings-{kind}/vlcrc", data), want) for kind, data in files.items()]


def _slider_cases() -> list[Case]:
    black = "0;0;0;10;10;10;20;20;20;30;30;30"
    files = {
        "default": vlcrc(), "black": vlcrc({"qt-slider-colours": black}),
        "one-bright": vlcrc({"qt-slider-colours": "0;0;0;10;10;10;20;20;20;30;30;130"}),
        "garbled": vlcrc({"qt-slider-colours": "0;0;x"}), "empty-value": vlcrc({"qt-slider-colours": ""}),
        "latin-1": vlcrc({"qt-slider-colours": black}, extra=b"# caf\xe9\n"), "missing": None,
    }
    rules: dict[str, dict[str, Any]] = {"blackish": {"type": "blackish"},
                                        "match": {"type": "match", "expected_qt_slider_colours": black},
                                        "unknown": {"type": "greyish"}}
    return [Case("check_qt_slider_colours", f"slider-{kind}-{rule}", None if data is None else
                 File(f"slider-{kind}-{rule}/vlcrc", data), rules[rule]) for kind, data in files.items()
            for rule in rules]


def cases() -> list[Case]:
    return _option_cases() + _folder_cases() + _slider_cases()
