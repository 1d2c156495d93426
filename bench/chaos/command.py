"""`python -m bench.supervisor` as a child process the chaos run can kill and start again.

The chaos run drives the real command line, as a person would: same flags,
same run folder, and after a SIGKILL the very same command again, which
resumes the folder. What a killed supervisor leaves running (nodes,
browsers) is counted, since nothing else would ever stop it, and then
killed so the host stays bounded.
"""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

from actors.run_folder import RESULTS
from bench.chaos import processes
from runtime.process_tree import end_processes, found

__all__ = ["SupervisorProcess"]

_ORPHAN_GRACE = 3.0
"""Seconds the processes of a killed supervisor get to notice and exit by themselves."""


class SupervisorProcess:
    """One supervisor command line over one run folder, logging to `log` (appended)."""

    def __init__(self, args: list[str], out: Path, log: Path, env: dict[str, str] | None = None,
                 open_files: int | None = None) -> None:
        """`open_files`, if given, is the soft limit of open files of the supervisor and of
        everything it starts (1,024 is common), so a flood meets the limit a real host has."""
        self.out = Path(out)
        self.argv = [sys.executable, "-m", "bench.supervisor", *args, "--out", str(self.out)]
        self.log = Path(log)
        self.env = env
        self.open_files = open_files
        self.starts = 0
        self._process: subprocess.Popen | None = None

    @property
    def pid(self) -> int:
        assert self._process is not None, "not started"
        return self._process.pid

    def start(self) -> None:
        """Start the command (again: a resume, when the folder has results)."""
        with self.log.open("ab") as log:
            log.write(f"--- start {self.starts + 1}: {' '.join(self.argv)}\n".encode())
            self._process = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL, stdout=log,
                                             stderr=subprocess.STDOUT, env=self.env,
                                             preexec_fn=self._limit_open_files if self.open_files else None)
        self.starts += 1

    def _limit_open_files(self) -> None:
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        soft = self.open_files if hard == resource.RLIM_INFINITY else min(self.open_files, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))

    def exit_code(self) -> int | None:
        """The exit status once the process ended (negative: the signal that ended it), else None."""
        return None if self._process is None else self._process.poll()

    def wait(self, timeout: float | None = None) -> int:
        assert self._process is not None, "not started"
        return self._process.wait(timeout)

    def kill(self) -> int:
        """SIGKILL the supervisor; return how many of its processes outlived it (those are killed too)."""
        below = found(processes.tree(self.pid))
        self._process.kill()
        self._process.wait()
        return len(end_processes(below, grace=_ORPHAN_GRACE))

    def results_written(self) -> int:
        """Lines in the run folder's results.jsonl so far (the run's progress)."""
        try:
            return (self.out / RESULTS).read_bytes().count(b"\n")
        except FileNotFoundError:
            return 0
