"""Getters: what OSWorld's evaluator compares, read from the VM by type, as OSWorld's getters read it.

A spec `{"type": "vm_file", ...}` names `get_vm_file` in OSWorld; here the
same name maps to a coroutine taking the `Episode`. Values cross a node's
socket, so a file is its bytes (OSWorld passes a path in its cache folder;
the metrics here read the bytes the same way).

- `rule`: the spec's `rules`; `vm_command_line` / `vm_command_error`: a
  command's stdout / stderr through /execute, None when the server answers
  anything but 200, the VM user's home in it named /home/user as the tasks
  name it (on troupe's local desktops the session's home stands for it);
  `vm_terminal_output`: /terminal's `output`;
- `vm_file`: /file's bytes, None for a file the server does not give (with
  `multi` and `gives`, the list OSWorld returns: one value when `gives`
  names one file; the files it does not give stay in the episode's cache
  folder, cached_file.py);
- `cloud_file`: the expected file from the user's cache folder
  (`<cache>/<task id>/<dest>`), fetched from its URL when the folder lacks it
  (`multi` and `gives` as for vm_file);
- `cache_file`: a file a `command` step saved (or the user's cache folder
  holds); OSWorld asserts it exists, so a missing one is an evaluation error;
- `vlc_config` / `gimp_config_file`: VLC's vlcrc / a file of GIMP 2.10's
  config folder, found in the VM user's home as OSWorld's getters find it
  (they ask the VM to expand `~`); a vlcrc that is not there is an
  evaluation error (OSWorld's getter raises writing None), a GIMP file that
  is not there or is empty is None (its metric scores 0);
- `default_video_player`: the application `xdg-mime` names for the most of
  OSWorld's video types (its list, duplicates included, weigh the count),
  'unknown' when it names none;
- `accessibility_tree`: /accessibility's `AT` text, None when it fails;
- `vm_wallpaper`: the picture /wallpaper answers; an empty file when it
  answers anything but 200, as OSWorld's getter writes one (its metric then
  raises reading it);
- `list_directory`: /list_directory's tree of the folder `path`, None when
  the server answers anything but 200 (the folder is not there);
  `content_from_vm_file`: a sheet's last row (file_content.py);
- VS Code's `vscode_config` (vscode.py);
- Chrome's profile getters (chrome.py), its appearance mode (chrome_appearance.py), its extensions
  (chrome_extensions.py), its tabs (chrome_tabs.py), parts of the active tab's address (chrome_urls.py),
  web pages it loads (chrome_pages.py), parts of the active tab's page (chrome_page_parse.py) and its cookies
  (chrome_cookies.py); shortcuts on the desktop (desktop_shortcuts.py);
- days relative to today written into a rule (relative_time.py);
- VLC's web interface status (vlc_status.py), the screen's and a window's size (sizes.py), a slide's
  sound (slide_audio.py), a slide's background picture (slide_images.py).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Awaitable, Callable

import httpx

from bench.suites.osworld.chrome import CHROME_GETTERS
from bench.suites.osworld.chrome_appearance import APPEARANCE_GETTERS
from bench.suites.osworld.chrome_cookies import COOKIE_GETTERS
from bench.suites.osworld.chrome_extensions import EXTENSION_GETTERS
from bench.suites.osworld.chrome_page_parse import PAGE_PARSE_GETTERS
from bench.suites.osworld.chrome_pages import PAGE_GETTERS
from bench.suites.osworld.chrome_tabs import TAB_GETTERS
from bench.suites.osworld.chrome_urls import URL_GETTERS
from bench.suites.osworld.desktop_shortcuts import SHORTCUT_GETTERS
from bench.suites.osworld.episode import Episode
from bench.suites.osworld.errors import GetterFailed
from bench.suites.osworld.file_content import CONTENT_GETTERS
from bench.suites.osworld.googledrive import GOOGLEDRIVE_GETTERS
from bench.suites.osworld.relative_time import RELATIVE_TIME_GETTERS
from bench.suites.osworld.sizes import SIZE_GETTERS
from bench.suites.osworld.slide_audio import SLIDE_AUDIO_GETTERS
from bench.suites.osworld.slide_images import SLIDE_IMAGE_GETTERS
from bench.suites.osworld.vlc_status import VLC_STATUS_GETTERS
from bench.suites.osworld.vscode import VSCODE_GETTERS

Getter = Callable[[Episode, dict[str, Any]], Awaitable[Any]]

VLCRC = "~/.config/vlc/vlcrc"
GIMP_CONFIG = "~/.config/GIMP/2.10"
VIDEO_TYPES = (
    "3gp", "3gp", "3gpp", "3gpp", "3gpp2", "3gpp2", "avi", "avi", "divx", "divx", "dv", "dv", "fli", "fli", "flv", "flv",
    "mp2t", "mp2t", "mp4", "mp4", "mp4v-es", "mp4v-es", "mpeg", "mpeg", "mpeg-system", "mpeg-system", "msvideo",
    "msvideo", "ogg", "ogg", "quicktime", "quicktime", "vnd.divx", "vnd.divx", "vnd.mpegurl", "vnd.mpegurl",
    "vnd.rn-realvideo", "vnd.rn-realvideo", "webm", "webm", "x-anim", "x-anim", "x-avi", "x-avi", "x-flc", "x-flc",
    "x-fli", "x-fli", "x-flv", "x-flv", "x-m4v", "x-m4v", "x-matroska", "x-matroska", "x-mpeg", "x-mpeg",
    "x-mpeg-system", "x-mpeg-system", "x-mpeg2", "x-mpeg2", "x-ms-asf", "x-ms-asf", "x-ms-asf-plugin",
    "x-ms-asf-plugin", "x-ms-asx", "x-ms-asx", "x-ms-wm", "x-ms-wm", "x-ms-wmv", "x-ms-wmv", "x-ms-wmx", "x-ms-wmx",
    "x-ms-wvx", "x-ms-wvx", "x-msvideo", "x-msvideo", "x-nsv", "x-nsv", "x-ogm", "x-ogm", "x-ogm+ogg", "x-theora",
    "x-theora", "x-theora+ogg", "x-theora+ogg")
"""The video types (video/<type>) OSWorld's default_video_player asks xdg-mime about, as it lists them."""


async def _rule(episode: Episode, spec: dict[str, Any]) -> Any:
    return spec["rules"]


async def _command(episode: Episode, spec: dict[str, Any], field: str) -> str | None:
    response = await episode.client.post("/execute", json={"command": spec["command"],
                                                           "shell": spec.get("shell", False)},
                                         answer_server_errors=True)
    try:
        answer = response.json()  # OSWorld's getter prints the JSON answer before it looks at the status
    except ValueError:
        raise GetterFailed(f"/execute answered HTTP {response.status_code} that is not JSON "
                           f"(OSWorld's getter raises here): {response.text[:200]}") from None
    value = answer.get(field) if response.status_code == 200 and isinstance(answer, dict) else None
    return await episode.named_as_tasks_name_it(value) if isinstance(value, str) and value else value


async def _vm_command_line(episode: Episode, spec: dict[str, Any]) -> str | None:
    return await _command(episode, spec, "output")


async def _vm_command_error(episode: Episode, spec: dict[str, Any]) -> str | None:
    return await _command(episode, spec, "error")


async def _vm_terminal_output(episode: Episode, spec: dict[str, Any]) -> str | None:
    response = await episode.client.get("/terminal", answer_server_errors=True)
    return response.json().get("output") if response.status_code == 200 else None


def _listed(spec: dict[str, Any], key: str) -> list[Any]:
    return list(spec[key]) if spec.get("multi", False) else [spec[key]]


def _given(episode: Episode, values: list[Any], spec: dict[str, Any]) -> Any:
    """OSWorld's `gives`: the files handed to the metric, one value when it is one; the others stay in
    the episode's cache folder under their `dest`, where a metric may look for them (cached_file.py)."""
    gives = set(spec.get("gives", [0]))
    for index, (value, dest) in enumerate(zip(values, _listed(spec, "dest"))):
        if index not in gives and value is not None:
            episode.saved[dest] = value
    chosen = [value for index, value in enumerate(values) if index in gives]
    return chosen[0] if len(chosen) == 1 else chosen


async def _vm_file(episode: Episode, spec: dict[str, Any]) -> Any:
    return _given(episode, [await episode.vm_file(path) for path in _listed(spec, "path")], spec)


async def _cloud_file(episode: Episode, spec: dict[str, Any]) -> Any:
    values = []
    async with httpx.AsyncClient(timeout=300.0, follow_redirects=True) as web:
        for url, dest in zip(_listed(spec, "path"), _listed(spec, "dest")):
            data = episode.cached(dest)
            if data is None:
                try:
                    response = await web.get(url)
                    response.raise_for_status()
                except httpx.HTTPError as exc:
                    raise GetterFailed(f"cloud_file {dest}: not in the cache folder ({episode.cache}) and {url} "
                                       f"could not be fetched: {exc}") from None
                data = response.content
            values.append(data)
    return _given(episode, values, spec)


async def _cache_file(episode: Episode, spec: dict[str, Any]) -> bytes:
    data = episode.cached(spec["path"])
    if data is None:
        raise GetterFailed(f"cache_file {spec['path']}: no such file in the task's cache folder "
                           "(OSWorld's getter asserts it exists)")
    return data


async def _home_file(episode: Episode, path: str) -> bytes | None:
    """A file under the VM user's home (`path` starts with ~/), as the VM expands it."""
    response = await episode.client.post("/execute", json={"command": f"echo {path}", "shell": True},
                                         answer_server_errors=True)
    if response.status_code != 200:
        raise GetterFailed(f"/execute answered HTTP {response.status_code} expanding {path} "
                           f"(OSWorld's getter raises here): {response.text[:200]}")
    return await episode.vm_file(response.json()["output"].strip())


async def _vlc_config(episode: Episode, spec: dict[str, Any]) -> bytes:
    data = await _home_file(episode, VLCRC)
    if data is None:
        raise GetterFailed(f"vlc_config: {VLCRC} is not on the VM (OSWorld's getter raises writing None)")
    return data


async def _gimp_config_file(episode: Episode, spec: dict[str, Any]) -> bytes | None:
    return await _home_file(episode, f"{GIMP_CONFIG}/{spec['file_name']}") or None


async def _default_video_player(episode: Episode, spec: dict[str, Any]) -> str:
    found: Counter[str] = Counter()
    for video_type, weight in Counter(VIDEO_TYPES).items():
        app = await _command(episode, {"command": ["xdg-mime", "query", "default", f"video/{video_type}"]},
                             "output")
        if app:
            found[app] += weight
    return found.most_common(1)[0][0] if found else "unknown"


async def _vm_wallpaper(episode: Episode, spec: dict[str, Any]) -> bytes:
    response = await episode.client.post("/wallpaper", answer_server_errors=True)
    return response.content if response.status_code == 200 else b""


async def _accessibility_tree(episode: Episode, spec: dict[str, Any]) -> str | None:
    response = await episode.client.get("/accessibility", answer_server_errors=True)
    return response.json()["AT"] if response.status_code == 200 else None


async def _list_directory(episode: Episode, spec: dict[str, Any]) -> dict[str, Any] | None:
    response = await episode.client.post("/list_directory", json={"path": spec["path"]}, answer_server_errors=True)
    return response.json()["directory_tree"] if response.status_code == 200 else None


GETTERS: dict[str, Getter] = {
    "rule": _rule,
    "vm_command_line": _vm_command_line,
    "vm_command_error": _vm_command_error,
    "vm_terminal_output": _vm_terminal_output,
    "vm_file": _vm_file,
    "cloud_file": _cloud_file,
    "cache_file": _cache_file,
    "vlc_config": _vlc_config,
    "gimp_config_file": _gimp_config_file,
    "default_video_player": _default_video_player,
    "accessibility_tree": _accessibility_tree,
    "list_directory": _list_directory,
    "vm_wallpaper": _vm_wallpaper,
    **CHROME_GETTERS,
    **APPEARANCE_GETTERS,
    **EXTENSION_GETTERS,
    **TAB_GETTERS,
    **URL_GETTERS,
    **PAGE_GETTERS,
    **PAGE_PARSE_GETTERS,
    **COOKIE_GETTERS,
    **SHORTCUT_GETTERS,
    **VLC_STATUS_GETTERS,
    **SIZE_GETTERS,
    **SLIDE_AUDIO_GETTERS,
    **SLIDE_IMAGE_GETTERS,
    **RELATIVE_TIME_GETTERS,
    **CONTENT_GETTERS,
    **VSCODE_GETTERS,
    **GOOGLEDRIVE_GETTERS,
}


async def resolve(episode: Episode, spec: dict[str, Any]) -> Any:
    kind = spec.get("type")
    getter = GETTERS.get(kind)
    if getter is None:
        raise GetterFailed(f"getter {kind!r} is not supported (supported: {sorted(GETTERS)})")
    try:
        return await getter(episode, spec)
    except KeyError as exc:
        raise GetterFailed(f"getter {kind!r}: missing field {exc}") from None
