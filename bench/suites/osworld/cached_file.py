"""A file as OSWorld's metrics get it: a path in OSWorld's cache folder, with the files beside it.

OSWorld's file getters write each file they fetch into its cache folder as
the spec's `dest` and hand the metric the paths `gives` names; with `multi`
the others stay there, and a metric may open one by a name it derives from
the path it got (compare_table's sheet_print reads `<stem>-<sheet>.csv`
beside the workbook, the CSV the task's postconfig had LibreOffice export).
troupe's values cross a socket as bytes: the getters keep the files they do
not give in the episode's cache folder (`Episode.saved`), the node sends
that folder with the values, and the checker hands the metric each file as
a `CachedFile`: its bytes (so every metric reading bytes reads it as
before), its name and the folder.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

FILE_GETTERS = frozenset({"vm_file", "cloud_file"})
"""The getters whose files OSWorld writes into its cache folder under the spec's `dest`."""


class CachedFile(bytes):
    name: str
    folder: Mapping[str, bytes]

    def __new__(cls, data: bytes, name: str, folder: Mapping[str, bytes]) -> CachedFile:
        made = super().__new__(cls, data)
        made.name, made.folder = name, folder
        return made

    def beside(self, name: str) -> bytes | None:
        """The file `name` in the cache folder this one lies in; None when it is not there."""
        return self.folder.get(name)


def _given_names(spec: dict[str, Any]) -> list[str]:
    """The `dest` of each file the getter hands the metric, in the order it hands them."""
    dests = list(spec["dest"]) if spec.get("multi", False) else [spec["dest"]]
    paths = list(spec["path"]) if spec.get("multi", False) else [spec["path"]]
    gives = set(spec.get("gives", [0]))
    return [dest for index, (_, dest) in enumerate(zip(paths, dests)) if index in gives]


def as_cached(value: Any, spec: Any, folder: Mapping[str, bytes]) -> Any:
    """A file getter's value with each file a CachedFile named by its `dest`; any other value as it is."""
    if not isinstance(spec, dict) or spec.get("type") not in FILE_GETTERS or "dest" not in spec:
        return value
    names = _given_names(spec)
    if isinstance(value, bytes) and len(names) == 1:
        return CachedFile(value, names[0], folder)
    if isinstance(value, list) and len(value) == len(names):
        return [CachedFile(v, name, folder) if isinstance(v, bytes) else v for v, name in zip(value, names)]
    return value
