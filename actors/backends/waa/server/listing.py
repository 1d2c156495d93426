"""A folder's tree as WAA's `/list_directory` answers it, confined to the server's roots.

WAA's server walks the folder with `os.listdir`, recursing into every entry
`os.path.isdir` calls a folder: `{"type": "directory", "name", "children"}`
for a folder and `{"type": "file", "name"}` for anything else, in listdir's
order; a folder it cannot list is `{"error": message}` in its place. The
getters that read it (an installed web app's folder, a Chrome extension's)
look for names among `children`.

A link is followed as WAA follows it, but only where it stays inside the
roots (elsewhere it would list a host's folders for whoever holds the token)
and not back into a folder being listed, which would never end: either is
`{"error": ...}` in its place, as a folder WAA cannot list is.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from actors.backends.waa.server.roots import OutsideRoots, Roots

__all__ = ["directory_tree"]


def directory_tree(folder: Path, name: str, roots: Roots, within: tuple[Path, ...] = ()) -> dict[str, Any]:
    """`folder`'s tree, named `name` (WAA names the top one by the basename of the path it was
    given); `within` are the resolved folders being listed above it."""
    resolved = folder.resolve()
    try:
        roots.confine(str(resolved))
    except OutsideRoots as exc:
        return {"error": str(exc)}
    if resolved in within:
        return {"error": f"{folder} links back to {resolved}, which is being listed"}
    tree: dict[str, Any] = {"type": "directory", "name": name, "children": []}
    try:
        for entry in os.listdir(folder):
            path = folder / entry
            if path.is_dir():
                tree["children"].append(directory_tree(path, entry, roots, (*within, resolved)))
            else:
                tree["children"].append({"type": "file", "name": entry})
    except OSError as exc:
        return {"error": str(exc)}
    return tree
