"""A folder of Mind2Web data as tasks, and each task's recorded pages as replay steps.

`Recordings` indexes every data file once (checking it: a malformed one is a
ConfigError naming the file and field) into `protocols.Task`s keyed by
`annotation_id`, their `domain` the split, Mind2Web's own website and domain
in `raw_config`, the labels in `evaluation_spec`. `steps(task)` turns a
task's recorded pages into what a replay VM serves: per action, the page
before it (its candidates as the tree, the screenshot when the data has one,
the recorded actions before it) and the labelled action as the reference.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from protocols import Action, Click, Fail, Observation, Target, Task, TypeText

from actors.backends.replay import RecordedStep, ReplayError
from actors.errors import ConfigError
from bench.suites.mind2web.dataset import (
    SCREENSHOTS, SPLITS, DatasetError, Recorded, Source, find_sources, read_screenshots, read_source,
)
from bench.suites.mind2web.page import Page, page_of

__all__ = ["Recordings", "reference_of"]


class Recordings:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        if not self.root.is_dir():
            raise ConfigError(f"mind2web: {self.root} is not a folder (expected Mind2Web's data: "
                              f"<split>/*.json or data/<split>/*.json, or the multimodal release's parquet files)")
        sources = find_sources(self.root)
        if not sources:
            raise ConfigError(f"mind2web: {self.root} holds no Mind2Web data (expected {', '.join(SPLITS)} folders "
                              f"of JSON files, or <split>-*.parquet files)")
        self.tasks: dict[str, Task] = {}
        self.sources: dict[str, Source] = {}
        for source in sources:
            for recorded in read_source(source, pages=False):
                self._add(recorded, source)

    def _add(self, recorded: Recorded, source: Source) -> None:
        raw = recorded.task
        if raw.annotation_id in self.sources:
            raise DatasetError(f"mind2web: {source.path}: annotation_id {raw.annotation_id!r} is also in "
                               f"{self.sources[raw.annotation_id].path}")
        self.sources[raw.annotation_id] = source
        self.tasks[raw.annotation_id] = Task(
            task_id=raw.annotation_id, instruction=raw.confirmed_task, domain=source.split,
            raw_config={"annotation_id": raw.annotation_id, "website": raw.website, "domain": raw.domain,
                        "subdomain": raw.subdomain, "split": source.split, "file": str(source.path),
                        "action_reprs": raw.action_reprs},
            evaluation_spec={"labels": [
                {"action_uid": a.action_uid, "op": a.operation.op, "value": a.operation.value,
                 "positives": [c.backend_node_id for c in a.pos_candidates]} for a in raw.actions]},
        )

    def pages(self, task: Task, *, texts: bool = True) -> list[Page]:
        """The task's recorded pages (blocking: reads files); `texts` False skips reading each
        candidate's text from cleaned_html, which scoring needs only for a select's options."""
        recorded = self._recorded(task)
        if recorded.screenshots:  # the multimodal release's, in its rows
            shots, path, field = recorded.screenshots, self.sources[task.task_id].path, "screenshot"
        else:
            shots = read_screenshots(self.root, task.task_id)
            path, field = self.root / SCREENSHOTS.format(annotation_id=task.task_id), "before.screenshot"
        return [page_of(action, shots.get(action.action_uid, b""), f"{path}: action_uid {action.action_uid!r}: "
                                                                    f"{field}", texts=texts)
                for action in recorded.task.actions]

    def _recorded(self, task: Task) -> Recorded:
        source = self.sources[task.task_id]
        found = next((r for r in read_source(source) if r.task.annotation_id == task.task_id), None)
        if found is None:
            raise DatasetError(f"mind2web: {source.path}: no task {task.task_id!r} any more (the file changed)")
        return found

    def steps(self, task: Task) -> list[RecordedStep]:
        """What a replay VM serves for `task` (blocking); a file that cannot be read is a ReplayError
        naming it, so that episode fails and the run goes on."""
        try:
            pages = self.pages(task)
        except DatasetError as exc:
            raise ReplayError(str(exc)) from None
        reprs: Sequence[str] = task.raw_config["action_reprs"]
        website = task.raw_config["website"]
        return [RecordedStep(
            observation=Observation(screenshot=page.screenshot, viewport=page.viewport, tree=page.tree(website),
                                    previous_actions=tuple(reprs[:number])),
            reference=reference_of(page),
            after=pages[number + 1].screenshot if number + 1 < len(pages) else b"",
        ) for number, page in enumerate(pages)]


def reference_of(page: Page) -> Action:
    """The labelled action as a troupe action on the first positive candidate: CLICK a click, TYPE and
    SELECT typing the value into it (a TYPE of nothing, a click on it). A page with no positive
    candidate has no action an agent could match: a Fail saying so."""
    if not page.positives:
        return Fail(reason="the recording has no positive candidate for this step")
    candidate = page.by_id[page.positives[0]]
    target = Target(node_id=candidate.node_id, bbox=candidate.bbox, role=candidate.role, name=candidate.name)
    if page.op == "CLICK" or not page.value:
        return Click(target=target)
    return TypeText(text=page.value, target=target)
