"""`python -m bench.viewer URL`: follow a run's live steps in a terminal;
`python -m bench.viewer RUN_DIR [RUN_DIR ...]`: browse finished runs in the live page;
`python -m bench.viewer FOLDER`: browse, search and compare every run under FOLDER.

Given run folders, it serves them read-only on 127.0.0.1 with the page a live
run uses (several folders: compared side by side) and prints the page's URL.
Given one folder that is no run but holds runs (at any depth), it serves a page
listing them, the newest first, with a search over their episodes; any run, or
any selection of them compared, opens in the same page as above.

URL is what the supervisor printed for `--viewer` (http://HOST:PORT/?token=...)
or the stream's ws:// address. The stream is JSON, so this reads it without
troupe's classes. When the run ends (the server says so) it prints how the
episodes finished, once, and exits; `--follow` waits for the next run instead
(a supervisor restarted and resuming, say). A stream that closes before the
run ended says so, with the episodes seen so far. A refused token ends it with
the server's reason; an address where nothing answers, with one line saying so
(with `--follow`, it waits).
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.parse
from pathlib import Path
from typing import Callable

import anyio
from rich.console import Console
from rich.text import Text

from protocols import TroupeError
from actors.run_folder import RESULTS, ResultsError
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


STYLES = {"succeeded": "green", "failed": "red", "environment error": "yellow", "model service error": "yellow",
          "evaluation error": "magenta"}


def line(message: dict) -> list[Text]:
    """The terminal lines one stream message becomes, coloured by what they say."""
    match message.get("msg"):
        case "snapshot":
            episodes = message["episodes"]
            running = [c for c in episodes if c["status"] == "running"]
            earlier = len(message.get("earlier") or {})
            lines = [Text(f"connected: {len(running)} running, {len(episodes) - len(running)} finished"
                          + (f", {earlier} finished before this run resumed" if earlier else ""), "bold")]
            return lines + [Text(f"  {c['task_id']}  step {len(c['steps'])}  {c['status']}") for c in running]
        case "episode_started":
            card = message["card"]
            return [Text(f"> {card['task_id']} started (attempt {card['attempt']})", "cyan")]
        case "step_taken":
            record = message["record"]
            text = Text(f"  {message['task_id']} step {record['step']}: {describe(record['action'])}")
            if record.get("error"):
                text.append(f"  ERROR {record['error']}", "red")
            return [text]
        case "step_summarized":
            summary = message["summary"]
            return [Text(f"  {message['task_id']} step {summary['step']} changed: {summary['changes']}", "dim")]
        case "episode_finished":
            result, status = message["result"], message["status"]
            return [Text(f"# {message['task_id']} {status} after {result.get('steps', 0)} steps: "
                         f"{result.get('reason', '')}", STYLES.get(status, "bold"))]
        case "events_dropped":
            return [Text(f"... {message['count']} events dropped (this terminal was too slow); resynchronizing",
                         "yellow")]
    return []


class Tally:
    """Episodes finished per status, as the stream told them, for the summary at the end; a
    resumed run's snapshot names the episodes it finished before (`earlier`), which count too.
    Keyed by task, so a run seen again after a reconnect is not counted twice."""

    def __init__(self) -> None:
        self.statuses: dict[str, str] = {}
        self._said_end: tuple | None = None

    def see(self, message: dict) -> None:
        match message.get("msg"):
            case "snapshot":
                self.statuses.update(message.get("earlier") or {})
                self.statuses.update({c["task_id"]: c["status"] for c in message["episodes"]
                                      if c["status"] != "running"})
            case "episode_finished":
                self.statuses[message["task_id"]] = message["status"]

    def end(self, message: dict) -> list[Text]:
        """The lines of the run's end (`run_ended`): the summary, pass@k and pass^k of a run with
        repeats, and the command that browses its folder again when the server names it; none when
        this end was said already (a viewer that rejoins an ended run before its server has gone is
        told the end again)."""
        said = (self.summary().plain, message.get("total"), message.get("finished"), message.get("folder"))
        if said == self._said_end:
            return []
        self._said_end = said
        folder = message.get("folder")
        passes = [Text(line) for run in message.get("passes") or [] for line in run]
        return [self.summary(), *passes] + ([Text(f"browse it: python -m bench.viewer {folder}", "dim")] if folder else [])

    def summary(self, head: str = "run ended") -> Text:
        counts: dict[str, int] = {}
        for status in self.statuses.values():
            counts[status] = counts.get(status, 0) + 1
        text = Text(f"{head}: {len(self.statuses)} episodes finished", "bold")
        for status, count in sorted(counts.items()):
            text.append(", ")
            text.append(f"{count} {status}", STYLES.get(status, ""))
        return text


class ViewerRefused(TroupeError):
    """The server refused this viewer (a wrong or missing token); the text is its reason."""


class NoRunThere(TroupeError):
    """Nothing answered at the viewer's address (and the viewer was not told to wait for a run)."""


LOST = "disconnected before the run ended"
"""The summary's head when the stream closed without the server saying the run ended (the
supervisor was killed, say)."""


async def follow(url: str, token: str | None, out: Callable[[Text], None], *, keep_following: bool = False) -> None:
    """Print the stream at `url` until the run ends (the server says so: `run_ended`), then a
    summary, once; with `keep_following`, reconnect (with backoff) to whatever run serves there
    next, until interrupted. A stream that closes before the run ended says so, with the
    episodes seen so far. Without `keep_following`, an address where nothing answers is
    NoRunThere: a mistyped port is said, not retried forever."""
    delay = 0.25
    tally = Tally()
    while True:
        try:
            ws = await connect(url, token=token)
        except HandshakeError as exc:
            raise ViewerRefused(f"viewer refused: {exc.body or exc}") from None
        except (OSError, TimeoutError) as exc:
            if not keep_following:
                raise NoRunThere(f"no run at {url}: {exc or type(exc).__name__} "
                                 f"(--follow waits for one)") from None
            out(Text(f"(no run at {url}: {exc}; retrying)", "dim"))
        else:
            delay = 0.25
            ended = False
            try:
                while True:
                    message = json.loads(await ws.receive())
                    tally.see(message)
                    for text in line(message):
                        out(text)
                    if message.get("msg") == "run_ended":
                        ended = True
                        for text in tally.end(message):
                            out(text)
            except ConnectionClosed as exc:
                if not ended:
                    out(Text(f"(disconnected: {exc.code} {exc.reason})", "dim"))
                if not keep_following:
                    if not ended:
                        out(tally.summary(LOST))
                    return
        await anyio.sleep(delay)
        delay = min(delay * 2, 5.0)


def main(argv: list[str] | None = None, prog: str = "python -m bench.viewer") -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("targets", nargs="+", metavar="URL | RUN_DIR | FOLDER",
                        help="the viewer URL the supervisor printed (http://HOST:PORT/?token=...), "
                             "one or more finished run folders to browse, or a folder of runs")
    parser.add_argument("--token", default=None,
                        help="token, if the URL does not carry it; with run folders, require it of the page")
    parser.add_argument("--follow", action="store_true",
                        help="after the run ends, wait for the next run at the same address instead of exiting")
    parser.add_argument("--port", type=int, default=0, help="with run folders: the port to serve on (default: any)")
    args = parser.parse_args(argv)
    if "://" not in args.targets[0]:
        return serve_folders(parser, [Path(target) for target in args.targets], args.token, args.port)
    if len(args.targets) > 1:
        parser.error("give one viewer URL, or run folders only")
    try:
        url, token = stream_url(args.targets[0])
    except ValueError as exc:
        parser.error(str(exc))
    console = Console(highlight=False)
    try:
        anyio.run(lambda: follow(url, args.token or token, console.print, keep_following=args.follow))
    except (ViewerRefused, NoRunThere) as exc:
        print(exc, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        pass
    return 0


def serve_folders(parser: argparse.ArgumentParser, folders: list[Path], token: str | None, port: int) -> int:
    """Serve finished run folders, or the runs under one folder, until interrupted, after printing
    the page's URL."""
    from bench.run_record import RUN_INFO
    from bench.viewer.catalog import Catalog
    from bench.viewer.catalog_server import CatalogServer
    from bench.viewer.folders import FinishedRuns
    from bench.viewer.server import FinishedRunsServer

    if len(folders) == 1 and folders[0].is_dir() and not any((folders[0] / name).exists() for name in (RESULTS, RUN_INFO)):
        catalog = Catalog(folders[0])
        if not catalog.runs():
            parser.error(f"{folders[0]}: not a run folder (no {RESULTS}), and no run folder under it")
        server = CatalogServer(catalog, token=token)
    else:
        try:
            server = FinishedRunsServer(FinishedRuns(folders), token=token)
        except ResultsError as exc:
            parser.error(str(exc))

    async def serve() -> None:
        async with anyio.create_task_group() as tg:
            bound = await tg.start(server.run, "127.0.0.1", port)
            print(f"viewer: http://127.0.0.1:{bound}/" + (" (add ?token=<the token>)" if token else ""), flush=True)

    refused: OSError | None = None
    try:
        anyio.run(serve)
    except* OSError as group:  # the port is taken, say (raised from the task group)
        refused = group.exceptions[0]
    except* KeyboardInterrupt:
        pass
    if refused is not None:
        parser.error(f"cannot serve on 127.0.0.1:{port}: {refused.strerror or refused}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
