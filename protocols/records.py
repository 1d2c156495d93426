"""What an episode leaves behind: step records, summaries, verdicts, analyses."""

from __future__ import annotations

import enum
from typing import Any

import msgspec

from protocols.actions import Action


class ErrorKind(enum.Enum):
    """Who is to blame when an episode did not succeed.

    Four kinds, kept apart everywhere: `agent` (the episode ran and the agent
    did not succeed), `environment` (never the agent's fault: a VM that crashed
    or hung past its retries), `model_service` (never the agent's fault either:
    the model it calls could not be reached, refused the key or does not exist)
    and `evaluation` (a harness error: the checker could not judge, e.g. a
    metric or getter the harness lacks).
    """

    NONE = "none"
    AGENT = "agent"
    ENVIRONMENT = "environment"
    MODEL_SERVICE = "model_service"
    EVALUATION = "evaluation"


class StepTimings(msgspec.Struct, frozen=True, gc=False, omit_defaults=True):
    """Seconds per part of one step, as the episode saw them."""

    agent: float = 0.0
    act: float = 0.0
    observe: float = 0.0
    screenshot: float = 0.0
    tree: float = 0.0
    total: float = 0.0
    settle: float | None = None
    """Part of `act` spent waiting for the page to settle (None: the VM did not say)."""


class ModelCall(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    """One call to a model, as an episode's transcript keeps it (`calls.jsonl`).

    `role` is agent, summarizer or classifier; `step` the step it decided or
    judged (0: the episode as a whole). `messages` is the request's, each image
    replaced by `{"type": "image", "sha256": ..., "bytes": N}`, which the run
    folder resolves to the screenshot file holding those bytes (`"file":
    "step-003.png"`). `retries` says why each attempt before the one that
    answered failed. No header is kept, so no key. A call whose reply was
    of no use says so: `rejected` why the reply was sent back, `gave_up` on
    the last call of a request that got no usable answer at all; `restarted` a call that
    sent the conversation again because the provider had lost it."""

    role: str = ""
    step: int = 0
    messages: list[Any] = []
    reply: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    latency: float = 0.0
    retries: tuple[str, ...] = ()
    error: str = ""
    """Why the call got no answer (it was refused, or failed past its retries); "" when it answered."""
    rejected: str = ""
    """Why its reply could not be used (the text sent back to the model: not JSON, not an action, an
    element the screen lacks); "" when the reply was used."""
    restarted: str = ""
    """Why the conversation was sent anew without the provider's stored state (the provider said
    it no longer had it): the request is rebuilt from the episode's own record; "" otherwise."""
    gave_up: bool = False
    """The request it served got no usable answer: after this call, the agent's decision ended the
    episode as an agent error, the step got no change summary, or the episode no classification."""
    images: dict[str, bytes] = {}
    """The bytes of each image of `messages`, by sha256, in flight to the ResultSink, which writes
    those no screenshot file holds (a set-of-marks picture, a screenshot scaled for the model) as
    files of their own; never written into the transcript."""


class ChangeSummary(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    """The Summarizer's judgement of one step: what changed, and was it right."""

    step: int
    changes: str
    correct: bool | None = None
    reason: str = ""
    suggestion: str = ""
    latency: float = 0.0
    asked_at: float = 0.0
    answered_at: float = 0.0
    """When the episode asked for this judgement and got it (its clock), so a
    timeline can show the Summarizer overlapping the next step."""
    calls: tuple[ModelCall, ...] = ()
    """The model calls that made it, for the transcript; the episode takes them out of the summary
    it keeps (a step's history never carries them)."""


class StepRecord(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    """One step as recorded: the action, what it cost, and what went wrong.

    `changed` says whether the action changed the screen, a clock ticking by
    itself aside (actors.screen_change; None for terminal actions, which do
    not touch the screen)."""

    episode_id: str
    step: int
    action: Action
    reasoning: str = ""
    error: str | None = None
    changed: bool | None = None
    timings: StepTimings = StepTimings()
    started_at: float = 0.0
    summary: ChangeSummary | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    reference: Action | None = None
    """The recorded action this step is scored against (static benchmarks)."""


class EpisodeTimings(msgspec.Struct, frozen=True, gc=False, omit_defaults=True):
    reset: float = 0.0
    steps: float = 0.0
    evaluate: float = 0.0
    total: float = 0.0


class EpisodeResult(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    """The benchmark's verdict on one attempt of one repeat of one task."""

    episode_id: str
    task_id: str
    domain: str = ""
    attempt: int = 1
    repeat: int = 1
    """Which of the run's repeats of the task (`Task.repeat`)."""
    success: bool = False
    score: float = 0.0
    steps: int = 0
    error_kind: ErrorKind = ErrorKind.NONE
    reason: str = ""
    traceback: str = ""
    """Where the agent's own code failed, when that ended the episode (a policy that raised, or
    answered with what is no Decision): the traceback, or what it returned; `reason` is its one line."""
    timings: EpisodeTimings = EpisodeTimings()
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0


class EpisodeAnalysis(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    """The error classifier's reading of one episode: a score per taxonomy category."""

    episode_id: str
    analysis: str = ""
    summary: str = ""
    categories: dict[str, float] = {}
    signals: tuple[str, ...] = ()
    calls: tuple[ModelCall, ...] = ()
    """The model calls that made it, for the transcript (results.jsonl does not carry them)."""
