"""OSWorld with no VM: reset and evaluation times per domain on this machine, beside OSWorld's sleeps.

Runs the tasks of an OSWorld `evaluation_examples` folder that can run here
(`--list`'s runnable ones, infeasible ones included) with an agent that says
Done at once, each on a fresh local desktop of troupe's Linux server, and
prints per domain the median reset (the task handed to the VM slot -> its
setup done and the first observation possible) and evaluation time. OSWorld's
harness sleeps 60 s after each reset and 20 s before each evaluation
(lib_run_single.py), besides reverting a VM snapshot.

Then (`--trees`) the accessibility tree's capture time, in OSWorld's XML,
of a new LibreOffice Calc sheet, Writer document and Impress deck open in
their applications on such a desktop (the target: at most 1 s each).

    .venv/bin/python -m bench.perf.osworld --osworld-tasks PATH/evaluation_examples [--domain os --domain chrome] [--trees]
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time
from collections import defaultdict

import anyio
import httpx

from actors.agent import Agent
from actors.backends.waa.client import TOKEN_HEADER
from actors.evaluator import Evaluator
from actors.runner import CrewFactory, EpisodeRunner
from bench.suites.osworld.catalog import Catalog
from bench.suites.osworld.checker import OSWorldChecker
from bench.suites.osworld.coverage import gap
from bench.suites.osworld.local import LocalServer
from bench.suites.osworld.node import LOCAL, actors_for, osworld_backend
from protocols import Decide, Decision, Done
from runtime.host import run_local_host
from runtime.limits import Limits

OSWORLD_SLEEPS = 80.0
"""Seconds OSWorld's harness sleeps per task: 60 after the reset, 20 before evaluating."""


class DoNothing:
    async def decide(self, request: Decide) -> Decision:
        return Decision(action=Done())


async def measure(root: str, domains: list[str]) -> None:
    tasks = [t for t in Catalog.load(root).tasks if (not domains or t.domain in domains) and not gap(t, None)]
    runner = EpisodeRunner(crew=CrewFactory(agent=lambda: Agent(DoNothing()),
                                            evaluator=lambda: Evaluator(OSWorldChecker())),
                           vm_slot=functools.partial(run_local_host, lambda: actors_for(osworld_backend(LOCAL))),
                           limits=Limits(call_seconds=120), max_attempts=1)
    per_domain: dict[str, list] = defaultdict(list)
    for result in await runner.run(tasks):
        per_domain[result.domain].append(result)
    print(f"{'domain':<20} {'tasks':>5} {'reset median':>13} {'evaluate median':>16} {'OSWorld sleeps':>15}")
    for domain, results in per_domain.items():
        reset = statistics.median(r.timings.reset for r in results)
        evaluate = statistics.median(r.timings.evaluate for r in results)
        print(f"{domain:<20} {len(results):>5} {reset:>11.2f} s {evaluate:>14.2f} s {OSWORLD_SLEEPS:>13.0f} s")
    errors = [r for rs in per_domain.values() for r in rs if r.error_kind.value == "environment"]
    if errors:
        print(f"{len(errors)} episode(s) ended as environment errors: "
              + "; ".join(f"{r.task_id}: {r.reason[:120]}" for r in errors))


TREE_APPS = {"Calc sheet": "--calc", "Writer document": "--writer", "Impress deck": "--impress"}


def tree_times(captures: int = 5) -> dict[str, tuple[float, int]]:
    """Per LibreOffice document: the median seconds of a tree capture, and the tree's size in bytes."""
    server = LocalServer.start()
    times: dict[str, tuple[float, int]] = {}
    try:
        with httpx.Client(base_url=server.url, headers={TOKEN_HEADER: server.token}, timeout=120) as http:
            for label, flag in TREE_APPS.items():
                http.post("/setup/launch", json={"command": ["soffice", "--norestore", flag]}).raise_for_status()
                deadline = time.monotonic() + 60
                while "soffice" not in (tree := http.get("/accessibility").json()["AT"]) or "document" not in tree:
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"LibreOffice showed no {label} in the tree within 60 s")
                    time.sleep(0.5)
                time.sleep(2.0)  # its window fully drawn
                seconds = []
                for _ in range(captures):
                    started = time.monotonic()
                    size = len(http.get("/accessibility").json()["AT"])
                    seconds.append(time.monotonic() - started)
                times[label] = (statistics.median(seconds), size)
                http.post("/setup/launch", json={"command": ["pkill", "-f", "soffice"]})
                time.sleep(2.0)
    finally:
        server.stop()
    return times


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.perf.osworld", description=__doc__.split("\n\n")[0])
    parser.add_argument("--osworld-tasks", required=True, help="OSWorld's evaluation_examples folder")
    parser.add_argument("--domain", action="append", default=[], help="only these domains (repeatable)")
    parser.add_argument("--trees", action="store_true", help="also time the tree of LibreOffice documents")
    args = parser.parse_args(argv)
    anyio.run(measure, args.osworld_tasks, args.domain)
    if args.trees:
        for label, (seconds, size) in tree_times().items():
            print(f"tree of a new LibreOffice {label:<16} {seconds:6.2f} s median ({size // 1024} KiB of XML)")


if __name__ == "__main__":
    main()
