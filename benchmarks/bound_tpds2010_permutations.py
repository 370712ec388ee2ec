"""Where the permutation throughput of 'twisted-tori-tpds2010' goes: the bound of the routing used.

    python benchmarks/bound_tpds2010_permutations.py [--a A] [--record]
    python benchmarks/bound_tpds2010_permutations.py --paper [--a A] [--jobs J] [--record]

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

The other two are exact: a maximum concurrent flow over the allowed channels with unit capacities, one flow
variable per (packet pair, allowed channel), solved by scipy's HiGHS. The ratio simulated / record
says what the router loses; record / minimal what the record restriction loses; minimal / free
what minimality loses.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

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


def _max_concurrent(t: cd.Topology, src, dst, amount, allowed: list[list[int]]) -> float:
    """Max lambda: every pair k ships lambda x ``amount[k]`` over its ``allowed[k]`` channels, unit
    capacities."""
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
    res = linprog(c, A_ub=A_ub, b_ub=np.ones(t.num_arcs), A_eq=A_eq, b_eq=np.zeros(A_eq.shape[0]),
                  bounds=(0, None), method="highs-ipm")
    assert res.status == 0, res.message
    return float(res.x[-1])


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
  more of the congestion and recover part of it. The RTT's advantage under bit reversal lies in that spread,
  so a router that misses it loses the gain; the paper's INSEE router evidently found it, and which detail of
  its selection does is not known from the paper.
- Perfect shuffle: {ps4} (the paper gives only the range 24.3-41.1% for its three patterns). Shuffle and bit
  complement pass their concurrent bounds on the RTT (last column above 1): averages over PEs, as above.
- Deeper VCs are not better everywhere: with 16-packet VCs bit complement's gain falls to {bc16} (the RT's
  pairs that fall behind hold more of the network)."""


NOTES = """Reading it.
- Under a permutation every PE has one destination, so a throughput is either concurrent (every pair
  gets it: the LP columns) or an average over the PEs (a simulator's accepted load: pairs whose routes
  cross a saturated channel fall behind while the others keep their rate). A simulated saturation can
  therefore exceed the concurrent bound of its own routing (RTT shuffle: 0.1287 against 0.1245), and how
  far starved pairs may fall behind (the saturation definition) moves it: the highest accepted load of the
  sweep (the `accepted` definition of repro_twisted_tori.py) gives RT 0.1063 and RTT 0.1172 under bit
  complement where the stable definition here gives 0.0899 and 0.1036.
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
    ap.add_argument("--jobs", type=int, default=2, help="simulations in parallel with --paper (default 2)")
    args = ap.parse_args()
    if args.a < 4 or args.a & (args.a - 1):
        ap.error(f"--a must be a power of 2 of at least 4 (the bit permutations need 2a^2 PEs a power of 2; a ring of "
                 f"2 has one neighbour both ways round), got {args.a}")
    if args.jobs < 1:
        ap.error(f"--jobs must be at least 1, got {args.jobs}")
    if args.paper:
        paper(args)
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
            + "\n\n" + NOTES)
    print(body)
    if args.record:
        record_subsection(SECTION.format(size=f"{2 * args.a}x{args.a}"), BOUNDS_TITLE, body, legacy_title=BOUNDS_TITLE)


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
