"""Reading Mind2Web's releases: the index, each page as the agent sees it, and one line naming the
file and field for every malformed input."""

import copy
import json
import subprocess
import threading
import sys

import pytest

from actors.backends.replay import ReplayError
from actors.errors import ConfigError
from bench.suites.base import UnknownTask
from bench.suites.mind2web.dataset import DatasetError, _read_cached, read_source
from bench.suites.mind2web.recordings import Recordings
from bench.suites.mind2web.suite import Mind2WebSuite
from protocols import Click, Fail, TypeText, Viewport
from tests.paths import ROOT
from tests.suites.mind2web.data import SHOTS, TASKS, multimodal_rows, write_multimodal, write_release


@pytest.fixture(autouse=True)
def fresh_files():
    """Each test writes its own files at paths an earlier test may have used: no cached file outlives a test."""
    _read_cached.cache_clear()
    yield
    _read_cached.cache_clear()


def test_the_release_is_indexed_by_annotation_id_with_its_split_as_domain(tmp_path):
    recordings = Recordings(write_release(tmp_path))
    assert {t.task_id: t.domain for t in recordings.tasks.values()} == {
        "ann-flight": "test_task", "ann-shoe": "test_task", "ann-seat": "test_website", "ann-movie": "test_domain",
        "ann-empty": "test_domain"}
    flight = recordings.tasks["ann-flight"]
    assert flight.instruction == "Find one-way flights from New York to London"
    assert flight.raw_config["website"] == "united" and flight.raw_config["domain"] == "Travel"
    assert flight.evaluation_spec["labels"][1] == {"action_uid": "f-1", "op": "TYPE", "value": "New York",
                                                   "positives": ["103"]}


def test_each_step_shows_the_candidates_in_document_order_the_recorded_history_and_the_screenshot(tmp_path):
    recordings = Recordings(write_release(tmp_path))
    first, second = recordings.steps(recordings.tasks["ann-flight"])
    tree = second.observation.tree
    assert tree.name == "united" and [(e.node_id, e.role, e.name) for e in tree.children] == [
        ("101", "link", "One-way"), ("103", "textbox", "From"), ("104", "button", "Search flights")]
    assert tree.children[1].bbox is not None and tree.children[1].bbox.width == 200
    assert first.observation.previous_actions == ()
    assert second.observation.previous_actions == ("[link]  One-way -> CLICK",)
    assert first.reference == Click(target=first.reference.target) and first.reference.target.node_id == "101"
    assert second.reference == TypeText(text="New York", target=second.reference.target)
    assert not first.observation.screenshot and first.observation.viewport is None  # no raw dump for this task
    movie = recordings.steps(recordings.tasks["ann-movie"])
    assert [s.observation.screenshot for s in movie] == [SHOTS["m-0"], SHOTS["m-1"]]
    assert movie[0].observation.viewport == Viewport(320, 240) and movie[0].after == SHOTS["m-1"] and movie[1].after == b""
    assert movie[1].observation.tree.children[0].name == "Watch"  # aria_label names an element with no text
    seat, = recordings.steps(recordings.tasks["ann-seat"])
    select = seat.observation.tree.children[0]
    assert (select.role, select.name) == ("combobox", "cabin")
    assert [(o.node_id, o.name) for o in select.children] == [
        ("401/option/1", "First"), ("401/option/2", "Business"), ("401/option/3", "Economy")]
    empty, = recordings.steps(recordings.tasks["ann-empty"])
    assert isinstance(empty.reference, Fail)  # no positive candidate: nothing an agent could match


def test_the_multimodal_release_reads_into_the_same_steps(tmp_path):
    release = Recordings(write_release(tmp_path / "release"))
    multimodal = Recordings(write_multimodal(tmp_path / "multimodal"))
    assert multimodal.tasks.keys() == release.tasks.keys()
    indexed = [r for source in set(multimodal.sources.values()) for r in read_source(source, pages=False)]
    assert indexed and not any(r.screenshots or any(a.cleaned_html for a in r.task.actions) for r in indexed)
    for task_id, task in release.tasks.items():
        assert multimodal.tasks[task_id].evaluation_spec == task.evaluation_spec
        ours, theirs = multimodal.steps(multimodal.tasks[task_id]), release.steps(task)
        assert [s.observation for s in ours] == [s.observation for s in theirs]
        assert [s.reference for s in ours] == [s.reference for s in theirs]


def error_of(tmp_path, broken) -> str:
    """The one error line building the suite on the release with `broken(tasks_of_test_task_file)` gives."""
    root = write_release(tmp_path)
    path = root / "data" / "test_task" / "test_task_0.json"
    tasks = json.loads(path.read_text())
    changed = broken(tasks)
    path.write_text(changed if isinstance(changed, str) else json.dumps(tasks))
    with pytest.raises(ConfigError) as caught:
        Mind2WebSuite(root)
    message = str(caught.value)
    assert "\n" not in message
    return message.removeprefix(f"mind2web: {path}: ")


def _set(tasks, path, value):
    target = tasks
    for key in path[:-1]:
        target = target[key]
    if value is KeyError:
        del target[path[-1]]
    else:
        target[path[-1]] = value


@pytest.mark.parametrize("change, message", [
    (lambda tasks: "[{", "not JSON: "),
    (lambda tasks: _set(tasks, [0, "annotation_id"], KeyError), "$[0]: object missing required field `annotation_id`"),
    (lambda tasks: _set(tasks, [1, "website"], 7), "$[1].website: expected `str`, got `int`"),
    (lambda tasks: _set(tasks, [0, "actions", 1, "operation", "op"], "HOVER"),
     "$[0].actions[1].operation.op: 'HOVER' is not one of CLICK, TYPE, SELECT"),
    (lambda tasks: _set(tasks, [0, "actions", 0, "neg_candidates", 1, "attributes"], "{bad"),
     "$[0].actions[0].neg_candidates[1].attributes: not a JSON object: "),
    (lambda tasks: _set(tasks, [0, "actions", 0, "pos_candidates", 0, "attributes"], "[1]"),
     "$[0].actions[0].pos_candidates[0].attributes: not a JSON object but list"),
    (lambda tasks: _set(tasks, [0, "action_reprs"], ["one"]), "$[0].action_reprs: 1 for 2 actions (one per action)"),
    (lambda tasks: _set(tasks, [1, "actions"], []), "$[1].actions: the task has no action"),
    (lambda tasks: _set(tasks, [0, "actions", 0, "pos_candidates", 0, "backend_node_id"], 101),
     "$[0].actions[0].pos_candidates[0].backend_node_id: expected `str`, got `int`"),
    (lambda tasks: '{"annotation_id": "x"}', "$: expected `array`, got `object`"),
])
def test_a_malformed_release_file_is_one_line_naming_the_file_and_field(tmp_path, change, message):
    assert error_of(tmp_path, change).startswith(message)


def test_a_task_in_two_files_is_named_with_both(tmp_path):
    root = write_release(tmp_path)
    (root / "data" / "test_task" / "test_task_1.json").write_text(json.dumps([TASKS["seat"]]))
    with pytest.raises(DatasetError, match=r"test_website_0.json: annotation_id 'ann-seat' is also in .*test_task_1.json"):
        Mind2WebSuite(root)


@pytest.mark.parametrize("change, message", [
    (lambda rows: [{k: v for k, v in row.items() if k != "target_action_index"} for row in rows],
     "column 'target_action_index': missing"),
    (lambda rows: [{**row, "operation": "{nope"} for row in rows], "operation: not the release's JSON object"),
    (lambda rows: [{**row, "target_action_index": "first"} for row in rows],
     "target_action_index: 'first' is not a number"),
    (lambda rows: [{**row, "pos_candidates": ['{"tag": "a"}']} for row in rows],
     "pos_candidates[0]: not the release's JSON object: Object missing required field `backend_node_id`"),
    (lambda rows: [{**row, "action_reprs": ["only one"]} for row in rows], ".action_reprs: 1 for 2 actions"),
])
def test_a_malformed_parquet_file_is_one_line_naming_the_file_and_field(tmp_path, change, message):
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "data").mkdir()
    path = tmp_path / "data" / "test_task-00000-of-00001.parquet"
    pq.write_table(pa.Table.from_pylist(change(multimodal_rows(["flight"]))), path)
    with pytest.raises(ConfigError) as caught:
        Mind2WebSuite(tmp_path)
    assert str(caught.value).startswith(f"mind2web: {path}: ") and message in str(caught.value)
    (tmp_path / "data" / "x-00000.parquet").write_text("")  # a file of no split is not read
    path.write_bytes(b"not parquet")
    _read_cached.cache_clear()
    with pytest.raises(ConfigError, match=r"test_task-00000-of-00001.parquet: not a parquet file"):
        Mind2WebSuite(tmp_path)


@pytest.mark.parametrize("shots, message", [
    ("{", "not JSON"),
    ('{"m-0": 1}', "$: expected a list of screens, got dict"),
    ('[{"before": {"screenshot": ""}}]', "$[0].action_uid: missing"),
    ('[{"action_uid": "m-0", "before": {}}]', "$[0].before.screenshot: missing"),
    ('[{"action_uid": "m-0", "before": {"screenshot": "%%%"}}]', "$[0].before.screenshot: not base64"),
    ('[{"action_uid": "m-0", "before": {"screenshot": "aGVsbG8="}}]', "action_uid 'm-0': before.screenshot: not an image"),
])
def test_a_malformed_screenshot_file_fails_that_episode_naming_the_file_and_field(tmp_path, shots, message):
    """The raw dump is read when its task runs (it is large): a bad file is that episode's error."""
    root = write_release(tmp_path)
    path = root / "raw_dump" / "task" / "ann-movie" / "processed" / "screenshot.json"
    path.write_text(shots)
    recordings = Recordings(root)
    with pytest.raises(ReplayError) as caught:
        recordings.steps(recordings.tasks["ann-movie"])
    assert str(caught.value).startswith(f"mind2web: {path}: ") and message in str(caught.value)
    assert len(recordings.steps(recordings.tasks["ann-flight"])) == 2  # the other tasks are fine


def test_folders_splits_and_tasks_that_do_not_exist_are_named(tmp_path):
    with pytest.raises(ConfigError, match="is not a folder"):
        Mind2WebSuite(tmp_path / "nowhere")
    with pytest.raises(ConfigError, match="holds no Mind2Web data"):
        Mind2WebSuite(tmp_path)
    root = write_release(tmp_path / "release")
    with pytest.raises(ConfigError, match="--mind2web-split 'test'"):
        Mind2WebSuite(root, splits=["test"])
    with pytest.raises(UnknownTask, match="did you mean 'ann-seat'"):
        Mind2WebSuite(root, tasks=["ann-seats"])


def test_a_run_selects_the_test_splits_unless_told(tmp_path):
    root = write_release(tmp_path)
    train = root / "data" / "train"
    train.mkdir()
    extra = copy.deepcopy(TASKS["shoe"]) | {"annotation_id": "ann-train"}
    (train / "train_0.json").write_text(json.dumps([extra]))
    assert len(Mind2WebSuite(root).list_tasks()) == 6
    assert "ann-train" not in [t.task_id for t in Mind2WebSuite(root).selection()]
    assert [t.task_id for t in Mind2WebSuite(root, splits=["train"]).selection()] == ["ann-train"]
    assert [t.task_id for t in Mind2WebSuite(root, tasks=["ann-seat"]).selection()] == ["ann-seat"]


def test_the_cli_says_what_is_wrong_in_one_error_line_and_writes_nothing(tmp_path):
    root = write_release(tmp_path / "data")
    path = root / "data" / "test_website" / "test_website_0.json"
    path.write_text(path.read_text().replace('"SELECT"', '"DRAG"', 1))
    out = tmp_path / "out"
    result = subprocess.run([sys.executable, "-m", "bench.supervisor", "--suite", "mind2web", "--mind2web-data",
                             str(root), "--out", str(out)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.strip() == (f"error: mind2web: {path}: $[0].actions[0].operation.op: 'DRAG' is not one of "
                                     "CLICK, TYPE, SELECT")
    assert not out.exists()
    missing = subprocess.run([sys.executable, "-m", "bench.supervisor", "--suite", "mind2web"], cwd=ROOT,
                             capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "mind2web needs the data folder: --mind2web-data DIR" in missing.stderr


def test_episodes_starting_together_on_one_file_read_it_once(tmp_path):
    root = write_release(tmp_path)
    path = root / "data" / "test_task" / "test_task_0.json"
    tasks = json.loads(path.read_text())
    tasks[1]["actions"][0]["raw_html"] = "<p>" + "x" * 20_000_000 + "</p>"  # a file that takes a while to read
    path.write_text(json.dumps(tasks))
    recordings = Recordings(root)
    _read_cached.cache_clear()
    start = threading.Barrier(8)

    def episode():
        start.wait()
        recordings.pages(recordings.tasks["ann-flight"])

    threads = [threading.Thread(target=episode) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert _read_cached.cache_info().misses == 1


def test_a_multimodal_screenshot_that_is_no_image_fails_that_episode_naming_the_row(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    (tmp_path / "data").mkdir()
    path = tmp_path / "data" / "test_domain-00000-of-00001.parquet"
    rows = multimodal_rows(["movie"])
    rows[1]["screenshot"] = {"bytes": b"no image", "path": None}
    pq.write_table(pa.Table.from_pylist(rows), path)
    recordings = Recordings(tmp_path)
    with pytest.raises(ReplayError, match=rf"^mind2web: {path}: action_uid 'm-1': screenshot: not an image"):
        recordings.steps(recordings.tasks["ann-movie"])
