"""A chaos run: a fault-free reference run, then the same run under faults, then the tally.

Both runs are the real command line (`python -m bench.supervisor`) over their
own folder under one chaos folder (`reference/`, `chaos/`, and a log of
each). The faults come from a schedule drawn with a seeded generator; each
waits for its point of the run's progress (results written), then for its
victim to exist. A killed supervisor is started again with the same command,
which resumes its folder, exactly what a person would do.

Everything is bounded: floods by their own limits, a supervisor that exits by
itself (a real bug) is resumed at most `MAX_UNEXPECTED_EXITS` times, and the
whole chaos run by `timeout`, after which the supervisor is killed and the
report says the run timed out.
"""

from __future__ import annotations

import os
import random
import secrets
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Callable

import msgspec

from protocols import TroupeError
from actors.errors import ConfigError
from actors.run_folder import read_results
from bench.chaos.command import SupervisorProcess
from bench.chaos.faults import FLOODS, SUITE_KINDS, SUPERVISOR, VIEWER_FLOOD, Fault, Strike, schedule, strike, target
from bench.chaos.floods import Flood
from bench.chaos.report import ChaosReport, tally

__all__ = ["MAX_UNEXPECTED_EXITS", "SIM_PACE", "ChaosError", "ChaosOptions", "run_chaos"]

MAX_UNEXPECTED_EXITS = 3
SIM_PACE = ("--episodes", "48", "--concurrency", "4", "--scale", "0.2")
"""The sim run's size and speed, unless the flags passed through say otherwise (the last one counts)."""
_POLL = 0.1
_FLOOD_TRIES = 3


class ChaosError(TroupeError):
    """The chaos run could not measure anything: the reference run failed (bad options are a
    ConfigError, refused before anything runs)."""


class ChaosOptions(msgspec.Struct, frozen=True):
    """`supervisor_args` are passed to every `python -m bench.supervisor` unchanged, after the
    suite's defaults (for sim: `--vm node --agent-error-rate 0` and `SIM_PACE`) and before the flags the chaos
    run owns (`--viewer`, `--out`)."""

    suite: str
    faults: int = 10
    seed: int = 0
    flood: Flood = Flood()
    supervisor_args: tuple[str, ...] = ()
    timeout: float = 1800.0
    kinds: tuple[str, ...] = ()
    """The kinds of fault to inject (default: every kind the suite has)."""
    open_files: int | None = None
    """Soft limit of open files of both runs' supervisors and their nodes (default: this process's)."""

    def __post_init__(self) -> None:
        if self.suite not in SUITE_KINDS:
            raise ConfigError(f"--suite must be one of {', '.join(SUITE_KINDS)}, not {self.suite!r}")
        unknown = [kind for kind in self.kinds if kind not in SUITE_KINDS[self.suite]]
        if unknown:
            raise ConfigError(f"--kinds: {', '.join(unknown)} cannot be injected in a {self.suite} run; "
                             f"its kinds are {', '.join(SUITE_KINDS[self.suite])}")
        if self.open_files is not None and self.open_files < 64:
            raise ConfigError(f"--open-files must be 64 or more (a run needs some), not {self.open_files}")
        if self.faults < 0:
            raise ConfigError(f"--faults must be 0 or more, not {self.faults}")
        if not 0 < self.timeout < float("inf"):
            raise ConfigError(f"--timeout must be a finite number of seconds > 0, not {self.timeout}")
        owned = {"--suite", "--out", "--viewer", "--viewer-token", "--vm", "--connect"}
        for arg in self.supervisor_args:
            if arg.partition("=")[0] in owned:
                raise ConfigError(f"{arg.partition('=')[0]} is set by the chaos run itself; leave it out")

    def command(self, *, viewer: bool) -> list[str]:
        args = ["--suite", self.suite]
        if self.suite == "sim":
            # Node processes to kill; an agent that makes no random wrong clicks (they are drawn
            # per attempt, so an episode retried after a fault would be another episode); and a run
            # of about a minute (the supervisor's defaults finish in seconds, too soon for 20 faults).
            args += ["--vm", "node", "--agent-error-rate", "0", *SIM_PACE]
        args += self.supervisor_args
        if viewer:
            args += ["--viewer", "127.0.0.1:0"]
        return args


def run_chaos(options: ChaosOptions, folder: Path, say: Callable[[str], None] = print) -> ChaosReport:
    """Run the reference, then the chaos run, in `folder`; return the tally."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + options.timeout
    reference = SupervisorProcess(options.command(viewer=False), folder / "reference", folder / "reference.log",
                                  open_files=options.open_files)
    say(f"reference run, no faults: {' '.join(reference.argv[1:])}")
    reference.start()
    try:
        reference.wait(max(1.0, deadline - time.monotonic()))
    except TimeoutError:
        reference.kill()
        raise ChaosError(f"the reference run did not finish within --timeout {options.timeout:g} s") from None
    expected = read_results(reference.out)
    if not expected:
        raise ChaosError(f"the reference run wrote no result; see {reference.log}")
    kinds = options.kinds or SUITE_KINDS[options.suite]
    rng = random.Random(options.seed)
    faults = schedule(options.faults, kinds, len(expected), rng)
    # A viewer with a token, so a flood's wrong-token handshakes have something to be refused by;
    # the token travels in the environment, never on a command line /proc would show.
    env = {**os.environ, "TROUPE_VIEWER_TOKEN": secrets.token_urlsafe(16)}
    command = SupervisorProcess(options.command(viewer=VIEWER_FLOOD in kinds), folder / "chaos",
                                folder / "chaos.log", env, open_files=options.open_files)
    say(f"chaos run, {len(faults)} faults (seed {options.seed}): {' '.join(command.argv[1:])}")
    chaos = _Chaos(command, len(expected), options.flood, rng, deadline, say)
    chaos.run(faults)
    return tally(options.suite, len(faults), chaos.strikes, expected, read_results(command.out),
                 supervisor_starts=command.starts, unexpected_exits=chaos.unexpected, orphans=chaos.orphans,
                 timed_out=chaos.timed_out)


class _Chaos:
    """The chaos run in progress: the supervisor, and what has been done to it."""

    def __init__(self, command: SupervisorProcess, episodes: int, flood: Flood, rng: random.Random,
                 deadline: float, say: Callable[[str], None]) -> None:
        self.command, self.episodes, self.flood = command, episodes, flood
        self.rng, self.deadline, self.say = rng, deadline, say
        self.strikes: list[Strike] = []
        self.faults = 0
        self.unexpected: list[int] = []
        self.orphans = 0
        self.timed_out = False
        self.over = False
        """Set once the run has ended: floods still waiting for a victim give up."""

    def run(self, faults: list[Fault]) -> None:
        """Strike `faults` in order, then wait for the run to end. A flood runs in a thread of
        its own, so the faults after it keep their moments."""
        self.command.start()
        struck: list[Strike | Future[Strike]] = []
        with ThreadPoolExecutor(max_workers=2, thread_name_prefix="flood") as floods:
            for fault in faults:
                if not self._wait_until(lambda: self.command.results_written() >= fault.after_results):
                    break
                time.sleep(fault.delay)
                one = self._strike(fault.kind, floods)
                if one is None:
                    break
                struck.append(one)
            self._wait_until(lambda: False)
            self.over = True
        self.strikes = [s.result() if isinstance(s, Future) else s for s in struck]

    def _strike(self, kind: str, floods: ThreadPoolExecutor) -> Strike | Future[Strike] | None:
        """Strike `kind` as soon as it has a victim; None if every result was in first (a fault
        after that would hit a run that only writes its summary, and tell nothing of results)."""
        while self._running() and (before := self.command.results_written()) < self.episodes:
            victim = target(kind, self.command.pid, self.rng)
            if victim is None:
                time.sleep(_POLL)
                continue
            if kind in FLOODS:
                struck = floods.submit(self._flood_live, kind, before, random.Random(self.rng.random()))
            elif kind == SUPERVISOR:
                self.orphans += self.command.kill()
                self.command.start()
                struck = Strike(kind, before, pid=victim)
            elif (struck := strike(kind, victim, before, self.flood)) is None:
                continue  # the victim was gone already; find another
            self.faults += 1
            self.say(f"  fault {self.faults}: {kind} " + ("(a port of a live process, chosen as the flood starts)"
                     if kind in FLOODS else f"pid {victim}") + f" after {before} results")
            return struck
        return None

    def _flood_live(self, kind: str, before: int, rng: random.Random) -> Strike:
        """Flood a port of `kind` whose process is alive as the flood starts (a flood waits for a
        thread, and a supervisor killed meanwhile takes its viewer's port away); one that no live
        process answered is tried again on a port found afresh, at most `_FLOOD_TRIES` times,
        while the run goes on."""
        struck = Strike(kind, before)
        for _ in range(_FLOOD_TRIES):
            port = None
            while not self.over and port is None:
                port = target(kind, self.command.pid, rng)
                if port is None:
                    time.sleep(_POLL)
            if port is None:
                break
            struck = strike(kind, port, before, self.flood)
            if struck.injected:
                break
        return struck

    def _wait_until(self, condition: Callable[[], bool]) -> bool:
        """True once `condition` holds; False if the run ended first."""
        while self._running():
            if condition():
                return True
            time.sleep(_POLL)
        return False

    def _running(self) -> bool:
        """Whether the supervisor runs (resuming it if it died unasked); False once the run is over."""
        if time.monotonic() > self.deadline:
            if self.command.exit_code() is None:
                self.command.kill()
                self.timed_out = True
            return False
        code = self.command.exit_code()
        if code is None:
            return True
        if code == 0:
            return False
        self.unexpected.append(code)
        if len(self.unexpected) > MAX_UNEXPECTED_EXITS:
            self.say(f"  the supervisor exited by itself with status {code}, {len(self.unexpected)} times; giving up")
            return False
        self.say(f"  the supervisor exited by itself with status {code}; resuming the run")
        self.command.start()
        return True
