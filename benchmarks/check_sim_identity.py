"""The simulator's regression gate: a fixed set of small runs whose every figure must stay the same.

A change to the simulator's kernels or their drivers that is meant to keep
the numbers (a refactoring, a speed-up) must leave every run of this set
identical, field by field. The set spans the three router models (the
simple router with virtual cut-through and with wormhole switching, and
BookSim2's input-queued router ``iq``), the routings each supports, traffic
patterns (uniform, permutations, a hot region, a demand table), packet
lengths, loads from near zero to past saturation, Bernoulli and Poisson
arrivals, both measurement methods of ``iq``, per-pair latencies, a few
load searches and trace-driven runs, and several seeds, on small
topologies (rings, 2-D and 3-D tori and meshes, a twisted torus, a twin
torus, a HyperX, a dragonfly, a fat tree, a random regular graph), with
short windows so the whole set takes a few minutes.

Every field of every result is written except the timings (wall and CPU
seconds); a run that is refused writes its error line instead (refusals
are part of the behaviour too).

    python benchmarks/check_sim_identity.py --out ref.json            # record
    python benchmarks/check_sim_identity.py --out new.json --compare ref.json --jobs 2
    python benchmarks/check_sim_identity.py --list                    # the configurations
    python benchmarks/check_sim_identity.py --iq --out iq1.json                  # the iq configurations only
    python benchmarks/check_sim_identity.py --iq --threads 2 --compare iq1.json  # the same on 2 threads
    python benchmarks/check_sim_identity.py --vct --out vct1.json                # the simple router's VCT only
    python benchmarks/check_sim_identity.py --vct --threads 2 --compare vct1.json
    python benchmarks/check_sim_identity.py --wormhole --out wh1.json            # the simple router's wormhole
    python benchmarks/check_sim_identity.py --wormhole --threads 2 --compare wh1.json

It runs the ``sim`` that Python imports (set ``PYTHONPATH`` to choose a checkout's ``src``).

``--compare REF`` prints every configuration whose fields differ from
REF's (and the fields) and exits 1 if any does; configurations present on
one side only also count as differences. ``--threads N`` runs every
configuration but the traces on N threads (traces run on one): the
numbers must not change.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

# wall-clock figures: they change from run to run
TIMINGS = {"seconds", "cpu_seconds", "compile_seconds", "router_cycles_per_second"}

SHORT = dict(warmup=100, measure=400, drain=1500)

TOPOLOGIES = {
    "ring8": "ring:8",
    "torus4x4": "torus:4x4",
    "mesh4x4": "mesh:4x4",
    "torus3x3x3": "torus:3x3x3",
    "mesh3x3x3": "mesh:3x3x3",
    "twisted4x8": "twisted:4x8",
    "rtt4": "rtt:4",
    "ndt4x2x2": "ndt:4x2x2",
    "hyperx4x4": "hyperx:4x4",
    "dragonfly": "dragonfly:p=1:a=4:h=1",
    "fattree4": "fattree:k=4",
    "rrg16d4": "rrg",           # built from networkx's random regular graph (seeded)
    "torus6": "torus:6x4",
}

LATTICES = ("ring8", "torus4x4", "mesh4x4", "torus3x3x3", "mesh3x3x3", "torus6")


def topology(key: str):
    import candidates as cd

    if key == "rrg16d4":
        import networkx as nx

        return cd.Topology.from_networkx(nx.random_regular_graph(4, 16, seed=7), spec="rrg16d4")
    return cd.from_spec(TOPOLOGIES[key])


def pattern(name: str, T: int):
    """A traffic pattern by name; ``demand`` is a fixed random demand table."""
    import sim

    if name == "demand":
        m = np.random.default_rng(11).random((T, T))
        m[np.arange(T), np.arange(T)] = 0.0
        m[m < 0.6] = 0.0
        return sim.demand(m)
    return sim.traffic(name)


# --------------------------------------------------------------------- the set
def configurations() -> list[dict[str, Any]]:
    """The fixed regression set (deterministic: the same list every time)."""
    out: list[dict[str, Any]] = []

    def add(kind: str, topo: str, cfg: dict, traffic: str = "uniform", load: float = 0.1, seed: int = 1, **extra):
        c = {"kind": kind, "topo": topo, "cfg": cfg, "traffic": traffic, "load": load, "seed": seed, **extra}
        c["key"] = json.dumps({k: v for k, v in c.items()}, sort_keys=True)
        out.append(c)

    loads = (0.02, 0.25, 0.45, 0.7)
    lengths = (1, 4, (1, 8))
    # simple router, VCT and wormhole: (topology, routing options, traffics)
    simple = [
        ("ring8", dict(routing="dor", vcs=2, deadlock="dateline"), ("uniform", "tornado", "bitcomplement")),
        ("ring8", dict(routing="dor", vcs=1, deadlock="bubble"), ("uniform", "tornado")),
        ("ring8", dict(routing="dor", vcs=2, deadlock="none"), ("uniform",)),
        ("torus4x4", dict(routing="dor", vcs=2), ("uniform", "transpose", "hotregion", "demand", "randperm:seed=3")),
        ("torus4x4", dict(routing="dor", vcs=2, tie_break="random"), ("uniform", "tornado")),
        ("torus4x4", dict(routing="adaptive", vcs=3), ("uniform", "tornado", "hotregion", "demand")),
        ("torus4x4", dict(routing="table", vcs=3), ("uniform", "bitreversal")),
        ("torus4x4", dict(routing="updown", vcs=2), ("uniform", "neighbor")),
        ("torus4x4", dict(routing="distance", vcs=4), ("uniform", "transpose")),
        ("torus4x4", dict(routing="valiant", vcs=8), ("uniform", "tornado")),
        ("mesh4x4", dict(routing="dor", vcs=2), ("uniform", "transpose", "hotregion")),
        ("mesh4x4", dict(routing="adaptive", vcs=2), ("uniform", "bitcomplement")),
        ("mesh4x4", dict(routing="minimal", vcs=2), ("uniform",)),
        ("torus3x3x3", dict(routing="dor", vcs=2), ("uniform", "tornado", "demand")),
        ("torus3x3x3", dict(routing="adaptive", vcs=3, transit_priority=False), ("uniform", "hotregion")),
        ("mesh3x3x3", dict(routing="dor", vcs=2, injectors=2, ejectors=2), ("uniform", "diagonal")),
        ("twisted4x8", dict(routing="dor", vcs=2), ("uniform", "bitcomplement")),
        ("twisted4x8", dict(routing="adaptive", vcs=3), ("uniform", "shuffle")),
        ("rtt4", dict(routing="auto", vcs=3), ("uniform", "butterfly")),
        ("ndt4x2x2", dict(routing="tsdor", vcs=4), ("uniform", "bitcomplement")),
        ("ndt4x2x2", dict(routing="dort", vcs=4), ("uniform",)),
        ("ndt4x2x2", dict(routing="tsdor-adaptive", vcs=8), ("uniform", "hotregion")),
        ("hyperx4x4", dict(routing="dor", vcs=1), ("uniform", "transpose")),
        ("hyperx4x4", dict(routing="table", vcs=2), ("uniform",)),
        ("dragonfly", dict(routing="ugal", vcs=6), ("uniform", "groupshift")),
        ("dragonfly", dict(routing="valiant", vcs=6), ("uniform", "groupshift")),
        ("dragonfly", dict(routing="minimal", vcs=3), ("uniform",)),
        ("fattree4", dict(routing="auto", vcs=2), ("uniform", "bitcomplement", "hotregion")),
        ("fattree4", dict(routing="updown", vcs=1), ("uniform",)),
        ("rrg16d4", dict(routing="table", vcs=3), ("uniform", "demand", "randperm:seed=5")),
        ("rrg16d4", dict(routing="distance", vcs=4), ("uniform",)),
        ("rrg16d4", dict(routing="ugal", vcs=8, ugal_threshold=4), ("uniform",)),
    ]
    i = 0
    for switching in ("vct", "wormhole"):
        for topo, opts, pats in simple:
            if switching == "wormhole" and _bubble(topo, opts):
                continue            # refused (bubble flow control needs VCT): a few refusals are listed below
            for pat in pats:
                for load in loads:
                    i += 1
                    cfg = dict(opts, switching=switching, packet_length=lengths[i % 3],
                               injection="poisson" if i % 4 == 1 else "bernoulli", **SHORT)
                    if switching == "wormhole" and i % 5 == 0:
                        cfg["buffer_flits"] = 3
                    add("simulate", topo, cfg, pat, load, seed=1 + i % 3, pair_latency=(i % 11 == 0))
    # the same configurations at a second seed, near and past saturation only (cheap; new draws)
    for switching in ("vct", "wormhole"):
        for topo, opts, pats in simple:
            if switching == "wormhole" and _bubble(topo, opts):
                continue
            cfg = dict(opts, switching=switching, packet_length=4, **SHORT)
            add("simulate", topo, cfg, pats[0], 0.4, seed=9)
    # iq: BookSim2's routings on lattices, both measurements
    iq = [
        ("ring8", dict(routing="dor", vcs=2)),
        ("torus4x4", dict(routing="dor", vcs=2)),
        ("torus4x4", dict(routing="min_adapt", vcs=4)),
        ("torus4x4", dict(routing="valiant", vcs=4)),
        ("torus4x4", dict(routing="min_adapt", vcs=4, output_set="all")),
        ("mesh4x4", dict(routing="dor", vcs=2)),
        ("mesh4x4", dict(routing="min_adapt", vcs=2)),
        ("mesh4x4", dict(routing="valiant", vcs=2)),
        ("torus3x3x3", dict(routing="dor", vcs=2, link_latency=0)),
        ("mesh3x3x3", dict(routing="min_adapt", vcs=3, alloc_iters=2)),
        ("torus6", dict(routing="dor", vcs=4, buffer_flits=4, credit_delay=1, sw_alloc_delay=2)),
    ]
    iq_pats = ("uniform", "tornado", "transpose", "hotregion", "demand", "randperm:seed=3", "bitcomplement")
    for topo, opts in iq:
        for pat in iq_pats:
            for load in loads:
                i += 1
                cfg = dict(opts, router="iq", packet_length=lengths[i % 3],
                           injection="poisson" if i % 4 == 1 else "bernoulli", self_traffic=(i % 3 == 0),
                           buffer_flits=opts.get("buffer_flits", 8), **SHORT)
                add("simulate", topo, cfg, pat, load, seed=1 + i % 4)
    for topo, opts in iq[:6]:
        for load in (0.05, 0.3, 0.9):
            cfg = dict(opts, router="iq", packet_length=(1, 4), buffer_flits=8, measurement="booksim",
                       sample_period=200, warmup_periods=2, max_samples=5, drain=3000)
            add("simulate", topo, cfg, "uniform", load, seed=2)
    # refusals (their error lines must stay the same)
    for topo, opts in (("torus4x4", dict(router="iq", routing="table")),
                       ("fattree4", dict(router="iq", routing="dor")),
                       ("torus4x4", dict(routing="min_adapt")),
                       ("torus4x4", dict(switching="wormhole", routing="adaptive")),
                       ("torus4x4", dict(router="iq", routing="dor", vcs=2, pair=1)),
                       ("twisted4x8", dict(router="iq", routing="dor", vcs=2)),
                       ("torus4x4", dict(routing="tsdor")),
                       ("torus4x4", dict(routing="tsdor-adaptive", switching="wormhole"))):
        opts = dict(opts)
        pair = bool(opts.pop("pair", 0))
        add("simulate", topo, dict(opts, **SHORT), "uniform", 0.1, pair_latency=pair)
    # load searches (every point of them)
    for topo, opts in (("torus4x4", dict(routing="dor", vcs=2, packet_length=1)),
                       ("torus4x4", dict(routing="dor", vcs=2, packet_length=4, switching="wormhole")),
                       ("torus4x4", dict(routing="dor", vcs=2, packet_length=1, router="iq", buffer_flits=8)),
                       ("mesh4x4", dict(routing="min_adapt", vcs=2, packet_length=4, router="iq", buffer_flits=8))):
        add("saturation", topo, dict(opts, **SHORT), "uniform", 0.0, seed=3, step=0.1, definition="accepted")
        add("saturation", topo, dict(opts, **SHORT), "uniform", 0.0, seed=4, step=0.1, definition="stable",
            resolution=0.05)
        add("sweep", topo, dict(opts, **SHORT), "tornado", 0.0, seed=5, loads=[0.1, 0.5])
    # traces
    traces = ("pingpong", "ring", "alltoall")
    for switching in ("vct", "wormhole"):
        for topo, opts in (("ring8", dict(routing="dor", vcs=2)), ("torus4x4", dict(routing="adaptive", vcs=3)),
                           ("torus4x4", dict(routing="dor", vcs=2)), ("fattree4", dict(routing="auto", vcs=2)),
                           ("dragonfly", dict(routing="ugal", vcs=6))):
            if switching == "wormhole" and opts["routing"] == "adaptive":
                continue
            for tr in traces:
                i += 1
                add("trace", topo, dict(opts, switching=switching, packet_length=(8 if i % 2 else 16)), tr, 0.0,
                    seed=1 + i % 2)
    add("trace", "torus4x4", dict(routing="dor", router="iq", vcs=2), "pingpong", 0.0)
    return out


def _bubble(topo: str, opts: dict) -> bool:
    """Routings built on bubble flow control (or EXTOLL's VCT router): VCT only."""
    r = opts["routing"]
    return (r in ("adaptive", "tsdor-adaptive") or opts.get("deadlock") == "bubble"
            or (r == "auto" and topo in LATTICES + ("rtt4", "twisted4x8")))


def make_trace(name: str, T: int):
    import sim

    P = min(T, 8)
    b = sim.TraceBuilder(P, name=name)
    if name == "pingpong":
        for _ in range(3):
            b.send(0, P - 1, 64)
            b.recv(0, P - 1)
            b.recv(P - 1, 0)
            b.compute(P - 1, 5)
            b.send(P - 1, 0, 64)
    elif name == "ring":
        for r in range(P):
            b.compute(r, 3 * r)
            b.send(r, (r + 1) % P, 100)
            b.recv(r, (r - 1) % P)
    else:
        for step in range(1, P):
            for r in range(P):
                b.send(r, (r + step) % P, 40 + 8 * step)
            for r in range(P):
                b.recv(r, (r - step) % P)
                b.compute(r, 2)
    return b.build()


# --------------------------------------------------------------------- running
def _plain(x: Any) -> Any:
    """JSON-ready, exact: floats as repr strings where JSON would lose them (NaN, inf)."""
    if dataclasses.is_dataclass(x) and not isinstance(x, type):
        return {f.name: _plain(getattr(x, f.name)) for f in dataclasses.fields(x) if f.name not in TIMINGS}
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items() if k not in TIMINGS}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, np.ndarray):
        return _plain(x.tolist())
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return x if math.isfinite(x) else repr(x)
    return x


def _project_error() -> type:
    """The project's one-line error (every package's derives from it; where it lives moved once)."""
    try:
        from common.errors import ToposynthError
    except ImportError:
        from candidates.errors import ToposynthError
    return ToposynthError


def _simple(c: dict[str, Any], switching: str) -> bool:
    """A configuration of the simple router with ``switching`` (vct or wormhole)."""
    return c["cfg"].get("router", "simple") == "simple" and c["cfg"].get("switching", "vct") == switching


def run_one(c: dict[str, Any], threads: int = 1) -> tuple[str, Any]:
    import sim

    topo = topology(c["topo"])
    cfg = sim.SimConfig(**c["cfg"])
    # older checkouts have no threads argument: it is passed only when asked for
    on_threads = c["kind"] != "trace"
    th = {"threads": threads} if threads != 1 and on_threads else {}
    try:
        if c["kind"] == "trace":
            r = sim.run_trace(topo, cfg, make_trace(c["traffic"], topo.num_terminals), seed=c["seed"])
        else:
            pat = pattern(c["traffic"], topo.num_terminals)
            if c["kind"] == "simulate":
                r = sim.simulate(topo, cfg, pat, c["load"], seed=c["seed"], pair_latency=c.get("pair_latency", False),
                                 **th)
            elif c["kind"] == "sweep":
                r = sim.sweep(topo, cfg, pat, c["loads"], seed=c["seed"], **th)
            else:
                r = sim.saturation(topo, cfg, pat, step=c["step"], seed=c["seed"], definition=c["definition"],
                                   resolution=c.get("resolution", 0.005), **th)
    except _project_error() as e:
        return c["key"], {"error": str(e)}
    return c["key"], _plain(r)


def _untimed(x: Any) -> Any:
    """A written result without the timings (a reference written before compile_seconds counted as one has it)."""
    if isinstance(x, dict):
        return {k: _untimed(v) for k, v in x.items() if k not in TIMINGS}
    if isinstance(x, list):
        return [_untimed(v) for v in x]
    return x


def compare(new: dict[str, Any], ref: dict[str, Any]) -> list[str]:
    """One line per configuration that differs (and the fields that do)."""
    new, ref = _untimed(new), _untimed(ref)
    lines = []
    for key in sorted(set(new) | set(ref)):
        if key not in ref:
            lines.append(f"only in the new run: {key}")
        elif key not in new:
            lines.append(f"only in the reference: {key}")
        elif new[key] != ref[key]:
            a, b = new[key], ref[key]
            fields = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k)) if isinstance(a, dict) else ["?"]
            lines.append(f"differs in {', '.join(fields)}: {key}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="write the results to this JSON file")
    ap.add_argument("--compare", help="a reference JSON file: print the configurations that differ, exit 1 if any")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (joblib)")
    ap.add_argument("--list", action="store_true", help="print the configurations and exit")
    ap.add_argument("--threads", type=int, default=1,
                    help="threads of each simulation but the traces (default 1)")
    ap.add_argument("--iq", action="store_true", help="only the configurations of router iq")
    ap.add_argument("--vct", action="store_true", help="only the configurations of the simple router's VCT")
    ap.add_argument("--wormhole", action="store_true", help="only the configurations of the simple router's wormhole")
    args = ap.parse_args(argv)
    confs = configurations()
    if args.iq or args.vct or args.wormhole:
        confs = [c for c in confs if (args.iq and c["cfg"].get("router") == "iq") or (args.vct and _simple(c, "vct"))
                 or (args.wormhole and _simple(c, "wormhole"))]
    if args.list:
        for c in confs:
            print(c["key"])
        print(f"{len(confs)} configurations")
        return 0
    t0 = time.perf_counter()
    if args.jobs > 1:
        from joblib import Parallel, delayed

        pairs = Parallel(n_jobs=args.jobs, batch_size=8)(delayed(run_one)(c, args.threads) for c in confs)
    else:
        pairs = [run_one(c, args.threads) for c in confs]
    res = dict(pairs)
    errors = sum(1 for v in res.values() if isinstance(v, dict) and "error" in v)
    print(f"{len(res)} configurations ({len(res) - errors} runs, {errors} refusals) in "
          f"{time.perf_counter() - t0:.0f} s", flush=True)
    if args.out:
        Path(args.out).write_text(json.dumps(res, sort_keys=True))
    if args.compare:
        ref = json.loads(Path(args.compare).read_text())
        bad = compare(res, ref)
        for line in bad:
            print(line)
        if bad:
            print(f"{len(bad)} of {len(set(res) | set(ref))} configurations differ from {args.compare}")
            return 1
        print(f"all {len(res)} configurations identical to {args.compare}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
