"""The public surface of each package is its `__init__`'s `__all__`, and this test is its record.

After trio's export tests: every exported name exists and is public; the
list is exactly the one written here (a name added or dropped is a decision,
made in this file too); nothing public leaks into a package's namespace past
`__all__`; each name is defined inside its package (the few re-exports are
listed); and every submodule, public or not, still imports on its own.
"""

import importlib
import pkgutil
import subprocess
import sys
import types

import pytest

PUBLIC = {
    "protocols": {
        "ACTION_TYPES", "Action", "Answer", "Click", "Done", "DoubleClick", "Drag", "Fail", "Hotkey", "Key",
        "Move", "Point", "RightClick", "Scroll", "Target", "TripleClick", "TypeText", "Wait",
        "Ack", "Act", "Acted", "Analyze", "Analyzed", "Decide", "Decision", "EpisodeFinished", "EpisodeStarted", "ModelCalled",
        "Evaluate", "EventsDropped", "Failure", "Flush", "Hello", "Inspect", "Inspected", "Message", "Observe",
        "Observed", "Reset", "StepSummarized", "StepTaken", "Summarize", "Summarized", "TaskAdopted", "Usage",
        "Verdict", "Welcome",
        "CaptureTimings", "Observation", "Viewport",
        "ChangeSummary", "EpisodeAnalysis", "EpisodeResult", "EpisodeTimings", "ErrorKind", "ModelCall", "StepRecord",
        "StepTimings", "Task", "BBox", "UIElement",
        "WIRE_VERSION", "Envelope", "decode", "encode", "to_json", "ProtocolError", "TroupeError",
    },
    "runtime": {
        "Actor", "LocalRef", "Ref", "ask_soon", "run_actor", "spawn",
        "Backoff", "ChildSpec", "Intensity", "Restart", "Strategy", "SupervisedRef", "Supervisor", "actor_child",
        "Capacity", "Limits", "StepLimit", "TimeLimit",
        "EventBus", "Subscription",
        "LocalHost", "NodeConnection", "RemoteRef", "WebSocket", "connect", "connect_node", "run_local_host",
        "run_local_node", "serve",
        "SeatHost", "SharedNodes", "seat_name", "RemoteNode", "connect_seat", "greet_nodes", "seat_slots",
        "ActorCrashed", "ActorError", "ActorStopped", "CallTimeout", "ClusterLost", "ConnectionClosed",
        "HandshakeError", "LimitExceeded", "NodeCrashed", "NodeDied", "ProtocolError", "Refused", "RequestRefused",
        "RestartIntensityExceeded", "StepLimitExceeded", "TimeLimitExceeded", "TroupeError", "UnknownActor",
    },
    "actors": {
        "Agent", "Analyst", "Checker", "Evaluator", "Judge", "Observer", "Policy", "ResultSink", "Summarizer",
        "VMController", "ScreenBackend", "VMBackend",
        "Crew", "CrewFactory", "EpisodeOutcome", "EpisodeRunner", "Outlets", "VMHost", "VMSlot", "run_episode",
        "ResultsError", "read_results",
        "AgentFailed", "ConfigError", "EnvironmentFailure",
    },
}

REEXPORTED = {
    # The error base and the data layer's error live at the bottom, in protocols,
    # so every layer can derive from the base; runtime's error module carries them too.
    ("runtime", "ProtocolError"), ("runtime", "TroupeError"),
}

PACKAGES = sorted(PUBLIC)


@pytest.mark.parametrize("package", PACKAGES)
def test_all_is_exactly_the_documented_list(package):
    exported = importlib.import_module(package).__all__
    assert len(exported) == len(set(exported)), "a name is listed twice"
    assert set(exported) == PUBLIC[package]


@pytest.mark.parametrize("package", PACKAGES)
def test_every_exported_name_is_public_and_defined(package):
    module = importlib.import_module(package)
    assert [name for name in module.__all__ if name.startswith("_")] == []
    assert [name for name in module.__all__ if not hasattr(module, name)] == []
    namespace: dict = {}
    exec(f"from {package} import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(module.__all__)


@pytest.mark.parametrize("package", PACKAGES)
def test_nothing_public_leaks_past_all(package):
    module = importlib.import_module(package)
    leaked = {
        name for name, value in vars(module).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType) and name not in module.__all__
    }
    assert leaked == set()


@pytest.mark.parametrize("package", PACKAGES)
def test_each_name_is_defined_in_its_own_package(package):
    module = importlib.import_module(package)
    foreign = {
        name for name in module.__all__
        if isinstance(value := getattr(module, name), (type, types.FunctionType))  # not unions or constants
        and value.__module__.split(".")[0] != package and (package, name) not in REEXPORTED
    }
    assert foreign == set()


@pytest.mark.parametrize("package", PACKAGES)
def test_every_submodule_still_imports_on_its_own(package):
    """What is not in `__all__` is private by name, but code that needs a detail can still reach it;
    a submodule's own `__all__`, where it has one, names only what it defines."""
    root = importlib.import_module(package)
    names = [info.name for info in pkgutil.walk_packages(root.__path__, package + ".")
             if not info.name.endswith(".__main__")]
    assert names
    for name in names:
        submodule = importlib.import_module(name)
        missing = [n for n in getattr(submodule, "__all__", ()) if not hasattr(submodule, n)]
        assert missing == [], f"{name}.__all__ names what it does not define"



def test_a_node_loading_its_backend_does_not_load_the_whole_actors_package():
    """`actors` resolves its names when asked: a node process starts without the runner and the run folder."""
    code = ("import sys, actors.backends.sim.node; "
            "print(sorted(m for m in ('actors.runner', 'actors.run_folder', 'actors.evaluator') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.strip() == "[]"


def test_every_message_of_the_union_is_exported():
    """A message added to `protocols.messages.Message` is part of the wire, so of the public surface."""
    import protocols

    assert {kind.__name__ for kind in protocols.codec.MESSAGE_TYPES} <= set(protocols.__all__)
