"""Pure data: every message troupe's actors exchange, and how it is encoded.

This package imports nothing else of the project.
"""

from protocols.actions import (
    ACTION_TYPES, Action, Answer, Click, Done, DoubleClick, Drag, Fail, Hotkey, Key,
    Move, Point, RightClick, Scroll, Target, TypeText, Wait,
)
from protocols.codec import WIRE_VERSION, Envelope, ProtocolError, decode, encode, from_json, to_json
from protocols.messages import *  # noqa: F403  (the message set is the public surface)
from protocols.messages import Message, Usage
from protocols.observations import CaptureTimings, Observation, Viewport
from protocols.records import (
    ChangeSummary, EpisodeAnalysis, EpisodeResult, EpisodeTimings, ErrorKind, StepRecord, StepTimings,
)
from protocols.tasks import Task
from protocols.ui import BBox, UIElement
