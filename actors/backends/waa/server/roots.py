"""The folders a WAA request may touch: the session's home and the folders its tasks use.

WAA's endpoints read, write, move and open files by path for whoever holds
the token. On a throwaway Windows VM any path will do; on a Linux host it
would hand over /etc/shadow and /proc/self/environ. So every path is resolved
(symlinks followed, `..` collapsed) and must then lie under one of the roots,
each itself resolved; anything else is refused with the path named.
"""

from __future__ import annotations

from collections.abc import Iterable
import re
from pathlib import Path

from protocols import TroupeError

__all__ = ["OutsideRoots", "Roots"]


class OutsideRoots(TroupeError, PermissionError):
    """A path that resolves outside every root; answered 403 with the path named."""


class Roots:
    """`home` (where `~` and relative paths start) and any `extra` folders, all resolved.
    `home_alias` is the home folder as the tasks name it (OSWorld's VMs: /home/user), which
    stands for this session's home."""

    def __init__(self, home: Path, extra: Iterable[Path] = (), home_alias: str | None = None) -> None:
        self.home = home
        self.home_alias = home_alias
        self.folders = tuple(dict.fromkeys(Path(folder).resolve() for folder in (home, *extra)))

    def vm_path(self, path: str) -> Path:
        """A VM path as this host's path, unchecked: `~` is the home, relative paths start there too."""
        if path == "~" or path.startswith("~/"):
            return self.home / path[2:]
        alias = self.home_alias
        if alias and (path == alias or path.startswith(alias + "/")):
            return self.home / path[len(alias) + 1:]
        return self.home / path

    def in_command(self, text: str) -> str:
        """A command's text with the home alias standing for this session's home."""
        alias = self.home_alias
        return re.sub(re.escape(alias) + r"(?=/|\b|$)", lambda _: str(self.home), text) if alias else text

    def confine(self, path: str) -> Path:
        """`path` resolved, when it lies under a root; OutsideRoots otherwise."""
        resolved = self.vm_path(path).resolve()
        if not any(resolved.is_relative_to(folder) for folder in self.folders):
            raise OutsideRoots(f"{path!r} is outside the folders this server serves "
                               f"({', '.join(str(f) for f in self.folders)}; more with --root)")
        return resolved
