"""Named routing algorithms of the simulator and the tables they consume.

=============  ==============================================================
``dor``        dimension-order routing on the minimal routing records
               (lowest dimension first, the record's direction). Deadlock
               avoidance (``SimConfig.deadlock``): ``dateline`` (VCs split in
               two classes, a packet moves to class 1 when it crosses the
               wraparound link of its current dimension), ``bubble`` (bubble
               flow control on every VC) or ``none``.
``adaptive``   minimal adaptive over the record's productive dimensions on
               VCs 1..V-1; VC 0 is the escape: DOR with bubble flow control
               ('twisted-tori-tpds2010' section 6.1: one static VC plus
               fully adaptive ones). Tori, meshes and twisted tori
               (RT/RTT/PT/PTT/PDTT).
``table``      any graph: adaptive over every shortest-path next hop on VCs
               1..V-1, escape VC 0 routed by up*/down*; once on the escape a
               packet stays there (a conservative form of Duato's rule).
``updown``     up*/down* on every VC, adaptive among the legal next hops
               that start a shortest legal route.
``minimal``    shortest-path next hops on every VC, no deadlock avoidance
               (can deadlock; useful to study it).
=============  ==============================================================

``auto`` picks ``adaptive`` for lattice families that have routing records
and ``table`` for anything else.

>>> import candidates as cd
>>> resolve_routing(cd.from_spec("rtt:a=4"), "auto")
'adaptive'
>>> resolve_routing(cd.from_spec("ndt:4x4x2x2x2"), "auto")
'table'
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from candidates import Topology, routing_records, shortest_path_table, updown
from candidates.records import has_records

from .errors import SimError

__all__ = ["ROUTINGS", "resolve_routing", "RoutingTables", "build_tables"]

MODE = {"dor": 0, "adaptive": 1, "table": 2, "updown": 3, "minimal": 4}

#: name -> one-line description
ROUTINGS: dict[str, str] = {
    "auto": "adaptive on lattices with routing records, table otherwise",
    "dor": "dimension order on the routing records (dateline, bubble or no deadlock avoidance)",
    "adaptive": "minimal adaptive on the records, escape VC 0 = DOR with bubble flow control",
    "table": "adaptive over shortest-path next hops, escape VC 0 = up*/down*",
    "updown": "up*/down* on every VC",
    "minimal": "shortest-path next hops on every VC, no deadlock avoidance",
}


def _records_ok(topo: Topology) -> bool:
    return has_records(topo) and topo.shape is not None


def resolve_routing(topo: Topology, name: str) -> str:
    """The concrete routing for ``name`` on ``topo`` (resolves ``auto``)."""
    name = str(name).lower()
    if name not in ROUTINGS:
        raise SimError(f"unknown routing {name!r}; valid: {', '.join(ROUTINGS)}")
    if name == "auto":
        return "adaptive" if _records_ok(topo) else "table"
    if name in ("dor", "adaptive") and not _records_ok(topo):
        raise SimError(
            f"routing {name!r} needs routing records (torus, mesh, ring, hypercube, rt, rtt, pt, ptt, pdtt, "
            f"twisted); {topo!r} is family {topo.family!r}: use --routing table or updown"
        )
    return name


@dataclass(frozen=True, eq=False)
class RoutingTables:
    """Arrays the kernel reads; dummies where a routing does not need them."""

    mode: int
    arc_dir: np.ndarray
    arc_wrap: np.ndarray
    out_arc: np.ndarray
    records: np.ndarray
    next_mask: np.ndarray
    ud_up: np.ndarray
    ud_down: np.ndarray
    arc_up: np.ndarray
    min_dist: np.ndarray  # (n, n) graph distance (minimal hops)


def _all_records(topo: Topology) -> np.ndarray:
    n, D = topo.n, topo.ndim
    rec = np.empty((n, n, D), dtype=np.int16)
    dst = np.arange(n)
    chunk = max(1, 2_000_000 // max(n, 1))
    for s0 in range(0, n, chunk):
        s1 = min(n, s0 + chunk)
        src = np.repeat(np.arange(s0, s1), n)
        dd = np.tile(dst, s1 - s0)
        if topo.family == "hypercube":
            r = topo.coords[dd] - topo.coords[src]
        else:
            r = routing_records(topo, src, dd)
        rec[s0:s1] = r.reshape(s1 - s0, n, D)
    return rec


def build_tables(topo: Topology, routing: str, root: int = 0) -> RoutingTables:
    """Kernel tables for a resolved routing name (cached on the topology)."""
    key = f"_sim_tables_{routing}_{root}"
    cached = topo.__dict__.get(key)
    if cached is not None:
        return cached
    n, A = topo.n, topo.num_arcs
    arc_dir = np.where(np.arange(A) % 2 == 0, 1, -1).astype(np.int64)
    arc_wrap = np.zeros(A, dtype=np.int64)
    dummy_rec = np.zeros((1, 1, 1), dtype=np.int16)
    dummy_mask = np.zeros((1, 1), dtype=np.uint64)
    arc_up = np.zeros(A, dtype=np.int64)
    if routing in ("dor", "adaptive"):
        D = topo.ndim
        out_arc = np.full((n, D, 2), -1, dtype=np.int64)
        for a in range(A):
            out_arc[topo.arc_src[a], topo.arc_dim[a], a % 2] = a
        shape = np.asarray(topo.shape)
        k = topo.arc_dim
        xs = topo.coords[topo.arc_src, k]
        arc_wrap = np.where(arc_dir > 0, xs == shape[k] - 1, xs == 0).astype(np.int64)
        records = _all_records(topo)
        # every hop a record asks for must exist
        need = records != 0
        sgn = (records < 0).astype(np.int64)
        for d in range(D):
            miss = need[:, :, d] & (out_arc[:, d, :][np.arange(n)[:, None], sgn[:, :, d]] < 0)
            if miss.any():
                raise SimError(f"routing records of {topo!r} use a missing link in dimension {topo.dims[d]}")
        min_dist = np.abs(records.astype(np.int64)).sum(axis=2)
        tab = RoutingTables(MODE[routing], arc_dir, arc_wrap, out_arc, records,
                            dummy_mask, dummy_mask, dummy_mask, arc_up, min_dist)
    else:
        if not topo.is_connected():
            raise SimError(f"{topo!r} is not connected: some packets could never be delivered")
        out_arc = np.full((n, 1, 2), -1, dtype=np.int64)
        sp = shortest_path_table(topo)
        if routing in ("table", "updown"):
            ud = updown(topo, root)
            ud_up, ud_down = ud.mask_up, ud.mask_down
            arc_up = ud.arc_up.astype(np.int64)
            dist = sp.dist
        else:
            ud_up = ud_down = dummy_mask
            dist = sp.dist
        tab = RoutingTables(MODE[routing], arc_dir, arc_wrap, out_arc, dummy_rec,
                            np.ascontiguousarray(sp.next_mask) if routing != "updown" else dummy_mask,
                            np.ascontiguousarray(ud_up), np.ascontiguousarray(ud_down), arc_up,
                            dist.astype(np.int64))
    topo.__dict__[key] = tab
    return tab
