"""The VLC preference checks on vlcrc text written here, each asserting the
verdict of WAA's own vlc.py on the lines that sit on a difference, and the
`vlc_config` getter fetching a real vlcrc from the Linux WAA server's home."""

from __future__ import annotations

import pytest

from actors.backends.waa.client import WAAClient
from bench.suites.waa.getters import resolve
from bench.suites.waa.errors import GetterFailed, ReferenceCrash
from bench.suites.waa.metrics import METRICS, MetricFailed

from tests.waa_servers import start_linux_server, stop

VLCRC = """\
[qt] # Qt interface
# Show the cone on the splash screen (boolean)
#qt-bgcone=1
qt-max-volume=200
#qt-minimal-view=0
qt-slider-colours=10;20;30;0;0;0;40;40;40;64;1;2
[core]
input-record-path=C:\\Users\\Docker\\Downloads\\
global-key-play-pause=Ctrl+Space
"""


def check(func: str, vlcrc: str | bytes | None, **rule) -> float:
    return METRICS[func](vlcrc.encode() if isinstance(vlcrc, str) else vlcrc, rule)


def test_the_last_line_naming_the_option_counts_even_commented_as_waa_reads_it():
    assert check("check_qt_max_volume", VLCRC, expected_qt_max_volume=200) == 1.0
    assert check("check_qt_max_volume", VLCRC, expected_qt_max_volume=100) == 0.0
    assert check("check_qt_bgcone", VLCRC, expected_qt_bgcone=0) == 0.0
    assert check("check_qt_bgcone", VLCRC + "qt-bgcone=0\n", expected_qt_bgcone=0) == 1.0
    assert check("check_qt_bgcone", "#qt-bgcone=0\n", expected_qt_bgcone=0) == 1.0  # WAA reads commented lines
    assert check("check_qt_bgcone", "qt-bgcone = 0\n", expected_qt_bgcone=0) == 0.0  # and not spaced ones
    assert check("check_qt_minimal_view", VLCRC, expected_qt_minimal_view=1) == 0.0
    assert check("check_one_instance_when_started_from_file", VLCRC + "one-instance-when-started-from-file=0\n",
                 expected_one_instance_when_started_from_file=0) == 1.0


def test_video_resize_defaults_to_0_when_the_option_is_absent_as_in_waa():
    assert check("check_qt_video_resize", VLCRC, **{"qt-video-autoresize": 0}) == 1.0
    assert check("check_qt_video_resize", VLCRC, **{"qt-video-autoresize": 1}) == 0.0
    assert check("check_qt_video_resize", "qt-video-autoresize=1\n", **{"qt-video-autoresize": 1}) == 1.0


def test_hotkey_any_value_is_assigned_and_a_string_rule_is_compared_as_text():
    assert check("check_global_key_play_pause", VLCRC, expected_global_key_play_pause=1) == 1.0
    assert check("check_global_key_play_pause", "#global-key-play-pause=\n", expected_global_key_play_pause=1) == 0.0
    assert check("check_global_key_play_pause", "global-key-play-pause=Unset\n", expected_global_key_play_pause=1) == 1.0
    assert check("check_global_key_play_pause", "", expected_global_key_play_pause="0") == 1.0
    assert check("check_global_key_play_pause", "", expected_global_key_play_pause=0) == 1.0


def test_recordings_folder_is_compared_exactly():
    exact = "input-record-path=C:\\Users\\Docker\\Downloads\n"
    assert check("is_vlc_recordings_folder", exact, recording_file_path="C:\\Users\\Docker\\Downloads") == 1.0
    assert check("is_vlc_recordings_folder", VLCRC, recording_file_path="C:\\Users\\Docker\\Downloads") == 0.0
    assert check("is_vlc_recordings_folder", exact, recording_file_path="c:\\users\\docker\\downloads") == 0.0
    assert check("is_vlc_recordings_folder", "input-record-path=C:/Users/Docker/Downloads\n",
                 recording_file_path="C:\\Users\\Docker\\Downloads") == 0.0
    assert check("is_vlc_recordings_folder", "#input-record-path=C:\\Users\\Docker\\Downloads\n",
                 recording_file_path="C:\\Users\\Docker\\Downloads") == 0.0


def test_slider_blackish_below_100_and_match():
    assert check("check_qt_slider_colours", VLCRC, type="blackish") == 1.0
    assert check("check_qt_slider_colours", "qt-slider-colours=80;80;80\n", type="blackish") == 1.0
    assert check("check_qt_slider_colours", "qt-slider-colours=80;100;80\n", type="blackish") == 0.0
    assert check("check_qt_slider_colours", "", type="blackish") == 0.0  # VLC's default is green to red
    assert check("check_qt_slider_colours", "qt-slider-colours=1;x\n", type="blackish") == 0.0
    assert check("check_qt_slider_colours", "qt-slider-colours=1;2;3\n", type="match",
                 expected_qt_slider_colours="1;2;3") == 1.0


def test_no_vlcrc_raises_as_in_waa_and_malformed_rules_are_named():
    with pytest.raises(ReferenceCrash, match="vlcrc is not on the VM") as caught:
        check("check_qt_max_volume", None, expected_qt_max_volume=125)
    assert caught.value.fix == "missing-file" and caught.value.fixed == 1.0
    with pytest.raises(MetricFailed, match="check_qt_max_volume: expected a rule with `expected_qt_max_volume`"):
        check("check_qt_max_volume", VLCRC, volume=200)
    assert check("check_qt_slider_colours", VLCRC, type="pinkish") == 0.0  # WAA's None, scored 0
    with pytest.raises(ReferenceCrash, match="not UTF-8") as caught:
        check("check_qt_max_volume", b"# caf\xe9\nqt-max-volume=200\n", expected_qt_max_volume=200)
    assert caught.value.fix == "text-encoding" and caught.value.fixed == 1.0


@pytest.mark.anyio
async def test_vlc_config_reads_the_vlcrc_under_the_vms_home():
    server = start_linux_server(flags=("--allow-commands",))
    client = WAAClient(server.url, token=server.token)
    try:
        with pytest.raises(GetterFailed, match="VLC never saved its settings"):  # WAA's getter writes None: raises
            await resolve(client, {"type": "vlc_config", "dest": "vlcrc"})
        reply = await client.execute("mkdir -p ~/.config/vlc && printf 'qt-max-volume=200\\n' > ~/.config/vlc/vlcrc",
                                     shell=True)
        assert reply["returncode"] == 0, reply
        vlcrc = await resolve(client, {"type": "vlc_config", "dest": "vlcrc"})
        assert check("check_qt_max_volume", vlcrc, expected_qt_max_volume=200) == 1.0
    finally:
        await client.aclose()
        stop(server)
