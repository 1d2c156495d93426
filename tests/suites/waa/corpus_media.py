"""Cases for compare_images, compare_audios and compare_videos: PNG and JPEG images in colour, grey
and with alpha, resized and cropped, and too small for SSIM's window; WAV and MP3 audio, mono and
stereo at other rates; short MP4 and AVI videos; and files that are not media at all."""

from __future__ import annotations

from tests.media_files import picture, tone, video
from tests.suites.waa.corpus import Case, File


def _images() -> list[Case]:
    gold = picture()
    files = {"same": picture(), "jpeg": picture(format="JPEG"), "grey": picture(mode="L"),
             "alpha": picture(mode="RGBA"), "shifted": picture(shift=10), "larger": picture((192, 128)),
             "narrower-taller": picture((80, 120)), "tiny": picture((5, 5)), "not-an-image": b"\x89PNG broken",
             "missing": None}
    cases = [Case("compare_images", f"image-{name}", None if data is None else File(f"image-{name}/r.png", data),
                  File(f"image-{name}/g.png", gold)) for name, data in files.items()]
    cases.append(Case("compare_images", "image-gold-missing", File("image-gold-missing/r.png", gold), None))
    return cases


def _audios() -> list[Case]:
    gold = tone()
    files = {"same": tone(), "stereo": tone(channels=2), "44k": tone(rate=44100), "other-pitch": tone(pitch=660),
             "longer": tone(0.8), "mp3": tone(format="MP3"), "flac": tone(format="FLAC"),
             "not-audio": b"RIFF not a wave", "missing": None}
    cases = [Case("compare_audios", f"audio-{name}", None if data is None else File(f"audio-{name}/r.wav", data),
                  File(f"audio-{name}/g.wav", gold)) for name, data in files.items()]
    cases.append(Case("compare_audios", "audio-gold-missing", File("audio-gold-missing/r.wav", gold), None))
    return cases


def _videos() -> list[Case]:
    gold = video()
    files = {"same": video(), "shorter": video(6), "shifted": video(shift=20), "avi": video(suffix=".avi",
                                                                                             codec="MJPG"),
             "not-video": b"\x00\x00\x00 ftyp broken", "missing": None}
    cases = [Case("compare_videos", f"video-{name}", None if data is None else File(f"video-{name}/r.mp4", data),
                  File(f"video-{name}/g.mp4", gold)) for name, data in files.items()]
    cases += [Case("compare_videos", "video-gold-missing", File("video-gold-missing/r.mp4", gold), None),
              Case("compare_videos", "video-threshold-0", File("video-t0/r.mp4", video(shift=1)),
                   File("video-t0/g.mp4", gold), {"threshold": 0, "max_frames_to_check": 4})]
    return cases


def cases() -> list[Case]:
    return _images() + _audios() + _videos()
