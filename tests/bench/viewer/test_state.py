"""Which screen a card shows: a running episode's latest; a finished one's, per suite, the last
screen or the one the deciding action was taken on. How far a run is, as a page is told."""

from bench.viewer.state import ViewerState, thumbnail_step
from protocols import Click, Done, EpisodeFinished, EpisodeResult, EpisodeStarted, StepRecord, Target, Task

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


def test_a_snapshot_says_how_far_the_run_is_and_how_long_each_card_has_run():
    now = [100.0]
    state = ViewerState(total=4, earlier={"t0": EpisodeResult(episode_id="t0#1", task_id="t0", success=True)},
                        clock=lambda: now[0])
    task = Task(task_id="t1", instruction="Click 'Submit'.")
    now[0] = 110.0
    state.apply(EpisodeStarted(episode_id="t1#1", task_id="t1", attempt=1, at=5.0, task=task))
    now[0] = 125.0  # a page joining now: the card has waited 15 s for its first step
    snapshot = state.snapshot()
    assert (snapshot["total"], snapshot["finished"], snapshot["elapsed"]) == (4, 0, 25.0)
    assert snapshot["earlier"] == {"t0": "succeeded"} and snapshot["episodes"][0]["age"] == 15.0
    update = state.apply(EpisodeFinished(result=EpisodeResult(episode_id="t1#1", task_id="t1")))
    assert update["finished"] == 1 and state.ended() == {"msg": "run_ended", "total": 4, "finished": 1,
                                                          "elapsed": 25.0, "passes": [[]]}  # no repeats


def test_a_live_run_with_repeats_says_its_pass_at_k_and_pass_hat_k_as_episodes_finish_even_forgotten_ones():
    state = ViewerState(keep_finished=1)
    for repeat, success in ((1, True), (2, False)):
        update = state.apply(EpisodeFinished(result=EpisodeResult(
            episode_id=f"t1~{repeat}#1", task_id="t1", repeat=repeat, success=success)))
    assert len(state.cards) == 1  # the first repeat's card is forgotten, its verdict still counts
    assert update["passes"] == state.snapshot()["passes"] == [[
        "1 tasks x 2 repeats; pass@k (at least one of k repeats solves a task): k=1 50%, k=2 100%",
        "pass^k (all k repeats solve it): k=1 50%, k=2 0%"]]


def test_a_resumed_runs_pass_at_k_counts_the_results_its_folder_held_with_this_runs():
    earlier = {"t1": EpisodeResult(episode_id="t1#1", task_id="t1", success=True),
               "t2": EpisodeResult(episode_id="t2#1", task_id="t2", success=False)}
    state = ViewerState(earlier=earlier)
    assert state.snapshot()["earlier"] == {"t1": "succeeded", "t2": "failed"}
    for task_id in ("t1", "t2"):
        update = state.apply(EpisodeFinished(result=EpisodeResult(
            episode_id=f"{task_id}~2#1", task_id=task_id, repeat=2, success=False)))
    assert update["passes"] == state.ended()["passes"] == [[
        "2 tasks x 2 repeats; pass@k (at least one of k repeats solves a task): k=1 25%, k=2 50%",
        "pass^k (all k repeats solve it): k=1 25%, k=2 0%"]]
