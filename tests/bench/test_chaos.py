"""The chaos run: a sim run and a MiniWoB run under real faults (SIGKILLs, a supervisor killed and
resumed, floods) lose, duplicate and change no result; its parts work on real processes and sockets;
bad options get one clear error each."""

import json
import os
import random
import socket
import subprocess
import sys
from collections import Counter

import pytest

from bench.chaos import ChaosOptions, Flood, render, run_chaos
from bench.chaos.__main__ import main
from bench.chaos.faults import KINDS, SUITE_KINDS, Strike, schedule
from bench.chaos.floods import FloodOutcome, flood, refuses_wrong_token
from bench.chaos.report import tally
from bench.chaos.processes import listening_ports, nodes

SMALL_FLOOD = Flood(connections=40, hold=0.5, handshakes=10)


def test_a_sim_run_under_every_kind_of_fault_loses_duplicates_and_changes_nothing(tmp_path):
    options = ChaosOptions(suite="sim", faults=4, seed=1, flood=SMALL_FLOOD, timeout=240,
                           supervisor_args=("--episodes", "12", "--concurrency", "2", "--scale", "0.05"))
    report = run_chaos(options, tmp_path, say=lambda line: None)
    assert report.by_kind == {kind: 1 for kind in SUITE_KINDS["sim"]}, render(report)
    assert report.episodes == 12 and report.results == 12, render(report)
    assert report.clean and report.environment_errors == 0, render(report)
    assert report.supervisor_starts == 2  # killed once, resumed once
    (node_flood,) = [s.flood for s in report.strikes if s.kind == "node-flood"]
    (viewer_flood,) = [s.flood for s in report.strikes if s.kind == "viewer-flood"]
    assert report.injected == 4
    for outcome in (node_flood, viewer_flood):
        # Each flood hit a live process: a port that died under it was flooded again elsewhere.
        assert outcome.opened == 40 and outcome.reached > 0 and outcome.other_answers == 0, outcome
        assert outcome.refused == 10 or not outcome.listening_after, outcome


def test_a_miniwob_run_with_its_browser_and_a_renderer_killed_loses_nothing(tmp_path):
    options = ChaosOptions(suite="miniwob", faults=2, kinds=("browser", "renderer"), timeout=240,
                           supervisor_args=("--miniwob-tasks", "enter-password", "--miniwob-seeds", "2",
                                            "--concurrency", "2"))
    report = run_chaos(options, tmp_path, say=lambda line: None)
    assert report.by_kind == {"browser": 1, "renderer": 1}, render(report)
    assert report.episodes == 2 and report.clean and report.environment_errors == 0, render(report)


def test_the_schedule_hits_every_kind_and_depends_only_on_the_seed():
    faults = schedule(20, KINDS, 72, random.Random(7))
    assert Counter(f.kind for f in faults) == {kind: n for kind, n in zip(KINDS, (4, 4, 3, 3, 3, 3))}
    assert all(0 <= f.after_results < 72 * 3 // 5 and 0 <= f.delay <= 1 for f in faults)
    assert [f.after_results for f in faults] == sorted(f.after_results for f in faults)
    assert faults == schedule(20, KINDS, 72, random.Random(7)) != schedule(20, KINDS, 72, random.Random(8))


def test_a_flood_is_refused_by_a_real_node_that_keeps_serving_and_a_dead_port_is_seen_as_one():
    node = subprocess.Popen([sys.executable, "-m", "runtime.node", "--app", "actors.backends.sim.node:build"],
                            env={**os.environ, "TROUPE_NODE_TOKEN": "the-token"}, stdout=subprocess.PIPE, text=True)
    try:
        port = int(json.loads(node.stdout.readline())["listening"].rsplit(":", 1)[1])
        assert nodes(os.getpid()) == [node.pid] and listening_ports(node.pid) == [port]
        assert refuses_wrong_token(port)
        outcome = flood(port, SMALL_FLOOD)
        assert (outcome.opened, outcome.not_opened, outcome.refused, outcome.other_answers) == (40, 0, 10, 0)
        assert node.poll() is None and outcome.listening_after
    finally:
        node.kill()
        node.wait()
    gone = flood(port, Flood(connections=1, hold=0, handshakes=1))
    assert (gone.opened, gone.not_opened, gone.unanswered, gone.listening_after) == (0, 1, 1, False)


def test_listening_ports_are_read_from_proc():
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        assert port in listening_ports(os.getpid())
        assert not refuses_wrong_token(port, seconds=0.5)  # listening, but no websocket server
    assert port not in listening_ports(os.getpid())


@pytest.mark.parametrize("argv, error", [
    (["--suite", "sim", "--faults", "-1"], "--faults must be 0 or more, not -1"),
    (["--suite", "sim", "--viewer", "127.0.0.1:9"], "--viewer is set by the chaos run itself"),
    (["--suite", "sim", "--out=x", "--vm=inproc"], "--vm is set by the chaos run itself"),
    (["--suite", "sim", "--kinds", "browser"], "--kinds: browser cannot be injected in a sim run"),
    (["--suite", "sim", "--flood-seconds", "nan"], "a flood's hold must be a finite number of seconds"),
    (["--suite", "sim", "--flood-connections", "10001"], "a flood's connections must be from 0 to 10000"),
    (["--suite", "sim", "--open-files", "10"], "--open-files must be 64 or more"),
    (["--suite", "sim", "--timeout", "inf"], "--timeout must be a finite number of seconds > 0"),
    (["--suite", "waa"], "argument --suite: invalid choice: 'waa'"),
])
def test_bad_options_are_one_line_and_exit_2(argv, error, capsys):
    try:
        status = main(argv)
    except SystemExit as exit:  # argparse's own errors
        status = exit.code
    assert status == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and error in err and err.count("\n") == 1, err


def test_a_flood_no_live_process_answered_is_not_injected_and_the_run_is_not_clean():
    bit = Strike("node-flood", 0, port=1, flood=FloodOutcome(port=1, opened=40, refused=10))
    missed = Strike("viewer-flood", 0, port=2, flood=FloodOutcome(port=2, not_opened=40, unanswered=10,
                                                                 listening_after=False))
    kill = Strike("node", 0, pid=3)
    full = tally("sim", 3, [bit, kill, missed], [], [], supervisor_starts=1, unexpected_exits=(), orphans=0)
    assert (full.injected, full.clean) == (2, False)
    assert render(full).splitlines()[:2] == [
        "faults injected: 2 of 3 (node 1, node-flood 1, viewer-flood 1; 1 flood(s) reached no live process)",
        "wrong-token handshakes that reached a live port: 10 of 20"]
    assert tally("sim", 2, [bit, kill], [], [], supervisor_starts=1, unexpected_exits=(), orphans=0).clean
    assert not Strike("node-flood", 0).injected
