"""The built-in agents and change summarizers, by name (`--agent`, `--summarizer`).

Each is built from the run's LLM roles, which only the LLM ones use; installed
packages add more names through `bench.plugins`.
"""

from __future__ import annotations

from typing import Callable

from actors.agent import Policy
from actors.summarizer import Judge
from bench.llm import COMPUTER_USE, LLMRoles
from bench.suites.sim.agent import SimJudge, SimPolicy

__all__ = ["AGENTS", "SUMMARIZERS"]


def _desktop_scripted(llm: LLMRoles) -> Policy:
    from bench.suites.desktop.agent import DesktopScriptedPolicy  # the desktop suite's: imported when chosen

    return DesktopScriptedPolicy()


def _miniwob_scripted(llm: LLMRoles) -> Policy:
    from bench.suites.miniwob.agent import ScriptedMiniWobAgent  # the miniwob suite's: imported when chosen

    return ScriptedMiniWobAgent()


def _mind2web_scripted(llm: LLMRoles) -> Policy:
    from bench.suites.mind2web.agent import Mind2WebScriptedPolicy  # the mind2web suite's: imported when chosen

    return Mind2WebScriptedPolicy()


AGENTS: dict[str, Callable[[LLMRoles], Policy]] = {
    "sim": lambda llm: SimPolicy(),
    "llm": LLMRoles.policy,
    **COMPUTER_USE,
    "desktop-scripted": _desktop_scripted,
    "scripted": _miniwob_scripted,
    "mind2web-scripted": _mind2web_scripted,
}

SUMMARIZERS: dict[str, Callable[[LLMRoles], Judge]] = {
    "sim": lambda llm: SimJudge(),
    "llm": LLMRoles.judge,
}
