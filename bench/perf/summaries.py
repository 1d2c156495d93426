"""What the change summarizer adds to a run's wall time: the same LLM run with and without it.

    python -m bench.perf.summaries [--scale 0.25] [--episodes 8] [--backend asyncio|trio]

The LLM agent and the LLM change summarizer talk over real HTTP to the
test suite's local fake chat-completions server (`tests/fake_llm.py`: run
this from the repository root), which answers after the realistic model
latencies (Agent 2.0 s, Summarizer 1.5 s); the VMs are simulated with the
realistic act / screenshot / tree latencies of `bench.perf.pipeline`.
Everything is multiplied by `--scale`. The runs alternate (off, on, off,
on, ...) so a machine that gets busier favours neither; the best of
`--rounds` is printed for each, and the ratio (target <= 1.05: the
summaries overlap the Agent's next call).
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import sys
import time
from types import ModuleType

import anyio

from actors.agent import Agent
from actors.evaluator import Evaluator
from actors.llm.agent import LLMPolicy
from actors.llm.client import LLMClient
from actors.llm.config import LLMConfig
from actors.llm.summarizer import LLMJudge
from actors.runner import CrewFactory, EpisodeRunner
from bench.suites.sim.checker import SimChecker
from actors.backends.sim.node import build
from actors.summarizer import Summarizer
from bench.perf.pipeline import GOALS, REALISTIC, tasks
from bench.tuning import tune_gc
from protocols import Task
from runtime.host import run_local_host
from runtime.limits import Limits

TARGET = 1.05
_JUDGEMENT = json.dumps({"changes": "the form changed as asked", "correct": True, "reason": "one goal done"})


def _fake_llm() -> ModuleType | None:
    """tests/fake_llm.py, the fake chat-completions server: a test fixture that a checkout has and an
    installed troupe does not."""
    try:
        return importlib.import_module("tests.fake_llm")
    except ModuleNotFoundError as exc:
        if exc.name not in ("tests", "tests.fake_llm"):
            raise
        return None


def _after(fake: ModuleType, seconds: float, respond):
    return lambda body: fake.Reply(content=respond(body), delay=seconds)


async def _run(url: str, episodes: list[Task], summaries: bool) -> float:
    client = LLMClient(LLMConfig(model="fake", base_url=url, max_retries=0))
    crew = CrewFactory(
        agent=lambda: Agent(LLMPolicy(client)),
        evaluator=lambda: Evaluator(SimChecker()),
        summarizer=(lambda: Summarizer(LLMJudge(client))) if summaries else None,
    )
    runner = EpisodeRunner(crew=crew, vm_slot=functools.partial(run_local_host, build),
                           limits=Limits(max_steps=GOALS + 1, call_seconds=60), concurrency=len(episodes))
    started = time.perf_counter()
    results = await runner.run(episodes)
    elapsed = time.perf_counter() - started
    failed = [r.reason for r in results if not r.success]
    if failed:
        raise RuntimeError(f"{len(failed)} episodes failed, e.g. {failed[0]}")
    return elapsed


async def measure(fake: ModuleType, scale: float, count: int, rounds: int) -> dict[str, float]:
    roles = fake.by_role(agent=_after(fake, REALISTIC["agent"] * scale, fake.form_filler),
                         summarizer=_after(fake, REALISTIC["summarizer"] * scale, lambda body: _JUDGEMENT))
    episodes = tasks(count, scale)
    best = {"off": float("inf"), "on": float("inf")}
    with fake.FakeLLM(roles) as server:
        for _ in range(rounds):
            for mode in best:
                best[mode] = min(best[mode], await _run(server.url, episodes, summaries=mode == "on"))
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.perf.summaries", description=__doc__.split("\n")[0])
    parser.add_argument("--scale", type=float, default=0.25, help="multiply the realistic latencies by this")
    parser.add_argument("--episodes", type=int, default=8, help="episodes run at once")
    parser.add_argument("--rounds", type=int, default=2, help="runs of each kind; the best counts")
    parser.add_argument("--backend", choices=["asyncio", "trio"], default="asyncio")
    args = parser.parse_args(argv)
    fake = _fake_llm()
    if fake is None:
        print("error: bench.perf.summaries runs the fake LLM server of tests/fake_llm.py: run it from the "
              "repository root of a checkout", file=sys.stderr)
        return 2
    tune_gc()
    best = anyio.run(measure, fake, args.scale, args.episodes, args.rounds, backend=args.backend)
    ratio = best["on"] / best["off"]
    print(f"{args.episodes} LLM episodes of {GOALS + 1} steps, latencies x{args.scale} "
          f"(Agent {REALISTIC['agent'] * args.scale:.3g} s, Summarizer {REALISTIC['summarizer'] * args.scale:.3g} s), "
          f"{args.backend}")
    print(f"  wall time, summarizer off: {best['off']:.2f} s")
    print(f"  wall time, summarizer on:  {best['on']:.2f} s")
    print(f"  on / off: {ratio:.3f} (target <= {TARGET}) {'ok' if ratio <= TARGET else 'MISSED'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
