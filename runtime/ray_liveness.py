"""Whether the Ray cluster a run uses is still there: its GCS, and the raylet of this machine.

A run's nodes are Ray actors. When this machine's raylet goes (SIGKILL, the
OOM killer, `ray stop`, or Ray's own fate-sharing: a raylet exits when its
dashboard agent dies) or the GCS does, nothing in the run would say so for
long: the slots restart and wait, as for a full cluster, for resources that
never come, until Ray's GCS reconnect timeout (a minute) aborts the process
with a native stack. `watch_cluster` asks Ray instead, every `PROBE_EVERY`
seconds, and raises `ClusterLost` naming what died:

- for a Ray this process started, Ray's record of the head processes it
  launched: a raylet or GCS that exited is seen at once, with how it ended;
- for any cluster, the GCS's `check_alive` for this machine's raylet, as
  Ray's own dashboard asks it: a GCS that does not answer within
  `PROBE_TIMEOUT`, or that has marked the raylet dead (at once for a raylet
  that shut down; after Ray's heartbeat detector gives up, about 15 s, for
  one that vanished on another's cluster).

The GCS counts as gone only when its probes have failed for `GCS_SILENCE`
seconds in a row: a probe whose deadline passed while this process was
stalled (`runtime.stalls`) is not Ray's fault, nor is one slow answer from
a GCS starved on a loaded machine; the next probe, a moment later, answers.
A VM host other than this machine that dies is not a lost cluster: its
slots retry on the hosts that remain (`runtime.ray_nodes`).

A lost cluster ends the run rather than starting another Ray and going on.
Every node of the run died with it; whatever took the raylet (memory
pressure, someone's `ray stop`, a crashing agent) is likely still there, so
a run that quietly restarts Ray can fail over and over where a user expects
to hear about it; this process's Ray client cannot be pointed at a new
cluster reliably (its GCS client aborts the process a minute after losing
its GCS); and a `--ray-address` cluster is not troupe's to restart, so one
behaviour serves both. Finished results are already on disk, and running
the same command again resumes, on a fresh local Ray when the run starts one.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import anyio
import anyio.to_thread

from runtime.errors import ClusterLost
from runtime.ray_nodes import RaySession, _import_ray

__all__ = ["GCS_SILENCE", "PROBE_EVERY", "PROBE_TIMEOUT", "watch_cluster"]

PROBE_EVERY = 0.5
"""Seconds between two looks at the cluster: the delay of noticing its loss."""
PROBE_TIMEOUT = 2.0
"""Seconds the GCS has to answer one probe."""
GCS_SILENCE = 5.0
"""Seconds of nothing but failed probes after which the GCS, or this machine's raylet, counts as gone."""
_WATCHED_HEADS = ("raylet", "gcs_server")
"""The head processes without which a Ray this process started cannot place or run a node."""


async def watch_cluster(session: RaySession) -> None:
    """Watch the cluster of `session` until cancelled; raise ClusterLost when its GCS or this
    machine's raylet is gone."""
    ray = _import_ray()
    node_id = ray.get_runtime_context().get_node_id()
    failing_since: float | None = None  # when the probes began to fail, on the loop's clock
    while True:
        exited = _exited_head(ray) if session.started_here else None
        if exited:
            raise ClusterLost(f"the Ray this run started lost its {exited}")
        failure = await anyio.to_thread.run_sync(_gcs_probe, ray, session.address, node_id, abandon_on_cancel=True)
        if failure is None:
            failing_since = None
        elif failing_since is None:
            failing_since = anyio.current_time()
        elif anyio.current_time() - failing_since >= GCS_SILENCE:
            raise ClusterLost(failure)
        await anyio.sleep(PROBE_EVERY)


def _exited_head(ray: ModuleType) -> str | None:
    """The first of the watched head processes this process started that has exited, and how."""
    node = ray._private.worker._global_node
    for name in _WATCHED_HEADS:
        for info in (node.all_processes.get(name, []) if node else []):
            code = info.process.poll()
            if code is not None:
                how = f"killed by signal {-code}" if code < 0 else f"exit status {code}"
                return f"{name} (pid {info.process.pid}, {how})"
    return None


def _gcs_probe(ray: ModuleType, address: str, node_id: str) -> str | None:
    """What the GCS at `address` says is wrong with this machine's raylet (or with itself), or None."""
    gcs: Any = ray._private.worker.global_worker.gcs_client
    try:
        alive = gcs.check_alive([ray._raylet.NodeID.from_hex(node_id)], timeout=PROBE_TIMEOUT)
    except ray.exceptions.RayError as exc:  # RpcError: unreachable, or no answer in time
        return f"Ray's GCS at {address} does not answer ({exc})"
    if not alive[0]:
        return f"Ray's GCS at {address} reports this machine's raylet (node {node_id[:12]}) dead"
    return None
