"""A crew of LLM actors on a simulated VM, talking to a local fake chat-completions server."""

from __future__ import annotations

import json

import bench
from actors.agent import Agent
from actors.episode import Crew, Outlets
from actors.evaluator import Evaluator
from actors.llm.agent import LLMPolicy
from actors.llm.analysis import LLMAnalyst
from actors.llm.client import LLMClient
from actors.llm.config import LLMConfig
from actors.llm.summarizer import LLMJudge
from actors.observer import Observer
from bench.suites.sim.checker import SimChecker
from bench.suites.sim.suite import sim_tasks
from actors.backends.sim.vm import SimVM
from actors.summarizer import Summarizer
from actors.vm_controller import VMController
from runtime.actor import spawn
from tests.fake_llm import FakeLLM, by_role, form_filler

SUMMARY = json.dumps({"changes": "the field shows the text", "correct": True, "reason": "as asked"})
CLASSIFICATION = json.dumps({"categories": {"navigation_planning": 0.9, "reasoning": 0.2},
                             "explanation": "stopped early", "summary": "gave up before submitting"})


def llm_client(server, **settings) -> LLMClient:
    return LLMClient(LLMConfig(**{"model": "fake", "base_url": server.url, "timeout": 5.0, "max_retries": 1,
                                  "backoff": 0.01, **settings}))


def role_requests(server, prompt_module) -> list[dict]:
    return [body for body in server.requests if body["messages"][0]["content"] == prompt_module.SYSTEM_PROMPT]


def prompt_text(body: dict) -> str:
    """Every text of a request, in order (system, user parts, feedback turns)."""
    texts = []
    for message in body["messages"]:
        content = message["content"]
        texts += [content] if isinstance(content, str) else [p["text"] for p in content if p["type"] == "text"]
    return "\n".join(texts)


async def llm_crew(tg, server, *, summarizer: bool = True, analyst: bool = False, bus=None, client=None,
                   **policy) -> Crew:
    vm = SimVM()
    client = client or llm_client(server)
    return Crew(
        vm=await spawn(tg, VMController(vm)),
        observer=await spawn(tg, Observer(vm)),
        agent=await spawn(tg, Agent(LLMPolicy(client, **policy))),
        summarizer=await spawn(tg, Summarizer(LLMJudge(client))) if summarizer else None,
        evaluator=await spawn(tg, Evaluator(SimChecker(), analyst=LLMAnalyst(client) if analyst else None)),
        outlets=Outlets(bus=bus),
    )


def stumbling_llm_run(out):
    """A two-episode sim run by an LLM agent on set-of-marks (local server). The first episode's step 1 is
    right, then the agent's replies are no action (an agent error at step 2); the second's agent fails so
    at step 1. Every change summary is a reply that is no JSON (none made); the classifier files each."""
    second = sim_tasks(2)[1].instruction

    def acts_once(body):
        text = body["messages"][1]["content"][0]["text"]
        return form_filler(body) if "This is step 1 " in text and second not in text else "no idea"

    roles = by_role(agent=acts_once, summarizer=lambda body: "no idea", classifier=lambda body: CLASSIFICATION)
    with FakeLLM(roles) as server:
        return bench.run_sync("sim", agent="llm", summarizer="llm", options={"episodes": 2, "scale": 0.001},
                              llm_base_url=server.url, llm_model="fake", llm_observation="som", llm_retries=0,
                              llm_max_bad_replies=2, analysis="llm", out=out)
