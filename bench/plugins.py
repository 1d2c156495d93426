"""Agents and suites from outside troupe: `module:attr`, or installed packages' entry points.

An installed package adds names with entry points in the groups
`troupe.agents` (a Policy class or a factory taking no argument) and
`troupe.suites` (a `bench.suites.base.Suite` subclass); `--agent`, `--suite`
and `--list` then show them beside the built-in ones. `--agent pkg.mod:attr`
and `--suite pkg.mod:attr` load one from any importable module without
installing anything. From Python, `bench.run(agent=...)` also takes a Policy
object (shared by every episode) or a factory (one Policy per episode).
"""

from __future__ import annotations

import importlib
import traceback
from importlib import metadata
from typing import Any, Callable

from actors.agent import Policy
from actors.summarizer import Judge
from bench.agents import AGENTS, SUMMARIZERS
from actors.errors import ConfigError
from bench.llm import LLMRoles
from bench.suites import BUILT_IN, built_in
from bench.suites.base import Suite
from runtime.errors import describe

__all__ = ["AGENT_GROUP", "SUITE_GROUP", "agent_factory", "agent_names", "suite_class", "suite_names",
           "summarizer_factory"]

AGENT_GROUP = "troupe.agents"
SUITE_GROUP = "troupe.suites"


def agent_names() -> list[str]:
    return sorted({*AGENTS, *_entry_points(AGENT_GROUP)})


def suite_names() -> list[str]:
    return sorted({*BUILT_IN, *_entry_points(SUITE_GROUP)})


def agent_factory(spec: Any, llm: LLMRoles) -> tuple[Callable[[], Policy], str]:
    """A factory of one episode's Policy from `spec` (a name, `module:attr`, a Policy
    object or a factory), and the label run.json records for it."""
    if isinstance(spec, str) and spec in AGENTS:
        return (lambda: AGENTS[spec](llm)), spec
    return _factory("agent", AGENT_GROUP, spec, agent_names())


def summarizer_factory(spec: Any, llm: LLMRoles) -> tuple[Callable[[], Judge] | None, str]:
    """Like `agent_factory`, for change summarizers; "none" means no summarizer."""
    if spec == "none":
        return None, "none"
    if isinstance(spec, str) and spec in SUMMARIZERS:
        return (lambda: SUMMARIZERS[spec](llm)), spec
    if isinstance(spec, str) and ":" not in spec:
        raise ConfigError(f"--summarizer {spec!r}: no such summarizer (choose from "
                          f"{', '.join(sorted(SUMMARIZERS))}, none, or module:attr)")
    return _factory("summarizer", None, spec, sorted(SUMMARIZERS))


def suite_class(spec: str | type[Suite]) -> tuple[type[Suite], str | None]:
    """The suite `spec` names and what it loads: `NAME`, `NAME:SOURCE` (`replay:runs/x`),
    `module:attr`, or a Suite subclass."""
    if isinstance(spec, type):
        return _check_suite(spec, spec.__qualname__), None
    name, colon, source = spec.partition(":")
    known = {**BUILT_IN, **_entry_points(SUITE_GROUP)}
    if name not in known:
        if colon:
            return _check_suite(_import(spec, "suite"), spec), None
        raise ConfigError(f"--suite {name!r}: no such suite (choose from {', '.join(suite_names())}, "
                          "or module:attr)")
    cls = built_in(name) if name in BUILT_IN else _check_suite(_load(known[name], "suite"), name)
    if cls.source is None and colon:
        raise ConfigError(f"--suite {name!r} takes nothing after ':', got {source!r}")
    if cls.source is not None and not source:
        raise ConfigError(f"--suite {name!r} needs {cls.source}: --suite {name}:{cls.source}")
    return cls, source or None


def _factory(kind: str, group: str | None, spec: Any, names: list[str]) -> tuple[Callable[[], Any], str]:
    if isinstance(spec, str):
        if ":" in spec:
            return _as_factory(kind, _import(spec, kind), spec), spec
        found = _entry_points(group) if group else {}
        if spec not in found:
            raise ConfigError(f"--{kind} {spec!r}: no such {kind} (choose from {', '.join(names)}, or module:attr)")
        return _as_factory(kind, _load(found[spec], kind), spec), spec
    label = getattr(spec, "__qualname__", None) or type(spec).__qualname__
    module = getattr(spec, "__module__", None) or type(spec).__module__
    return _as_factory(kind, spec, f"{module}:{label}"), f"{module}:{label}"


def _as_factory(kind: str, found: Any, label: str) -> Callable[[], Any]:
    """An object with the role's method is used as is (shared); a class or other
    callable is called once per episode."""
    method = "decide" if kind == "agent" else "judge"
    if not isinstance(found, type) and hasattr(found, method):
        return lambda: found
    if isinstance(found, type) and not hasattr(found, method):
        raise ConfigError(f"--{kind} {label}: the class {found.__name__} has no `{method}` method")
    if callable(found):
        return found
    raise ConfigError(f"--{kind} {label}: expected an object with `{method}`, a class or a factory, "
                      f"got {type(found).__name__}")


def _import(spec: str, kind: str) -> Any:
    module_name, _, attr = spec.partition(":")
    try:
        found: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"--{kind} {spec}: cannot import {module_name!r}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - whatever the module's own code raised, named in one line
        raise ConfigError(f"--{kind} {spec}: importing {module_name!r} raised {_where(exc)}") from None
    for part in attr.split("."):
        try:
            found = getattr(found, part)
        except AttributeError:
            raise ConfigError(f"--{kind} {spec}: module {module_name!r} has no attribute {attr!r}") from None
    return found


def _load(entry: metadata.EntryPoint, kind: str) -> Any:
    try:
        return entry.load()
    except Exception as exc:  # noqa: BLE001 - an installed package's import failing, named in one line
        raise ConfigError(f"--{kind} {entry.name}: loading {entry.value} (installed by "
                          f"{entry.dist.name if entry.dist else 'a package'}) raised {_where(exc)}") from None


def _where(exc: Exception) -> str:
    """`Class: text (file:line)` of an error raised by a module being imported: the line of
    that module's code where it was raised, which is what its author needs to look at."""
    frames = traceback.extract_tb(exc.__traceback__)
    own = [frame for frame in frames if not frame.filename.startswith("<frozen")]
    place = f" ({own[-1].filename}:{own[-1].lineno})" if own else ""
    return f"{describe(exc)}{place}"


def _check_suite(found: Any, label: str) -> type[Suite]:
    if not (isinstance(found, type) and issubclass(found, Suite)):
        raise ConfigError(f"--suite {label}: expected a bench.suites.base.Suite subclass, got {found!r}")
    return found


def _entry_points(group: str) -> dict[str, metadata.EntryPoint]:
    return {entry.name: entry for entry in metadata.entry_points(group=group)}
