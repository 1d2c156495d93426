"""Record the UI Automation tree of the foreground window as fixture data.

On a Windows machine with troupe installed (`pip install uiautomation`):

    python -m actors.backends.windows.record --delay 3 --out notepad.json

switch to the window to record during the delay. The file holds the raw
tree exactly as the backend reads it (actors.backends.windows.uia.read_control), so
it can be added under tests/fixtures/ and normalized on any platform.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import anyio

from actors.backends.treewalk import Walk, WalkLimits
from actors.backends.windows.uia import ComThread, capture


def main(argv: list[str] | None = None) -> int:  # pragma: no cover - needs Windows
    parser = argparse.ArgumentParser(prog="python -m actors.backends.windows.record", description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="JSON file to write")
    parser.add_argument("--delay", type=float, default=3.0, help="seconds to switch to the window first")
    parser.add_argument("--max-nodes", type=int, default=200_000)
    parser.add_argument("--seconds", type=float, default=600.0, help="time limit of the walk")
    args = parser.parse_args(argv)
    if sys.platform != "win32":
        parser.error("recording UI Automation trees needs Windows")
    time.sleep(args.delay)
    walk = Walk(WalkLimits(max_nodes=args.max_nodes, max_children=100_000, max_depth=200, seconds=args.seconds))
    raw = anyio.run(capture, ComThread(), walk)
    with open(args.out, "w", encoding="utf-8") as out:
        json.dump(raw, out, ensure_ascii=False)
    print(f"recorded {walk.nodes} nodes to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
