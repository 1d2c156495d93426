"""`python -m bench.chaos --suite miniwob|sim [--faults N]`: run a suite under faults and say what was lost.

Flags it does not know are passed to `python -m bench.supervisor` unchanged
(`--concurrency 4`, `--episodes 40`, `--miniwob-seeds 2`, ...). Exit status 0
when nothing was lost or duplicated and no verdict differs, 1 otherwise, 2 on
bad input.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import NoReturn

from bench.chaos.faults import SUITE_KINDS
from bench.chaos.floods import Flood
from bench.chaos.report import render
from bench.chaos.run import ChaosError, ChaosOptions, run_chaos


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(2, f"error: {message}\n")


def main(argv: list[str] | None = None, prog: str = "python -m bench.chaos") -> int:
    defaults = Flood()
    parser = _Parser(prog=prog, description=__doc__.split("\n\n")[0],
                     epilog="Other flags are passed to python -m bench.supervisor unchanged.",
                     allow_abbrev=False)  # an abbreviated supervisor flag must not become one of ours
    parser.add_argument("--suite", required=True, choices=sorted(SUITE_KINDS))
    parser.add_argument("--faults", type=int, default=10, help="faults to inject (default: 10)")
    parser.add_argument("--kinds", default="",
                        help="comma-separated kinds of fault to inject (default: all the suite has: "
                             + "; ".join(f"{suite}: {','.join(kinds)}" for suite, kinds in sorted(SUITE_KINDS.items()))
                             + ")")
    parser.add_argument("--seed", type=int, default=0, help="seed of the fault schedule (default: 0); the sim tasks keep the "
                                                              "supervisor's own default seed")
    parser.add_argument("--out", type=Path, default=None,
                        help="chaos folder: reference/ and chaos/ run folders and their logs (default: a new "
                             "temporary folder); an existing one is resumed")
    parser.add_argument("--flood-connections", type=int, default=defaults.connections,
                        help=f"idle connections per flood (default: {defaults.connections})")
    parser.add_argument("--flood-seconds", type=float, default=defaults.hold,
                        help=f"seconds a flood holds them (default: {defaults.hold:g})")
    parser.add_argument("--flood-handshakes", type=int, default=defaults.handshakes,
                        help=f"wrong-token websocket handshakes per flood (default: {defaults.handshakes})")
    parser.add_argument("--open-files", type=int, default=None,
                        help="soft limit of open files for the supervisors and their nodes, e.g. 1024, the "
                             "common default (default: this process's)")
    parser.add_argument("--timeout", type=float, default=1800.0,
                        help="seconds the whole chaos run may take (default: 1800)")
    args, supervisor_args = parser.parse_known_args(argv)
    try:
        flood = Flood(connections=args.flood_connections, hold=args.flood_seconds,
                      handshakes=args.flood_handshakes)
        options = ChaosOptions(suite=args.suite, faults=args.faults, seed=args.seed, flood=flood,
                               supervisor_args=tuple(supervisor_args), timeout=args.timeout,
                               open_files=args.open_files,
                               kinds=tuple(kind.strip() for kind in args.kinds.split(",") if kind.strip()))
    except ValueError as exc:  # a ConfigError, or Flood's own check
        print(f"error: {exc}", file=sys.stderr)
        return 2
    folder = args.out or Path(tempfile.mkdtemp(prefix="troupe-chaos-"))
    try:
        report = run_chaos(options, folder)
    except ChaosError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(render(report))
    print(f"chaos folder: {folder}")
    return 0 if report.clean else 1


if __name__ == "__main__":
    sys.exit(main())
