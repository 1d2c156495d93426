"""`troupe`: the console command, one subcommand per program of the harness.

Each subcommand is the `python -m` module beside it, started with its own
arguments and its prog name, so both spellings parse, help and fail alike:

    troupe run ...       python -m bench.supervisor ...
    troupe list ...      python -m bench.supervisor --list ...
    troupe view ...      python -m bench.viewer ...
    troupe compare ...   python -m bench.compare ...
    troupe report ...    python -m bench.report ...
    troupe chaos ...     python -m bench.chaos ...

A subcommand's module is imported only when it is chosen.
"""

from __future__ import annotations

import importlib
import sys

import bench
from bench.installation import DISTRIBUTION

__all__ = ["COMMANDS", "main"]

# subcommand -> (module whose main(argv, prog) runs it, arguments put first, what it does)
COMMANDS: dict[str, tuple[str, tuple[str, ...], str]] = {
    "run": ("bench.supervisor", (), "run a suite's episodes and write a run folder"),
    "list": ("bench.supervisor", ("--list",), "list a suite's tasks, and the agents and suites there are"),
    "view": ("bench.viewer.__main__", (), "watch a live run, or browse and compare finished run folders"),
    "compare": ("bench.compare", (), "compare run folders in the terminal"),
    "report": ("bench.report", (), "write a run folder's report.html again (--inline: screenshots inside)"),
    "chaos": ("bench.chaos.__main__", (), "run a suite under injected faults and say what was lost"),
}


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = [f"  {name:<{width}}  {summary}" for name, (_, _, summary) in COMMANDS.items()]
    return "\n".join(["usage: troupe {" + ",".join(COMMANDS) + "} ... | troupe --version", "",
                      "Run GUI-agent benchmark episodes with troupe's actors, and look at the results.", "",
                      "commands:", *lines, "",
                      "`troupe COMMAND --help` says what a command takes."])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(usage(), file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    if argv[0] in ("-V", "--version"):
        print(f"{DISTRIBUTION} {bench.__version__}")
        return 0
    command, *rest = argv
    if command not in COMMANDS:
        print(f"error: troupe {command!r}: no such command (choose from {', '.join(COMMANDS)})", file=sys.stderr)
        return 2
    module, first, _ = COMMANDS[command]
    return importlib.import_module(module).main([*first, *rest], prog=f"troupe {command}")


if __name__ == "__main__":
    sys.exit(main())
