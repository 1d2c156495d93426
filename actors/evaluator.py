"""Evaluator: the benchmark's verdict on an episode, then the error analysis.

The verdict comes from a suite's `Checker` (it reads VM state the
VMController fetched); the analysis files the episode under the error
taxonomy: the deterministic signals always, refined by an `Analyst` (the
LLM classifier of `actors.llm.analysis`) when one is configured. A checker
that fails makes that episode an evaluation error (see `actors.answers`);
an analyst that fails leaves the deterministic analysis in place.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from protocols import Analyze, Analyzed, EpisodeAnalysis, Evaluate, Verdict
from runtime.actor import Actor
from runtime.errors import Refused

from actors.answers import answer
from actors.signals import categories_from_signals, deterministic_signals

logger = logging.getLogger(__name__)

NAME = "evaluator"


class Checker(Protocol):
    async def check(self, request: Evaluate) -> Verdict: ...


class Analyst(Protocol):
    """Refines the deterministic analysis (an LLM classifier); must return one even when it fails."""

    async def analyze(self, request: Analyze, deterministic: EpisodeAnalysis) -> EpisodeAnalysis: ...


class Evaluator(Actor):
    def __init__(self, checker: Checker, name: str = NAME, *, analyst: Analyst | None = None) -> None:
        super().__init__(name)
        self.checker = checker
        self.analyst = analyst

    async def handle(self, message: Any) -> Any:
        match message:
            case Evaluate():
                return await answer("checker", self.checker.check(message), Verdict)
            case Analyze(result=result, steps=steps):
                signals = deterministic_signals(result, steps)
                categories = categories_from_signals(result, signals)
                summary = "success" if result.success else (result.reason or ", ".join(categories))
                analysis = EpisodeAnalysis(
                    episode_id=result.episode_id,
                    analysis="; ".join(signals) or "no failure signals",
                    summary=summary,
                    categories=categories,
                    signals=signals,
                )
                if self.analyst is not None:
                    try:
                        analysis = await answer("analyst", self.analyst.analyze(message, analysis), EpisodeAnalysis)
                    except Refused as exc:
                        logger.warning("episode %s: kept the deterministic analysis: %s", result.episode_id, exc)
                return Analyzed(analysis=analysis)
        raise Refused(f"Evaluator does not handle {type(message).__name__}")
