"""The differential corpus: cases that run one metric function of WAA's and troupe's on the same input.

A case names the function, its result and expected values and the task's
options. A value that is a `File` is a file on disk: WAA's function gets its
path (as WAA's getters hand it one), troupe's gets its bytes (as troupe's
getters do); any other value is handed to both as it is. `None` is a file or
value the getter could not read.

Each family's module (corpus_tables, corpus_documents, ...) gives a
`cases()` list; `build()` collects them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class File:
    """A file's name (its suffix matters to some readers) and bytes."""

    name: str
    data: bytes


@dataclass
class Case:
    func: str
    name: str
    result: Any
    expected: Any = None
    options: dict[str, Any] = field(default_factory=dict)


def on_disk(value: Any, folder: Path) -> Any:
    """`value` as WAA's getters give it: each `File` written under `folder` and named by its path."""
    if isinstance(value, File):
        path = folder / value.name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(value.data)
        return str(path)
    if isinstance(value, list):
        return [on_disk(item, folder) for item in value]
    return value


def in_memory(value: Any) -> Any:
    """`value` as troupe's getters give it: each `File` as its bytes."""
    if isinstance(value, File):
        return value.data
    if isinstance(value, list):
        return [in_memory(item) for item in value]
    return value


def build() -> list[Case]:
    import importlib

    families = [importlib.import_module(f"tests.suites.waa.corpus_{name}") for name in FAMILIES]
    return [case for family in families for case in family.cases()]


FAMILIES = ("tables", "text", "vlc", "browser", "documents", "media")
