"""Episode error analysis with and without an LLM, the classifier's parser, and run-level counts."""

import json

import anyio
import pytest

from actors.evaluator import Evaluator
from actors.llm.analysis import LLMAnalyst, parse_classification
from actors.llm.replies import ReplyError
from actors.run_folder import ResultLine
from bench.suites.sim.checker import SimChecker
from tests.fake_llm import FakeLLM, Reply
from bench.taxonomy import taxonomy
from protocols import (
    Analyze, ChangeSummary, Click, EpisodeResult, ErrorKind, Observation, StepRecord, Target, Task, UIElement,
)
from runtime.actor import spawn
from tests.llm_crew import CLASSIFICATION, llm_client, prompt_text

TASK = Task(task_id="t1", instruction="Click 'Submit'.", domain="forms")
CLICK = Click(target=Target(node_id="w3"))
STEPS = tuple(
    StepRecord(episode_id="t1#1", step=n, action=CLICK, reasoning="the button is w3", changed=False,
               summary=ChangeSummary(step=n, changes="nothing changed", correct=False))
    for n in (1, 2, 3)
)
FAILED = EpisodeResult(episode_id="t1#1", task_id="t1", domain="forms", steps=3, error_kind=ErrorKind.AGENT,
                       reason="step limit of 3 reached; 'Submit' is not clicked")
FINAL = Observation(tree=UIElement(node_id="root", role="window", name="Form"), url="http://form")


def test_a_well_formed_reply_is_parsed_whole():
    categories, explanation, summary = parse_classification(CLASSIFICATION)
    assert categories == {"navigation_planning": 0.9, "reasoning": 0.2}
    assert (explanation, summary) == ("stopped early", "gave up before submitting")


def test_a_partial_reply_is_completed_and_unknown_names_dropped():
    categories, explanation, summary = parse_classification(
        'Here: {"categories": {"interaction_execution": 1.7, "misclicks": 1, "system": -1}}')
    assert categories == {"interaction_execution": 1.0, "system": 0.0}
    assert (explanation, summary) == ("", "interaction_execution")
    assert parse_classification('{"categories": ["reasoning"]}')[0] == {"reasoning": 1.0}


@pytest.mark.parametrize("reply, error", [
    ("it failed because of planning", "no JSON object"),
    ('{"categories": {"reasoning": 0.5', "no JSON object"),
    ('{"explanation": "x"}', "missing required field `categories`"),
    ('{"categories": {"reasoning": "high"}}', "score of 'reasoning' must be a number"),
    ('{"categories": {"misclicks": 1}}', "`categories` names none of"),
])
def test_a_malformed_reply_is_refused_with_what_was_wrong(reply, error):
    with pytest.raises(ReplyError, match=error):
        parse_classification(reply)


async def analyze(evaluator: Evaluator, result: EpisodeResult = FAILED, final=FINAL):
    async with anyio.create_task_group() as tg:
        ref = await spawn(tg, evaluator)
        reply = await ref.ask(Analyze(task=TASK, result=result, steps=STEPS, final=final))
        tg.cancel_scope.cancel()
    return reply.analysis


@pytest.mark.anyio
async def test_without_an_llm_the_deterministic_signals_stand_alone():
    analysis = await analyze(Evaluator(SimChecker()))
    assert "same action repeated 3 times without effect" in analysis.signals
    assert "step limit reached" in analysis.signals
    assert analysis.categories == {"interaction_execution": 1.0, "navigation_planning": 1.0}


@pytest.mark.anyio
async def test_the_llm_classifier_sees_the_whole_episode_and_keeps_the_signals():
    with FakeLLM([CLASSIFICATION]) as server:
        analysis = await analyze(Evaluator(SimChecker(), analyst=LLMAnalyst(llm_client(server))))
    assert analysis.categories == {"navigation_planning": 0.9, "reasoning": 0.2}
    assert analysis.summary == "gave up before submitting" and analysis.analysis == "stopped early"
    assert "same action repeated 3 times without effect" in analysis.signals
    prompt = prompt_text(server.requests[0])
    for seen in ("Goal: Click 'Submit'.", "step limit of 3 reached", "Failure signals: ", "reasoning: the button is w3",
                 "the screen did not change", "reviewer: nothing changed; correct: False",
                 "Final screen:\nURL: http://form", '"type":"click"'):
        assert seen in prompt


@pytest.mark.anyio
async def test_a_classifier_that_cannot_answer_leaves_the_deterministic_analysis_with_the_reason():
    with FakeLLM(["no idea", "still no idea"]) as server:
        analysis = await analyze(Evaluator(SimChecker(), analyst=LLMAnalyst(llm_client(server))))
    assert analysis.categories == {"interaction_execution": 1.0, "navigation_planning": 1.0}
    assert analysis.analysis.endswith("LLM classifier: 2 invalid replies in a row; last: the reply contains no JSON object")
    assert [(c.role, c.reply) for c in analysis.calls] == [("classifier", "no idea"), ("classifier", "still no idea")]
    with FakeLLM([Reply(status=500)]) as server:
        analysis = await analyze(Evaluator(SimChecker(), analyst=LLMAnalyst(llm_client(server))))
    assert "LLM classifier: model service error: " in analysis.analysis
    (call,) = analysis.calls  # the call that got no answer, and why, for the transcript
    assert call.role == "classifier" and call.retries == ("HTTP 500",) * 2 and "gave up after 2 attempts" in call.error


@pytest.mark.anyio
async def test_successes_and_environment_failures_are_filed_without_a_call():
    environment = EpisodeResult(episode_id="t1#3", task_id="t1", error_kind=ErrorKind.ENVIRONMENT, reason="VM died")
    with FakeLLM([CLASSIFICATION]) as server:
        analyst = LLMAnalyst(llm_client(server))
        assert (await analyze(Evaluator(SimChecker(), analyst=analyst), environment, None)).categories == {"system": 1.0}
        success = EpisodeResult(episode_id="t1#1", task_id="t1", success=True, score=1.0)
        assert (await analyze(Evaluator(SimChecker(), analyst=analyst), success)).categories == {"success": 1.0}
    assert server.requests == []


def line(episode_id: str, domain: str, **categories: float) -> ResultLine:
    task_id = episode_id.split("#")[0]
    return ResultLine(result=EpisodeResult(episode_id=episode_id, task_id=task_id, domain=domain),
                      categories=categories)


def test_run_level_counts_per_category_and_domain_list_the_episodes():
    lines = [
        line("a#1", "forms", success=1.0),
        line("b#1", "forms", navigation_planning=0.9, reasoning=0.6),
        line("c#2", "mail", navigation_planning=0.7, reasoning=0.2),
        line("d#1", "mail", system=1.0),
        line("e#1", "", reasoning=0.1),
        line("f#1", "mail"),
    ]
    summary = taxonomy(lines)
    assert summary["categories"] == {"navigation_planning": 2, "reasoning": 1, "success": 1, "system": 1,
                                     "unclassified": 2}
    assert summary["domains"] == {
        "-": {"unclassified": 1},
        "forms": {"navigation_planning": 1, "reasoning": 1, "success": 1},
        "mail": {"navigation_planning": 1, "system": 1, "unclassified": 1},
    }
    assert summary["episodes"]["navigation_planning"] == ["b#1", "c#2"]
    assert summary["episodes"]["unclassified"] == ["e#1", "f#1"]
    assert taxonomy(lines, threshold=0.1)["categories"]["reasoning"] == 3
    assert json.loads(json.dumps(summary)) == summary  # plain data for summary.json
