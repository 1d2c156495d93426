"""The `vm_screen_size` and `vm_window_size` getters: the screen's and an application window's size,
as OSWorld's controller asks its server for them.

`vm_screen_size` is POST /screen_size's `{width, height}`; `vm_window_size`
POST /window_size's for the first window whose WM_CLASS names the spec's
`app_class_name`. An answer other than 200 (no such window: 404) is None,
which OSWorld's controller returns once its retries are spent, and
`is_vlc_fullscreen` scores 0.
"""

from __future__ import annotations

from typing import Any

from bench.suites.osworld.episode import Episode


async def _size(episode: Episode, path: str, form: dict[str, str] | None = None) -> Any:
    response = await episode.client.post(path, data=form, answer_server_errors=True)
    return response.json() if response.status_code == 200 else None


async def _vm_screen_size(episode: Episode, spec: dict[str, Any]) -> Any:
    return await _size(episode, "/screen_size")


async def _vm_window_size(episode: Episode, spec: dict[str, Any]) -> Any:
    return await _size(episode, "/window_size", {"app_class_name": spec["app_class_name"]})


SIZE_GETTERS = {"vm_screen_size": _vm_screen_size, "vm_window_size": _vm_window_size}
