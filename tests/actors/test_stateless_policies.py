"""The built-in policies keep no state between steps: a fresh instance per step decides the same."""

import pytest

import bench
from actors.run_folder import episode_dir, read_steps
from bench.suites.sim.agent import SimPolicy


class FreshEachStep:
    """A policy that forgets everything between steps (as a restarted Agent would)."""

    async def decide(self, request):
        return await SimPolicy().decide(request)


def actions(run):
    return {line.result.task_id: [record.action for record in read_steps(
        episode_dir(run.folder, line.result.task_id, line.result.attempt))] for line in run.results}


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_a_fresh_sim_policy_per_step_takes_the_same_actions(tmp_path, backend):
    common = dict(options={"episodes": 6, "scale": 0.001, "agent_error_rate": 0.3}, concurrency=3, backend=backend)
    kept = bench.run_sync("sim", agent="sim", out=tmp_path / "kept", **common)
    fresh = bench.run_sync("sim", agent=FreshEachStep(), out=tmp_path / "fresh", **common)
    assert actions(fresh) == actions(kept)
    assert any(len(steps) > 3 for steps in actions(kept).values())  # episodes long enough to need memory
    assert {l.result.task_id: l.result.success for l in fresh.results} == \
        {l.result.task_id: l.result.success for l in kept.results}
