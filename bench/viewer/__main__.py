"""`python -m bench.viewer URL`: follow a run's live steps in a terminal.

URL is what the supervisor printed for `--viewer` (http://HOST:PORT/?token=...)
or the stream's ws:// address. The stream is JSON, so this reads it without
troupe's classes. It reconnects when the run restarts, and a refused token
ends it with the server's reason.
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.parse
from typing import Callable

import anyio

from runtime.websocket import ConnectionClosed, HandshakeError, connect


def stream_url(url: str) -> tuple[str, str | None]:
    """The ws:// URL of the event stream behind a viewer URL, and the token it carries."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "ws"):
        raise ValueError(f"{url}: expected http://HOST:PORT/ or ws://HOST:PORT/ (the URL the run printed)")
    token = urllib.parse.parse_qs(parts.query).get("token", [None])[0]
    return urllib.parse.urlunsplit(("ws", parts.netloc, "/events", "", "")), token


def describe(action: dict) -> str:
    target = action.get("target") or {}
    name = target.get("name") or target.get("node_id")
    kind = action.get("type", "?")
    detail = {"type": f'"{action.get("text")}"', "key": action.get("key"), "answer": f'"{action.get("text")}"',
              "hotkey": "+".join(action.get("keys", ())), "scroll": action.get("direction")}.get(kind)
    return " ".join(str(part) for part in (kind, detail, f"'{name}'" if name else None) if part)


def line(message: dict) -> list[str]:
    """The terminal lines one stream message becomes."""
    match message.get("msg"):
        case "snapshot":
            episodes = message["episodes"]
            running = [c for c in episodes if c["status"] == "running"]
            lines = [f"connected: {len(running)} running, {len(episodes) - len(running)} finished"]
            return lines + [f"  {c['task_id']}  step {len(c['steps'])}  {c['status']}" for c in running]
        case "episode_started":
            card = message["card"]
            return [f"> {card['task_id']} started (attempt {card['attempt']})"]
        case "step_taken":
            record = message["record"]
            error = f"  ERROR {record['error']}" if record.get("error") else ""
            return [f"  {message['task_id']} step {record['step']}: {describe(record['action'])}{error}"]
        case "step_summarized":
            summary = message["summary"]
            return [f"  {message['task_id']} step {summary['step']} changed: {summary['changes']}"]
        case "episode_finished":
            result = message["result"]
            return [f"# {message['task_id']} {message['status']} after {result.get('steps', 0)} steps: "
                    f"{result.get('reason', '')}"]
        case "events_dropped":
            return [f"... {message['count']} events dropped (this terminal was too slow); resynchronizing"]
    return []


async def follow(url: str, token: str | None, out: Callable[[str], None], *, reconnect: bool = True) -> None:
    """Print the stream at `url` until interrupted; reconnect (with backoff) when the run goes away."""
    delay = 0.25
    while True:
        try:
            ws = await connect(url, token=token)
        except HandshakeError as exc:
            raise SystemExit(f"viewer refused: {exc.body or exc}") from None
        except (OSError, TimeoutError) as exc:
            out(f"(no run at {url}: {exc}; retrying)")
        else:
            delay = 0.25
            try:
                while True:
                    for text in line(json.loads(await ws.receive())):
                        out(text)
            except ConnectionClosed as exc:
                out(f"(disconnected: {exc.code} {exc.reason})")
        if not reconnect:
            return
        await anyio.sleep(delay)
        delay = min(delay * 2, 5.0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.viewer", description=__doc__.splitlines()[0])
    parser.add_argument("url", help="the viewer URL the supervisor printed (http://HOST:PORT/?token=...)")
    parser.add_argument("--token", default=None, help="token, if the URL does not carry it")
    parser.add_argument("--once", action="store_true", help="exit when the stream ends instead of reconnecting")
    args = parser.parse_args(argv)
    try:
        url, token = stream_url(args.url)
    except ValueError as exc:
        parser.error(str(exc))
    try:
        anyio.run(lambda: follow(url, args.token or token, lambda text: print(text, flush=True),
                                 reconnect=not args.once))
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
