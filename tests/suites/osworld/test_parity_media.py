"""troupe's VLC status, audio, video and screen-size checks give what OSWorld's own give (metrics/vlc.py
with librosa, scipy, fastdtw, OpenCV and imagehash, and getters/impress.py's audio_in_slide, imported from
../shared/osworld/reference for tests only) on files built here: VLC web-interface status.xml files
playing, paused and stopped, naming the file or stream where OSWorld looks; WAV, MP3, FLAC audio, mono
and stereo, at other rates, empty, silent and not audio; MP4 and AVI videos; pptx decks (python-pptx)
whose slide embeds or links a sound; and the screen's and a window's size as OSWorld's own controller
(controllers/python.py) and troupe's getters read them from a stand-in of OSWorld's server. Prints the
agreement per function."""

from __future__ import annotations

import functools
import io
import json
import urllib.parse
import zipfile
from pathlib import Path
from types import SimpleNamespace
from xml.sax.saxutils import escape

import pytest
from pptx import Presentation

from bench.formats.vlcrc import UNCHANGED
from bench.suites.osworld.metrics import METRICS

from tests.media_files import tone, video
from tests.osworld_reference import (FILE, REFERENCE, Case, assert_agrees, impress_getters, info_getters,
                                     python_controller, report_parity, vlc_media)
from tests.osworld_servers import getter_outcome, osworld_vm
from tests.waa_servers import StandIn

pytestmark = pytest.mark.skipif(not REFERENCE.is_dir(), reason=f"OSWorld's reference code is not at {REFERENCE}")


@functools.cache
def reference():
    return vlc_media()


def status(state: str | None = "playing", meta: dict[str, str] | None = None,
           stream: dict[str, str] | None = None) -> bytes:
    """A status.xml as VLC 3's web interface answers /requests/status.xml (`state` None: no state)."""
    infos = "".join(f"<info name='{name}'>{escape(text)}</info>" for name, text in (meta or {}).items())
    streams = "".join(f"<info name='{name}'>{escape(text)}</info>" for name, text in (stream or {}).items())
    state_tag = "" if state is None else f"<state>{state}</state>"
    return ('<?xml version="1.0" encoding="utf-8" standalone="yes" ?>\n<root>\n<version>3.0.24 Vetinari</version>'
            f'<time>3</time><length>10</length>{state_tag}<volume>256</volume><fullscreen>false</fullscreen>'
            f'<information><category name="meta">{infos}</category>'
            f"<category name='Stream 0'>{streams}</category></information></root>").encode()


SONG = "Rick Astley - Never Gonna Give You Up (Official Music Video).mp4"
BY_NAME = {"type": "file_name", "file_name": SONG}
STREAM = "https://example.com/live/stream.m3u8"
BY_URL = {"type": "url", "url": STREAM}

PLAYING_CASES = [
    Case(FILE, status(meta={"filename": SONG}), BY_NAME),
    Case(FILE, status("paused", meta={"filename": SONG}), BY_NAME),
    Case(FILE, status("stopped"), BY_NAME),
    Case(FILE, status(meta={"filename": "other.mp4"}), BY_NAME),
    Case(FILE, status(meta={"filename": "Copy of " + SONG}), BY_NAME),
    Case(FILE, status(meta={"title": "/home/user/Desktop/" + SONG}), BY_NAME),
    Case(FILE, status(meta={"filename": "", "uri": "file:///home/user/Desktop/" + SONG}), BY_NAME),
    Case(FILE, status(meta={"encoded_by": "Lavf"}), BY_NAME),
    Case(FILE, status(meta={"filename": SONG}), {"type": "file_name"}),
    Case(FILE, status(), {"type": "file_name"}),
    Case(FILE, status(meta={"filename": SONG}), {"type": "file_name", "file_name": 7}),
    Case(FILE, status(meta={"filename": SONG}), {"file_name": SONG}),
    Case(FILE, status("paused"), {"file_name": SONG}),
    Case(FILE, status(meta={"filename": SONG}), {"type": "title", "file_name": SONG}),
    Case(FILE, status(meta={"url": STREAM}), BY_URL),
    Case(FILE, status(meta={"url": STREAM + "?token=1"}), BY_URL),
    Case(FILE, status(meta={"filename": "stream.m3u8"}), BY_URL),
    Case(FILE, status(meta={"location": "http://example.com/cdn/live/stream.m3u8/master"}), BY_URL),
    Case(FILE, status(meta={"location": "http://other.org/live/stream.m3u8x"}), BY_URL),
    Case(FILE, status(stream={"Codec": "H264 - MPEG-4 AVC (part 10) (avc1)"}), BY_URL),
    Case(FILE, status(meta={"url": "stream"}), {"type": "url", "url": "http://[broken/stream"}),
    Case(FILE, status(meta={"url": STREAM}), {"type": "url", "url": 3}),
    Case(FILE, status(), BY_URL),
    Case(FILE, status(None, meta={"filename": SONG}), BY_NAME),
    Case(FILE, status(""), BY_NAME),
    Case(FILE, b"<root><state>playing</state", BY_NAME),
    Case(FILE, "<root><state>playing</state><information><category name='meta'><info name='filename'>"
               "café.mp4</info></category></information></root>".encode("latin-1"), BY_NAME),
    Case(None, BY_NAME),
]


def test_is_vlc_playing_agrees_with_osworlds(tmp_path, capsys):
    assert_agrees("is_vlc_playing", reference().is_vlc_playing, METRICS["is_vlc_playing"], PLAYING_CASES,
                  tmp_path, capsys, suffix=".xml")


FULL = {"width": 1920, "height": 1080}
SIZE_CASES = [
    Case(FULL, dict(FULL)), Case(FULL, {"width": 1920, "height": 1053}), Case({"width": 800, "height": 1080}, FULL),
    Case(None, FULL), Case(FULL, None), Case(None, None), Case({"width": 1}, FULL), Case(FULL, {"height": 1080}),
    Case({"width": 1920}, FULL), Case("1920x1080", FULL),
]


def test_is_vlc_fullscreen_agrees_with_osworlds(tmp_path, capsys):
    assert_agrees("is_vlc_fullscreen", reference().is_vlc_fullscreen, METRICS["is_vlc_fullscreen"], SIZE_CASES,
                  tmp_path, capsys)


FRESH = UNCHANGED.encode()
HOTKEY_CASES = [
    Case(FILE, FRESH, {"expected_global_key_play_pause": 1}),
    Case(FILE, FRESH, {"expected_global_key_play_pause": 0}),
    Case(FILE, FRESH + b"# Play/Pause (str)\n#global-key-play-pause=\n", {"expected_global_key_play_pause": 0}),
    Case(FILE, FRESH + b"global-key-play-pause=Space\n", {"expected_global_key_play_pause": 1}),
    Case(FILE, FRESH + b"global-key-play-pause=Space\n", {"expected_global_key_play_pause": "1"}),
    Case(FILE, b"global-key-play-pause=Ctrl+p\nglobal-key-play-pause=\n", {"expected_global_key_play_pause": 1}),
    Case(FILE, b"#global-key-play-pause=Space\n", {"expected_global_key_play_pause": 1}),
    Case(FILE, b"global-key-play-pause = Space\n", {"expected_global_key_play_pause": 1}),
    Case(FILE, b"key-play-pause=Space\n", {"expected_global_key_play_pause": 1}),
    Case(FILE, FRESH, {"expected_global_key_play_pause": True}),
    Case(FILE, FRESH, {}),
    Case(FILE, b"global-key-play-pause=\xe9\n", {"expected_global_key_play_pause": 1}),
    Case(None, {"expected_global_key_play_pause": 1}),
]


def test_check_global_key_play_pause_agrees_with_osworlds(tmp_path, capsys):
    assert_agrees("check_global_key_play_pause", reference().check_global_key_play_pause,
                  METRICS["check_global_key_play_pause"], HOTKEY_CASES, tmp_path, capsys)


GOLD_TONE = tone()
AUDIO_CASES = [
    Case(FILE, tone(), FILE, GOLD_TONE), Case(FILE, tone(channels=2), FILE, GOLD_TONE),
    Case(FILE, tone(rate=44100), FILE, GOLD_TONE), Case(FILE, tone(pitch=660), FILE, GOLD_TONE),
    Case(FILE, tone(0.8), FILE, GOLD_TONE), Case(FILE, tone(format="MP3"), FILE, GOLD_TONE),
    Case(FILE, tone(format="FLAC"), FILE, GOLD_TONE), Case(FILE, tone(0.01), FILE, GOLD_TONE),
    Case(FILE, b"RIFF not a wave", FILE, GOLD_TONE), Case(FILE, b"", FILE, GOLD_TONE),
    Case(FILE, b"", FILE, b"ID3 nothing"), Case(FILE, tone(0.0), FILE, GOLD_TONE), Case(FILE, tone(0.0), FILE, b""),
    Case(FILE, tone(0.0, 44100), FILE, tone(0.0)),
    Case(None, FILE, GOLD_TONE), Case(FILE, GOLD_TONE, None),
]


def test_compare_audios_agrees_with_osworlds(tmp_path, capsys):
    """Scores within 1e-6: troupe's MFCCs are computed on numpy, librosa's on scipy, which round apart in the
    last digits. Digital silence is left out: its MFCCs above the first are rounding noise, which
    librosa's normalize scales to ±1, so the reference's score depends on scipy's DCT's last bits."""
    assert_agrees("compare_audios", reference().compare_audios, METRICS["compare_audios"], AUDIO_CASES,
                  tmp_path, capsys, suffix=".wav", tolerance=1e-6)


GOLD_VIDEO = video()
VIDEO_CASES = [
    Case(FILE, video(), FILE, GOLD_VIDEO), Case(FILE, video(6), FILE, GOLD_VIDEO),
    Case(FILE, video(12), FILE, GOLD_VIDEO), Case(FILE, video(shift=20), FILE, GOLD_VIDEO),
    Case(FILE, video(suffix=".avi", codec="MJPG"), FILE, GOLD_VIDEO),
    Case(FILE, b"\x00\x00\x00 ftyp broken", FILE, GOLD_VIDEO), Case(FILE, b"", FILE, b"not a video"),
    Case(None, FILE, GOLD_VIDEO),
    Case(FILE, video(shift=1), FILE, GOLD_VIDEO, threshold=0, max_frames_to_check=4),
    Case(FILE, video(shift=20), FILE, GOLD_VIDEO, max_frames_to_check=3),
    Case(FILE, video(12), FILE, GOLD_VIDEO, max_frames_to_check=8),
]


def test_compare_videos_agrees_with_osworlds(tmp_path, capsys):
    assert_agrees("compare_videos", reference().compare_videos, METRICS["compare_videos"], VIDEO_CASES,
                  tmp_path, capsys, suffix=".mp4")


# --- audio_in_slide --------------------------------------------------------------------------------------------

AUDIO_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/audio"
MEDIA_REL = "http://schemas.microsoft.com/office/2007/relationships/media"
DECK = "/home/user/Desktop/deck.pptx"
LINKED = "/home/user/Desktop/Baseball.wav"


def deck(relationships: list[tuple[str, str]] = (), media: dict[str, bytes] | None = None, slides: int = 1) -> bytes:
    """A python-pptx deck whose first slide has `relationships` (Type, Target) added, and `media` parts."""
    presentation = Presentation()
    for _ in range(slides):
        presentation.slides.add_slide(presentation.slide_layouts[6])
    built = io.BytesIO()
    presentation.save(built)
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(built.getvalue())) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            if item.filename == "ppt/slides/_rels/slide1.xml.rels":
                added = "".join(f'<Relationship Id="rIdA{n}" Type="{kind}" Target="{escape(where)}"/>'
                                for n, (kind, where) in enumerate(relationships))
                data = data.replace(b"</Relationships>", added.encode() + b"</Relationships>")
            target.writestr(item, data)
        for name, data in (media or {}).items():
            target.writestr(name, data)
    return out.getvalue()


SOUND = tone(0.2)
SLIDE_CASES = [
    ("embedded", deck([(MEDIA_REL, "../media/media1.wav"), (AUDIO_REL, "../media/media1.wav")],
                      {"ppt/media/media1.wav": SOUND}), {}),
    ("embedded-first-of-two", deck([(AUDIO_REL, "../media/a.wav"), (AUDIO_REL, "../media/b.wav")],
                                   {"ppt/media/a.wav": SOUND, "ppt/media/b.wav": b"second"}), {}),
    ("media-only", deck([(MEDIA_REL, "../media/media1.wav")], {"ppt/media/media1.wav": SOUND}), {}),
    ("none", deck(), {}),
    ("second-slide-none", deck([(AUDIO_REL, "../media/media1.wav")], {"ppt/media/media1.wav": SOUND}), {},
     {"slide_index": 1}),
    ("no-such-slide", deck(), {}, {"slide_index": "4"}),
    ("linked", deck([(AUDIO_REL, "file://" + LINKED)]), {LINKED: SOUND}),
    ("linked-missing", deck([(AUDIO_REL, "file://" + LINKED)]), {}),
    ("relative", deck([(AUDIO_REL, "media/media1.wav")], {"ppt/media/media1.wav": SOUND}), {}),
    ("embedded-missing", deck([(AUDIO_REL, "../media/gone.wav")]), {}),
    ("not-a-deck", b"PK not a zip", {}),
    ("no-deck", None, {}),
]


def theirs(deck_bytes: bytes | None, vm: dict[str, bytes], config: dict, folder: Path) -> object:
    files = {**vm, **({} if deck_bytes is None else {DECK: deck_bytes})}
    env = SimpleNamespace(controller=SimpleNamespace(get_file=files.get), cache_dir=str(folder))
    try:
        found = impress_getters().get_audio_in_slide(env, config)
    except Exception:  # noqa: BLE001 - a raise is an outcome to agree on
        return "raises"
    return None if found is None else Path(found).read_bytes()


async def ours(server: StandIn, deck_bytes: bytes | None, vm: dict[str, bytes], config: dict) -> object:
    server.behaviour.files = {**vm, **({} if deck_bytes is None else {DECK: deck_bytes})}
    return await getter_outcome(server.url, {"type": "audio_in_slide", **config})


@pytest.mark.anyio
async def test_audio_in_slide_agrees_with_osworlds(tmp_path, capsys):
    differences = []
    with StandIn(osworld_vm()) as server:
        for index, (name, deck_bytes, vm, *more) in enumerate(SLIDE_CASES):
            config = {"ppt_file_path": DECK, "slide_index": 0, "dest": "sound.wav", **(more[0] if more else {})}
            folder = tmp_path / str(index)
            folder.mkdir()
            mine = await ours(server, deck_bytes, vm, config)
            if mine != theirs(deck_bytes, vm, config, folder):
                differences.append((name, theirs(deck_bytes, vm, config, folder), mine))
    report_parity(capsys, "audio_in_slide", len(SLIDE_CASES), differences, against="OSWorld's getter")


# --- vm_screen_size, vm_window_size ----------------------------------------------------------------------------

WINDOW = {"width": 1920, "height": 1053}


def sizes_vm(screen: tuple[int, bytes] | None = None):
    """A stand-in OSWorld server: /screen_size as its VM's, or `screen`; /window_size finds a "vlc" window."""
    behaviour = osworld_vm(refusing={"/screen_size": screen} if screen else None)
    answer_screen = behaviour.answer

    def answer(path: str, body: dict):
        if path == "/window_size":
            if body.get("app_class_name", "").lower() == "vlc":
                return 200, json.dumps(WINDOW).encode()
            return 404, b'{"error": "Window not found"}'
        return answer_screen(path, body)

    behaviour.answer = answer
    return behaviour


SIZE_GETTER_CASES = [
    ("vm_screen_size", {}, None), ("vm_screen_size", {}, (500, b"Internal Server Error")),
    ("vm_screen_size", {}, (404, b"no")), ("vm_window_size", {"app_class_name": "vlc"}, None),
    ("vm_window_size", {"app_class_name": "VLC"}, None), ("vm_window_size", {"app_class_name": "gimp"}, None),
    ("vm_window_size", {}, None),
]


def their_size(server_url: str, name: str, config: dict) -> object:
    address = urllib.parse.urlsplit(server_url)
    controller = python_controller().PythonController(address.hostname, address.port)
    controller.retry_interval = 0
    function = {"vm_screen_size": "get_vm_screen_size", "vm_window_size": "get_vm_window_size"}[name]
    try:
        return getattr(info_getters(), function)(SimpleNamespace(controller=controller), dict(config))
    except Exception:  # noqa: BLE001 - a raise is an outcome to agree on
        return "raises"


@pytest.mark.anyio
async def test_the_size_getters_agree_with_osworlds_controller(capsys):
    differences = []
    for name, config, screen in SIZE_GETTER_CASES:
        with StandIn(sizes_vm(screen)) as server:
            mine = await getter_outcome(server.url, {"type": name, **config})
            reference_value = their_size(server.url, name, config)
        if mine != reference_value:
            differences.append((name, config, screen, reference_value, mine))
    report_parity(capsys, "vm_screen_size, vm_window_size", len(SIZE_GETTER_CASES), differences,
                  against="OSWorld's getters")
