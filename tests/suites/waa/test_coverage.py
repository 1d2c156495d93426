"""What `--list` counts on the shared WAA tasks: every task outside the browser domains
(chrome, msedge) can be set up and evaluated, feasible and infeasible ones counted apart.

The one exception is the Writer task scored by `compare_pdfs`, a metric the browser
tasks share and that lands with them; this test names it so that it cannot hide more."""

from __future__ import annotations

import pytest

from bench.suites.waa.catalog import Catalog
from bench.suites.waa.coverage import coverage

from tests.waa_servers import ROOT

WAA = ROOT.parent / "shared" / "waa" / "evaluation_examples_windows"
BROWSERS = {"chrome", "msedge"}
WITH_THE_BROWSER_METRICS = {"compare_pdfs"}


@pytest.mark.skipif(not WAA.is_dir(), reason=f"the shared WAA data is not at {WAA}")
def test_every_task_outside_the_browser_domains_can_run():
    domains = coverage(Catalog.load(WAA).tasks)
    others = {name: figures for name, figures in domains.items() if name not in BROWSERS}
    assert sum(f.tasks for f in others.values()) == 154 - 30
    for name, figures in others.items():
        for task_id, gap in figures.lacking.items():
            assert not gap.steps and not gap.getters and gap.functions <= WITH_THE_BROWSER_METRICS, (task_id, gap)
        assert figures.runnable + figures.infeasible + len(figures.lacking) == figures.tasks
    assert sum(len(f.lacking) for f in others.values()) <= 1
    assert (sum(f.runnable for f in others.values()), sum(f.infeasible for f in others.values())) in [(110, 13),
                                                                                                       (111, 13)]
