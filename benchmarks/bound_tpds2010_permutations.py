"""Where the permutation throughput of 'twisted-tori-tpds2010' goes: the bound of the routing used.

    python benchmarks/bound_tpds2010_permutations.py [--a A] [--record]
    python benchmarks/bound_tpds2010_permutations.py --paper [--a A] [--jobs J] [--record]
    python benchmarks/bound_tpds2010_permutations.py --selection [--a A] [--jobs J] [--record]

For RT(a) and RTT(a) (2a x a, the paper's 32x16 by default) under bit complement, bit reversal and
perfect shuffle, four throughputs per PE (phits/cycle):

* ``free``: the routing-free optimum (any paths, non-minimal ones included; the PTAS's certified lower
  end at eps = 2%);
* ``minimal``: the best any *minimal* routing can do: the same LP with every packet restricted to
  the channels that lie on a shortest path of its own pair;
* ``record``: the best the simulator's routing can do: the tpds2010 router routes minimally and
  adaptively *within one routing record* (the signed hops per dimension of the pair's first minimal
  record, ties = first as in the tpds2010 preset), so a packet's channels are those of the record's
  quadrant: from the source, any interleaving of the record's hops;
* ``simulated``: the simulator's saturation (tpds2010 preset: minimal adaptive on the record, one
  bubble escape VC, 16-phit packets), BookSim2's stable definition, seed 1.

``--paper`` measures instead what the paper reports, the highest accepted load of a sweep of offered loads
(0.1 to 0.5 phits/cycle/PE), the PEs numbered x fastest and the records' ties broken at random per packet
(both as in the authors' later simulator INRFlow: its torus numbers node ``x + X y`` and picks either way round
a half ring at random), three seeds, with the paper's 4-packet VCs and with 16-packet VCs, beside the
bounds for that numbering.

``--selection`` asks where the router's output selection loses the RTT's throughput: the paper's measurement
(highest accepted load, x fastest, three seeds) with each of ``SimConfig.selection``'s local rules, and with the
record LP's own optimal flow as the routing (``sim.simulate(..., split=)``: at every hop the dimension drawn in
proportion to that flow for the packet's destination; HiGHS's central solution, the vertex its crossover returns,
and the central one with 16-packet VCs), beside each network's bounds, the channels the LP fills, and every rule's
busiest channel at half the RT's record bound.

The other two are exact: a maximum concurrent flow over the allowed channels with unit capacities, one flow
variable per (packet pair, allowed channel), solved by scipy's HiGHS. The ratio simulated / record
says what the router loses; record / minimal what the record restriction loses; minimal / free
what minimality loses.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings

import numpy as np
import scipy.sparse as sp
from scipy.optimize import OptimizeWarning, linprog

import candidates as cd
import sim
from flows import Demands, FlowProblem, max_concurrent_flow

from joblib import Parallel, delayed

from _record import record_subsection, table

PATTERNS = ("bitcomplement", "bitreversal", "shuffle")
#: the paper's simulated gains of the RTT over the RT at 32x16 (percent; docs/results/twisted-tori-tpds2010.md, "Reproduction: twisted-tori-tpds2010")
PAPER_GAIN = {"bitcomplement": "24.3", "bitreversal": "41.1", "shuffle": "-"}
#: the offered loads (phits/cycle/PE) and seeds of ``--paper``'s highest-accepted-load sweeps
PAPER_LOADS = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5)
PAPER_SEEDS = (1, 2, 3)
SECTION = "Permutations of 'twisted-tori-tpds2010': the bound of the routing used ({size})"
BOUNDS_TITLE = "Bounds and the stable saturation (the simulator's numbering)"
PAPER_TITLE = "The paper's measurement: highest accepted load, PEs numbered x fastest"
SELECTION_TITLE = "Output selection against the LP's split (PEs numbered x fastest)"
#: the rules of ``--selection``: SimConfig.selection; ``split`` routes by the record LP's central optimal flow,
#: ``split-vertex`` by the vertex HiGHS's crossover returns, ``split-deep`` the central one with 16-packet VCs
RULES = ("credits", "credits-random", "random", "weighted", "split", "split-vertex", "split-deep")
SPLIT_LABEL = {"split": "the LP's split", "split-vertex": "the LP's split, a vertex",
               "split-deep": "the LP's split, 16-packet VCs"}
#: ``--selection`` reports the busiest channel at this fraction of the RT's record bound (offered load)
PROBE = 0.5


def _pairs(t: cd.Topology, pattern: str, numbering: str = "x-slowest") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The (source router, destination router, amount) of the permutation (one PE per router), as
    the simulator's load counts it: PEs that would send to themselves send nothing, the others
    ``N / (N - fixed points)`` each, so that lambda and the offered load are both per-PE averages.
    ``numbering``: how PE indices (the bits the pattern permutes) lie on the routers: ``x-slowest``
    is the simulator's (C order of the coordinates); ``x-fastest`` numbers along x first."""
    M = sim.traffic(pattern).demand_matrix(t, level="router")
    src, dst = np.nonzero(M)
    if numbering == "x-slowest":
        return src, dst, M[src, dst]
    assert numbering == "x-fastest"
    c = t.coords
    index = c[:, 0] + t.shape[0] * c[:, 1]            # router -> its PE index when x runs fastest
    router = np.empty(t.n, dtype=np.int64)
    router[index] = np.arange(t.n)
    # the simulator's pattern maps index src -> dst (router r has index r in its numbering)
    return router[src], router[dst], M[src, dst]


def permutation_traffic(t: cd.Topology, pattern: str, numbering: str) -> sim.TrafficPattern:
    """The simulator's traffic for ``pattern`` with the PEs numbered as ``numbering`` says (PEs that
    would send to themselves send nothing, as with the named pattern)."""
    s, d, _ = _pairs(t, pattern, numbering)
    p = np.arange(t.n)
    p[s] = d
    return sim.permutation(p)


def _step_arcs(t: cd.Topology) -> np.ndarray:
    """``step[u, k, s]``: the arc leaving router ``u`` one hop along dimension ``k`` in direction
    ``s`` (0: +, 1: -), from the lattice coordinates (the RTT's twisted wrap shifts x, not y)."""
    shape = np.asarray(t.shape)
    D = len(shape)
    step = np.full((t.n, D, 2), -1, dtype=np.int64)
    c = t.coords
    for a in range(t.num_arcs):
        u, v = int(t.arc_src[a]), int(t.arc_dst[a])
        k = int(t.arc_dim[a])
        d = (c[v, k] - c[u, k]) % shape[k]
        s = 0 if d == 1 else 1
        assert d in (1, shape[k] - 1) and step[u, k, s] < 0
        step[u, k, s] = a
    return step


def _record_arcs(t: cd.Topology, step: np.ndarray, s: int, rec: np.ndarray) -> list[int]:
    """The channels of the quadrant of record ``rec`` from router ``s``: every hop of every
    interleaving (moves commute on these lattice graphs)."""
    k0, k1 = 0, 1
    n0, n1 = abs(int(rec[k0])), abs(int(rec[k1]))
    s0, s1 = (0 if rec[k0] >= 0 else 1), (0 if rec[k1] >= 0 else 1)
    node = np.full((n0 + 1, n1 + 1), -1, dtype=np.int64)
    node[0, 0] = s
    arcs = []
    for i in range(n0 + 1):
        for j in range(n1 + 1):
            if i == 0 and j == 0:
                continue
            if i > 0:
                a = step[node[i - 1, j], k0, s0]
                arcs.append(int(a))
                node[i, j] = t.arc_dst[a]
            if j > 0:
                a = step[node[i, j - 1], k1, s1]
                arcs.append(int(a))
                if node[i, j] < 0:
                    node[i, j] = t.arc_dst[a]
                assert node[i, j] == t.arc_dst[a]
    return arcs


def _concurrent_flow(t: cd.Topology, src, dst, amount, allowed: list[list[int]], central: bool = False):
    """Max lambda: every pair k ships lambda x ``amount[k]`` over its ``allowed[k]`` channels, unit
    capacities. Returns lambda, the flow of every column and the columns' (arc, pair). ``central``:
    HiGHS's interior point without presolve or crossover, so the flow is a central point of the optimal
    face (spread over every optimal route as evenly as optimality allows) rather than a vertex."""
    cols_arc, cols_pair = [], []
    for k, arcs in enumerate(allowed):
        cols_arc.extend(arcs)
        cols_pair.extend([k] * len(arcs))
    cols_arc = np.asarray(cols_arc, dtype=np.int64)
    cols_pair = np.asarray(cols_pair, dtype=np.int64)
    nv = len(cols_arc) + 1                                   # the last variable is lambda
    K = len(allowed)
    n = t.n
    tails, heads = t.arc_src[cols_arc], t.arc_dst[cols_arc]
    # conservation rows (pair k, router v): out - in - lambda [v = src_k] + lambda [v = dst_k] = 0
    j = np.arange(len(cols_arc))
    rows = np.concatenate([cols_pair * n + tails, cols_pair * n + heads, np.arange(K) * n + src,
                           np.arange(K) * n + dst])
    cols = np.concatenate([j, j, np.full(K, nv - 1), np.full(K, nv - 1)])
    vals = np.concatenate([np.ones(len(j)), -np.ones(len(j)), -amount, amount])
    A_eq = sp.csr_matrix((vals, (rows, cols)), shape=(K * n, nv))
    used = np.unique(A_eq.nonzero()[0])
    A_eq = A_eq[used]
    A_ub = sp.csr_matrix((np.ones(len(j)), (cols_arc, j)), shape=(t.num_arcs, nv))
    c = np.zeros(nv)
    c[-1] = -1.0
    with warnings.catch_warnings():
        # scipy does not know HiGHS's run_crossover and hands it to HiGHS as it is, with a warning
        warnings.simplefilter("ignore", OptimizeWarning)
        res = linprog(c, A_ub=A_ub, b_ub=np.ones(t.num_arcs), A_eq=A_eq, b_eq=np.zeros(A_eq.shape[0]),
                      bounds=(0, None), method="highs-ipm",
                      options={"run_crossover": "off", "presolve": False} if central else None)
    assert res.status == 0, res.message
    return float(res.x[-1]), res.x[:-1], cols_arc, cols_pair


def _max_concurrent(t: cd.Topology, src, dst, amount, allowed: list[list[int]]) -> float:
    return _concurrent_flow(t, src, dst, amount, allowed)[0]


def record_split(t: cd.Topology, pattern: str, numbering: str,
                 central: bool = True) -> tuple[float, np.ndarray, np.ndarray]:
    """The record bound's optimal flow as a split table for ``sim.simulate(..., split=)``: lambda,
    ``split[u, d, k]``, the flow of the pair with destination router ``d`` (one per router under a
    permutation) on the channel leaving router ``u`` along dimension ``k``, and every channel's load
    (of capacity 1) at lambda."""
    src, dst, amount = _pairs(t, pattern, numbering)
    step = _step_arcs(t)
    recs = cd.routing_records(t, src, dst)
    lam, x, arcs, pair = _concurrent_flow(t, src, dst, amount,
                                          [_record_arcs(t, step, int(s), r) for s, r in zip(src, recs)], central)
    split = np.zeros((t.n, t.n, len(t.shape)))
    np.add.at(split, (t.arc_src[arcs], dst[pair], t.arc_dim[arcs]), np.maximum(x, 0.0))
    return lam, split, np.bincount(arcs, weights=x, minlength=t.num_arcs)



def bounds(t: cd.Topology, pattern: str, numbering: str = "x-slowest") -> dict:
    src, dst, amount = _pairs(t, pattern, numbering)
    D = np.array([cd.hop_distances(t.indptr, t.indices, u) for u in range(t.n)], dtype=np.int64)
    tails, heads = t.arc_src, t.arc_dst
    minimal = [np.flatnonzero(D[s, tails] + 1 + D[heads, d] == D[s, d]).tolist() for s, d in zip(src, dst)]
    step = _step_arcs(t)
    recs = cd.routing_records(t, src, dst)
    assert (np.abs(recs).sum(axis=1) == D[src, dst]).all()
    quadrant = [_record_arcs(t, step, int(s), r) for s, r in zip(src, recs)]
    for q, m in zip(quadrant, minimal):
        assert set(q) <= set(m)
    # routing-free: the PTAS (certified within 2%; its lower end) -- the arc LP with every channel
    # allowed to every pair is 10^6 variables at 32x16
    M = np.zeros((t.n, t.n))
    M[src, dst] = amount
    c0 = time.perf_counter()
    free = max_concurrent_flow(FlowProblem.from_topology(t, Demands.from_matrix(M)), eps=0.02).lam
    print(f"  {t.spec} {pattern} free: {free:.4g} ({time.perf_counter() - c0:.1f} s)", file=sys.stderr, flush=True)
    out = {"free": free}
    for k, v in (("minimal", minimal), ("record", quadrant)):
        c0 = time.perf_counter()
        out[k] = _max_concurrent(t, src, dst, amount, v)
        print(f"  {t.spec} {pattern} {numbering} {k}: {out[k]:.4g} ({sum(map(len, v))} variables, "
              f"{time.perf_counter() - c0:.1f} s)", file=sys.stderr, flush=True)
    return out


def highest_accepted(spec: str, pattern: str, numbering: str, buffer_packets: int, seed: int,
                     loads=PAPER_LOADS) -> float:
    """The paper's throughput: the highest accepted load over a sweep of offered ``loads`` (tpds2010 preset,
    the records' ties broken at random per packet, VCs of ``buffer_packets`` packets)."""
    t = cd.from_spec(spec)
    cfg = sim.preset("tpds2010").replace(tie_break="random", buffer_packets=buffer_packets)
    tp = permutation_traffic(t, pattern, numbering)
    return max(sim.simulate(t, cfg, tp, load=x, seed=seed).accepted for x in loads)


PAPER_NOTES = """Reading it.
- The authors' numbering: the paper does not give it; their later simulator INRFlow (same group) numbers a
  torus's nodes x fastest and breaks a half ring's tie at random per route, which is what this table uses.
  Bit complement and perfect shuffle do not depend on it (complement complements every coordinate; a shuffle
  is a rotation of the index bits and so is renumbering x fastest instead of slowest); bit reversal does.
- Bit complement comes close: {bc4} with the paper's 4-packet VCs (seeds {bc4r}) against its +24.3%, above
  the {bc_min} that any minimal routing can give concurrently: the highest accepted load is an average over PEs,
  and the pairs that cross the RT's saturated channels fall behind while the others keep their rate.
- Bit reversal is not: {br4} with 4-packet VCs, {br16} with 16-packet VCs, against the paper's +41.1% and the
  bounds' {br_rec} (the first record), {br_min} (any minimal routing), {br_free} (free). The RT reaches {rt_frac} of its
  minimal-routing bound, the RTT only {rtt_frac}: the RTT's bound needs its pairs spread over the quadrant of
  their record in just the right proportions, and the router's local choice (the output with more free
  space; the escape VC when both adaptive VCs are full) does not find that spread; deeper buffers show it
  more of the congestion and recover part of it. The part "Output selection against the LP's split" below
  measures it: no local selection finds the spread, and routed by the LP's own optimal flow the RTT only
  draws about level with the RT.
- Perfect shuffle: {ps4} (the paper gives only the range 24.3-41.1% for its three patterns). Shuffle and bit
  complement pass their concurrent bounds on the RTT (last column above 1): averages over PEs, as above.
- Deeper VCs are not better everywhere: with 16-packet VCs bit complement's gain falls to {bc16} (the RT's
  pairs that fall behind hold more of the network)."""


NOTES = """Reading it.
- Under a permutation every PE has one destination, so a throughput is either concurrent (every pair
  gets it: the LP columns) or an average over the PEs (a simulator's accepted load: pairs whose routes
  cross a saturated channel fall behind while the others keep their rate). A simulated saturation can
  therefore exceed the concurrent bound of its own routing (RTT shuffle: {ps_sim:.4g} against {ps_rec:.4g}), and
  how far starved pairs may fall behind (the saturation definition) moves it: the highest accepted load of the
  sweep (the `accepted` definition of repro_twisted_tori.py) gives RT 0.1075 and RTT 0.1192 under bit
  complement where the stable definition here gives {bc_rt:.4g} and {bc_rtt:.4g}.
- Minimal routing takes most of the twisted torus's advantage away: the RTT carries 98 / 40 / 68% more than
  the RT with free routing but only 7 / 9 / 0% more with the best minimal routing (bit complement / bit
  reversal / shuffle): the twisted wraparound shortens the routes, yet the permutation's minimal routes
  still crowd onto as few channels. The tpds2010 router's record restriction (ties = first) moves the
  minimal gains to 0 / 23 / 0%.
- The paper's simulated gains (+24.3% bit complement, +41.1% bit reversal at 32x16) are above what any
  minimal routing can give concurrently on the simulator's numbering (+7%, +9%). The numbering matters for
  bit reversal: numbered x fastest, minimal routing's gain is +31% (free +43%), closer to the paper's 41.1%.
  It cannot matter for bit complement (complementing the index complements every coordinate, whichever
  runs fastest): +7% under either, so the paper's +24.3% there can only be an average accepted load (set by
  how far starved pairs fall behind), not a concurrent throughput of minimal routing.
- `free` is the PTAS's certified lower end (within 2%), hence `minimal / free` slightly above 1 where
  minimality costs nothing."""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", type=int, default=16)
    ap.add_argument("--record", action="store_true")
    ap.add_argument("--paper", action="store_true", help="the paper's measurement (highest accepted load), x-fastest numbering")
    ap.add_argument("--selection", action="store_true",
                    help="output selection rules and the record LP's split against the bounds, x-fastest numbering")
    ap.add_argument("--jobs", type=int, default=2, help="simulations in parallel with --paper, --selection (default 2)")
    args = ap.parse_args()
    if args.a < 4 or args.a & (args.a - 1):
        ap.error(f"--a must be a power of 2 of at least 4 (the bit permutations need 2a^2 PEs a power of 2; a ring of "
                 f"2 has one neighbour both ways round), got {args.a}")
    if args.jobs < 1:
        ap.error(f"--jobs must be at least 1, got {args.jobs}")
    if args.paper:
        paper(args)
        return
    if args.selection:
        selection(args)
        return
    t0, cpu0 = time.perf_counter(), time.process_time()
    rows, val = [], {}
    cfg = sim.preset("tpds2010")
    for pattern in PATTERNS:
        for fam in ("rt", "rtt"):
            t = cd.from_spec(f"{fam}:a={args.a}")
            b = bounds(t, pattern)
            s = sim.saturation(t, cfg, pattern, step=0.01, resolution=0.005, definition="stable", seed=1).saturation
            val[pattern, fam] = (b, s)
            rows.append([pattern, t.spec, f"{2 * args.a}x{args.a}", b["free"], b["minimal"], b["record"], s,
                         round(s / b["record"], 3), round(b["record"] / b["minimal"], 3),
                         round(b["minimal"] / b["free"], 3)])
    gains = []
    for pattern in PATTERNS:
        (br, sr), (bt, st) = val[pattern, "rt"], val[pattern, "rtt"]
        g = [round(100 * (bt[k] / br[k] - 1)) for k in ("free", "minimal", "record")]
        gains.append([pattern, *g, round(100 * (st / sr - 1)), PAPER_GAIN[pattern]])
    xfast = []
    for pattern in PATTERNS:
        b = {fam: bounds(cd.from_spec(f"{fam}:a={args.a}"), pattern, "x-fastest") for fam in ("rt", "rtt")}
        xfast.append([pattern, *(f"{b['rt'][k]:.4g} / {b['rtt'][k]:.4g} ({100 * (b['rtt'][k] / b['rt'][k] - 1):+.0f}%)"
                                 for k in ("free", "minimal", "record")), PAPER_GAIN[pattern]])
    body = (f"RT({args.a}) and RTT({args.a}), one PE per router, permutation traffic; throughput per PE (phits/cycle): "
            "routing-free optimum (PTAS, within 2%), the best minimal routing, the best routing within the pair's first routing "
            "record (the tpds2010 router's), and the simulated saturation (tpds2010 preset, stable definition, "
            f"seed 1); {time.perf_counter() - t0:.0f} s wall, {time.process_time() - cpu0:.0f} s CPU:\n\n"
            + table(["pattern", "network", "size", "free", "minimal", "record", "simulated", "sim / record",
                     "record / minimal", "minimal / free"], rows)
            + "\n\nGain of the RTT over the RT (percent) at each level, beside the paper's simulated gain:\n\n"
            + table(["pattern", "free", "minimal", "record", "simulated", "paper"], gains)
            + "\n\nThe same bounds with the PEs numbered x fastest (the simulator numbers them x slowest, C order; "
            "the paper does not say), RT / RTT (gain):\n\n"
            + table(["pattern", "free", "minimal", "record", "paper gain"], xfast)
            + "\n\n" + NOTES.format(ps_sim=val["shuffle", "rtt"][1], ps_rec=val["shuffle", "rtt"][0]["record"],
                                      bc_rt=val["bitcomplement", "rt"][1], bc_rtt=val["bitcomplement", "rtt"][1]))
    print(body)
    if args.record:
        record_subsection(SECTION.format(size=f"{2 * args.a}x{args.a}"), BOUNDS_TITLE, body, legacy_title=BOUNDS_TITLE)


def rule_run(spec: str, pattern: str, rule: str, seed: int, split: np.ndarray | None, probe: float,
             loads=PAPER_LOADS) -> tuple[float, float]:
    """``--selection``: the highest accepted load of a sweep with output selection ``rule`` (tpds2010 preset,
    PEs numbered x fastest; the local rules with the records' ties at random per packet, ``split`` on the
    first record with the record LP's split) and the busiest channel's utilisation at offered load ``probe``."""
    t = cd.from_spec(spec)
    if rule.startswith("split"):
        cfg = sim.preset("tpds2010").replace(tie_break="first", buffer_packets=16 if rule == "split-deep" else 4)
    else:
        cfg = sim.preset("tpds2010").replace(tie_break="random", selection=rule)
        split = None
    tp = permutation_traffic(t, pattern, "x-fastest")
    best = max(sim.simulate(t, cfg, tp, load=x, seed=seed, split=split).accepted for x in loads)
    busiest = float(sim.simulate(t, cfg, tp, load=probe, seed=seed, split=split).channel_utilisation.max())
    return best, busiest


SELECTION_NOTES = """Reading it.
- The rules: `credits` is the preset's (the output VC with the most free phits, ties in candidate order, x
  before y: INSEE/FSIN's `shortest` request mode); `credits-random` breaks those ties at random; `random`
  takes any output with room uniformly (FSIN's `random`); `weighted` draws in proportion to free phits. The
  LP's split routes every packet by the record bound's optimal flow: at each hop the dimension is drawn in
  proportion to that flow at the router for the packet's destination (a destination-based oblivious routing
  that knows the pattern; `sim.simulate(..., split=)`), the escape VC unchanged. Its flow is HiGHS's central
  optimal solution (interior point, no crossover: spread over the optimal routes as evenly as optimality
  allows); "a vertex" is the basic solution the crossover returns, which fills many more channels.
- Bit reversal, local rules: the RTT carries less than the RT under all four ({local_gain}), reaching
  {local_rtt} of its minimal bound where the RT reaches {local_rt} of its own. At {br_probe} offered (half the
  RT's record bound) they already fill the RTT's busiest channel to {local_busy}, where the LP's spread puts at
  most {lp_busy} on any channel and the split {split_busy}: the local rules' routes make the RTT's hot spots.
- Bit reversal, the LP's split: the RT reaches {split_rt_rec} of its bound ({deep_rt_rec} with 16-packet VCs),
  within 10%; the RTT does not with any routing measured here: {split_rtt_rec} of the record bound the split
  realises ({vertex_rtt_rec} with the vertex's split, {deep_rtt_rec} with 16-packet VCs). Its split is not the
  cause: the central flow fills {full_rtt} channels at lambda (the RT's {full_rt}) and its busiest channel at
  half load is {split_busy}; past its peak the RTT's accepted load falls while the RT's keeps rising (pairs
  clear of the saturated channels keep their rate). So the RTT stays level with the RT ({split_gain} central,
  {vertex_gain} vertex, {deep_gain} with 16-packet VCs) against the paper's +41.1% and the bounds' +23%
  (record) and +31% (minimal): in this router no routing measured gives the RTT more than {best_gain} under
  bit reversal; a local selection loses the spread the RTT's bound needs, and the router a further part of
  that bound even when the spread is given.
- Bit complement and shuffle: the gains run {bc_range} and {ps_range} over the rules; the split with
  16-packet VCs is the outlier on bit complement ({bc_deep})."""


def selection(args) -> None:
    t0, cpu0 = time.perf_counter(), time.process_time()
    specs = {fam: f"{fam}:a={args.a}" for fam in ("rt", "rtt")}
    splits, vertex, minimal = {}, {}, {}
    for pattern in PATTERNS:
        for fam, spec in specs.items():
            t = cd.from_spec(spec)
            c0 = time.perf_counter()
            splits[pattern, fam] = record_split(t, pattern, "x-fastest")
            vertex[pattern, fam] = record_split(t, pattern, "x-fastest", central=False)
            src, dst, amount = _pairs(t, pattern, "x-fastest")
            D = np.array([cd.hop_distances(t.indptr, t.indices, u) for u in range(t.n)], dtype=np.int64)
            allowed = [np.flatnonzero(D[s, t.arc_src] + 1 + D[t.arc_dst, d] == D[s, d]).tolist()
                       for s, d in zip(src, dst)]
            minimal[pattern, fam] = _max_concurrent(t, src, dst, amount, allowed)
            print(f"  {spec} {pattern}: record {vertex[pattern, fam][0]:.4g}, minimal {minimal[pattern, fam]:.4g} "
                  f"({time.perf_counter() - c0:.0f} s)", file=sys.stderr, flush=True)
    # the bound: the vertex's lambda (the central solve stops within HiGHS's interior-point tolerance of it)
    bound = {k: v[0] for k, v in vertex.items()}
    probe = {p: round(PROBE * bound[p, "rt"], 3) for p in PATTERNS}
    jobs = [(pattern, fam, rule, seed) for pattern in PATTERNS for fam in specs for rule in RULES
            for seed in PAPER_SEEDS]
    print(f"{len(jobs)} sweeps of {len(PAPER_LOADS) + 1} loads, --jobs {args.jobs}", file=sys.stderr, flush=True)
    out = Parallel(n_jobs=args.jobs, verbose=5)(
        delayed(rule_run)(specs[fam], pattern, rule, seed,
                          (vertex if rule == "split-vertex" else splits)[pattern, fam][1], probe[pattern])
        for pattern, fam, rule, seed in jobs)
    acc: dict = {}
    for (pattern, fam, rule, seed), res in zip(jobs, out):
        acc.setdefault((pattern, fam, rule), []).append(res)
    rows, facts = [], {}
    for pattern in PATTERNS:
        lam = {f: bound[pattern, f] for f in specs}
        for rule in RULES:
            m = {f: float(np.mean([b for b, _ in acc[pattern, f, rule]])) for f in specs}
            busy = {f: acc[pattern, f, rule][0][1] for f in specs}                # seed 1
            frac = {f: m[f] / minimal[pattern, f] for f in specs}
            gain = 100 * (m["rtt"] / m["rt"] - 1)
            facts[pattern, rule] = {"m": m, "frac": frac, "gain": gain, "busy": busy}
            rows.append([pattern, SPLIT_LABEL.get(rule, rule), f"{m['rt']:.4f} / {m['rtt']:.4f}",
                         f"{frac['rt']:.2f} / {frac['rtt']:.2f}", f"{gain:+.1f}%",
                         f"{busy['rt']:.2f} / {busy['rtt']:.2f}"])
        full = {f: int((splits[pattern, f][2] >= 0.999).sum()) for f in specs}
        vfull = {f: int((vertex[pattern, f][2] >= 0.999).sum()) for f in specs}
        facts[pattern, "full"] = full
        facts[pattern, "vfull"] = vfull
        rows.append([pattern, "bounds: record (minimal); channels full at lambda, central (vertex)",
                     " / ".join(f"{lam[f]:.4f} ({minimal[pattern, f]:.4f})" for f in specs),
                     f"{full['rt']} ({vfull['rt']}) / {full['rtt']} ({vfull['rtt']})",
                     f"{100 * (lam['rtt'] / lam['rt'] - 1):+.1f}%",
                     " / ".join(f"{probe[pattern] / lam[f]:.2f}" for f in specs)])
    br = "bitreversal"
    local = [facts[br, r] for r in RULES if not r.startswith("split")]
    sp_ = facts[br, "split"]

    def span(vals, fmt):
        return f"{fmt.format(min(vals))} to {fmt.format(max(vals))}"

    def gains(pattern):
        return span([facts[pattern, r]["gain"] for r in RULES], "{:+.1f}%")

    lam_br = {f: bound[br, f] for f in specs}
    notes = SELECTION_NOTES.format(
        local_gain=span([f["gain"] for f in local], "{:+.1f}%"), local_rtt=span([f["frac"]["rtt"] for f in local], "{:.2f}"),
        local_rt=span([f["frac"]["rt"] for f in local], "{:.2f}"), br_probe=probe[br],
        local_busy=span([f["busy"]["rtt"] for f in local], "{:.2f}"),
        lp_busy=f"{probe[br] / lam_br['rtt']:.2f}", split_busy=f"{sp_['busy']['rtt']:.2f}",
        split_rt_rec=f"{sp_['m']['rt'] / lam_br['rt']:.2f}",
        deep_rt_rec=f"{facts[br, 'split-deep']['m']['rt'] / lam_br['rt']:.2f}",
        split_rtt_rec=f"{sp_['m']['rtt'] / lam_br['rtt']:.2f}",
        vertex_rtt_rec=f"{facts[br, 'split-vertex']['m']['rtt'] / lam_br['rtt']:.2f}",
        deep_rtt_rec=f"{facts[br, 'split-deep']['m']['rtt'] / lam_br['rtt']:.2f}",
        full_rt=facts[br, "full"]["rt"], full_rtt=facts[br, "full"]["rtt"],
        split_gain=f"{sp_['gain']:+.1f}%", vertex_gain=f"{facts[br, 'split-vertex']['gain']:+.1f}%",
        deep_gain=f"{facts[br, 'split-deep']['gain']:+.1f}%",
        best_gain=f"{max(facts[br, r]['gain'] for r in RULES):+.1f}%",
        bc_range=gains("bitcomplement"), ps_range=gains("shuffle"),
        bc_deep=f"{facts['bitcomplement', 'split-deep']['gain']:+.1f}%")
    if args.a != 16:
        notes = "(The reading of the paper's 32x16 run, --a 16, is not printed for other sizes.)"
    body = (f"RT({args.a}) and RTT({args.a}), one PE per router, the PEs numbered x fastest; throughput = the highest "
            f"accepted load (phits/cycle/PE) over offered loads {', '.join(map(str, PAPER_LOADS))}, mean of seeds "
            f"{', '.join(map(str, PAPER_SEEDS))}, tpds2010 preset (4-packet VCs) with each output selection "
            f"(`SimConfig.selection`; the local rules with the records' ties at random per packet) and with the "
            f"record LP's optimal split (ties = first record, the LP's); RT / RTT, their fraction of each network's "
            f"minimal-routing bound, the RTT's gain, and the busiest channel's utilisation (seed 1) at an offered load "
            f"of {PROBE} x the RT's record bound (bit complement {probe['bitcomplement']}, bit reversal "
            f"{probe['bitreversal']}, shuffle {probe['shuffle']}; for the bounds: the LP's busiest channel there); "
            f"{time.perf_counter() - t0:.0f} s wall, {time.process_time() - cpu0:.0f} s CPU in the parent "
            f"(--jobs {args.jobs}):\n\n"
            + table(["pattern", "selection", "RT / RTT", "of the minimal bound", "gain", "busiest channel, half load"],
                    rows)
            + "\n\n" + notes)
    print(body)
    if args.record:
        record_subsection(SECTION.format(size=f"{2 * args.a}x{args.a}"), SELECTION_TITLE, body,
                          legacy_title=BOUNDS_TITLE)


def paper(args) -> None:
    t0, cpu0 = time.perf_counter(), time.process_time()
    specs = {fam: f"{fam}:a={args.a}" for fam in ("rt", "rtt")}
    jobs = [(pattern, fam, buf, seed) for pattern in PATTERNS for fam in specs for buf in (4, 16) for seed in PAPER_SEEDS]
    print(f"{len(jobs)} sweeps of {len(PAPER_LOADS)} loads, --jobs {args.jobs}", file=sys.stderr, flush=True)
    out = Parallel(n_jobs=args.jobs, verbose=5)(
        delayed(highest_accepted)(specs[fam], pattern, "x-fastest", buf, seed) for pattern, fam, buf, seed in jobs)
    acc = {}
    for (pattern, fam, buf, seed), x in zip(jobs, out):
        acc.setdefault((pattern, fam, buf), []).append(x)
    rows, facts = [], {}
    for pattern in PATTERNS:
        b = {fam: bounds(cd.from_spec(specs[fam]), pattern, "x-fastest") for fam in specs}
        row = [pattern]
        for buf in (4, 16):
            rt, rtt = np.array(acc[pattern, "rt", buf]), np.array(acc[pattern, "rtt", buf])
            g = 100 * (rtt / rt - 1)
            gain = 100 * (rtt.mean() / rt.mean() - 1)
            row += [f"{rt.mean():.4f} / {rtt.mean():.4f}", f"{gain:+.1f}% ({g.min():+.0f} to {g.max():+.0f})"]
            facts[pattern, buf] = (gain, g, rt.mean() / b["rt"]["minimal"], rtt.mean() / b["rtt"]["minimal"])
        for k in ("record", "minimal", "free"):
            facts[pattern, k] = f"{100 * (b['rtt'][k] / b['rt'][k] - 1):+.0f}%"
            row.append(facts[pattern, k])
        row += [f"{facts[pattern, 4][2]:.2f} / {facts[pattern, 4][3]:.2f}", PAPER_GAIN[pattern]]
        rows.append(row)
    pct = "{:+.1f}%".format
    notes = PAPER_NOTES.format(
        bc4=pct(facts["bitcomplement", 4][0]),
        bc4r=f"{facts['bitcomplement', 4][1].min():+.0f} to {facts['bitcomplement', 4][1].max():+.0f}%",
        bc16=pct(facts["bitcomplement", 16][0]), br4=pct(facts["bitreversal", 4][0]), br16=pct(facts["bitreversal", 16][0]),
        rt_frac=f"{facts['bitreversal', 4][2]:.2f}", rtt_frac=f"{facts['bitreversal', 4][3]:.2f}",
        ps4=pct(facts["shuffle", 4][0]), bc_min=facts["bitcomplement", "minimal"],
        br_rec=facts["bitreversal", "record"], br_min=facts["bitreversal", "minimal"], br_free=facts["bitreversal", "free"])
    if args.a != 16:
        notes = "(The reading of the paper's 32x16 run, --a 16, is not printed for other sizes.)"
    body = (f"RT({args.a}) and RTT({args.a}), one PE per router, the PEs numbered x fastest; throughput = the highest "
            f"accepted load (phits/cycle/PE) over offered loads {', '.join(map(str, PAPER_LOADS))}, mean of seeds "
            f"{', '.join(map(str, PAPER_SEEDS))}; tpds2010 preset with the records' ties broken at random per packet; "
            f"{time.perf_counter() - t0:.0f} s wall, {time.process_time() - cpu0:.0f} s CPU in the parent "
            f"(--jobs {args.jobs}):\n\n"
            + table(["pattern", "RT / RTT, 4-packet VCs (the paper's)", "gain (per seed)", "RT / RTT, 16-packet VCs",
                     "gain (per seed)", "bound gain: record", "minimal", "free", "RT / RTT of their minimal bound",
                     "paper gain"], rows)
            + "\n\n" + notes)
    print(body)
    if args.record:
        record_subsection(SECTION.format(size=f"{2 * args.a}x{args.a}"), PAPER_TITLE, body, legacy_title=BOUNDS_TITLE)


if __name__ == "__main__":
    main()
