"""The scripted Mind2Web baseline: click the candidate whose text best matches the task.

It lets the suite run with no model (`--agent mind2web-scripted`, the suite's
default) and gives a floor a real agent should clear. Each step it picks,
among the page's elements, the one whose name shares the most words with
the task (ties: the first in document order), leaving out ones a recorded
earlier action already named; in a select it clicks the option that matches
best. It never types: TYPE steps are its known weakness. It reads only what
any agent sees (the task, the tree, the recorded earlier actions), never the
reference.
"""

from __future__ import annotations

import re

from protocols import Click, Decide, Decision, Fail, Target, UIElement

__all__ = ["Mind2WebScriptedPolicy"]

_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


class Mind2WebScriptedPolicy:
    async def decide(self, request: Decide) -> Decision:
        tree = request.observation.tree
        wanted = _words(request.task.instruction)
        used = {" ".join(action.split("->")[0].split("]")[-1].split()).lower()
                for action in request.observation.previous_actions}
        elements = [e for e in (tree.children if tree is not None else ()) if e.name.lower() not in used or not e.name]
        if not elements:
            return Decision(action=Fail(reason="the page has no candidate element"), reasoning="nothing to click")
        _, best = max(enumerate(elements), key=lambda pair: (len(wanted & _words(pair[1].name)), -pair[0]))
        chosen = _option(best, wanted) or best
        overlap = sorted(wanted & _words(chosen.name))
        return Decision(action=Click(target=Target(node_id=chosen.node_id, bbox=chosen.bbox, role=chosen.role,
                                                   name=chosen.name)),
                        reasoning=f"the element sharing most words with the task ({', '.join(overlap) or 'none'})")


def _option(select: UIElement, wanted: set[str]) -> UIElement | None:
    """The option of a select sharing most words with the task, if any shares one."""
    scored = [(len(wanted & _words(option.name)), option) for option in select.children]
    best = max(scored, key=lambda pair: pair[0], default=(0, None))
    return best[1] if best[0] else None
