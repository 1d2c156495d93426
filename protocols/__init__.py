"""Pure data: every message troupe's actors exchange, and how it is encoded.

This package imports nothing else of the project. `__all__` is the public
surface; the submodules (`protocols.keys` for key names, say) stay importable
for code that needs their details.
"""

from protocols.actions import (
    ACTION_TYPES, Action, Answer, Click, Done, DoubleClick, Drag, Fail, Hotkey, Key,
    Move, Point, RightClick, Scroll, Target, TypeText, Wait,
)
from protocols.codec import WIRE_VERSION, Envelope, decode, encode, to_json
from protocols.errors import ProtocolError, TroupeError
from protocols.messages import (
    Ack, Act, Acted, Analyze, Analyzed, Decide, Decision, EpisodeFinished, EpisodeStarted, Evaluate,
    EventsDropped, Failure, Flush, Hello, Inspect, Inspected, Message, Observe, Observed, Reset, StepSummarized,
    StepTaken, Summarize, Summarized, TaskAdopted, Usage, Verdict, Welcome,
)
from protocols.observations import CaptureTimings, Observation, Viewport
from protocols.records import (
    ChangeSummary, EpisodeAnalysis, EpisodeResult, EpisodeTimings, ErrorKind, StepRecord, StepTimings,
)
from protocols.tasks import Task
from protocols.ui import BBox, UIElement

__all__ = [
    # actions
    "ACTION_TYPES", "Action", "Answer", "Click", "Done", "DoubleClick", "Drag", "Fail", "Hotkey", "Key",
    "Move", "Point", "RightClick", "Scroll", "Target", "TypeText", "Wait",
    # messages
    "Ack", "Act", "Acted", "Analyze", "Analyzed", "Decide", "Decision", "EpisodeFinished", "EpisodeStarted",
    "Evaluate", "EventsDropped", "Failure", "Flush", "Hello", "Inspect", "Inspected", "Message", "Observe",
    "Observed", "Reset", "StepSummarized", "StepTaken", "Summarize", "Summarized", "TaskAdopted", "Usage",
    "Verdict", "Welcome",
    # observations, records, tasks, UI trees
    "CaptureTimings", "Observation", "Viewport",
    "ChangeSummary", "EpisodeAnalysis", "EpisodeResult", "EpisodeTimings", "ErrorKind", "StepRecord", "StepTimings",
    "Task", "BBox", "UIElement",
    # the codec and its errors
    "WIRE_VERSION", "Envelope", "decode", "encode", "to_json", "ProtocolError", "TroupeError",
]
