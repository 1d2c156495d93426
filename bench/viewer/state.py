"""What the live viewer knows: one card per episode, built from bus events.

`apply` turns a bus event into the JSON update viewers receive and folds it
into the cards, in one synchronous call; `snapshot` is every card at once.
A viewer subscribes and takes the snapshot with no await in between, so the
updates it receives are exactly the ones after its snapshot.

Cards are keyed by task: a retry on a fresh VM replaces the card of the
attempt that died. Screenshots and the observations the steps were decided
on stay out of the JSON (URLs point at them, `bench.viewer.files`) and only
the latest few per card are kept in memory (the run folder has the rest,
though a step's files may be written a moment after the next step was taken,
so memory answers for those); finished cards beyond
`keep_finished` are forgotten, oldest first, so a long run's viewer stays small.

A resumed run's episodes that finished before it started have no events; the
state is given their results (results.jsonl's), the snapshot names them (`earlier`:
task id -> status) so a viewer can count them, and pass@k and pass^k count them
with this run's, as the run's summary at its end does.
With the run's size (`total`), the episodes finished in this run (`finished`,
counted apart from the cards, which are forgotten) and the seconds since it
started (`elapsed`), a viewer tells "N of M, about T left".
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Collection, Iterable, Mapping

import msgspec

from actors.run_folder import episode_label
from protocols import (
    EpisodeFinished, EpisodeResult, EpisodeStarted, ErrorKind, Observation, StepRecord, StepSummarized, StepTaken,
    TaskAdopted,
)

from bench.summary import pass_lines, summarize
from bench.viewer.files import episode_bases

RUNNING = "running"
RECENT_SCREENSHOTS = 3


def thumbnail_step(shots: Collection[int], steps: Iterable[StepRecord], *, finished: bool,
                   last_screen_shows_work: bool) -> int | None:
    """Which screenshot a card shows: a running episode's latest; a finished one's latest too when
    the suite's last screen shows what the agent did, else the screen its last action that was not
    done/answer/fail was taken on: the one that decided the verdict (MiniWoB's page shows its START
    screen once a task is submitted, the same for every task)."""
    latest = max(shots, default=None)
    if not finished or last_screen_shows_work:
        return latest
    deciding = max((record.step for record in steps if not record.action.terminal), default=None)
    return deciding - 1 if deciding is not None and deciding - 1 in shots else latest


@dataclass
class Card:
    task_id: str
    episode_id: str
    attempt: int
    started_at: float
    repeat: int = 1
    domain: str = ""
    instruction: str = ""
    status: str = RUNNING
    steps: dict[int, StepRecord] = field(default_factory=dict)
    recent: dict[int, bytes] = field(default_factory=dict)
    """The last RECENT_SCREENSHOTS screenshots, by step."""
    seen: dict[int, Observation] = field(default_factory=dict)
    """The observations the last RECENT_SCREENSHOTS steps were decided on, by step."""
    result: EpisodeResult | None = None
    categories: dict[str, float] = field(default_factory=dict)
    viewport: tuple[int, int] | None = None
    """The screen size the actions' pixel coordinates refer to (from the first observation)."""
    analysis: str = ""
    """The error analysis's one-line summary of a finished episode."""
    last_screen_shows_work: bool = True
    """Whether the screen after the last action is the thumbnail of a finished episode (`thumbnail_step`)."""
    began: float = 0.0
    """The viewer's clock when the episode started: a page that joins later still says how long a
    card has waited (the run's own clock, `started_at`, is the event loop's, which trio offsets)."""

    def thumbnail(self) -> str | None:
        step = thumbnail_step(self.recent, self.steps.values(), finished=self.status != RUNNING,
                              last_screen_shows_work=self.last_screen_shows_work)
        return None if step is None else f"{episode_bases(self.episode_id)['shot']}/{step}"

    def remember(self, step: int, screenshot: bytes, before: Observation | None) -> None:
        if screenshot:
            self.recent[step] = screenshot
        if before is not None:
            self.seen[step] = before
        for kept in (self.recent, self.seen):
            for old in sorted(kept)[:-RECENT_SCREENSHOTS]:
                del kept[old]

    @property
    def key(self) -> str:
        """The episode the card shows (`episode_label`): its task id, with ~R for repeat R >= 2, so
        each repeat of a task has a card of its own; the page names cards by it."""
        return episode_label(self.task_id, self.repeat)

    def to_json(self, now: float) -> dict[str, Any]:
        return {
            "task_id": self.key, "repeat": self.repeat, "episode_id": self.episode_id, "attempt": self.attempt,
            "started_at": self.started_at, "age": now - self.began, "domain": self.domain, "instruction": self.instruction,
            "status": self.status, "steps": [self.steps[n] for n in sorted(self.steps)],
            "shot": self.thumbnail(), "run": 0, "files": episode_bases(self.episode_id), "viewport": self.viewport,
            "result": self.result, "categories": self.categories, "analysis": self.analysis,
        }


def status_of(result: EpisodeResult) -> str:
    if result.success:
        return "succeeded"
    if result.error_kind is ErrorKind.NONE or result.error_kind is ErrorKind.AGENT:
        return "failed"
    return f"{result.error_kind.value.replace('_', ' ')} error"


class ViewerState:
    def __init__(self, keep_finished: int = 200, *, summarizing: bool = True,
                 earlier: Mapping[str, EpisodeResult] | None = None, total: int | None = None,
                 last_screen_shows_work: bool = True, clock: Callable[[], float] = time.monotonic) -> None:
        self.summarizing = summarizing  # whether change summaries will come (not with --summarizer none)
        self.earlier = {key: status_of(result) for key, result in (earlier or {}).items()}
        """The status of each episode (`Card.key`) the run folder held a result for when this run started."""
        self.total = total
        """How many episodes the run has, the earlier ones included (None: not told)."""
        self.last_screen_shows_work = last_screen_shows_work
        self.cards: OrderedDict[str, Card] = OrderedDict()
        self.by_episode: dict[str, str] = {}
        self.finished: set[str] = set()
        """The episodes (`Card.key`) that finished in this run."""
        self.results: dict[str, EpisodeResult] = dict(earlier or {})
        """The verdict of each episode (`Card.key`) the run folder held when this run started or that
        finished in this run, kept after its card is forgotten: pass@k and pass^k are counted over them."""
        self.keep_finished = keep_finished
        self.clock = clock
        self.began = clock()

    def snapshot(self) -> dict[str, Any]:
        return {"msg": "snapshot", "summarizing": self.summarizing, "earlier": self.earlier, **self.progress(),
                "episodes": [card.to_json(self.clock()) for card in self.cards.values()]}

    def progress(self) -> dict[str, Any]:
        return {"total": self.total, "finished": len(self.finished), "elapsed": self.clock() - self.began,
                "passes": self.passes()}

    def passes(self) -> list[list[str]]:
        """pass@k and pass^k of the run's finished episodes, the earlier ones included, in words (`bench.summary.pass_lines`:
        none without repeats), in a list of one run as a view of finished runs gives them."""
        return [pass_lines(summarize(self.results.values()))]

    def ended(self) -> dict[str, Any]:
        """The last update of a run: it ended, and how far it got."""
        return {"msg": "run_ended", **self.progress()}

    def card(self, episode_id: str) -> Card | None:
        task_id = self.by_episode.get(episode_id)
        return None if task_id is None else self.cards.get(task_id)

    def apply(self, event: Any) -> dict[str, Any] | None:
        """Fold `event` into the cards; return the update for viewers (None: nothing to tell)."""
        match event:
            case EpisodeStarted(episode_id=episode_id, task_id=task_id, attempt=attempt, at=at, task=task,
                                repeat=repeat):
                card = Card(task_id=task_id, episode_id=episode_id, attempt=attempt, started_at=at, repeat=repeat,
                            domain=task.domain if task else "", instruction=task.instruction if task else "",
                            last_screen_shows_work=self.last_screen_shows_work, began=self.clock())
                self.cards.pop(card.key, None)
                self.finished.discard(card.key)
                self.cards[card.key] = card
                self.by_episode[episode_id] = card.key
                return {"msg": "episode_started", "card": card.to_json(card.began)}
            case TaskAdopted(episode_id=episode_id, task=task):
                card = self.card(episode_id)
                if card is None:
                    return None
                card.instruction = task.instruction
                return {"msg": "task_adopted", "task_id": card.key, "instruction": task.instruction}
            case StepTaken(record=record, screenshot=screenshot, before=before):
                card = self.card(record.episode_id)
                if card is None:
                    return None
                card.steps[record.step] = record
                if card.viewport is None and before is not None and before.viewport is not None:
                    card.viewport = (before.viewport.width, before.viewport.height)
                card.remember(record.step, screenshot, before)
                shot = f"{episode_bases(record.episode_id)['shot']}/{record.step}" if screenshot else None
                return {"msg": "step_taken", "task_id": card.key, "record": record, "shot": shot,
                        "viewport": card.viewport}
            case StepSummarized(episode_id=episode_id, summary=summary):
                card = self.card(episode_id)
                if card is None or summary.step not in card.steps:
                    return None
                card.steps[summary.step] = msgspec.structs.replace(card.steps[summary.step], summary=summary)
                return {"msg": "step_summarized", "task_id": card.key, "summary": summary}
            case EpisodeFinished(result=result, analysis=analysis):
                card = self.cards.get(episode_label(result.task_id, result.repeat))
                if card is None or card.episode_id != result.episode_id:
                    card = Card(task_id=result.task_id, episode_id=result.episode_id, attempt=result.attempt,
                                started_at=0.0, repeat=result.repeat, domain=result.domain,
                                last_screen_shows_work=self.last_screen_shows_work)
                    self.cards[card.key] = card
                card.status, card.result = status_of(result), result
                self.finished.add(card.key)
                self.results[card.key] = result
                card.categories = analysis.categories if analysis else {}
                card.analysis = analysis.summary if analysis else ""
                self._forget_old()
                return {"msg": "episode_finished", "task_id": card.key, "status": card.status,
                        "result": result, "categories": card.categories, "analysis": card.analysis,
                        "shot": card.thumbnail(), **self.progress()}
        return None

    def _forget_old(self) -> None:
        finished = [task_id for task_id, card in self.cards.items() if card.status != RUNNING]
        for task_id in finished[: max(0, len(finished) - self.keep_finished)]:
            card = self.cards.pop(task_id)
            self.by_episode.pop(card.episode_id, None)
