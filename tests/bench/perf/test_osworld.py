"""bench.perf.osworld on a one-task folder: one fresh local desktop, a line per domain with its medians."""

from __future__ import annotations

import json

from bench.perf.osworld import main


def test_prints_the_medians_per_domain_beside_osworlds_sleeps(tmp_path, capsys):
    (tmp_path / "examples" / "os").mkdir(parents=True)
    (tmp_path / "test_all.json").write_text(json.dumps({"os": ["t"]}))
    (tmp_path / "examples" / "os" / "t.json").write_text(json.dumps({
        "instruction": "Turn on Bluetooth.", "config": [], "evaluator": {"func": "infeasible"}}))
    main(["--osworld-tasks", str(tmp_path)])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["domain", "tasks", "reset", "median", "evaluate", "median", "OSWorld", "sleeps"]
    domain, tasks, reset, _, evaluate, _, sleeps, _ = lines[1].split()
    assert (domain, tasks, sleeps) == ("os", "1", "80") and 0 < float(reset) < 30 and float(evaluate) >= 0
    assert len(lines) == 2  # no environment errors
