"""What a node's websocket adds to a message, compared with encoding alone.

    python -m bench.perf.wire [--backend asyncio|trio] [--rounds 200] [--size 1048576]

Asks an echo actor hosted by a node served from this same process, over a
loopback websocket, with an `Observed` carrying a screenshot of `--size`
random bytes (incompressible, like a PNG), and prints the median and p90 of
the round trip (client -> node echo actor -> client: two encodes, two
decodes, four websocket frames, masking, the actor's mailbox). As baseline,
in the same process: one encode+decode of the same message without a socket,
and the ratio of the two medians.
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import time
from functools import partial

import anyio

from protocols import Observation, Observed, Viewport, decode, encode
from runtime.actor import Actor
from runtime.node import serve_node
from runtime.remote import connect_node


class Echo(Actor):
    async def handle(self, message):
        return message


def _quantiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]


async def measure(rounds: int, size: int, warmup: int = 10) -> dict[str, float]:
    message = Observed(observation=Observation(
        screenshot=os.urandom(size), viewport=Viewport(1920, 1080), url="https://example.org/form",
    ))

    codec = []
    for _ in range(warmup + rounds):
        started = time.perf_counter()
        _, back = decode(encode("ask", message, id=1, to="echo"))
        codec.append(time.perf_counter() - started)
    assert back == message

    token = secrets.token_urlsafe(16)
    wire = []
    async with anyio.create_task_group() as tg:
        port = await tg.start(partial(serve_node, [Echo("echo")], token=token))
        node = await tg.start(connect_node, f"ws://127.0.0.1:{port}", token)
        echo = node.ref("echo")
        for _ in range(warmup + rounds):
            started = time.perf_counter()
            reply = await echo.ask(message, timeout=10)
            wire.append(time.perf_counter() - started)
        assert reply == message
        tg.cancel_scope.cancel()

    wire_median, wire_p90 = _quantiles(wire[warmup:])
    codec_median, codec_p90 = _quantiles(codec[warmup:])
    return {
        "wire_median": wire_median, "wire_p90": wire_p90,
        "codec_median": codec_median, "codec_p90": codec_p90,
        "ratio": wire_median / codec_median,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.perf.wire", description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=("asyncio", "trio"), default="asyncio")
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--size", type=int, default=2**20, help="screenshot bytes (default 1 MiB)")
    args = parser.parse_args(argv)
    result = anyio.run(measure, args.rounds, args.size, backend=args.backend)
    ms = 1000
    print(f"Observed with a {args.size / 2**20:.2f} MiB screenshot, {args.rounds} rounds, backend {args.backend}")
    print(f"  loopback websocket round trip (client -> node echo actor -> client):"
          f" median {result['wire_median'] * ms:.3f} ms, p90 {result['wire_p90'] * ms:.3f} ms")
    print(f"  encode+decode, no socket (baseline):"
          f" median {result['codec_median'] * ms:.3f} ms, p90 {result['codec_p90'] * ms:.3f} ms")
    print(f"  ratio of medians (round trip / encode+decode): {result['ratio']:.1f}x")


if __name__ == "__main__":
    main()
