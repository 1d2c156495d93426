"""Archives as OSWorld's metrics compare them (its metrics/vscode.py and chrome.py).

- `compare_zip_files`: `bench.formats.zip_archive.same_zip_files` (WAA's is
  the same); no result scores 0, a missing gold archive, an archive that is
  not a zip or a PDF member that does not read raise, as OSWorld's does;
- `compare_archive`: both archives unpacked, the sorted names in their
  folder `file_path` (the top by default) must be the same, and then each
  pair of files in that order is compared by `file_type`: "pdf" as
  `compare_pdfs` scores a pair (a folder among them, or a file PyMuPDF cannot
  read, scores 0), "text" (the default) as `compare_text_file` (the options
  left over are its options); the score is the mean. No result scores 0; a
  missing gold archive, one that does not unpack, a `file_path` that is not
  a folder in both, or no files to compare, raise, as OSWorld's do.

Both unpack with `shutil.unpack_archive`, which picks the format by the
file's name (the getter's `dest`: .zip, .tar, .tar.gz, ...; one it does not
know raises); a value that carries no name is told a zip or a tar by its
bytes. A tar is unpacked with tarfile's "data" filter (no links or paths
leading out of the folder), and `file_path` must stay inside it. OSWorld's
other file types (docx, ppt, image, csv, table, audio, video) are used by
no task and raise here.
"""

from __future__ import annotations

import io
import os
import shutil
import tarfile
import tempfile
import zipfile
from pathlib import Path
from typing import Any, Callable

from bench.formats.pdf import pair_similarity
from bench.formats.zip_archive import UnreadableArchive, same_zip_files
from bench.suites.osworld.cached_file import CachedFile
from bench.suites.osworld.errors import MetricFailed
from bench.suites.osworld.text_files import compare_text_file


def compare_zip_files(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    if result is None:
        return 0.0
    if expected is None:
        raise MetricFailed("compare_zip_files: the expected archive could not be read (OSWorld's function raises here)")
    try:
        return same_zip_files(result, expected)
    except UnreadableArchive as exc:
        raise MetricFailed(f"{exc} (OSWorld's function raises here)") from None


def _format(data: bytes, which: str) -> str:
    """shutil's unpack format for the archive: by its name when it carries one, as shutil picks it."""
    name = getattr(data, "name", None)
    if name is not None:
        for kind, extensions, _ in shutil.get_unpack_formats():
            if any(name.endswith(extension) for extension in extensions):
                return kind
        raise MetricFailed(f"compare_archive: the {which} archive's name {name!r} names no format shutil "
                           "unpacks (OSWorld's shutil.unpack_archive raises here)")
    if zipfile.is_zipfile(io.BytesIO(data)):
        return "zip"
    try:
        with tarfile.open(fileobj=io.BytesIO(data)):
            return "tar"
    except (tarfile.TarError, OSError, EOFError):
        raise MetricFailed(f"compare_archive: the {which} archive is neither a zip nor a tar "
                           "(OSWorld's shutil.unpack_archive raises here)") from None


def _unpack(data: bytes, folder: Path, which: str) -> None:
    kind = _format(data, which)
    folder.mkdir()
    archive = folder.with_suffix(".archive")
    archive.write_bytes(data)
    try:
        shutil.unpack_archive(archive, folder, kind, **({} if kind == "zip" else {"filter": "data"}))
    except (OSError, EOFError, zipfile.BadZipFile, tarfile.TarError, shutil.ReadError) as exc:
        raise MetricFailed(f"compare_archive: the {which} archive does not unpack ({type(exc).__name__}: {exc}) "
                           "(OSWorld's shutil.unpack_archive raises here)") from None


def _listed(folder: Path, file_path: str, which: str) -> tuple[Path, list[str]]:
    inside = (folder / file_path).resolve()
    if not inside.is_relative_to(folder.resolve()):
        raise MetricFailed(f"compare_archive: file_path {file_path!r} leads out of the unpacked archive")
    try:
        return inside, sorted(os.listdir(inside))
    except OSError as exc:
        raise MetricFailed(f"compare_archive: {file_path or 'the top'!s} is not a folder of the {which} archive "
                           f"({type(exc).__name__}) (OSWorld's os.listdir raises here)") from None


def _pdf_pair(mine: Path, gold: Path, **options: Any) -> float:
    if options:
        raise MetricFailed(f"compare_archive: compare_pdfs takes no options, got {sorted(options)} "
                           "(OSWorld's function raises here)")
    if not (mine.is_file() and gold.is_file()):
        return 0.0  # PyMuPDF cannot open a folder; compare_pdfs scores the pair 0
    return pair_similarity(CachedFile(mine.read_bytes(), mine.name, {}), CachedFile(gold.read_bytes(), gold.name, {}))


def _text_pair(mine: Path, gold: Path, **options: Any) -> float:
    for path in (mine, gold):
        if not path.is_file():
            raise MetricFailed(f"compare_archive: {path.name} is a folder, which compare_text_file cannot open "
                               "(OSWorld's function raises here)")
    return compare_text_file(mine.read_bytes(), gold.read_bytes(), **options)


COMPARED: dict[str, Callable[..., float]] = {"pdf": _pdf_pair, "text": _text_pair}
"""compare_archive's file types troupe has: how one pair of unpacked files is scored."""


def compare_archive(result: bytes | None, expected: bytes | None, **options: Any) -> float:
    file_path = options.pop("file_path", "")
    if result is None:
        return 0.0
    if expected is None:
        raise MetricFailed("compare_archive: the expected archive could not be read (OSWorld's function raises here)")
    with tempfile.TemporaryDirectory(prefix="osworld-archive-") as scratch:
        mine_folder, gold_folder = Path(scratch) / "pred", Path(scratch) / "gold"
        _unpack(result, mine_folder, "result")
        _unpack(expected, gold_folder, "expected")
        mine_inside, mine_files = _listed(mine_folder, file_path, "result")
        gold_inside, gold_files = _listed(gold_folder, file_path, "expected")
        if mine_files != gold_files:
            return 0.0
        file_type = options.pop("file_type", "text")
        compare = COMPARED.get(file_type)
        if compare is None:
            raise MetricFailed(f"compare_archive: file_type {file_type!r} is not one troupe compares "
                               f"(it compares {sorted(COMPARED)})")
        if not mine_files:
            raise MetricFailed("compare_archive: no files to compare in either archive "
                               "(OSWorld's function divides by zero here)")
        return sum(compare(mine_inside / name, gold_inside / name, **options) for name in mine_files) / len(mine_files)


ARCHIVE_METRICS = {"compare_zip_files": compare_zip_files, "compare_archive": compare_archive}
