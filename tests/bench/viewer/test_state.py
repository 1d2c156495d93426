"""Which screen a card shows: a running episode's latest; a finished one's, per suite, the last
screen or the one the deciding action was taken on."""

from bench.viewer.state import thumbnail_step
from protocols import Click, Done, StepRecord, Target

SUBMIT = Click(target=Target(node_id="3", name="Submit"))


def record(step, action):
    return StepRecord(episode_id="t#1", step=step, action=action)


def test_a_running_episode_shows_its_latest_screen_whatever_the_suite():
    steps = [record(1, SUBMIT)]
    for shows_work in (True, False):
        assert thumbnail_step({0, 1}, steps, finished=False, last_screen_shows_work=shows_work) == 1


def test_a_finished_episode_shows_its_last_screen_or_the_one_its_deciding_action_was_taken_on():
    steps = [record(1, SUBMIT), record(2, SUBMIT), record(3, Done())]  # done: the screen after it is recorded too
    assert thumbnail_step({0, 1, 2, 3}, steps, finished=True, last_screen_shows_work=True) == 3
    assert thumbnail_step({0, 1, 2, 3}, steps, finished=True, last_screen_shows_work=False) == 1
    assert thumbnail_step({0, 1, 2}, steps[:2], finished=True, last_screen_shows_work=False) == 1


def test_without_the_deciding_screen_the_latest_is_shown():
    assert thumbnail_step({2, 3}, [record(1, SUBMIT), record(3, Done())], finished=True,
                          last_screen_shows_work=False) == 3
    assert thumbnail_step({0}, [record(1, Done())], finished=True, last_screen_shows_work=False) == 0
    assert thumbnail_step(set(), [], finished=True, last_screen_shows_work=False) is None
