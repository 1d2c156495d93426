"""Desktop capture and step costs on a real Xvfb display.

1. Screenshot of an idle Mousepad window at 1280x800 and 1920x1080: median
   of each part — grab (mss, one reused instance), PNG encode (level 1) and
   JPEG encode (quality 80) — and the sizes.
2. Step overhead on the X11 backend: act (a key press through XTEST on the
   desktop's own connection) + settle (30 ms without drawing, seen through
   DAMAGE) + observe (screenshot, window details and AT-SPI tree,
   concurrently), median over steps; in turns, on the same desktop, the same
   step with the key sent by an xdotool process and the settle taken by
   comparing two frames 30 ms apart (`Screen.settle`), as a baseline.

    .venv/bin/python -m bench.perf.desktop [--steps 20] [--shots 15]
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time

import anyio

from actors.observer import Observer
from actors.backends.input_plan import Plan
from actors.backends.screenshots import Encoding
from actors.backends.x11 import xdotool
from actors.backends.x11.desktop import X11Desktop
from bench.suites.desktop.suite import TASKS, to_task
from protocols import Acted, Key


def _median_ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:7.1f} ms"


async def screenshots(width: int, height: int, shots: int) -> None:
    desktop = X11Desktop(width, height)
    try:
        await desktop.reset(to_task(TASKS[0]), 1)
        screen = desktop.screen
        grab, png, jpeg, sizes = [], [], [], {}
        for _ in range(shots):
            frame = screen.grab_sync()
            grab.append(frame.grab_seconds)
            for encoding, times in ((Encoding("png"), png), (Encoding("jpeg"), jpeg)):
                began = time.perf_counter()
                sizes[encoding.format] = len(screen.encode_sync(frame, encoding))
                times.append(time.perf_counter() - began)
        print(f"{width}x{height}: grab {_median_ms(grab)} | png(level 1) {_median_ms(png)} "
              f"({sizes['png'] // 1024} KiB) | jpeg(q80) {_median_ms(jpeg)} ({sizes['jpeg'] // 1024} KiB)")
    finally:
        desktop.close()


async def _xdotool_act(desktop: X11Desktop, step: int, action: Key) -> Acted:
    """The baseline's act: an xdotool process sends the key, then two frames 30 ms apart must agree."""
    began = anyio.current_time()
    for command in xdotool.commands(Plan(*desktop.size).ops(action)):
        await anyio.run_process(["xdotool", *command], env=desktop.session.env)
    acted = anyio.current_time()
    return Acted(duration=acted - began, settle=await desktop.screen.settle(bound=desktop.settle_bound))


async def step_overhead(steps: int) -> None:
    desktop = X11Desktop(1280, 800)
    observer = Observer(desktop)
    ways = {"XTEST + DAMAGE": desktop.act, "xdotool + two frames (baseline)": functools.partial(_xdotool_act, desktop)}
    try:
        await desktop.reset(to_task(TASKS[0]), 1)
        await observer.capture(30)
        parts = {way: ([], [], [], []) for way in ways}
        for step in range(1, 2 * steps + 1):
            way = list(ways)[step % 2]
            act, settle, observe, total = parts[way]
            began = time.perf_counter()
            acted = await ways[way](step, Key(key="a" if (step // 2) % 2 else "backspace"))
            acted_at = time.perf_counter()
            observation = await observer.capture(30)
            done = time.perf_counter()
            assert acted.error is None and not observation.partial
            act.append(acted.duration)
            settle.append(acted.settle)
            observe.append(done - acted_at)
            total.append(done - began)
        for way, (act, settle, observe, total) in parts.items():
            print(f"X11 step overhead over {steps} steps, {way}: total {_median_ms(total)} = act {_median_ms(act)} "
                  f"+ settle {_median_ms(settle)} + observe {_median_ms(observe)} "
                  f"(tree {len(list(observation.tree.walk()))} nodes)")
    finally:
        desktop.close()


async def main(args: argparse.Namespace) -> None:
    for width, height in ((1280, 800), (1920, 1080)):
        await screenshots(width, height, args.shots)
    await step_overhead(args.steps)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.perf.desktop", description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--shots", type=int, default=15)
    anyio.run(main, parser.parse_args())
