"""The VLC preference checks on vlcrc text written here, and the `vlc_config`
getter fetching a real vlcrc from the Linux WAA server's home."""

from __future__ import annotations

import pytest

from actors.waa.client import WAAClient
from actors.waa.getters import resolve
from actors.waa.metrics import METRICS, MetricFailed

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


def test_an_active_line_counts_and_a_commented_one_is_vlcs_default():
    assert check("check_qt_max_volume", VLCRC, expected_qt_max_volume=200) == 1.0
    assert check("check_qt_max_volume", VLCRC, expected_qt_max_volume=100) == 0.0
    assert check("check_qt_bgcone", VLCRC, expected_qt_bgcone=0) == 0.0
    assert check("check_qt_bgcone", VLCRC + "qt-bgcone=0\n", expected_qt_bgcone=0) == 1.0
    assert check("check_qt_minimal_view", VLCRC, expected_qt_minimal_view=1) == 0.0
    assert check("check_qt_video_resize", VLCRC, **{"qt-video-autoresize": 1}) == 1.0
    assert check("check_one_instance_when_started_from_file", VLCRC + "one-instance-when-started-from-file=0\n",
                 expected_one_instance_when_started_from_file=0) == 1.0


def test_hotkey_recordings_folder_and_dark_slider():
    assert check("check_global_key_play_pause", VLCRC, expected_global_key_play_pause=1) == 1.0
    assert check("check_global_key_play_pause", "#global-key-play-pause=\n", expected_global_key_play_pause=1) == 0.0
    assert check("is_vlc_recordings_folder", VLCRC, recording_file_path="c:\\users\\docker\\downloads") == 1.0
    assert check("is_vlc_recordings_folder", VLCRC, recording_file_path="C:\\Users\\Docker\\Desktop") == 0.0
    assert check("check_qt_slider_colours", VLCRC, type="blackish") == 1.0
    assert check("check_qt_slider_colours", VLCRC.replace("64;1;2", "65;1;2"), type="blackish") == 0.0
    assert check("check_qt_slider_colours", "", type="blackish") == 0.0  # VLC's default is green to red


def test_no_vlcrc_scores_zero_and_malformed_input_is_named():
    assert check("check_qt_max_volume", None, expected_qt_max_volume=200) == 0.0
    with pytest.raises(MetricFailed, match="check_qt_max_volume: expected a rule with `expected_qt_max_volume`"):
        check("check_qt_max_volume", VLCRC, volume=200)
    with pytest.raises(MetricFailed, match="vlcrc's qt-max-volume='loud' is not a number"):
        check("check_qt_max_volume", "qt-max-volume=loud\n", expected_qt_max_volume=200)
    with pytest.raises(MetricFailed, match="only type 'blackish'"):
        check("check_qt_slider_colours", VLCRC, type="pinkish")


@pytest.mark.anyio
async def test_vlc_config_reads_the_vlcrc_under_the_vms_home():
    server = start_linux_server()
    client = WAAClient(server.url, token=server.token)
    try:
        assert await resolve(client, {"type": "vlc_config", "dest": "vlcrc"}) is None
        reply = await client.execute("mkdir -p ~/.config/vlc && printf 'qt-max-volume=200\\n' > ~/.config/vlc/vlcrc",
                                     shell=True)
        assert reply["returncode"] == 0, reply
        vlcrc = await resolve(client, {"type": "vlc_config", "dest": "vlcrc"})
        assert check("check_qt_max_volume", vlcrc, expected_qt_max_volume=200) == 1.0
    finally:
        await client.aclose()
        stop(server)
