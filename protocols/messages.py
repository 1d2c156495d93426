"""The closed set of messages actors exchange, as one tagged union.

Requests name what they want (`Reset`, `Act`, `Observe`, ...); each has one
reply type. Events go to the event bus for the result sink and viewers.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from protocols.actions import Action
from protocols.numbers import Count, Seconds
from protocols.observations import Observation
from protocols.records import ChangeSummary, EpisodeAnalysis, EpisodeResult, ModelCall, StepRecord
from protocols.tasks import Task


class _Message(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True, tag_field="msg"):
    pass


# --- replies shared by many requests ---------------------------------------


class Ack(_Message, frozen=True, kw_only=True, tag="ack"):
    pass


class Failure(_Message, frozen=True, kw_only=True, tag="failure"):
    """A request that failed on the far side; `error` is the exception's class name."""

    error: str
    message: str


class Flush(_Message, frozen=True, kw_only=True, tag="flush"):
    """Answered once everything told to the actor before it has been handled
    (mailboxes are FIFO), so an owner can stop it without losing writes."""


# --- a node, to whoever connects -------------------------------------------------

MAX_SEATS = 1024
"""The most seats a node may have: more than one machine's VMs, and a bound a broken
node's hello cannot make a run go past (a worker and a connection per seat)."""


class Hello(_Message, frozen=True, kw_only=True, tag="hello"):
    """The first ask on a connection to a node, answered by the node itself (never
    one of its actors, whatever the envelope's `to`) with a `Welcome`."""


class Welcome(_Message, frozen=True, kw_only=True, tag="welcome"):
    """What a node hosts. `seats`: the VM slots it serves, each with its actors
    named per seat (`vm@0`, `observer@0`, ...); None for a node without seats,
    whose actors go by their own names (one VM). `node` is drawn at random when
    the node starts, so two URLs that reach the same node are seen to."""

    seats: Annotated[int, msgspec.Meta(ge=1, le=MAX_SEATS)] | None = None
    node: str = ""


# --- VMController --------------------------------------------------------------


class Reset(_Message, frozen=True, kw_only=True, tag="reset"):
    """Bring the VM to the task's initial state (a fresh context, display or snapshot)."""

    task: Task
    episode_id: str
    attempt: Annotated[int, msgspec.Meta(ge=1)] = 1


class Act(_Message, frozen=True, kw_only=True, tag="act"):
    step: Count
    action: Action


class Acted(_Message, frozen=True, kw_only=True, tag="acted"):
    """The action ran (or not: `error`); `settle` is how long the screen took to calm down.
    `ended` says why the environment has nothing after this action (a replayed
    recording ran out): the episode's steps end there, and it is evaluated."""

    duration: Seconds = 0.0
    settle: Seconds = 0.0
    error: str | None = None
    ended: str = ""


class Inspect(_Message, frozen=True, kw_only=True, tag="inspect"):
    """Read VM state the Evaluator needs (files, page globals), per the task's spec."""

    spec: dict[str, Any] = {}


class Inspected(_Message, frozen=True, kw_only=True, tag="inspected"):
    state: dict[str, Any] = {}


# --- Observer -------------------------------------------------------------------


class Observe(_Message, frozen=True, kw_only=True, tag="observe"):
    """Capture the screen; past `tree_timeout` seconds the tree is left out."""

    step: Count
    tree_timeout: Seconds


class Observed(_Message, frozen=True, kw_only=True, tag="observed"):
    observation: Observation


# --- Agent ----------------------------------------------------------------------


class Decide(_Message, frozen=True, kw_only=True, tag="decide"):
    """Choose the action of step `step` (of at most `max_steps`, the run's budget).

    `history` is the episode's earlier steps as recorded: the actions, the
    reasoning, the error of acting, and the Summarizer's judgement of each
    step that has one by now. A policy needs nothing else, so it keeps no
    state between calls and any Agent incarnation can answer any step."""

    task: Task
    episode_id: str
    step: Count
    max_steps: Count
    observation: Observation
    history: tuple[StepRecord, ...] = ()


class Usage(msgspec.Struct, frozen=True, gc=False, omit_defaults=True):
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    latency: Seconds = 0.0


class Decision(_Message, frozen=True, kw_only=True, tag="decision"):
    action: Action
    reasoning: str = ""
    usage: Usage = Usage()
    model_error: str = ""
    """Set when the model service failed (not the agent): why. The episode then ends as a
    `model_service` error, `action` unused."""
    agent_error: str = ""
    """Set when the policy got no usable action from its model (replies that were no action, past its
    retries): why. The episode ends as an agent error, `action` unused, `calls` saying what was asked."""
    calls: tuple[ModelCall, ...] = ()
    """The model calls that made it, for the episode's transcript."""


# --- Summarizer -----------------------------------------------------------------


class Summarize(_Message, frozen=True, kw_only=True, tag="summarize"):
    """Judge step `step`: the goal is `task.instruction`."""

    task: Task
    episode_id: str
    step: Count
    action: Action
    reasoning: str = ""
    before: Observation
    after: Observation
    earlier: tuple[ChangeSummary, ...] = ()


class Summarized(_Message, frozen=True, kw_only=True, tag="summarized"):
    """The judgement of the step, or (`summary` None) why there is none, with the model calls that
    tried, for the episode's transcript."""

    summary: ChangeSummary | None = None
    error: str = ""
    calls: tuple[ModelCall, ...] = ()


# --- Evaluator ------------------------------------------------------------------


class Evaluate(_Message, frozen=True, kw_only=True, tag="evaluate"):
    task: Task
    episode_id: str
    steps: tuple[StepRecord, ...]
    final: Observation | None = None
    vm_state: dict[str, Any] = {}
    ended_by: str = ""


class Verdict(_Message, frozen=True, kw_only=True, tag="verdict"):
    success: bool
    score: float = 0.0
    reason: str = ""


class Analyze(_Message, frozen=True, kw_only=True, tag="analyze"):
    """File a finished episode under the error taxonomy; `final` is its last observation."""

    task: Task
    result: EpisodeResult
    steps: tuple[StepRecord, ...]
    final: Observation | None = None


class Analyzed(_Message, frozen=True, kw_only=True, tag="analyzed"):
    analysis: EpisodeAnalysis


# --- events (event bus, result sink, viewers) -------------------------------


class EpisodeStarted(_Message, frozen=True, kw_only=True, tag="episode_started"):
    episode_id: str
    task_id: str
    attempt: int
    at: float
    task: Task | None = None
    """The whole task, so a run folder can be replayed as a static dataset."""
    repeat: int = 1
    """Which of the run's repeats of the task (`Task.repeat`)."""


class TaskAdopted(_Message, frozen=True, kw_only=True, tag="task_adopted"):
    """The task as the episode really runs it, when the environment stated the goal at
    reset (a page that generates its task): the run folder's task.json and the viewers
    show this instruction, and a replay of the run gives it to the agent."""

    episode_id: str
    task: Task


class StepTaken(_Message, frozen=True, kw_only=True, tag="step_taken"):
    record: StepRecord
    screenshot: bytes = b""
    before: Observation | None = None
    """The observation the agent decided on (a static dataset pairs it with the action)."""
    calls: tuple[ModelCall, ...] = ()
    """The agent's model calls for this step."""


class StepSummarized(_Message, frozen=True, kw_only=True, tag="step_summarized"):
    episode_id: str
    summary: ChangeSummary
    calls: tuple[ModelCall, ...] = ()
    """The summarizer's model calls for this step (taken out of `summary`)."""


class ModelCalled(_Message, frozen=True, kw_only=True, tag="model_called"):
    """Model calls that made nothing else the episode records: a decision that failed (the model service,
    or replies that were no action), a change summary that failed."""

    episode_id: str
    calls: tuple[ModelCall, ...]


class EpisodeFinished(_Message, frozen=True, kw_only=True, tag="episode_finished"):
    result: EpisodeResult
    analysis: EpisodeAnalysis | None = None


class EventsDropped(_Message, frozen=True, kw_only=True, tag="events_dropped"):
    """Told to a slow subscriber: this many events were dropped before this one."""

    count: Count


Message = (
    Ack | Failure | Flush
    | Hello | Welcome
    | Reset | Act | Acted | Inspect | Inspected
    | Observe | Observed
    | Decide | Decision
    | Summarize | Summarized
    | Evaluate | Verdict | Analyze | Analyzed
    | EpisodeStarted | TaskAdopted | StepTaken | StepSummarized | ModelCalled | EpisodeFinished | EventsDropped
)
