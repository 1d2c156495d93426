"""Normalizing and rendering very large accessibility trees: medians for 1k, 10k and 100k nodes.

The trees are real ones (AT-SPI, captured from galculator under Xvfb, in
tests/fixtures) tiled under one root until they reach the size, so the node
mix is what applications produce.

    .venv/bin/python -m bench.perf.trees
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import sys
import time
from pathlib import Path

from actors.normalize import atspi
from actors.llm.tree_text import render_tree

FIXTURE = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "atspi-galculator.json"


def tiled(nodes: int) -> dict:
    window = json.loads(FIXTURE.read_text())["children"][0]
    per_copy = sum(1 for _ in walk_raw(window))
    return {"role": "desktop frame", "name": "tiled",
            "children": [copy.deepcopy(window) for _ in range(-(-nodes // per_copy))]}


def walk_raw(node: dict):
    stack = [node]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.get("children", ()))


def median_seconds(function, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        began = time.perf_counter()
        function()
        times.append(time.perf_counter() - began)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.perf.trees", description=__doc__.split("\n\n")[0])
    parser.parse_args(argv)
    if not FIXTURE.exists():  # a test fixture: a checkout has it, an installed troupe does not
        print(f"error: bench.perf.trees reads the recorded tree {FIXTURE}, which is not there: run it from "
              "the repository root of a checkout", file=sys.stderr)
        return 2
    print(f"{'raw nodes':>10} {'kept':>8} {'normalize':>10} {'render 2000 lines':>18} {'render all':>11}")
    for size in (1_000, 10_000, 100_000):
        raw = tiled(size)
        total = sum(1 for _ in walk_raw(raw))
        repeat = 5 if size < 100_000 else 3
        tree = atspi.normalize(raw)
        kept = sum(1 for _ in tree.walk())
        normalize = median_seconds(lambda: atspi.normalize(raw), repeat)
        render = median_seconds(lambda: render_tree(tree), repeat)
        render_all = median_seconds(lambda: render_tree(tree, max_lines=10**7), repeat)
        print(f"{total:>10} {kept:>8} {normalize * 1000:>8.1f}ms {render * 1000:>16.1f}ms {render_all * 1000:>9.1f}ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
