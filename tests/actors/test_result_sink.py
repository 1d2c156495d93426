import anyio
import msgspec
import pytest

from actors.result_sink import ResultLine, ResultSink, episode_dir, read_results
from actors.run_folder import count_results
from protocols import (
    ChangeSummary, Done, EpisodeFinished, EpisodeResult, EpisodeStarted, ErrorKind, Flush, StepRecord,
    StepSummarized, StepTaken, to_json,
)
from runtime.actor import spawn
from runtime.errors import RequestRefused

pytestmark = pytest.mark.anyio


async def test_sink_writes_steps_summaries_screenshots_and_one_durable_result_line(tmp_path):
    async with anyio.create_task_group() as tg:
        sink = await spawn(tg, ResultSink(tmp_path))
        await sink.tell(EpisodeStarted(episode_id="e#2", task_id="forms/t1", attempt=2, at=0.0))
        await sink.tell(StepTaken(record=StepRecord(episode_id="e#2", step=1, action=Done()), screenshot=b"png"))
        await sink.tell(StepSummarized(episode_id="e#2", summary=ChangeSummary(step=1, changes="none")))
        await sink.tell(EpisodeFinished(result=EpisodeResult(episode_id="e#2", task_id="forms/t1", success=True)))
        await sink.ask(Flush())
        with pytest.raises(RequestRefused, match="ResultSink does not handle Done"):
            await sink.ask(Done())
        tg.cancel_scope.cancel()
    folder = episode_dir(tmp_path, "forms/t1", 2)
    assert folder == tmp_path / "episodes" / "forms" / "t1" / "2"
    lines = [msgspec.json.decode(line) for line in (folder / "steps.jsonl").read_bytes().splitlines()]
    assert lines[0]["step"]["action"] == {"type": "done"} and lines[1]["summary"]["changes"] == "none"
    assert (folder / "step-001.png").read_bytes() == b"png"
    assert [line.result.task_id for line in read_results(tmp_path)] == ["forms/t1"]


async def test_reader_skips_a_torn_last_line_left_by_a_crash(tmp_path):
    good = b'{"result":{"episode_id":"a#1","task_id":"a"}}\n'
    (tmp_path / "results.jsonl").write_bytes(good + b'{"result":{"episode_id":"b#1","ta')
    assert [line.result.task_id for line in read_results(tmp_path)] == ["a"]


async def test_a_result_appended_after_a_torn_line_is_still_readable(tmp_path):
    (tmp_path / "results.jsonl").write_bytes(b'{"result":{"episode_id":"a#1","task_id":"a"}}\n{"resu')
    async with anyio.create_task_group() as tg:
        sink = await spawn(tg, ResultSink(tmp_path))
        await sink.tell(EpisodeFinished(result=EpisodeResult(episode_id="b#1", task_id="b")))
        await sink.ask(Flush())
        tg.cancel_scope.cancel()
    assert [line.result.task_id for line in read_results(tmp_path)] == ["a", "b"]


def test_episode_folder_never_escapes_the_run_folder(tmp_path):
    assert episode_dir(tmp_path, "../../etc/x", 1) == tmp_path / "episodes" / "etc" / "x" / "1"


async def test_a_rerun_of_an_episode_that_was_no_verdict_on_the_agent_replaces_its_line(tmp_path):
    earlier = [EpisodeResult(episode_id="a#1", task_id="a", error_kind=ErrorKind.MODEL_SERVICE),
               EpisodeResult(episode_id="b#3", task_id="b", attempt=3, error_kind=ErrorKind.ENVIRONMENT),
               EpisodeResult(episode_id="c#1", task_id="c", error_kind=ErrorKind.AGENT)]
    (tmp_path / "results.jsonl").write_bytes(b"".join(to_json(ResultLine(result=r)) + b"\n" for r in earlier))
    async with anyio.create_task_group() as tg:
        sink = await spawn(tg, ResultSink(tmp_path))
        for task_id, attempt in (("a", 2), ("b", 4), ("c", 2)):
            await sink.tell(EpisodeFinished(result=EpisodeResult(
                episode_id=f"{task_id}#{attempt}", task_id=task_id, attempt=attempt, success=True)))
        await sink.ask(Flush())
        tg.cancel_scope.cancel()
    lines = read_results(tmp_path)
    assert [line.result.episode_id for line in lines] == ["a#1", "b#3", "c#1", "a#2", "b#4"]  # c's verdict stands
    counted = count_results(lines)
    assert [line.result.episode_id for line in counted.lines] == ["a#2", "b#4", "c#1"] and not counted.duplicates
