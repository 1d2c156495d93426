"""One run folder, one configuration: a resume with settings that change what an episode means is refused
(`--force` runs them in a sub-folder of their own), one with settings that do not is allowed, and run.json
keeps every start. The one-line refusals of each kind are in test_bad_input.py's table."""

import json

import pytest

import bench
from actors.errors import ConfigError
from actors.run_folder import read_results
from bench.api import plan
from tests.bench.test_cli import run_cli

SIM = {"episodes": 3, "scale": 0.0}


class Other:
    """An agent of its own; the refused run never starts an episode, so it never decides."""

    def decide(self, request):
        raise AssertionError("a refused run ran an episode")


async def test_a_resume_with_another_agent_is_refused_and_one_that_changes_no_meaning_is_recorded(
        tmp_path, anyio_backend):
    out = tmp_path / "run"
    await bench.run("sim", options=SIM, concurrency=3, out=out)
    written = {name: (out / name).read_bytes() for name in ("results.jsonl", "run.json", "summary.json")}

    with pytest.raises(ConfigError, match=r"holds a run with other settings that change what an episode means: "
                                          r"agent \(was 'sim', now 'tests.bench.test_run_record:Other'\)"):
        await bench.run("sim", agent=Other, options=SIM, out=out)
    assert {name: (out / name).read_bytes() for name in written} == written

    run = await bench.run("sim", options={**SIM, "episodes": 4, "scale": 0.001}, concurrency=2, out=out)
    assert run.summary["overall"]["episodes"] == 4 and len(read_results(out)) == 4
    starts = json.loads((out / "run.json").read_text())["starts"]
    assert [start["config"]["options"]["episodes"] for start in starts] == [3, 4]
    assert [start["config"]["options"]["scale"] for start in starts] == [0.0, 0.001]
    assert all(start["entry"] == "python" and start["started"] and start["ended"] for start in starts)


def test_force_runs_other_settings_in_a_sub_folder_that_the_same_command_resumes(tmp_path):
    out = tmp_path / "run"
    common = ["--episodes", "3", "--scale", "0", "--out", str(out)]
    assert run_cli(*common).returncode == 0
    forced = run_cli(*common, "--agent-error-rate", "0.9", "--max-steps", "6", "--force")
    assert forced.returncode == 0, forced.stderr
    said = " ".join(forced.stdout.split())  # rich wraps a long line at the spaces
    assert f"{out} holds a run with other settings; --force: these run in {out / 'config-2'}" in said
    assert len(read_results(out / "config-2")) == 3 and len(read_results(out)) == 3
    config = json.loads((out / "config-2" / "run.json").read_text())["config"]
    assert (config["options"]["agent_error_rate"], config["limits"]["max_steps"], config["force"]) == (0.9, 6, True)

    again = run_cli(*common, "--agent-error-rate", "0.9", "--max-steps", "6", "--force")
    assert again.returncode == 0
    assert f"resuming {out / 'config-2'}: 3 of 3 episodes already finished" in " ".join(again.stdout.split())
    same = run_cli(*common, "--force")  # the folder's own settings: --force changes nothing
    assert same.returncode == 0 and f"resuming {out}: 3 of 3 episodes already finished" in " ".join(same.stdout.split())

    third = bench.run_sync("sim", options={**SIM, "agent_error_rate": 0.5}, out=out, force=True)
    assert third.folder == out / "config-3" and len(third.results) == 3


async def test_a_model_named_by_the_environment_is_recorded_and_compared(tmp_path, anyio_backend, monkeypatch):
    out = tmp_path / "run"
    out.mkdir()
    (out / "run.json").write_text(json.dumps({"config": {"agent": "llm", "llm": {"model": "model-a"}}}))
    (out / "results.jsonl").write_text('{"result": {"episode_id": "sim-0-0000#1", "task_id": "sim-0-0000"}}\n')
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_MODEL", "model-b")
    values = {"out": out, "llm_base_url": "http://127.0.0.1:9/v1", "llm_preflight": False}
    with pytest.raises(ConfigError, match=r"means: llm_model \(was 'model-a', now 'model-b'\)"):
        await plan("sim", values, agent="llm")
    monkeypatch.setenv("OPENAI_MODEL", "model-a")
    assert (await plan("sim", values, agent="llm")).config.llm.model == "model-a"
