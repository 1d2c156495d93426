"""A WAA VM that is unreachable, answers 500 to a setup step, or never returns its
tree: each ends as specified (environment error and a fresh VM; the failed step
recorded and the episode judged, as WAA's client does; a step without the tree),
and the run goes on. Against real HTTP servers on 127.0.0.1."""

from __future__ import annotations

import functools
import json
import socket

import anyio
import pytest

from actors.runner import EpisodeRunner
from bench.suites.waa.checker import WAAChecker
from actors.backends.waa.client import Retry
from bench.suites.waa.node import actors_for, waa_backend
from protocols import Click, Decide, Decision, ErrorKind, Fail, Point, Task
from runtime.host import run_local_host
from runtime.limits import Limits

from tests.waa_servers import Behaviour, StandIn
from tests.crews import crew

pytestmark = pytest.mark.anyio

FAST = dict(retry=Retry(attempts=3, backoff=0.05), probe=Retry(attempts=2, backoff=0.05), settle_timeout=0.5)


def infeasible(name: str, config: list | None = None) -> Task:
    return Task(task_id=f"faults/{name}", instruction="Do the impossible.", domain="faults",
                raw_config={"config": config or []}, evaluation_spec={"func": "infeasible"})


class ClickThenGiveUp:
    def __init__(self) -> None:
        self.partial: list[tuple[str, ...]] = []

    async def decide(self, request: Decide) -> Decision:
        self.partial.append(request.observation.partial)
        action = Click(point=Point(10, 10)) if request.step == 1 else Fail(reason="impossible")
        return Decision(action=action)


def runner(build, policy=None, **overrides) -> EpisodeRunner:
    policy = policy or ClickThenGiveUp()
    settings = dict(
        crew=crew(lambda: policy, WAAChecker),
        vm_slot=functools.partial(run_local_host, build),
        limits=Limits(call_seconds=30, tree_seconds=0.5),
        max_attempts=2,
    )
    settings.update(overrides)
    return EpisodeRunner(**settings)


def dead_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


async def test_an_unreachable_server_is_an_environment_error_after_bounded_probes_and_a_fresh_vm():
    results = await runner(lambda: actors_for(waa_backend(dead_url(), **FAST))).run([infeasible("a"), infeasible("b")])
    assert [r.task_id for r in results] == ["faults/a", "faults/b"]
    for result in results:
        assert result.error_kind is ErrorKind.ENVIRONMENT and result.attempt == 2
        assert "GET" in result.reason and "/probe failed 2 times; last: ConnectError" in result.reason


async def test_a_vm_that_comes_back_after_a_restart_runs_the_episode_on_the_fresh_one():
    with StandIn(Behaviour()) as server:
        urls = iter([dead_url()])
        build = lambda: actors_for(waa_backend(next(urls, server.url), **FAST))  # noqa: E731
        (result,) = await runner(build).run([infeasible("comeback")])
    assert result.success and result.attempt == 2


async def test_a_setup_step_answering_500_is_retried_then_recorded_and_the_episode_is_judged_as_waa_does():
    behaviour = Behaviour(failing={json.dumps("explode")})
    with StandIn(behaviour) as server:
        tasks = [infeasible("boom", [{"type": "execute", "parameters": {"command": "explode"}}]), infeasible("fine")]
        results = await runner(lambda: actors_for(waa_backend(server.url, **FAST))).run(tasks)
    outcome = {r.task_id: r for r in results}
    boom = outcome["faults/boom"]
    assert boom.error_kind is ErrorKind.NONE and boom.attempt == 1 and boom.success
    assert "config[0] (execute) failed: /setup/execute refused 'explode': HTTP 500" in boom.reason
    assert "config[0] (execute): the server answered 5xx and was retried 2 times" in boom.reason
    assert behaviour.requests.count('POST /setup/execute "explode"') == 3  # one VM, three tries
    assert outcome["faults/fine"].success and "setup steps" not in outcome["faults/fine"].reason


async def test_a_tree_call_that_never_returns_leaves_the_tree_out_and_the_step_goes_on():
    policy = ClickThenGiveUp()
    with StandIn(Behaviour(hang_tree=True)) as server:
        with anyio.fail_after(20):
            (result,) = await runner(lambda: actors_for(waa_backend(server.url, **FAST)), policy).run(
                [infeasible("hung-tree")])
    assert result.success and result.attempt == 1 and result.steps == 2
    assert policy.partial == [("tree",), ("tree",)]
