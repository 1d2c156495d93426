"""Pure data: every message troupe's actors exchange, and how it is encoded.

This package imports nothing else of the project. `__all__` is the public
surface; the submodules (`protocols.keys` for key names, say) stay importable
for code that needs their details.

Messages, records, observations and tasks are frozen and hold no reference
back to anything that holds them, so they are declared `gc=False`: the cycle
collector never walks them. A run keeps every step's observations and
records of its episodes in flight; walked at every collection, they were
most of the collector's share of the CPU with 1,000 concurrent episodes
(11% on trio, 4% once untracked; bench/perf/pipeline). A cycle through one
of them (a dict field made to hold the message it is in) would never be
collected: don't build one.
"""

from protocols.actions import (
    ACTION_TYPES, Action, Answer, Click, Done, DoubleClick, Drag, Fail, Hotkey, Key,
    Move, Point, RightClick, Scroll, Target, TripleClick, TypeText, Wait,
)
from protocols.codec import WIRE_VERSION, Envelope, decode, encode, to_json
from protocols.errors import ProtocolError, TroupeError
from protocols.messages import (
    Ack, Act, Acted, Analyze, Analyzed, Decide, Decision, EpisodeFinished, EpisodeStarted, Evaluate, ModelCalled,
    EventsDropped, Failure, Flush, Hello, Inspect, Inspected, Message, Observe, Observed, Reset, StepSummarized,
    StepTaken, Summarize, Summarized, TaskAdopted, Usage, Verdict, Welcome,
)
from protocols.observations import CaptureTimings, Observation, Viewport
from protocols.records import (
    ChangeSummary, EpisodeAnalysis, EpisodeResult, EpisodeTimings, ErrorKind, ModelCall, StepRecord, StepTimings,
)
from protocols.tasks import Task
from protocols.ui import BBox, UIElement

__all__ = [
    # actions
    "ACTION_TYPES", "Action", "Answer", "Click", "Done", "DoubleClick", "Drag", "Fail", "Hotkey", "Key",
    "Move", "Point", "RightClick", "Scroll", "Target", "TripleClick", "TypeText", "Wait",
    # messages
    "Ack", "Act", "Acted", "Analyze", "Analyzed", "Decide", "Decision", "EpisodeFinished", "EpisodeStarted", "ModelCalled",
    "Evaluate", "EventsDropped", "Failure", "Flush", "Hello", "Inspect", "Inspected", "Message", "Observe",
    "Observed", "Reset", "StepSummarized", "StepTaken", "Summarize", "Summarized", "TaskAdopted", "Usage",
    "Verdict", "Welcome",
    # observations, records, tasks, UI trees
    "CaptureTimings", "Observation", "Viewport",
    "ChangeSummary", "EpisodeAnalysis", "EpisodeResult", "EpisodeTimings", "ErrorKind", "ModelCall", "StepRecord", "StepTimings",
    "Task", "BBox", "UIElement",
    # the codec and its errors
    "WIRE_VERSION", "Envelope", "decode", "encode", "to_json", "ProtocolError", "TroupeError",
]
