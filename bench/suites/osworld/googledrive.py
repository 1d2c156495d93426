"""OSWorld's `googledrive` step and `googledrive_file` getter, in the account `--osworld-google` names.

The step (OSWorld's `_googledrive_setup`) runs its `operation`s in order:

- `delete`: every file, then every folder, `query` matches (all of them
  when it is blank; folders take their contents along), deleted for good
  or, with `trash`, moved to the trash;
- `mkdirs`: the folders of `path` under the root, each made unless an
  untrashed folder of that name is there;
- `upload`: the file at `url` (from the task's cache folder when it holds
  it, `<uuid5(url)>_<name>`, else fetched and kept there) into the folders
  of `path` (made as `mkdirs` makes them), under its last name. OSWorld's
  code means this and, by a slip, sends the whole list as the title; as
  there, an upload ends the step (the operations after it do not run).

The getter (OSWorld's `get_googledrive_file`) follows `query` (one search per
folder level, each within the folder the one before found, the first match
taken) or `path` (folder names, then the file's), or their `_list` forms
(one value per `dest`), and gives the file's bytes, or None where OSWorld's
gives None: a level that matches nothing, or a file with nothing to download
(a folder, a Google document). A Drive or token refusal, which OSWorld's
getter also turns into None, is an evaluation error here naming it: a
wrong account is not the agent's failure.

The settings files the tasks name (`settings_file`) are OSWorld's defaults;
the account is the one the run was given, with no account a step is a setup
error and the getter an evaluation error, each naming --osworld-google.
"""

from __future__ import annotations

from typing import Any

from bench.suites.osworld.episode import Episode
from bench.suites.osworld.errors import GetterFailed, SetupFailed
from bench.suites.osworld.google_drive import FOLDER, DriveFailed, GoogleDrive
from bench.suites.osworld.needs import cache_name

NO_ACCOUNT = "no Google account given (--osworld-google: OSWorld's evaluation_examples/settings folder)"


def _drive(episode: Episode, error: type[Exception]) -> GoogleDrive:
    if episode.drive is None:
        raise error(NO_ACCOUNT)
    return episode.drive


async def _folder(drive: GoogleDrive, names: list[str]) -> str:
    parent = "root"
    for name in names:
        found = await drive.list(f'"{parent}" in parents and title = "{name}" and mimeType = "{FOLDER}" '
                                 "and trashed = false")
        parent = found[0]["id"] if found else await drive.create_folder(name, parent)
    return parent


async def _delete(drive: GoogleDrive, query: str, trash: bool) -> None:
    kinds = [f"mimeType != '{FOLDER}'", f"mimeType = '{FOLDER}'"]
    for kind in kinds:  # files first, then folders
        for file in await drive.list(f"( {query} ) and {kind}" if query.strip() else kind):
            await (drive.trash if trash else drive.delete)(file["id"])


async def _googledrive(episode: Episode, p: dict[str, Any]) -> None:
    drive = _drive(episode, SetupFailed)
    try:
        for operation, args in zip(p["operation"], p["args"]):
            if operation == "delete":
                await _delete(drive, args.get("query", ""), args.get("trash", False))
            elif operation == "mkdirs":
                await _folder(drive, args["path"] if isinstance(args["path"], list) else [args["path"]])
            elif operation == "upload":
                path = args["path"] if isinstance(args["path"], list) else [args["path"]]
                data = await episode.cached_or_fetched(args["url"], cache_name(args["url"], path[-1]))
                await drive.upload(path[-1], data, await _folder(drive, path[:-1]))
                return
            else:
                raise SetupFailed(f"operation {operation!r} is not one OSWorld has (delete, mkdirs, upload)")
    except DriveFailed as exc:
        raise SetupFailed(str(exc)) from None


def _path_queries(path: list[str]) -> list[str]:
    return [f"title = '{name}' and mimeType = '{FOLDER}' and trashed = false" if index < len(path) - 1
            else f"title = '{name}' and trashed = false" for index, name in enumerate(path)]


async def _one_file(drive: GoogleDrive, queries: list[str]) -> bytes | None:
    parent, file = "root", None
    for query in queries:
        found = await drive.list(f'( {query} ) and "{parent}" in parents')
        if not found:
            return None
        file = found[0]
        parent = file["id"]
    return None if file is None else await drive.content(file)


async def _googledrive_file(episode: Episode, spec: dict[str, Any]) -> bytes | None | list[bytes | None]:
    drive = _drive(episode, GetterFailed)
    try:
        if "query" in spec:
            return await _one_file(drive, spec["query"])
        if "path" in spec:
            return await _one_file(drive, _path_queries(spec["path"]))
        if "query_list" in spec:
            return [await _one_file(drive, queries) for queries in spec["query_list"]]
        return [await _one_file(drive, _path_queries(path)) for path in spec["path_list"]]
    except DriveFailed as exc:
        raise GetterFailed(f"googledrive_file: {exc}") from None


GOOGLEDRIVE_STEPS = {"googledrive": _googledrive}
GOOGLEDRIVE_GETTERS = {"googledrive_file": _googledrive_file}
