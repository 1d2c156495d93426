import pytest

from bench.suites import SUITES
from bench.suites.base import UnknownTask
from bench.config import RunConfig
from bench.suites.sim.suite import SimOptions, SimSuite, sim_tasks


def sim_suite(**overrides):
    options = SimOptions(**{"episodes": 5, "seed": 1, "scale": 0.0, "agent_error_rate": 0.0, **overrides})
    return SimSuite.from_config(RunConfig(suite="sim", options=options))


def test_unknown_task_id_names_the_closest_ids():
    with pytest.raises(UnknownTask, match=r"sim has no task 'sim-1-00003'; did you mean 'sim-1-0003'"):
        sim_suite().load_task("sim-1-00003")


def test_unknown_task_id_with_nothing_close_says_how_many_there_are():
    with pytest.raises(UnknownTask, match=r"sim has no task 'zzz' \(5 tasks in the suite\)"):
        sim_suite().load_task("zzz")


def test_list_tasks_filters_by_domain_and_load_task_finds_each():
    suite = sim_suite()
    forms = suite.list_tasks(domain="forms")
    assert forms and all(t.domain == "forms" for t in forms)
    assert all(suite.load_task(t.task_id) == t for t in suite.list_tasks())


def test_sim_tasks_are_deterministic_and_goal_counts_are_bounded():
    assert sim_tasks(4, seed=9) == sim_tasks(4, seed=9)
    with pytest.raises(ValueError, match="goals must lie within 2..11"):
        sim_tasks(1, goals=(1, 3))


def test_every_registered_suite_is_named_as_registered():
    assert all(suite.name == name for name, suite in SUITES.items())
