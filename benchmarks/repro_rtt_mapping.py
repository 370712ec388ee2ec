"""Reproduce 'rtt-mapping-concentration' with toposynth: task mapping and concentration on RT vs RTT.

    python benchmarks/repro_rtt_mapping.py [--quick] [--record] [--no-nas] [--no-synthetic]
                                           [--compute model|0|X] [--compute-study] [--load] [--mg-grid]

1. Synthetic local/global traffic (the paper's Figs. 5-8): a logical 2D torus of tasks sends a share
   alpha of its packets to a logical neighbour and 1 - alpha to any other task. For the mappings of
   Section 3.3 (c = 1: RT id, RTT id, RTT fd) and the concentrations of Section 3.4 (c = 2: RT fv2,
   RTT fv2, RTT fd.fv2, RTT ft2) we put side by side, at every alpha:
   - the paper's closed forms (``synth.mapping.paper_model``, Table 1's approximate distances);
   - the same model computed exactly for the mapped traffic (``synth.mapping.mapping_model``, the
     uniform part without the sender itself, as the simulator draws it);
   - the simulator (``sim``; the paper's Blue Gene/L-like router: virtual cut-through, 1 bubble escape
     VC + 2 minimal-adaptive VCs, in-transit priority, ties split at random). Maximum throughput:
     4-phit packets and 4 injectors per router (the paper's BlueGene/Q-like injection, emulated by 4
     terminals per router, a task's packets spread over its router's share of them), highest accepted
     load of a sweep around the model's value, phits/cycle/router. Base latency: 1-phit packets at 0.01
     packets/cycle/task ('localglobal' traffic with the placement as its process -> terminal mapping);
     the mean hops (the model's tau) and the latency in cycles (2 tau + 2 with no contention).
   Quick: RT(4)/RTT(4) (the size of the paper's model figures), alpha in steps of 0.25. Full: alpha in steps
   of 0.1 and longer runs on RT(4)/RTT(4), and RT(8)/RTT(8) (the 16 x 8 network of the paper's simulation
   text) in steps of 0.25.
2. The NAS communication skeletons (``sim.nas``; no computation) on RT(4)/RTT(4): 32 tasks with c = 1
   (Fig. 10), 64 tasks with c = 2 (Fig. 11), 128 tasks with c = 4 (Fig. 12); execution cycles and the
   saving against the RT baseline. Quick: class W, one iteration (two for LU/BT/SP). Full: class A (the
   paper's problem class; FT at class W) with fewer iterations than NPB (see the table).
   ``--compute model`` (or a multiple X of it) adds computation before every communication phase:
   COMPUTE_MODEL, simulator cycles per unit of work from NPB's own operation counts at an assumed 500
   Mflop/s per core. The default stays 0 (no computation), as recorded: the model rests on that assumed
   rate, so one multiple of it is no better a default than none.
3. ``--compute-study``: the NAS cases at 0, 0.25, 0.5, 1, 2 and 4 times the compute model (every kernel at
   the mode's class, FT too), to show how the savings shrink as computation grows and where they meet the
   paper's, whose traces carry their own computation. Recorded as its own subsection (``--record`` records
   every part that ran as a subsection and keeps the others).
4. ``--load``: the network load of every NAS kernel over its run with 64 tasks on RT(4) fv2 (the paper's
   Fig. 9), without computation and with the compute model: accepted phits per cycle per task and the mean
   channel utilisation, and the four kernels that load the network most against the paper's CG, FT, IS, MG.
5. ``--mg-grid``: MG at 32 tasks, c = 1 (Fig. 10), under the skeleton's default process grid and NPB's own
   (``sim.nas(..., mg_order="npb")``), without computation and with the compute model, with the mean hop distance
   of its messages weighted by their bytes on each network.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import candidates as cd
import sim
from sim.nas import NAS_CLASSES
from sim.trace import COMPUTE
from traffic import localglobal_matrix
from synth.mapping import grid_map, mapping_model, paper_model, place

from _record import record_subsection, table

FIGURES = Path(__file__).with_name("figures")
CASES = {1: [("rt", "id"), ("rtt", "id"), ("rtt", "fd")],
         2: [("rt", "fv2"), ("rtt", "fv2"), ("rtt", "fd.fv2"), ("rtt", "ft2")]}
INJECTORS = 4  # per router, as the paper's throughput runs ("4 injectors, similar to the BlueGene/Q chips")
SEED = 1

# NAS: (tasks, concentration, baseline, RTT mappings, kernels); the paper's Figs. 10-12
NAS_CASES = [
    (32, 1, ("rt", "id"), [("rtt", "id"), ("rtt", "fd")], ["cg", "ft", "is", "lu", "mg"]),
    (64, 2, ("rt", "fv2"), [("rtt", "fv2"), ("rtt", "fd.fv2"), ("rtt", "ft2")], ["bt", "cg", "ft", "is", "lu", "mg", "sp"]),
    (128, 4, ("rt", "fv2.fh2"), [("rtt", "fv2.fh2"), ("rtt", "ft2.fh2")], ["cg", "ft", "is", "lu", "mg"]),
]
# the paper's text (its bar charts are lost in our copy): saving of the RTT over the RT baseline
PAPER_NAS = {
    32: "avg 2.2% (abstract: 2.9%); CG, FT up to 10%; LU, MG ~0 (< 0.1% loss); fd slightly better than id",
    64: "avg 3.0-4.6% over the mappings (abstract: 4.9%); BT, SP ~0; ft2 among the best, like fd.fv2",
    128: "best mapping 8.7% (FT) to 19.1% (CG); avg of the best (ft2.fh2) 12.8%; LU, MG not run by the paper",
}
# the kernels of the paper's averages that sim.nas has (no DT); at 128 tasks it ran no LU, MG (footnote 1)
PAPER_KERNELS = {128: ("cg", "ft", "is")}
NAS_ITERS = {  # class -> kernel -> iterations (NPB's own counts are 15/4/6/10/250/200/400 at class A)
    "W": {"cg": 1, "ft": 1, "is": 1, "lu": 2, "mg": 1, "bt": 2, "sp": 2},
    "A": {"cg": 1, "ft": 1, "is": 2, "lu": 5, "mg": 1, "bt": 5, "sp": 5},
}
# FT at class A moves 256 MB per all-to-all (over a minute per run when the NAS part was first recorded, 2-3 s
# on today's simulator); the NAS part still runs FT at class W, the same pairwise exchange with 16x shorter
# messages (still bandwidth bound: 8-64 KB per pair), so that its recorded table stays comparable; the
# compute study runs FT at class A
NAS_CLASS = {"A": {"ft": "W"}}

# ------------------------------------------------------------------ compute model
# The paper's traces carry the computation of NPB class A on IBM JS21 blades, replayed at its Table 2's 2 GHz
# processor; ours need a number of simulator cycles per unit of local work of sim.nas (nonzeros for CG, keys
# for IS, grid points for the others; see src/sim/nas.py). One simulator cycle = one 4-byte phit on a 1 Gbps
# link = 32 ns = 64 cycles of the 2 GHz processor (Table 2).
CYCLE_NS = 32.0
# ASSUMED, not measured: a PowerPC 970MP core sustains 500 Mflop/s on NPB (about 6% of its 8 Gflop/s peak at
# 2 GHz; NPB kernels typically reach 5-15% of peak on cache-based cores). The same rate for every kernel,
# although CG (memory bound) is slower and BT faster on real machines. So 1 flop = 2 ns = 1/16 cycle. The
# sensitivity study (--compute-study) scales the whole table by 0.25-4, i.e. rates of 2 Gflop/s-125 Mflop/s.
SUSTAINED_MFLOPS = 500.0
# IS does no floating point: ASSUMED 10 operations per key ranked (bucket count, prefix sum, scatter, local
# rank, mostly cache missing) at the same 500 Mop/s, i.e. 20 ns per key.
IS_OPS_PER_KEY = 10.0
#: kernel -> simulator cycles per unit of local work of sim.nas, at SUSTAINED_MFLOPS. Each is NPB's own
#: operation count (the Mop/s formula of its print_results, class A) divided by the units of work the
#: skeleton gives a rank over the same run (64 ranks; 8 x 8 for BT/SP), then by 16 flops per cycle; two
#: significant digits, as the rate behind them is an assumption (npb_cycles_per_unit recomputes them):
COMPUTE_MODEL = {
    "cg": 1.4,   # 2 na (nonzer(nonzer+1) + 3 + 25 (nonzer(nonzer+1) + 5) + 3) per outer iteration, nonzer = 11:
                 # 21.9 flops per skeleton nonzero (the skeleton counts 13 na/P per step, NPB's ~133 na/P
                 # real nonzeros do 2 flops each)
    "mg": 1.1,   # 58 n^3 per V-cycle over the skeleton's ~3.4 n^3/P points of its comm3 calls: 16.9 flops
    "ft": 7.6,   # N (14.8157 + 7.19641 ln N) + niter N (5.23518 + 7.21113 ln N), N = 256 x 256 x 128, over
                 # (niter + 1) N/P points: 121.5 flops (class W's smaller N: 101.6)
    "is": 0.62,  # IS_OPS_PER_KEY / 16 (assumed, see above)
    "lu": 39,    # 1984.77 n^3 - 10923.3 n^2 + 27770.9 n - 144010 per SSOR iteration, n = 64, over the
                 # skeleton's (n^3 + 2 (n - 2) n^2)/P points (rhs, lower and upper sweeps): 620 flops
    "bt": 29,    # 3478.8 n^3 - 17655.7 n^2 + 28023.7 n per iteration over 7 n^3/P (copy_faces + 6 sweeps): 459
    "sp": 7.2,   # 881.174 n^3 - 4683.91 n^2 + 11484.5 n - 19272.4 per iteration over 7 n^3/P: 116 flops
}
# scales of COMPUTE_MODEL in the sensitivity study (0: the no-compute skeletons of the NAS part)
STUDY_SCALES = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)


def npb_flops(kernel: str, cls: str = "A") -> float:
    """Total operations of one NPB run at its own iteration count (the formulas behind NPB's Mop/s)."""
    prm = NAS_CLASSES[cls][kernel]
    if kernel == "cg":
        z = 11 if cls == "A" else {"S": 7, "W": 8, "B": 13}[cls]
        return 2.0 * prm["niter"] * prm["na"] * (3 + z * (z + 1) + 25 * (5 + z * (z + 1)) + 3)
    if kernel == "mg":
        return 58.0 * prm["nit"] * prm["n"] ** 3
    if kernel == "ft":
        N = prm["nx"] * prm["ny"] * prm["nz"]
        return N * (14.8157 + 7.19641 * np.log(N) + (5.23518 + 7.21113 * np.log(N)) * prm["niter"])
    if kernel == "is":
        return IS_OPS_PER_KEY * prm["keys"] * prm["niter"]
    n = prm["n"]
    it = prm["itmax" if kernel == "lu" else "niter"]
    poly = {"lu": (1984.77, -10923.3, 27770.9, -144010.0), "bt": (3478.8, -17655.7, 28023.7, 0.0),
            "sp": (881.174, -4683.91, 11484.5, -19272.4)}[kernel]
    return it * (poly[0] * n ** 3 + poly[1] * n ** 2 + poly[2] * n + poly[3])


def rank_work(tr, rank: int = 0) -> int:
    """Compute cycles of one rank of a trace: ranks run their events in order, so no execution of the
    trace can be shorter (every rank of sim.nas gets the same work)."""
    sl = slice(int(tr.ptr[rank]), int(tr.ptr[rank + 1]))
    return int(tr.a[sl][tr.kind[sl] == COMPUTE].sum())


def skeleton_units(kernel: str, P: int, cls: str = "A", iterations: int | None = None) -> float:
    """Units of local work sim.nas gives rank 0 over ``iterations`` (NPB's count by default): the skeleton
    built with 1 cycle per unit, extrapolated linearly from 1 and 2 iterations (every iteration repeats)."""
    def rank0(it: int) -> int:
        return rank_work(sim.nas(kernel, P, cls, iterations=it, compute=1.0))

    if iterations is None:
        prm = NAS_CLASSES[cls][kernel]
        iterations = int(next(prm[k] for k in ("niter", "nit", "itmax") if k in prm))
    u1, u2 = rank0(1), rank0(2)
    return u1 + (iterations - 1) * (u2 - u1)


def npb_cycles_per_unit(kernel: str, P: int = 64, cls: str = "A") -> float:
    """Simulator cycles per unit of skeleton work: NPB's operations per rank over the skeleton's units,
    at SUSTAINED_MFLOPS and CYCLE_NS (what COMPUTE_MODEL rounds)."""
    flops_per_unit = npb_flops(kernel, cls) / P / skeleton_units(kernel, P, cls)
    return flops_per_unit * 1e3 / SUSTAINED_MFLOPS / CYCLE_NS


def _save(fig, name: str) -> str:
    """Write ``fig`` to benchmarks/figures/``name``, close it, return the name."""
    import matplotlib.pyplot as plt  # the plotting functions imported it (with the Agg backend) already

    FIGURES.mkdir(exist_ok=True)
    fig.savefig(FIGURES / name, dpi=90, bbox_inches="tight")
    plt.close(fig)
    return name


def spec(fam: str, a: int, c: int) -> str:
    return f"{fam}:a={a}" + (f":c={c}" if c > 1 else "")


def label(fam: str, mapping: str) -> str:
    return f"{fam.upper()} {mapping}"


# --------------------------------------------------------------------------- synthetic traffic
def sim_latency(fam: str, a: int, mapping: str, alpha: float, cfg: sim.SimConfig) -> sim.SimResult:
    """Base latency: 1-phit packets at 0.01 packets/cycle/task, 'localglobal' traffic on the placement."""
    c = grid_map(mapping).concentration
    topo = cd.from_spec(spec(fam, a, c))
    pl = place(mapping, topo)
    W, H = pl.task_shape
    pat = sim.traffic("localglobal", alpha=float(alpha), grid=f"{W}x{H}", mapping=pl.terminal_index)
    return sim.simulate(topo, cfg, pat, 0.01, seed=SEED)


def injector_traffic(fam: str, a: int, mapping: str, alpha: float):
    """The topology with INJECTORS terminals per router and the terminal-level demand matrix of the
    local/global mix: task t owns INJECTORS / c terminals of its router and spreads its packets over
    them; a packet for task u goes to one of u's terminals at random."""
    c = grid_map(mapping).concentration
    pl = place(mapping, cd.from_spec(spec(fam, a, c)))
    k = INJECTORS // c
    topo = cd.from_spec(f"{fam}:a={a}:c={INJECTORS}")
    W, H = pl.task_shape
    T = W * H
    M = localglobal_matrix(T, W, H, float(alpha))  # task t = x * H + y, the numbering of synth.mapping
    terms = (pl.router * INJECTORS + pl.terminal * k)[:, None] + np.arange(k)[None, :]
    P = np.zeros((T, topo.num_terminals))
    for j in range(k):
        P[np.arange(T), terms[:, j]] = 1.0
    return topo, P.T @ M @ P / k


def sim_throughput(fam: str, a: int, mapping: str, alpha: float, model_th: float, cfg: sim.SimConfig,
                   fracs: list[float]) -> tuple[float, float, list[tuple[float, float]]]:
    """Highest accepted load (phits/cycle/router) of a sweep at fractions of the model's throughput;
    stops two points after the first saturated one (accepted < 95% of offered)."""
    topo, M = injector_traffic(fam, a, mapping, alpha)
    pat = sim.demand(M)
    x0 = model_th / INJECTORS  # per terminal
    loads = sorted({min(1.0, round(f * x0, 4)) for f in fracs})
    pts, sat_seen, best, best_off = [], 0, 0.0, 0.0
    i = 0
    while i < len(loads):
        r = sim.simulate(topo, cfg, pat, loads[i], seed=SEED)
        acc, off = r.accepted * INJECTORS, r.offered * INJECTORS
        pts.append((off, acc))
        if not r.deadlock and acc > best:
            best, best_off = acc, off
        if r.deadlock or r.accepted < 0.95 * r.offered:
            sat_seen += 1
            if sat_seen >= 2:
                break
        elif i == len(loads) - 1 and loads[i] < 1.0:  # not saturated yet: go on up
            loads.append(min(1.0, round(loads[i] + 0.15 * x0, 4)))
        i += 1
    return best, best_off, pts


def synthetic(a: int, c: int, alphas: list[float], quick: bool, cases=None) -> list[dict]:
    """Model (closed form and exact) and simulation for every case of concentration c at every alpha."""
    cfg_th = sim.preset("tpds2010", packet_length=4, tie_break="random", warmup=1000 if quick else 2000,
                        measure=3000 if quick else 8000, drain=3000)
    cfg_lat = sim.preset("tpds2010", packet_length=1, tie_break="random", warmup=500,
                         measure=15000 if quick else 40000, drain=2000)
    fracs = [0.5, 0.7, 0.85, 1.0, 1.15] if quick else [0.4, 0.55, 0.7, 0.8, 0.9, 1.0, 1.1, 1.25]
    rows = []
    for fam, mapping in cases or CASES[c]:
        topo = cd.from_spec(spec(fam, a, c))
        pm = paper_model(fam, mapping, a, alphas)
        em = mapping_model(topo, mapping, alphas, include_self=False)
        for i, al in enumerate(alphas):
            t0 = time.perf_counter()
            lat = sim_latency(fam, a, mapping, al, cfg_lat)
            th, th_off, pts = sim_throughput(fam, a, mapping, al, em.throughput[i], cfg_th, fracs)
            rows.append(dict(a=a, c=c, fam=fam, mapping=mapping, alpha=al,
                             paper_tau=pm.latency[i], paper_th=pm.throughput[i],
                             tau=em.latency[i], th=em.throughput[i], bottleneck=em.bottleneck[i],
                             routing_bound=em.routing_bound[i], max_dilation=em.max_dilation,
                             sim_hops=lat.hops, sim_latency=lat.latency, sim_th=th, sim_th_offered=th_off,
                             sweep=pts, seconds=time.perf_counter() - t0))
    return rows


def crossover(alphas, ratio) -> float | None:
    """First alpha where ratio (RTT / RT) falls to 1 (linear interpolation); None if it never does."""
    for i in range(1, len(alphas)):
        if ratio[i - 1] >= 1.0 > ratio[i]:
            return alphas[i - 1] + (ratio[i - 1] - 1.0) * (alphas[i] - alphas[i - 1]) / (ratio[i - 1] - ratio[i])
    return None if ratio[0] >= 1.0 else alphas[0]


def series(rows, fam, mapping, key):
    return [r[key] for r in rows if r["fam"] == fam and r["mapping"] == mapping]


def plot_synthetic(rows: list[dict], a: int, c: int, alphas: list[float], tag: str = "") -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for j, (fam, mapping) in enumerate(CASES[c]):
        col = colors[j % len(colors)]
        lab = label(fam, mapping)
        ax1.plot(alphas, series(rows, fam, mapping, "paper_th"), ":", color=col)
        ax1.plot(alphas, series(rows, fam, mapping, "th"), "-", color=col, label=f"{lab} model")
        ax1.plot(alphas, series(rows, fam, mapping, "sim_th"), "o", color=col, label=f"{lab} sim")
        ax2.plot(alphas, series(rows, fam, mapping, "paper_tau"), ":", color=col)
        ax2.plot(alphas, series(rows, fam, mapping, "tau"), "-", color=col, label=f"{lab} model")
        ax2.plot(alphas, series(rows, fam, mapping, "sim_hops"), "o", color=col, label=f"{lab} sim")
    ax1.set_xlabel("locality alpha")
    ax1.set_ylabel("maximum throughput (phits/cycle/router)")
    ax1.set_title(f"throughput, RT({a}) vs RTT({a}), c = {c}")
    ax2.set_xlabel("locality alpha")
    ax2.set_ylabel("base latency tau (hops)")
    ax2.set_title("latency (dotted: paper's closed form)")
    ax1.legend(fontsize=7)
    return _save(fig, f"rtt_mapping_{tag}a{a}_c{c}.png")


def synthetic_report(rows: list[dict], a: int, c: int, alphas: list[float], table_alphas) -> tuple[str, list[list]]:
    """A table of model vs simulation and the paper's claims for one (a, c)."""
    out_rows = []
    for r in rows:
        if not any(abs(r["alpha"] - x) < 1e-9 for x in table_alphas):
            continue
        out_rows.append([label(r["fam"], r["mapping"]), f"{r['alpha']:.2f}", f"{r['paper_th']:.3f}",
                         f"{r['th']:.3f} ({r['bottleneck']})", f"{r['sim_th']:.3f}", f"{r['sim_th'] / r['th']:.2f}",
                         f"{r['paper_tau']:.3f}", f"{r['tau']:.3f}", f"{r['sim_hops']:.3f}",
                         f"{r['sim_latency']:.2f}", f"{2 * r['tau'] + 2:.2f}"])
    text = table(["case", "alpha", "th paper", "th model (bottleneck set)", "th sim", "sim/model", "tau paper",
                  "tau model", "hops sim", "latency sim (cycles)", "2 tau + 2"], out_rows)
    claims = []
    base = ("rt", "id") if c == 1 else ("rt", "fv2")
    others = [x for x in CASES[c] if x != base]

    def ratio(key, fam, mp):
        return [x / y for x, y in zip(series(rows, fam, mp, key), series(rows, *base, key))]

    for fam, mp in others:
        for kind, keys in (("throughput", ("paper_th", "th", "sim_th")), ("latency", ("paper_tau", "tau", "sim_hops"))):
            r0 = [ratio(k, fam, mp)[0] for k in keys]
            r1 = [ratio(k, fam, mp)[-1] for k in keys]
            claims.append([f"{label(fam, mp)} / {label(*base)}", kind, f"alpha={alphas[0]:g}",
                           *[f"{x:.3f}" for x in r0]])
            claims.append([f"{label(fam, mp)} / {label(*base)}", kind, f"alpha={alphas[-1]:g}",
                           *[f"{x:.3f}" for x in r1]])
        xs = [crossover(alphas, ratio(k, fam, mp)) for k in ("paper_th", "th", "sim_th")]
        claims.append([f"{label(fam, mp)} / {label(*base)}", "throughput", "alpha where RTT stops winning",
                       *["never" if x is None else f"{x:.2f}" for x in xs]])
    ctext = table(["ratio", "metric", "at", "paper's model", "exact model", "simulation"], claims)
    return text, ctext


def hol_diagnostic(quick: bool) -> str:
    """Throughput at alpha = 1 with 4, 8 and 16 injectors per router (head-of-line blocking check)."""
    global INJECTORS
    cfg = sim.preset("tpds2010", packet_length=4, tie_break="random", warmup=1000 if quick else 2000,
                     measure=3000 if quick else 8000, drain=3000)
    rows, keep = [], INJECTORS
    try:
        for fam, mp in (("rt", "id"), ("rtt", "id"), ("rt", "fv2"), ("rtt", "ft2")):
            model = mapping_model(cd.from_spec(spec(fam, 4, grid_map(mp).concentration)), mp, [1.0],
                                  include_self=False).throughput[0]
            row = [label(fam, mp), f"{model:.3f}"]
            for inj in (4, 8, 16):
                INJECTORS = inj
                th, _, _ = sim_throughput(fam, 4, mp, 1.0, model, cfg, [0.7, 0.85, 1.0, 1.15])
                row.append(f"{th:.3f}")
            rows.append(row)
    finally:
        INJECTORS = keep
    return ("Diagnostic: simulated throughput at alpha = 1 (pure neighbour traffic), RT(4)/RTT(4), against the number "
            "of injectors per router (the paper: 4):\n\n" + table(["case", "model", "4 injectors", "8", "16"], rows))


# ------------------------------------------------------------------------------------- NAS
def rank_terminals(fam: str, a: int, mapping: str) -> tuple[cd.Topology, np.ndarray]:
    """Topology and the terminal of every MPI rank: ranks fill the task grid x fastest (rank r at
    (r mod W, r div W), the 'array of consecutive nodes' of the paper), then the mapping places the grid."""
    c = grid_map(mapping).concentration
    topo = cd.from_spec(spec(fam, a, c))
    pl = place(mapping, topo)
    W, H = pl.task_shape
    r = np.arange(W * H)
    return topo, pl.terminal_index[(r % W) * H + r // W]


def nas_runs(cls: str, cases=None, a: int = 4, log=print, scale: float = 0.0,
             class_of: dict | None = None, mg_order: str = "x-first") -> list[dict]:
    """Execution cycles of every NAS case on the RT baseline and the RTT mappings. ``scale`` multiplies
    COMPUTE_MODEL (0: no computation); ``class_of`` overrides the class per kernel (default NAS_CLASS);
    ``mg_order`` is MG's process grid (``sim.nas``: x-first, the default, or npb)."""
    cfg = sim.preset("tpds2010", packet_length=64)  # the paper's Table 2: 64-phit packets of 4 bytes
    rows = []
    for P, c, base, rtt, kernels in cases or NAS_CASES:
        for kern in kernels:
            it = NAS_ITERS[cls][kern]
            kcls = (NAS_CLASS.get(cls, {}) if class_of is None else class_of).get(kern, cls)
            extra = {"mg_order": mg_order} if kern == "mg" else {}
            tr = sim.nas(kern, P, kcls, iterations=it, compute=scale * COMPUTE_MODEL[kern], **extra)
            work = rank_work(tr)
            res = {}
            for fam, mp in [base] + rtt:
                topo, mapping = rank_terminals(fam, a, mp)
                t0 = time.perf_counter()
                r = sim.run_trace(topo, cfg, tr, mapping, seed=SEED)
                if not r.completed or r.deadlock:
                    raise RuntimeError(f"NAS {kern} P={P} on {fam} {mp} did not complete ({r.deadlock_kind})")
                res[(fam, mp)] = r.cycles
                log(f"  nas {kern}.{kcls}.{P} it={it} {fam} {mp}: {r.cycles} cycles, hops {r.hops:.2f} "
                    f"({time.perf_counter() - t0:.1f} s)")
            rows.append(dict(P=P, c=c, kernel=kern, cls=kcls, iterations=it, base=base, rtt=rtt, scale=scale,
                             work=work,
                             cycles={f"{f} {m}": v for (f, m), v in res.items()},
                             saving={f"{f} {m}": 100 * (1 - res[(f, m)] / res[base]) for f, m in rtt}))
    return rows


def nas_report(rows: list[dict]) -> tuple[str, str]:
    parts, summary = [], []
    for P, c, base, rtt, _k in NAS_CASES:
        sel = [r for r in rows if r["P"] == P]
        if not sel:
            continue
        names = [f"{f} {m}" for f, m in rtt]
        bname = f"{base[0]} {base[1]}"
        trows = []
        for r in sel:
            trows.append([r["kernel"].upper(), f"{r['cls']}/{r['iterations']}", r["cycles"][bname],
                          *[f"{r['cycles'][n]} ({r['saving'][n]:+.1f}%)" for n in names],
                          f"{max(r['saving'][n] for n in names):+.1f}%"])
        avg = {n: float(np.mean([r["saving"][n] for r in sel])) for n in names}
        best = float(np.mean([max(r["saving"][n] for n in names) for r in sel]))
        trows.append(["average", "", "", *[f"{avg[n]:+.1f}%" for n in names], f"{best:+.1f}%"])
        parts.append(f"{P} tasks on RT(4)/RTT(4), c = {c} (cycles; saving against {bname.upper()}):\n\n" + table(
            ["kernel", "class/iter", bname.upper(), *[n.upper() for n in names], "best RTT"], trows))
        summary.append([P, c, ", ".join(f"{n}: {avg[n]:+.1f}%" for n in names), f"{best:+.1f}%", PAPER_NAS[P]])
    stext = table(["tasks", "c", "our average saving per RTT mapping", "our avg best", "paper"], summary)
    return "\n\n".join(parts), stext


def compute_study(cls: str, scales=STUDY_SCALES, cases=None, log=print) -> list[dict]:
    """The NAS cases at every multiple of COMPUTE_MODEL in ``scales``, every kernel at class ``cls`` (FT
    too: at class A it now takes seconds, and the compute model is for class A)."""
    rows = []
    for sc in scales:
        rows += nas_runs(cls, cases, scale=sc, class_of={}, log=log)
    return rows


def study_report(rows: list[dict], scales=STUDY_SCALES) -> tuple[str, str]:
    """Per case: the RT baseline's cycles and every RTT mapping's saving at each scale of the model, and
    rank 0's compute at x1 (a lower bound of any execution); then the averages beside the paper's."""
    parts, summary = [], []
    cols = [f"x{sc:g}" for sc in scales]
    for P, c, base, rtt, kernels in NAS_CASES:
        sel = {(r["kernel"], r["scale"]): r for r in rows if r["P"] == P}
        if not sel:
            continue
        bname = f"{base[0]} {base[1]}"
        names = [f"{f} {m}" for f, m in rtt]
        trows = []
        for k in kernels:
            if (k, scales[0]) not in sel:
                continue
            r1 = sel.get((k, 1.0))
            trows.append([k.upper(), f"{bname.upper()} (cycles)", *[sel[(k, sc)]["cycles"][bname] for sc in scales],
                          "" if r1 is None else f"{r1['work']} ({100 * r1['work'] / r1['cycles'][bname]:.0f}%)"])
            for n in names:
                trows.append(["", n.upper(), *[f"{sel[(k, sc)]['saving'][n]:+.1f}%" for sc in scales], ""])
        ks = [k for k in kernels if (k, scales[0]) in sel]
        for n in names:
            trows.append(["average", n.upper(),
                          *[f"{np.mean([sel[(k, sc)]['saving'][n] for k in ks]):+.1f}%" for sc in scales], ""])
        best = [float(np.mean([max(sel[(k, sc)]["saving"][n] for n in names) for k in ks])) for sc in scales]
        trows.append(["average", "best RTT per kernel", *[f"{b:+.1f}%" for b in best], ""])
        cls = sorted({r["cls"] for r in sel.values()})
        its = ", ".join(f"{k.upper()} {sel[(k, scales[0])]['iterations']}" for k in ks)
        parts.append(f"{P} tasks on RT(4)/RTT(4), c = {c}, class {'/'.join(cls)} (iterations: {its}); RT cycles "
                     f"and saving against {bname.upper()} at each multiple of the compute model:\n\n"
                     + table(["kernel", "case", *cols, "rank compute at x1 (share of RT)"], trows))
        pk = [k for k in ks if k in PAPER_KERNELS.get(P, ks)]
        for sc in scales:
            avg = {n: float(np.mean([sel[(k, sc)]["saving"][n] for k in pk])) for n in names}
            bk = {k: max(sel[(k, sc)]["saving"][n] for n in names) for k in pk}
            lo, hi = min(bk, key=bk.get), max(bk, key=bk.get)
            summary.append([P, f"x{sc:g}", " ".join(k.upper() for k in pk),
                            ", ".join(f"{n}: {avg[n]:+.1f}%" for n in names), f"{np.mean(list(bk.values())):+.1f}%",
                            f"{bk[lo]:+.1f}% ({lo.upper()}) to {bk[hi]:+.1f}% ({hi.upper()})",
                            PAPER_NAS[P] if sc == scales[0] else ""])
    stext = table(["tasks", "compute", "kernels", "our average saving per RTT mapping", "our avg best",
                   "best per kernel, range", "paper"], summary)
    return "\n\n".join(parts), stext


def plot_nas(rows: list[dict], tag: str = "") -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = [cs for cs in NAS_CASES if any(r["P"] == cs[0] for r in rows)]
    fig, axes = plt.subplots(1, len(cases), figsize=(5 * len(cases), 3.8), squeeze=False)
    for ax, (P, c, base, rtt, _k) in zip(axes[0], cases):
        sel = [r for r in rows if r["P"] == P]
        names = [f"{f} {m}" for f, m in rtt]
        w = 0.8 / (len(names) + 1)
        x = np.arange(len(sel))
        ax.bar(x, [1.0] * len(sel), w, label=f"{base[0]} {base[1]}".upper())
        for j, n in enumerate(names):
            ax.bar(x + (j + 1) * w, [r["cycles"][n] / r["cycles"][f"{base[0]} {base[1]}"] for r in sel], w,
                   label=n.upper())
        ax.set_xticks(x + 0.4 - w / 2)
        ax.set_xticklabels([r["kernel"].upper() for r in sel])
        top = max(r["cycles"][n] / r["cycles"][f"{base[0]} {base[1]}"] for r in sel for n in names)
        ax.set_ylim(0.5, max(1.3, top + 0.05))
        ax.set_title(f"{P} tasks, c = {c}")
        ax.set_ylabel("execution time / RT baseline")
        ax.legend(fontsize=7)
    return _save(fig, f"rtt_mapping_{tag}nas.png")


# ------------------------------------------------------------------------- network load (Fig. 9)
#: the case of the paper's Fig. 9: 64 tasks, c = 2, on RT(4) with fv2 (the baseline of the 64-task runs)
LOAD_CASE = (64, 2, ("rt", "fv2"), ["bt", "cg", "ft", "is", "lu", "mg", "sp"])
#: multiples of COMPUTE_MODEL at which the load is measured: none (the NAS part) and the model (the paper's
#: traces carry their computation)
LOAD_SCALES = (0.0, 1.0)
#: the kernels the paper's section 5.2.1 names as loading the network most
PAPER_LOADED = ("cg", "ft", "is", "mg")


def local_phits(tr, topo, terminals: np.ndarray, phit_bytes: int = 4) -> tuple[int, int]:
    """(phits of the trace, phits of its messages between two terminals of one router): the latter are
    delivered without crossing a link. Messages are cut into phits of ``phit_bytes`` (at least one)."""
    from sim.trace import SEND

    send = tr.kind == SEND
    src = terminals[tr.rank_of_event()[send]]
    dst = terminals[tr.a[send]]
    router = np.repeat(np.arange(topo.n), topo.terminals)
    ph = np.maximum(1, -(-tr.nbytes[send] // phit_bytes))
    return int(ph.sum()), int(ph[router[src] == router[dst]].sum())


def nas_load(cls: str, scales=LOAD_SCALES, case=LOAD_CASE, a: int = 4, iterations: dict | None = None,
             log=print) -> list[dict]:
    """Network load of every kernel of ``case`` over its whole run on the baseline network: accepted phits
    per cycle per task (every phit delivered, over the run's cycles), the share of them that crosses at least
    one link, and the mean and maximum channel utilisation (phits per cycle of every directed link). At scale
    0 the classes of the NAS part (NAS_CLASS), otherwise every kernel at ``cls`` (the compute study's)."""
    P, c, base, kernels = case
    cfg = sim.preset("tpds2010", packet_length=64)
    topo, terms = rank_terminals(base[0], a, base[1])
    rows = []
    for sc in scales:
        for kern in kernels:
            it = (iterations or NAS_ITERS[cls])[kern]
            kcls = NAS_CLASS.get(cls, {}).get(kern, cls) if sc == 0 else cls
            tr = sim.nas(kern, P, kcls, iterations=it, compute=sc * COMPUTE_MODEL[kern])
            r = sim.run_trace(topo, cfg, tr, terms, seed=SEED)
            if not r.completed or r.deadlock:
                raise RuntimeError(f"NAS {kern} P={P} on {base} did not complete ({r.deadlock_kind})")
            total, local = local_phits(tr, topo, terms, int(cfg.phit_bytes))
            rows.append(dict(kernel=kern, cls=kcls, iterations=it, scale=sc, cycles=r.cycles, phits=r.phits,
                             accepted=r.phits / r.cycles / P, network_share=1 - local / total,
                             util=r.utilisation["all"]["mean"], util_max=r.utilisation["all"]["max"], hops=r.hops))
            log(f"  load {kern}.{kcls} x{sc:g}: {r.cycles} cycles, {rows[-1]['accepted']:.3f} phits/cycle/task, "
                f"channels {rows[-1]['util']:.3f}")
    return rows


def top(rows: list[dict], key: str, n: int = 4) -> list[str]:
    """The ``n`` kernels with the highest ``key`` (ties: the kernel's name)."""
    return [r["kernel"] for r in sorted(rows, key=lambda r: (-r[key], r["kernel"]))[:n]]


def load_report(rows: list[dict], scales=LOAD_SCALES) -> tuple[str, str]:
    """A table per scale (kernels by mean channel utilisation) and the top four per measure."""
    P, c, base, _k = LOAD_CASE
    parts, summary = [], []
    paper = set(PAPER_LOADED)
    for sc in scales:
        sel = [r for r in rows if r["scale"] == sc]
        order = top(sel, "util", len(sel))
        acc_rank = {k: i + 1 for i, k in enumerate(top(sel, "accepted", len(sel)))}
        trows = []
        for i, k in enumerate(order):
            r = next(x for x in sel if x["kernel"] == k)
            trows.append([i + 1, k.upper(), f"{r['cls']}/{r['iterations']}", r["cycles"], f"{r['accepted']:.3f}",
                          acc_rank[k], f"{100 * r['network_share']:.0f}%", f"{r['hops']:.2f}", f"{r['util']:.3f}",
                          f"{r['util_max']:.3f}", "yes" if k in paper else ""])
        parts.append(f"{'No computation' if sc == 0 else f'Computation x{sc:g} of the compute model'}; kernels by "
                     "mean channel utilisation:\n\n" + table(
                         ["rank", "kernel", "class/iter", "cycles", "accepted (phits/cycle/task)", "rank by accepted",
                          "phits crossing a link", "mean hops", "mean channel utilisation", "max channel",
                          "paper's most loading"], trows))
        for key, what in (("util", "mean channel utilisation"), ("accepted", "accepted phits/cycle/task")):
            t4 = top(sel, key)
            summary.append([f"x{sc:g}", what, " ".join(k.upper() for k in t4), len(paper & set(t4)),
                            " ".join(k.upper() for k in sorted(paper - set(t4))) or "none"])
    stext = table(["computation", "measure", "top four", "of the paper's four", "paper's missing"], summary)
    return "\n\n".join(parts), stext


LOAD_INTRO = """The network load of each NAS skeleton over its whole run, {P} tasks on RT(4) with c = {c} and the \
fv2 mapping (the 64-task baseline of the runs above; the case of the paper's Fig. 9), 64-phit packets, tpds2010 \
router, ranks placed as in the NAS part. 'Accepted' is every phit delivered over the run's cycles, per task (the \
simulator's accepted load; it counts the phits of messages between the two tasks of one router, which cross no \
link); 'mean channel utilisation' is the phits every directed link carried per cycle, averaged over the links: how \
busy the network itself was. The paper's Fig. 9 is lost in our copy and its text does not define its 'network \
load'; we rank by channel utilisation, the load on the links that its throughput model (Section 3) bounds, and \
give the accepted load beside it. Without computation every run is network bound, so the load measures how much \
of the network a kernel's pattern can use; with the compute model (x1) the loads include the time spent \
computing, as the paper's traces do. {runs} simulations, {wall:.0f} s wall, {cpu:.0f} s CPU."""


# ------------------------------------------------------------------ MG's process grid (Fig. 10)
#: the 32-task case of Fig. 10 with MG alone
MG_CASE = (32, 1, ("rt", "id"), [("rtt", "id"), ("rtt", "fd")], ["mg"])
MG_ORDERS = ("x-first", "npb")


def weighted_distance(tr, fam: str, a: int, mapping: str) -> float:
    """Mean hop distance between the routers of sender and receiver of the trace's messages, weighted by their
    bytes, with the ranks placed as in the NAS runs (:func:`rank_terminals`); no simulation."""
    from synth.mapping_anneal import hop_distances

    topo, terms = rank_terminals(fam, a, mapping)
    router = np.repeat(np.arange(topo.n), topo.terminals)[terms]
    M = tr.byte_matrix()
    return float((M * hop_distances(topo)[np.ix_(router, router)]).sum() / M.sum())


def rank_phits(tr, phit_bytes: int = 4) -> int:
    """The most phits any rank of the trace sends (its messages cut into phits, at least one each): no
    execution can inject them in fewer cycles through the rank's one port."""
    from sim.trace import SEND

    send = tr.kind == SEND
    ph = np.maximum(1, -(-tr.nbytes[send] // phit_bytes))
    return int(np.bincount(tr.rank_of_event()[send], weights=ph, minlength=tr.processes).max())


def mg_grid_study(cls: str, scales=(0.0, 1.0), log=print) -> list[dict]:
    """MG at 32 tasks (c = 1) under both process grids of ``sim.nas`` and each scale of the compute model:
    cycles and savings (:func:`nas_runs`, every kernel at ``cls``) and the byte-weighted distances."""
    P, _c, base, rtt, _k = MG_CASE
    rows = []
    for order in MG_ORDERS:
        for sc in scales:
            r = nas_runs(cls, [MG_CASE], scale=sc, class_of={}, mg_order=order, log=log)[0]
            tr = sim.nas("mg", P, r["cls"], iterations=r["iterations"], mg_order=order)
            r["distance"] = {f"{f} {m}": weighted_distance(tr, f, 4, m) for f, m in [base] + rtt}
            r["order"] = order
            rows.append(r)
    return rows


def mg_grid_report(rows: list[dict]) -> str:
    from sim.nas import mg_grid

    P, c, base, rtt, _k = MG_CASE
    bname, names = f"{base[0]} {base[1]}", [f"{f} {m}" for f, m in rtt]
    trows = []
    for r in rows:
        trows.append([f"{r['order']} ({' x '.join(map(str, mg_grid(P, r['order'])))})", f"x{r['scale']:g}",
                      r["cycles"][bname], *[f"{r['cycles'][n]} ({r['saving'][n]:+.2f}%)" for n in names],
                      " / ".join(f"{r['distance'][n]:.3f}" for n in [bname] + names)])
    npb = {r["scale"]: r for r in rows if r["order"] == "npb"}
    xf = {r["scale"]: r for r in rows if r["order"] == "x-first"}
    worst = min(r["saving"][n] for r in npb.values() for n in names)
    cyc0 = list(npb[0.0]["cycles"].values())
    inj = rank_phits(sim.nas("mg", P, rows[0]["cls"], iterations=rows[0]["iterations"], mg_order="npb"))
    spread = 100 * (max(cyc0) / min(cyc0) - 1)
    return (f"MG ({rows[0]['cls']}, {rows[0]['iterations']} iteration) with {P} tasks on RT(4)/RTT(4), c = {c} (the "
            "paper's Fig. 10), under the two process grids of `sim.nas`: x-first (the skeleton's default, used in the "
            "tables above) and npb (NPB's own, mg.f's setup, rank = x + px (y + py z)); ranks fill the task grid x "
            "fastest as above; without computation and with the compute model (x1). Distance: the mean hop distance "
            "between the routers of sender and receiver of MG's messages weighted by their bytes (no simulation). "
            f"Cycles, and the saving against {bname.upper()}:\n\n"
            + table(["MG process grid", "computation", bname.upper(), *[n.upper() for n in names],
                     f"distance {' / '.join(n.upper() for n in [bname] + names)}"], trows)
            + "\n\nWith NPB's grid (2 x 4 x 4, rank = x + 2 y + 8 z) MG's z ring of 4 processes, 8 ranks apart, "
            "lies on the 4 rows of the 8 x 4 task grid and closes on the RT's vertical wraparound; the RTT's twist "
            "breaks that ring (distances "
            f"{npb[0.0]['distance'][bname]:.3f} on the RT, {npb[0.0]['distance'][names[0]]:.3f} and "
            f"{npb[0.0]['distance'][names[1]]:.3f} on the RTT), and the RTT gains nothing: at worst "
            f"{worst:+.2f}%, a loss under 0.1%, the paper's 'no improvement or a slight loss of less than 0.1%'. "
            "The run is then bound by the ranks' injection, phase by phase, not by the links: every rank injects "
            f"{inj} phits, {100 * inj / npb[0.0]['cycles'][bname]:.0f}% of the RT's cycles without computation, "
            f"and the cycles of the three networks lie within {spread:.2f}% of each other. The skeleton's default grid (4 x 4 x 2) spreads MG's neighbours over the network "
            "and the RTT's shorter distances pay: "
            + ", ".join(f"{xf[sc]['saving'][names[0]]:+.1f}% (RTT ID) at x{sc:g}" for sc in sorted(xf)) + ".")


# -------------------------------------------------------------------------------------- main
SECTION = "Reproduction: rtt-mapping-concentration"
SYN_TITLE = "Synthetic local/global traffic (Figs. 5-8)"
NAS_TITLE = "NAS skeletons (Figs. 10-12)"
STUDY_TITLE = "NAS skeletons with computation: sensitivity to the compute model"
LOAD_TITLE = "NAS network load per kernel (Fig. 9)"
MG_TITLE = "NAS MG under NPB's process grid (Fig. 10)"


def compute_scale(text: str) -> float:
    """--compute: 'model' (= 1) or a multiple of COMPUTE_MODEL; ValueError for anything else."""
    if text.strip().lower() == "model":
        return 1.0
    x = float(text)
    if not np.isfinite(x) or x < 0:
        raise ValueError(text)
    return x


def plot_study(rows: list[dict], scales, tag: str = "") -> str:
    """Average saving per RTT mapping against the multiple of the compute model, one panel per case."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = [cs for cs in NAS_CASES if any(r["P"] == cs[0] for r in rows)]
    fig, axes = plt.subplots(1, len(cases), figsize=(5 * len(cases), 3.8), squeeze=False)
    x = np.arange(len(scales))
    for ax, (P, c, base, rtt, _k) in zip(axes[0], cases):
        for f, m in rtt:
            n = f"{f} {m}"
            ax.plot(x, [np.mean([r["saving"][n] for r in rows if r["P"] == P and r["scale"] == sc]) for sc in scales],
                    "o-", label=n.upper())
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_xticks(x)
        ax.set_xticklabels([f"x{sc:g}" for sc in scales])
        ax.set_xlabel("computation (multiple of the compute model)")
        ax.set_ylabel(f"average saving over {base[0]} {base[1]}".upper().replace("AVERAGE SAVING OVER", "saving vs")
                      + " (%)")
        ax.set_title(f"{P} tasks, c = {c}")
        ax.legend(fontsize=7)
    return _save(fig, f"rtt_mapping_{tag}nas_compute.png")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--record", action="store_true",
                    help="record each part that ran as a subsection of the results book, docs/results/rtt-mapping-concentration.md (other subsections are kept)")
    ap.add_argument("--no-nas", action="store_true", help="skip the NAS skeletons")
    ap.add_argument("--no-synthetic", action="store_true", help="skip the synthetic traffic")
    ap.add_argument("--compute", default="0", metavar="model|0|X",
                    help="computation in the NAS part: 0 (default) none, 'model' the compute model "
                         "(COMPUTE_MODEL), X that multiple of it")
    ap.add_argument("--compute-study", action="store_true",
                    help="also run the NAS cases at x" + ", x".join(f"{s:g}" for s in STUDY_SCALES)
                         + " the compute model (every kernel at the mode's class)")
    ap.add_argument("--load", action="store_true",
                    help="also measure the network load of every NAS kernel with 64 tasks on RT(4) fv2 (Fig. 9), "
                         "without computation and with the compute model")
    ap.add_argument("--mg-grid", action="store_true",
                    help="also run MG at 32 tasks (Fig. 10) under the skeleton's and NPB's process grids, with the "
                         "byte-weighted distances of its messages")
    args = ap.parse_args()
    try:
        scale = compute_scale(args.compute)
    except ValueError:
        ap.error(f"--compute must be 'model', 0 or a non-negative multiple of the compute model, got {args.compute!r}")
    t_start = time.perf_counter()
    parts: list[tuple[str, list[str]]] = []
    sizes = [4] if args.quick else [4, 8]
    coarse = [0.0, 0.25, 0.5, 0.75, 1.0]
    tag = "quick_" if args.quick else ""
    if not args.no_synthetic:
        out = [
            "th: maximum throughput in phits/cycle/router; tau: base latency in hops. 'paper' = the paper's "
            "closed form (Table 1 distances, self included in uniform traffic); 'model' = the same model computed "
            "exactly for the mapped traffic (uniform part without the sender, as simulated), with the link set "
            "that limits it; 'sim' = simulated (tpds2010 router, ties at random; throughput with 4-phit packets "
            "and 4 injectors per router, the highest accepted load of a sweep; latency with 1-phit packets at "
            "0.01 packets/cycle/task, the mean hops and the mean latency in cycles, which is 2 tau + 2 with no "
            "contention)."]
        for a in sizes:
            alphas = coarse if args.quick or a > 4 else [round(0.1 * i, 1) for i in range(11)]
            for c in (1, 2):
                t0 = time.perf_counter()
                rows = synthetic(a, c, alphas, args.quick)
                png = plot_synthetic(rows, a, c, alphas, tag)
                text, ctext = synthetic_report(rows, a, c, alphas, [0.0, 0.25, 0.5, 0.75, 1.0])
                print(f"synthetic a={a} c={c}: {time.perf_counter() - t0:.0f} s", flush=True)
                out.append(f"RT({a}) vs RTT({a}), c = {c} ({'Figs. 5 and 7' if c == 1 else 'Figs. 6 and 8'}; "
                           f"figure `benchmarks/figures/{png}`, {time.perf_counter() - t0:.0f} s):\n\n" + text +
                           "\n\nRatios to the RT baseline (the paper's claims):\n\n" + ctext)
        out.append(hol_diagnostic(args.quick))
        parts.append((SYN_TITLE, out))
    cls = "W" if args.quick else "A"
    if not args.no_nas:
        t0, c0 = time.perf_counter(), time.process_time()
        nrows = nas_runs(cls, scale=scale)
        png = plot_nas(nrows, tag + (f"compute{scale:g}_" if scale else ""))
        text, stext = nas_report(nrows)
        print(f"NAS: {time.perf_counter() - t0:.0f} s", flush=True)
        what = "no computation" if scale == 0 else f"computation: COMPUTE_MODEL x{scale:g}, see the compute study"
        parts.append((NAS_TITLE if scale == 0 else f"NAS skeletons with computation x{scale:g} (Figs. 10-12)", [
            f"Communication skeletons of `sim.nas` (class {cls}" + (", FT at class W" if cls == "A" else "")
            + f"; iterations as listed; {what}), 64-phit packets, tpds2010 router; MPI ranks fill the task grid "
            f"x fastest and the mapping places the grid. Figure `benchmarks/figures/{png}`; "
            f"{time.perf_counter() - t0:.0f} s wall, {time.process_time() - c0:.0f} s CPU.",
            text, "Summary against the paper's text:\n\n" + stext]))
    if parts:
        parts[-1][1].append(NOTES)
    if args.compute_study:
        t0, c0 = time.perf_counter(), time.process_time()
        srows = compute_study(cls, log=lambda *_: None)
        png = plot_study(srows, STUDY_SCALES, tag)
        text, stext = study_report(srows, STUDY_SCALES)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(f"NAS compute study: {wall:.0f} s", flush=True)
        parts.append((STUDY_TITLE, [
            STUDY_INTRO.format(cls=cls, png=png, wall=wall, cpu=cpu, runs=sum(1 + len(r["rtt"]) for r in srows),
                               model=", ".join(f"{k.upper()} {v:g}" for k, v in COMPUTE_MODEL.items())),
            text, "Summary against the paper's text (the paper's computation is that of its traces), over the kernels "
            "the paper averaged (at 128 tasks it ran no LU or MG):\n\n" + stext,
            STUDY_NOTES if not args.quick else STUDY_NOTES_QUICK]))
    if args.load:
        t0, c0 = time.perf_counter(), time.process_time()
        lrows = nas_load(cls, log=lambda *_: None)
        text, stext = load_report(lrows)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(f"NAS network load: {wall:.0f} s", flush=True)
        P, c, _b, _k = LOAD_CASE
        parts.append((LOAD_TITLE, [
            LOAD_INTRO.format(P=P, c=c, runs=len(lrows), wall=wall, cpu=cpu), text,
            "The four kernels with the highest load against the paper's CG, FT, IS and MG (section 5.2.1):\n\n"
            + stext]))
    if args.mg_grid:
        t0, c0 = time.perf_counter(), time.process_time()
        mrows = mg_grid_study(cls, log=lambda *_: None)
        text = mg_grid_report(mrows)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        print(f"NAS MG grids: {wall:.0f} s", flush=True)
        parts.append((MG_TITLE, [text, f"{3 * len(mrows)} simulations, {wall:.0f} s wall, {cpu:.0f} s CPU."]))
    if parts:
        parts[-1][1].append(f"Total run time {time.perf_counter() - t_start:.0f} s.")
    texts = [(title, "\n\n".join(out)) for title, out in parts]
    print("\n\n".join(f"### {title}\n\n{body}" for title, body in texts))
    if args.record:
        for title, body in texts:
            record_subsection(SECTION + (" (quick)" if args.quick else ""), title, body, legacy_title=SYN_TITLE)


STUDY_INTRO = """The NAS cases with computation before every communication phase (`sim.nas(..., compute=s x \
COMPUTE_MODEL[kernel])`), every kernel at class {cls} (FT too), the iterations of the NAS part; s = 0 is the \
no-compute skeleton. COMPUTE_MODEL (simulator cycles of 32 ns per unit of work: per nonzero for CG, per key for \
IS, per grid point otherwise): {model}. Each is NPB's own operation count (the formula behind its Mop/s) per rank \
over the skeleton's units of work, at an ASSUMED 500 Mflop/s per PowerPC 970MP core (IS: an assumed 10 \
operations per key); x0.25 to x4 spans 2 Gflop/s to 125 Mflop/s. The last column is rank 0's computation at x1, \
which no execution can undercut, and its share of the RT baseline's execution time at x1. Figure \
`benchmarks/figures/{png}`; {runs} simulations, {wall:.0f} s wall, {cpu:.0f} s CPU."""

STUDY_NOTES = """Notes on the compute study.

1. The savings shrink as computation grows, but not as a simple dilution: a little computation (x0.25-x0.5)
   raises several of them (32 tasks: CG +8.3 -> +9.0%, FT +15.3 -> +17.4%, IS +13.5 -> +15.8% on RTT id),
   because phases that collided in the network without it now start staggered. From x1 to x4 the averages
   fall by 19-50%, except those of 64 tasks on fd.fv2 and ft2, which end where they were (+2.9 -> +3.1%,
   +3.0 -> +3.1%), with wobbles of up to a point between neighbouring scales.
2. 64 tasks, c = 2, comes close to the paper from x1 on: the averages per mapping are +2.9 to +5.6% at x1, +3.6 to
   +5.4% at x2 and +3.1 to +4.3% at x4 (paper: 3.0-4.6%); BT is within -3.3% of the RT at x1 and -2% from x2
   (paper: no significant change) and LU within -1% on fv2 and fd.fv2. Not matched: SP still loses 5-9% at x1
   (0.8-2.1% at x4) and LU on ft2 4.9% at x1: both lose the router-local vertical neighbours of RT fv2 (note 6
   of the NAS part), which computation hides only when it dominates. fv2 is our best RTT mapping at every scale; the
   paper has ft2 and fd.fv2 among the best (ours: within a point of each other, below fv2, from x1 on).
3. 32 tasks, c = 1, stays above the paper: +7.0 / +5.2% (id / fd) at x1 and +3.6 / +2.6% at x4 against its
   2.2%. CG (+6.9%) and FT (+10.7%) on RTT id at x1 are about its 'up to 10%', and LU is within 2.4% of the RT
   from x0.25 and 1% from x0.5 (paper: ~0), but MG keeps +7.6% at x1 and +2.5% at x4 on RTT id (paper: ~0):
   the skeleton's default process grid (4 x 4 x 2) puts its neighbours several hops apart, and the RTT's
   shorter distances still pay (with NPB's own grid, 2 x 4 x 4, MG gains nothing: see `--mg-grid`). So id
   stays ahead of fd (paper: fd slightly better).
4. 128 tasks, c = 4, over the kernels the paper ran (CG, FT, IS): ft2.fh2 averages +14.4% at x1, +13.3% at x2
   and +11.2% at x4 (paper: +12.8%), in the paper's range; but fv2.fh2 is our better mapping (+19.9% at x1)
   and the order of the kernels differs: ours gain least on CG (+15.7% at x1, +11.2% at x4) and most on IS
   and FT (+22-23%), the paper least on FT (8.7%) and most on CG (19.1%). At 128 tasks the network dominates:
   a rank's computation is 6-15% of the execution time at x1 for CG, FT, IS.
5. The model's precision is that of its assumption: one sustained rate (500 Mflop/s) for every kernel, where
   CG (memory bound) runs slower and BT/LU faster on real cores, and IS's 10 operations per key. The traces
   also carry MPI overheads and load imbalance that a uniform per-point cost leaves out. The x0.25-x4 range
   (2 Gflop/s-125 Mflop/s) brackets any plausible rate; no single multiple reproduces all three cases at
   once (64 tasks comes close from x1 and falls inside the paper's range at x4, 32 tasks would need more
   than x4, 128 tasks meets the paper's 12.8% between x2 and x4)."""
STUDY_NOTES_QUICK = """Quick mode: class W with one or two iterations; the compute model is class A's (CG's class-W \
matrix has 8 nonzeros per row where class A has 11, so its computation is overstated here, 1.4 against 0.77 \
cycles per unit). The full mode is the one to compare with the paper."""


NOTES = """Notes on the differences.

1. Model. The exact model differs from the paper's closed forms by at most 3%: the closed forms use Table 1's
   approximate distances (RTT k_x = a/3 instead of (4a^2 - 1)/(12a)) and count the sender in uniform traffic;
   the exact model leaves the sender out (as the simulator and the paper's Section 4.1 do). For the
   concentrated RTT the two coincide. Bottleneck sets agree with the paper's derivations (RT: horizontal
   links; RTT id: the internal vertical links; RTT fd, fv2, fd.fv2, ft2: horizontal links).
2. Latency is reproduced: the simulated mean hops equal the exact model's tau within about 1% (sampling)
   and the latency in cycles is 2 tau + 2 (1-phit packets, router delay = link latency = 1 cycle), so the
   paper's latency claims (RTT lower at low alpha, higher at high alpha; fd worse than id; at c = 2 all
   close, fv2 best on the RTT) hold in the simulator as in the model.
3. Throughput up to alpha = 0.75 is 80-90% of the model (an adaptive VCT network saturates before its
   links are full), so the RTT/RT ratios are reproduced: about 1.5 at alpha = 0 (paper: up to 50%), the
   c = 1 crossover near a/(a+3) = 0.57 for a = 4, and at c = 2 the RTT with ft2 (and fv2) ahead of the RT
   at every alpha below 1.
4. Near alpha = 1 the simulator reaches only 60-65% of the model's 4 phits/cycle/router. This is head-of-line
   blocking in the injection FIFOs, not the network: 4 injectors whose head packets each want one of 4 output
   ports form an input-queued 4 x 4 switch, which saturates at 65.5% of its ports (Karol et al.; 58.6% for
   large N). With more injectors per router (same traffic, same network) the simulated throughput rises
   towards the model (diagnostic table above). The paper does not describe the queueing of its injectors;
   its 'really close' suggests they did not block this way. Consequence: at alpha = 1 the simulated RTT/RT
   ratio (about 0.68 at c = 1) is above the model's 0.5, because the RT is held back by injection there and
   the RTT by its links; at c = 2, RTT fv2 falls a few percent under RT fv2 at alpha = 1 (both injection
   bound; the model has them equal), while RTT ft2 stays level with or above the RT.
5. The paper's figures are lost in our copy (only captions survive), so the comparison is against the
   closed forms of its Section 3 and the claims of its text. The simulation sizes are ambiguous in the
   paper (captions say RT(4)/RTT(4), the text a 16 x 8 network); we simulate a = 4 and, in full mode, a = 8.
6. NAS. The paper's numbers are its text's averages (the bars are lost). Our skeletons carry no computation in
   this part, so every run is network bound and every saving (or loss) is larger than with the paper's traces,
   whose execution time includes computation (roughly, a saving s on the communication becomes f s with f the
   share of time in the network; the compute study, `--compute-study`, measures it). Further differences:
   collectives are textbook point-to-point algorithms (IS and FT all-to-alls are pairwise exchanges, a
   sequence of permutations that is sensitive to the mapping), not the MPI library of the traces; fewer
   iterations than NPB (the per-iteration pattern repeats); DT is not in sim.nas; the rank order on the task
   grid is not given by the paper (we fill it x fastest, which keeps LU's and CG's process rows on physical
   rows). Where the sign differs from the paper: BT and SP lose on the RTT in ours (paper: no significant
   change) because under RT fv2 half of their vertical neighbours share a router (messages that never enter
   the network), which ft2 gives up and fv2 on the RTT loses at the twisted wrap; LU (a 2D mesh, so nothing to
   gain from the twist) loses with the mappings that break its vertical adjacency (fd, fd.fv2, ft2). MG gains
   on the RTT in ours (paper: ~0 at 32 tasks) with the skeleton's default process grid (4 x 4 x 2): laid out
   consecutively on a 2D grid it is not local (the paper says so too), so its face exchanges reach several
   hops and benefit from the RTT's shorter distances once nothing else dilutes them. With NPB's own grid
   (2 x 4 x 4) its z ring closes on the RT's vertical wraparound and the RTT gains nothing, as in the paper
   (`--mg-grid`). With c = 1 our id beats fd on the RTT; the paper found fd
   slightly better. Where the paper gives numbers that the network alone decides (the best mapping at 128
   tasks, c = 4: 8.7-19.1%, average 12.8%) ours are of the same size, but our best mapping there is fv2.fh2,
   not the paper's ft2.fh2. With computation (the compute study) the BT, LU and SP losses shrink to 0-3% at 4
   times the compute model (SP still -5 to -9% at 1 time)."""

if __name__ == "__main__":
    main()
