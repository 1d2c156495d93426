"""What VLC is playing, from its web interface, as OSWorld reads it: the `vlc_playing_info` getter and
the `is_vlc_playing` metric.

OSWorld's image runs VLC with its web interface on (Lua HTTP, port 8080,
password "password"); the getter fetches `/requests/status.xml` there with
that password (`WAAClient.vlc` is where: port 8080 on a VM's host; a local
desktop's own port, which its vlcrc names, vm_image.py). Any answer but 200 is
None; a VLC that does not answer at all is an evaluation error, as OSWorld's
getter raises.

`is_vlc_playing` scores 1 when the status's `state` is `playing` and:

- rule type `file_name`: the first non-empty of the `meta` category's
  `filename`, `title`, `uri`, `location`, `name` infos ends with the rule's
  `file_name` (OSWorld also tries the basename and a "/name" suffix, which
  that already covers);
- rule type `url`: the first non-empty of `url`, `URI`, `location`,
  `title`, `filename` of `meta`, then `Codec`, `Type`, `Language` of
  `Stream 0`, contains the rule's `url`, or equals its path's last part, or
  is an address of the same host whose path contains the rule's path (an
  address urllib cannot parse scores 0 there, as OSWorld catches it);

else 0 (another rule type too). A status that is missing, not UTF-8, not XML
or has no `state`, a playing status with a rule lacking what it names, or a
`file_name`/`url` that is not text, raises in OSWorld: no score here
(MetricFailed).
"""

from __future__ import annotations

import posixpath
from typing import Any
from urllib.parse import urlparse
from xml.etree import ElementTree

import httpx

from bench.suites.osworld.episode import Episode
from bench.suites.osworld.errors import GetterFailed, MetricFailed

VLC_WEB_PASSWORD = "password"
"""The web interface's password on OSWorld's image (its getter sends it with an empty user name)."""
STATUS = "/requests/status.xml"

_META = 'information/category[@name="meta"]/info[@name="{}"]'
_STREAM = 'information/category[@name="Stream 0"]/info[@name="{}"]'
FILE_NAME_PLACES = tuple(_META.format(name) for name in ("filename", "title", "uri", "location", "name"))
URL_PLACES = (*(_META.format(name) for name in ("url", "URI", "location", "title", "filename")),
              *(_STREAM.format(name) for name in ("Codec", "Type", "Language")))
"""Where OSWorld looks for the playing file's name or address in status.xml, in its order."""


async def _vlc_playing_info(episode: Episode, spec: dict[str, Any]) -> bytes | None:
    url = f"{episode.client.vlc}{STATUS}"
    try:
        async with httpx.AsyncClient(timeout=30.0) as web:
            response = await web.get(url, auth=("", VLC_WEB_PASSWORD))
    except httpx.HTTPError as exc:
        raise GetterFailed(f"vlc_playing_info: VLC's web interface at {url} did not answer ({exc!r}; "
                           "OSWorld's getter raises here)") from None
    return response.content if response.status_code == 200 else None


def _failed(why: str) -> MetricFailed:
    return MetricFailed(f"is_vlc_playing: {why} (OSWorld's function raises here)")


def _first_text(status: ElementTree.Element, places: tuple[str, ...]) -> str | None:
    for place in places:
        element = status.find(place)
        if element is not None and element.text:
            return element.text
    return None


def _same_address(shown: str, wanted: str) -> bool:
    try:
        expected = urlparse(wanted)
        if shown == posixpath.basename(expected.path):
            return True
        if "://" in shown:
            actual = urlparse(shown)
            return expected.netloc == actual.netloc and expected.path in actual.path
    except Exception:  # noqa: BLE001 - OSWorld catches whatever parsing the address raises
        return False
    return False


def _playing(status: ElementTree.Element, rule: Any) -> float:
    try:
        kind = rule["type"]
        if kind == "file_name":
            shown = _first_text(status, FILE_NAME_PLACES)
            return float(shown is not None and shown.endswith(rule["file_name"]))
        if kind == "url":
            shown = _first_text(status, URL_PLACES)
            if shown is None:
                return 0.0
            wanted = rule["url"]
            return float(wanted in shown or _same_address(shown, wanted))
    except (KeyError, TypeError, IndexError) as exc:
        raise _failed(f"the rule {rule!r} does not fit the status ({exc!r})") from None
    return 0.0


def is_vlc_playing(result: bytes | None, rule: Any, **options: Any) -> float:
    if result is None:
        raise _failed("no status.xml to read")
    try:
        status = ElementTree.fromstring(result.decode("utf-8"))
    except (UnicodeDecodeError, ElementTree.ParseError) as exc:
        raise _failed(f"status.xml is not UTF-8 XML ({exc})") from None
    state = status.find("state")
    if state is None:
        raise _failed("status.xml has no state")
    return _playing(status, rule) if state.text == "playing" else 0.0


VLC_STATUS_GETTERS = {"vlc_playing_info": _vlc_playing_info}
VLC_STATUS_METRICS = {"is_vlc_playing": is_vlc_playing}
