"""Desktop capture and step costs on a real Xvfb display.

1. Screenshot of an idle Mousepad window at 1280x800 and 1920x1080: median
   of each part — grab (mss, one reused instance), PNG encode (level 1) and
   JPEG encode (quality 80) — and the sizes.
2. Step overhead on the X11 backend: act (a key press through xdotool/XTEST)
   + settle + observe (screenshot, window details and AT-SPI tree,
   concurrently), median over steps.

    .venv/bin/python -m bench.perf.desktop [--steps 20] [--shots 15]
"""

from __future__ import annotations

import argparse
import statistics
import time

import anyio

from actors.observer import Observer
from actors.backends.screenshots import Encoding
from actors.backends.x11.desktop import X11Desktop
from bench.suites.desktop.suite import TASKS, to_task
from protocols import Key


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


async def step_overhead(steps: int) -> None:
    desktop = X11Desktop(1280, 800)
    observer = Observer(desktop)
    try:
        await desktop.reset(to_task(TASKS[0]), 1)
        await observer.capture(30)
        act, settle, observe, total = [], [], [], []
        for step in range(1, steps + 1):
            began = time.perf_counter()
            acted = await desktop.act(step, Key(key="a" if step % 2 else "backspace"))
            acted_at = time.perf_counter()
            observation = await observer.capture(30)
            done = time.perf_counter()
            assert acted.error is None and not observation.partial
            act.append(acted.duration)
            settle.append(acted.settle)
            observe.append(done - acted_at)
            total.append(done - began)
        print(f"X11 step overhead over {steps} steps: total {_median_ms(total)} = act {_median_ms(act)} "
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
