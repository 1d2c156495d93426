"""`content_from_vm_file`: a part of a file on the VM, as OSWorld's getters/file.py reads it.

The file at `path` comes through /file; for `file_type` "xlsx" and
`file_content` "last_row", the last row of its first sheet as pandas'
read_excel reads it (the first row the header), each value as
`astype(str)` gives it (a number as pandas shows it: 147 in a column with a
decimal is "147.0"; an empty cell stays NaN with the pandas installed here). An
xlsx with another `file_content` gives None, as OSWorld's does; another
`file_type`, a file that is not there or does not read, or a sheet with no
row under its header, makes OSWorld's getter raise: an evaluation error here.
"""

from __future__ import annotations

import io
from typing import Any

import pandas as pd

from bench.suites.osworld.episode import Episode
from bench.suites.osworld.errors import GetterFailed


async def content_from_vm_file(episode: Episode, spec: dict[str, Any]) -> list[str] | None:
    data = await episode.vm_file(spec["path"])
    file_type, content = spec["file_type"], spec["file_content"]
    if file_type != "xlsx":
        raise GetterFailed(f"content_from_vm_file: file type {file_type!r} is not supported "
                           "(OSWorld's getter reads xlsx only, and raises here)")
    if content != "last_row":
        return None
    if data is None:
        raise GetterFailed(f"content_from_vm_file: {spec['path']} is not on the VM (OSWorld's getter raises here)")
    try:
        return pd.read_excel(io.BytesIO(data)).iloc[-1].astype(str).tolist()
    except Exception as exc:  # noqa: BLE001 - pandas and openpyxl raise many kinds on a broken file
        raise GetterFailed(f"content_from_vm_file: {spec['path']} does not read as a sheet with rows "
                           f"({type(exc).__name__}: {exc}) (OSWorld's getter raises here)") from None


CONTENT_GETTERS = {"content_from_vm_file": content_from_vm_file}
