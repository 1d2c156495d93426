"""Whether the packages `protocols`, `runtime`, `actors` and `bench` here are troupe-bench's.

troupe-bench installs four top-level packages under plain names that other
distributions on the package index also use; pip lets a second one write
into the same folder without a word, and a folder on `sys.path` (the current
one, for `python -m`) can shadow them. Either way the first symptom would be
an ImportError deep inside the harness. `bench` checks when it is imported,
before it imports anything else of ours, and says which package is foreign
and what to do in one line.

A package is troupe-bench's when it sits beside `bench` (a regular install,
an editable one, or a checkout on `sys.path`) and, in a regular install, its
`__init__.py` still has the hash troupe-bench's RECORD gives it. Only the
standard library is imported here, and `importlib.metadata` only to name the
culprit once something is wrong.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import os
import sys
from pathlib import Path

__all__ = ["DISTRIBUTION", "PACKAGES", "ForeignPackageError", "check", "foreign_package"]

DISTRIBUTION = "troupe-bench"
PACKAGES = ("protocols", "runtime", "actors", "bench")


class ForeignPackageError(ImportError):
    """One of troupe-bench's packages resolves to another distribution's (or another folder's) files."""


def foreign_package(home: Path, version: str) -> str | None:
    """What is wrong, in one line, when a package of PACKAGES here is not the one installed beside
    `bench` in `home` (troupe-bench `version`); None when all four are troupe-bench's."""
    digests = _recorded_digests(home, version)
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        origin = Path(spec.origin) if spec is not None and spec.origin else None
        if origin is None:
            return (f"troupe-bench's package {name!r} is not installed here "
                    f"(reinstall it: pip install --force-reinstall {DISTRIBUTION})")
        recorded = digests.get(f"{name}/__init__.py")
        beside = origin == home / name / "__init__.py"
        if beside and recorded in (None, _digest(origin)):
            continue
        owners = _owners(name, origin)
        if owners:
            return (f"the package {name!r} here is {origin} (from the distribution {', '.join(owners)}), not "
                    "troupe-bench's; install troupe-bench in a virtual environment of its own: "
                    f"python -m venv ENV && ENV/bin/pip install {DISTRIBUTION}")
        if beside:
            return (f"the package {name!r} here is {origin}, changed since troupe-bench installed it; "
                    f"reinstall it: pip install --force-reinstall {DISTRIBUTION}")
        return (f"the package {name!r} here is {origin} (from no installed distribution), not troupe-bench's; "
                "run from another folder (python -m looks in the current one first; the troupe command does "
                "not), or take that folder off sys.path (PYTHONPATH)")
    return None


def check(home: Path, version: str) -> None:
    """Raise ForeignPackageError when `foreign_package` finds one. A program that lets it through
    (`python -m bench.supervisor`, `troupe`) ends with its one `error:` line and exit status 2,
    as every bad input does, instead of a traceback."""
    problem = foreign_package(home, version)
    if problem is None:
        return
    previous = sys.excepthook

    def one_line(kind, value, traceback) -> None:
        if not isinstance(value, ForeignPackageError):
            return previous(kind, value, traceback)
        print(f"error: {value}", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(2)  # the interpreter would exit with 1 after an uncaught exception

    sys.excepthook = one_line
    raise ForeignPackageError(problem)


def _recorded_digests(home: Path, version: str) -> dict[str, str]:
    """Path -> `sha256=...` from troupe-bench's RECORD in `home`; empty for a checkout or an
    editable install, whose RECORD lists no package file."""
    record = home / f"{DISTRIBUTION.replace('-', '_')}-{version}.dist-info" / "RECORD"
    try:
        lines = record.read_text().splitlines()
    except OSError:
        return {}
    return {path: digest for path, digest, *_ in (line.split(",") for line in lines if line.count(",") >= 2)}


def _digest(path: Path) -> str:
    raw = hashlib.sha256(path.read_bytes()).digest()
    return "sha256=" + base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _owners(package: str, origin: Path) -> list[str]:
    """The installed distributions other than troupe-bench whose files include `origin`, with versions."""
    from importlib import metadata

    owners = set()
    for name in metadata.packages_distributions().get(package, []):
        if name.lower().replace("_", "-") == DISTRIBUTION:
            continue
        files = metadata.distribution(name).files or []
        if any(Path(file.locate()).resolve() == origin.resolve() for file in files if file.name == origin.name):
            owners.add(f"{name!r} {metadata.version(name)}")
    return sorted(owners)
