"""A scripted MiniWoB++ agent: the instruction parsed by patterns, grounded in the tree.

Each known utterance pattern becomes a plan of intents ("click the checkbox
named X", "type Y into the field labelled Password"); each intent is grounded
in the accessibility tree of the step it runs at, so elements that appear
only after an earlier action (a section expanded, a dialog opened) are found.
An instruction no pattern knows, or an element that is not there, ends the
episode with `fail` and says which. When the plan is done, the agent says
`done` and the page's own reward decides.
"""

from __future__ import annotations

import operator
import re
from typing import Callable, Iterator

from protocols import Action, Click, Decide, Decision, Done, Fail, Target, TypeText, UIElement, TroupeError

Intent = Callable[[UIElement], Action]

_ORDINAL = re.compile(r"^(\d+)(?:st|nd|rd|th)$")
_ARITHMETIC = re.compile(r"^(-?\d+)\s*([-+x*/])\s*(-?\d+)\s*=$")
_OPERATORS = {"+": operator.add, "-": operator.sub, "x": operator.mul, "*": operator.mul, "/": operator.floordiv}
_WIDGET_ROLES = {"button": ("button",), "checkbox": ("checkbox",), "radio": ("radio",),
                 "text": ("textbox",), "textarea": ("textbox",)}
FIELD_ROLES = ("textbox", "searchbox", "combobox", "spinbutton")


class NotFound(TroupeError, LookupError):
    """The element an intent needs is not in the tree."""


# --- grounding ----------------------------------------------------------------------


def _elements(tree: UIElement, roles: tuple[str, ...]) -> Iterator[UIElement]:
    return (e for e in tree.walk() if e.role in roles and e.bbox is not None)


def _target(element: UIElement) -> Target:
    return Target(node_id=element.node_id, role=element.role, name=element.name or None)


def click(roles: tuple[str, ...], name: str | None = None, *, prefix: bool = False) -> Intent:
    """Click the first element of `roles` named `name` (case-insensitive; any name when None)."""
    wanted = None if name is None else name.casefold()

    def ground(tree: UIElement) -> Action:
        for element in _elements(tree, roles):
            have = element.name.casefold()
            if wanted is None or have == wanted or (prefix and have.startswith(wanted)):
                return Click(target=_target(element))
        raise NotFound(f"no {'/'.join(roles)} named {name!r}" if name is not None else f"no {'/'.join(roles)}")

    return ground


def nth_field(index: int) -> Callable[[UIElement], UIElement]:
    def find(tree: UIElement) -> UIElement:
        fields = list(_elements(tree, FIELD_ROLES))
        if index >= len(fields):
            raise NotFound(f"no text field number {index + 1} (the page has {len(fields)})")
        return fields[index]

    return find


def labelled_field(label: str) -> Callable[[UIElement], UIElement]:
    """The field named `label`, or the first field after a label element that reads `label`."""
    wanted = label.casefold()

    def find(tree: UIElement) -> UIElement:
        after_label = False
        for element in tree.walk():
            if element.role in FIELD_ROLES:
                if after_label or element.name.casefold() == wanted:
                    return element
                after_label = False
            elif element.role == "label":
                text = element.name or " ".join(child.name for child in element.children)
                after_label = text.casefold().rstrip(": ") == wanted
        raise NotFound(f"no text field labelled {label!r}")

    return find


def type_into(field: Callable[[UIElement], UIElement], text: str) -> Intent:
    return lambda tree: TypeText(text=text, target=_target(field(tree)))


def click_field(field: Callable[[UIElement], UIElement]) -> Intent:
    return lambda tree: Click(target=_target(field(tree)))


def solve_arithmetic(tree: UIElement) -> Action:
    for element in tree.walk():
        match = _ARITHMETIC.match(element.name.strip()) if element.role == "text" else None
        if match:
            left, op, right = match.groups()
            return TypeText(text=str(_OPERATORS[op](int(left), int(right))), target=_target(nth_field(0)(tree)))
    raise NotFound("no arithmetic problem (like '3 + 4 =') on the page")


# --- the instruction patterns -------------------------------------------------------

SUBMIT = click(("button",), "submit")


def _select(items: str) -> list[Intent]:
    names = [item.strip() for item in items.split(",") if item.strip()]
    return [click(("checkbox", "radio"), name) for name in names] + [SUBMIT]


def _focus(ordinal: str) -> list[Intent]:
    match = _ORDINAL.match(ordinal)
    return [click_field(nth_field(int(match.group(1)) - 1 if match else 0))]


PATTERNS: list[tuple[re.Pattern[str], Callable[..., list[Intent]]]] = [
    (re.compile(p, re.IGNORECASE), plan) for p, plan in [
        (r'Click on the "(.+)" button\.', lambda name: [click(("button",), name)]),
        (r"Click button (\w+), then click button (\w+)\.", lambda a, b: [click(("button",), a), click(("button",), b)]),
        (r'Click on the link "(.+)"\.', lambda name: [click(("link", "text"), name)]),
        (r"Select nothing and click Submit\.", lambda: [SUBMIT]),
        (r"Select (.+) from the list and click Submit\.",
         lambda option: [type_into(nth_field(0), option), SUBMIT]),
        (r"Select (.+) and click Submit\.", _select),
        (r'Enter "(.+)" into the text field and press Submit\.', lambda text: [type_into(nth_field(0), text), SUBMIT]),
        (r'Type "(.+)" in all (lower|upper) case letters in the text input and press Submit\.',
         lambda text, case: [type_into(nth_field(0), text.lower() if case == "lower" else text.upper()), SUBMIT]),
        (r'Enter the password "(.+)" into both text fields and press submit\.',
         lambda text: [type_into(nth_field(0), text), type_into(nth_field(1), text), SUBMIT]),
        (r'Enter the username "(.+)" and the password "(.+)" into the text fields and press login\.',
         lambda user, password: [type_into(labelled_field("username"), user),
                                 type_into(labelled_field("password"), password), click(("button",), "login")]),
        (r"Focus into the (?:text field|textbox)\.", lambda: _focus("1st")),
        (r"Focus into the (\w+) input textbox\.", _focus),
        (r'Close the dialog box by clicking the "x"\.', lambda: [click(("button",), "close")]),
        (r'Click the button in the dialog box labeled "(.+)"\.', lambda name: [click(("button",), name)]),
        (r"Click on Tab #(\d+)\.", lambda n: [click(("link", "tab"), f"Tab #{n}")]),
        (r"Click the button\.", lambda: [click(("button",))]),
        (r"Click button (\w+)\.", lambda name: [click(("button",), name)]),
        (r'Click on a "(.+)" widget\.', lambda kind: [click(_WIDGET_ROLES.get(kind, (kind,)))]),
        (r"Expand the section below and click submit\.",
         lambda: [click(("tab", "heading", "button"), "section", prefix=True), SUBMIT]),
        (r"Solve the math problem and type your answer into the textbox\..*", lambda: [solve_arithmetic, SUBMIT]),
    ]
]


def plan_for(instruction: str) -> list[Intent] | None:
    """The intents that carry out `instruction`, or None when no pattern knows it."""
    text = " ".join(instruction.split())
    for pattern, plan in PATTERNS:
        match = pattern.fullmatch(text)
        if match:
            return plan(*match.groups())
    return None


class ScriptedMiniWobAgent:
    """A `Policy`, stateless: the script comes from the instruction, and every earlier step
    of the episode (the request's history) carried out one of its intents, so the next
    intent is the one after them. Any Agent incarnation can answer any step."""

    async def decide(self, request: Decide) -> Decision:
        plan = plan_for(request.task.instruction)
        if plan is None:
            return _end(Fail(reason=f"no script for: {request.task.instruction!r}"))
        if len(request.history) >= len(plan):
            return _end(Done())
        tree = request.observation.tree
        if tree is None:
            return _end(Fail(reason="the observation has no accessibility tree"))
        try:
            action = plan[len(request.history)](tree)
        except NotFound as exc:
            return _end(Fail(reason=str(exc)))
        # A failed step is not fatal: the next intent is grounded afresh, and the page's reward judges.
        failed = request.history[-1].error if request.history else None
        noted = f" (the last action failed: {failed})" if failed else ""
        return Decision(action=action, reasoning=f"step {request.step} of the script{noted}")


def _end(action: Action) -> Decision:
    return Decision(action=action, reasoning="script finished" if isinstance(action, Done) else "script gave up")
