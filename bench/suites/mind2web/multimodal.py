"""Reading the multimodal release (Multimodal-Mind2Web, `osunlp/Multimodal-Mind2Web`): one row per action.

Its parquet files (`data/<split>-NNNNN-of-NNNNN.parquet`) hold Mind2Web's fields
flattened to one row per action, with the screenshot of the page before it
(Zheng et al., "GPT-4V(ision) is a Generalist Web Agent, if Grounded", 2024;
the dataset card's "Data Fields"): `annotation_id`, `website`, `domain`,
`subdomain`, `confirmed_task`, `action_reprs` (the whole task's), `action_uid`,
`cleaned_html`, `operation` (a JSON object as a string), `pos_candidates` and
`neg_candidates` (lists of JSON objects as strings), `target_action_index`
(the action's position in its task) and `screenshot` (an image:
`{"bytes", "path"}`). Rows are grouped back into tasks by `annotation_id`
and ordered by `target_action_index`, so both releases read into the same
`RawTask` and are scored alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from bench import extras
from bench.suites.mind2web.dataset import (
    DatasetError, Operation, RawAction, RawCandidate, RawTask, Recorded, check_task,
)

__all__ = ["COLUMNS", "read_parquet"]

COLUMNS = ("annotation_id", "website", "domain", "subdomain", "confirmed_task", "action_reprs", "action_uid",
           "cleaned_html", "operation", "pos_candidates", "neg_candidates", "target_action_index", "screenshot")
PAGES = ("cleaned_html", "screenshot")
"""The columns only an episode needs: most of a file's bytes, left unread when indexing."""


def read_parquet(path: Path, *, pages: bool = True) -> list[Recorded]:
    """The tasks of one parquet file; `pages` False leaves their screenshots and cleaned_html out."""
    extras.require("mind2web", "reading the multimodal release's parquet files")
    import pyarrow.parquet as pq

    wanted = [column for column in COLUMNS if pages or column not in PAGES]
    try:
        names = set(pq.read_schema(path).names)
        missing = [column for column in COLUMNS if column not in names]
        if missing:
            raise DatasetError(f"mind2web: {path}: column {missing[0]!r}: missing (the multimodal release has "
                               f"{', '.join(COLUMNS)})")
        columns = pq.read_table(path, columns=wanted).to_pydict()
    except DatasetError:
        raise
    except Exception as exc:  # noqa: BLE001 - pyarrow's errors for a file that is not parquet, in one line
        raise DatasetError(f"mind2web: {path}: not a parquet file: {exc}") from None
    rows = [dict(zip(wanted, values)) for values in zip(*(columns[name] for name in wanted))]
    by_task: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for number, row in enumerate(rows):
        position = _position(row, path, number)
        by_task.setdefault(_string(row, "annotation_id", path, number), []).append((position, row))
    return [_task(sorted(group, key=lambda pair: pair[0]), path) for group in by_task.values()]


def _task(group: list[tuple[int, dict[str, Any]]], path: Path) -> Recorded:
    first = group[0][1]
    actions, screenshots = [], {}
    for position, row in group:
        at = f"row of annotation_id {row['annotation_id']!r}, target_action_index {position}"
        uid = _string(row, "action_uid", path, at)
        actions.append(RawAction(
            action_uid=uid, operation=_decode(row["operation"], Operation, path, f"{at}: operation"),
            pos_candidates=_candidates(row, "pos_candidates", path, at),
            neg_candidates=_candidates(row, "neg_candidates", path, at),
            cleaned_html=row.get("cleaned_html") or ""))
        image = row.get("screenshot")
        if isinstance(image, dict) and image.get("bytes"):
            screenshots[uid] = image["bytes"]
    task = RawTask(annotation_id=first["annotation_id"], website=first["website"] or "", domain=first["domain"] or "",
                   subdomain=first["subdomain"] or "", confirmed_task=first["confirmed_task"] or "",
                   action_reprs=list(first["action_reprs"] or []), actions=actions)
    check_task(task, path, f"annotation_id {task.annotation_id!r}")
    return Recorded(task, screenshots)


def _position(row: dict[str, Any], path: Path, number: int) -> int:
    try:
        return int(row["target_action_index"])
    except (TypeError, ValueError):
        raise DatasetError(f"mind2web: {path}: row {number}: target_action_index: "
                           f"{row['target_action_index']!r} is not a number") from None


def _string(row: dict[str, Any], column: str, path: Path, at: int | str) -> str:
    value = row[column]
    if not isinstance(value, str) or not value:
        where = f"row {at}" if isinstance(at, int) else at
        raise DatasetError(f"mind2web: {path}: {where}: {column}: missing")
    return value


def _candidates(row: dict[str, Any], column: str, path: Path, at: str) -> list[RawCandidate]:
    return [_decode(text, RawCandidate, path, f"{at}: {column}[{index}]")
            for index, text in enumerate(row[column] or [])]


def _decode(text: Any, shape: type, path: Path, at: str) -> Any:
    try:
        return msgspec.json.decode(text if isinstance(text, (str, bytes)) else b"", type=shape)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise DatasetError(f"mind2web: {path}: {at}: not the release's JSON object: {exc}") from None
