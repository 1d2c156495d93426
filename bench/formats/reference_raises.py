"""What a shared file-format evaluator raises where both references' own function raises, so that each
suite gives the case its own reference's outcome: neither reference records a score there (WAA's suite files
a `ReferenceCrash` naming its optional fix, OSWorld's an evaluation error).

- `ReferenceRaises`: the agent's or the gold file is one the reference's
  function raises on (a document without paragraphs, a table of another
  shape than it indexes, ...);
- `RuleLacks`: the task's rule lacks the key the function reads, which is
  the task's mistake, not the agent's.
"""

from __future__ import annotations

from protocols import TroupeError

__all__ = ["ReferenceRaises", "RuleLacks", "rule_value"]


class ReferenceRaises(TroupeError, ValueError):
    """Both references' function raises on this input; the message names the metric and why."""


class RuleLacks(ReferenceRaises):
    """The task's rule is not a mapping holding the key the metric reads."""


def rule_value(rule: object, key: str, metric: str) -> object:
    """`rule[key]`, or `RuleLacks` naming the metric and what it got."""
    if not isinstance(rule, dict) or key not in rule:
        raise RuleLacks(f"{metric}: expected a rule with `{key}`, got {rule!r}")
    return rule[key]
