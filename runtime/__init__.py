"""Domain-free actor machinery: actors, supervision, limits, events, transports, nodes.

Imports only `protocols`; knows nothing about screens, LLMs or benchmarks.
`__all__` is the public surface. The node's own entry point stays in its
module (`python -m runtime.node`, `runtime.node.serve_node`), so that
running it does not import it twice; the plumbing troupe's own servers share
(`runtime.tokens`, `runtime.http_server`) stays in its modules too.
"""

from runtime.actor import Actor, LocalRef, Ref, ask_soon, run_actor, spawn
from runtime.backoff import Backoff
from runtime.capacity import Capacity
from runtime.errors import (
    ActorCrashed, ActorError, ActorStopped, CallTimeout, ClusterLost, ConnectionClosed, HandshakeError,
    LimitExceeded, NodeCrashed, NodeDied, ProtocolError, Refused, RequestRefused, RestartIntensityExceeded,
    StepLimitExceeded, TimeLimitExceeded, TroupeError, UnknownActor,
)
from runtime.events import EventBus, Subscription
from runtime.host import LocalHost, run_local_host
from runtime.limits import Limits, StepLimit, TimeLimit
from runtime.remote import NodeConnection, RemoteRef, connect_node, run_local_node
from runtime.seats import RemoteNode, SeatHost, SharedNodes, connect_seat, greet_nodes, seat_name, seat_slots
from runtime.supervisor import ChildSpec, Intensity, Restart, Strategy, SupervisedRef, Supervisor, actor_child
from runtime.websocket import WebSocket, connect, serve

__all__ = [
    # actors
    "Actor", "LocalRef", "Ref", "ask_soon", "run_actor", "spawn",
    # supervision
    "Backoff", "ChildSpec", "Intensity", "Restart", "Strategy", "SupervisedRef", "Supervisor", "actor_child",
    # limits and shared capacity
    "Capacity", "Limits", "StepLimit", "TimeLimit",
    # events
    "EventBus", "Subscription",
    # hosting actors: in this process, in a node process, over a websocket
    "LocalHost", "NodeConnection", "RemoteRef", "WebSocket", "connect", "connect_node", "run_local_host",
    "run_local_node", "serve",
    # several VM slots on one node process: one the run starts, or one already running (--connect)
    "SeatHost", "SharedNodes", "seat_name", "RemoteNode", "connect_seat", "greet_nodes", "seat_slots",
    # errors
    "ActorCrashed", "ActorError", "ActorStopped", "CallTimeout", "ClusterLost", "ConnectionClosed",
    "HandshakeError", "LimitExceeded", "NodeCrashed", "NodeDied", "ProtocolError", "Refused", "RequestRefused",
    "RestartIntensityExceeded", "StepLimitExceeded", "TimeLimitExceeded", "TroupeError", "UnknownActor",
]
