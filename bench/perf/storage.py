"""Bytes a run folder stores per step: screenshots one file per step against each distinct image once.

Runs a MiniWoB++ selection (real Chromium) and a Linux desktop selection (real Xvfb) with their
scripted agents, once keeping every screenshot and once each of the other `--screenshots` choices,
then keeping every screenshot in each lossy `--screenshot-format` (WebP, JPEG at the default
quality), and for each run folder says, per step taken:

- one file per step: the bytes of its step-NNN.png files counted one by one, as the layout that
  wrote each step its own PNG stored them (the same images, measured in the same process);
- stored: the bytes on disk of the distinct images (`actors.screens`: each step's file is a
  hard link to one stored copy), lossless or lossy as the run stored them;
- folder: everything the run folder holds, each file once (steps, observations, results, report).

    .venv/bin/python -m bench.perf.storage [--miniwob-tasks 6] [--desktop-tasks 3] [--out DIR]
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

import bench
from actors.screens import FORMATS, SCREENSHOTS
from bench.suites.desktop.suite import TASKS
from bench.suites.miniwob.suite import DEFAULT_TASKS

__all__ = ["Stored", "main", "measure"]


class Stored:
    """What one run folder holds, in bytes."""

    def __init__(self, folder: Path) -> None:
        shots = [path.stat() for path in folder.glob("episodes/**/step-[0-9][0-9][0-9].*")]
        self.per_step_files = sum(stat.st_size for stat in shots)
        self.screenshots = sum({stat.st_ino: stat.st_size for stat in shots}.values())
        files = {path.stat().st_ino: path.stat().st_size for path in folder.rglob("*") if path.is_file()}
        self.folder = sum(files.values())
        self.images = len(shots)
        self.distinct = len({stat.st_ino for stat in shots})


def _line(label: str, steps: int, figures: Stored, baseline: Stored | None) -> str:
    def per_step(value: int) -> str:
        return f"{value / steps / 1024:8.1f} KiB"

    saved = "" if baseline is None or not baseline.per_step_files else (
        f"  ({1 - figures.screenshots / baseline.per_step_files:.0%} less than one file per step)")
    return (f"  {label:<43} {figures.images:4d} step files, {figures.distinct:4d} distinct | "
            f"screenshots stored {per_step(figures.screenshots)} per step{saved} | folder {per_step(figures.folder)}")


def measure(suite: str, options: dict, root: Path) -> None:
    runs = {f"--screenshots {keep}": bench.run_sync(suite, options=options, screenshots=keep,
                                                    out=root / f"{suite}-{keep}")
            for keep in SCREENSHOTS}
    runs |= {f"--screenshots all --screenshot-format {lossy}": bench.run_sync(
        suite, options=options, screenshot_format=lossy, out=root / f"{suite}-all-{lossy}") for lossy in FORMATS[1:]}
    every = runs["--screenshots all"]
    steps = sum(line.result.steps for line in every.results)
    everything = Stored(every.folder)
    print(f"{suite}: {len(every.results)} episodes, {steps} steps")
    print(f"  one file per step (each step its own PNG): {everything.per_step_files / steps / 1024:8.1f} KiB "
          f"of screenshots per step")
    for keep, run in runs.items():
        print(_line(keep, steps, Stored(run.folder), everything))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.perf.storage", description=__doc__.splitlines()[0])
    parser.add_argument("--miniwob-tasks", type=int, default=6, help="MiniWoB++ tasks of the default selection")
    parser.add_argument("--desktop-tasks", type=int, default=3, help="Linux desktop tasks")
    parser.add_argument("--out", type=Path, default=None, help="where the run folders go (default: a temporary one)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="troupe-storage-") as temporary:
        root = args.out or Path(temporary)
        measure("miniwob", {"tasks": list(DEFAULT_TASKS[: args.miniwob_tasks]), "seeds": 1}, root)
        measure("desktop", {"task": [task["id"] for task in TASKS[: args.desktop_tasks]]}, root)
        linked = any(os.stat(path).st_nlink > 1 for path in root.glob("*-all/screens/*/*.png"))
        print(f"(steps link their stored image: {'yes' if linked else 'no, the filesystem made copies'})")


if __name__ == "__main__":
    main()
