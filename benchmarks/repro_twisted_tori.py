"""Reproduce 'twisted-tori-tpds2010' with toposynth: distances, bounds, throughput, latency, traffic patterns.

    python benchmarks/repro_twisted_tori.py [--quick] [--record] [--no-sim] [--past-saturation]

Quick (about 10 minutes): RT/RTT(8) (16 x 8) and PT/PTT/PDTT(4) (8 x 4 x 4). Full (about an hour): the paper's
Table 1 sizes 32 x 16 and 64 x 32 (RT/RTT, a = 16 and 32) and 32 x 16 x 16 (PT/PTT/PDTT, a = 16) under uniform
traffic; hot-region and permutation traffic at 32 x 16, 64 x 32 (hot region) and 16 x 8 x 8; nearest-neighbour
traffic with the twisted mapping at 32 x 16. 64 x 32 x 32 (65536 routers) is
benchmarks/repro_machine_scale.py's (the notes of this script's section predate it).
Progress lines go to stderr (flushed), tables to stdout as each is done; ``--record`` writes the section
"Reproduction: twisted-tori-tpds2010" (or "... (quick)") of the results book (docs/results/twisted-tori-tpds2010.md) and PNGs to benchmarks/figures/.

What is compared:
1. distance properties against the closed forms (diameter, average distance, link utilisation);
2. the uniform-traffic injection bounds 4/a, 6/a, 4/a, 6/a, 48/(7a) against the exact LP optimum and the PTAS
   (flows) — the bound is what an optimal routing achieves — and the bound of the routing records actually used;
3. the simulated maximum accepted load under uniform traffic (sim, the paper's router: virtual cut-through,
   1 bubble escape + 2 adaptive VCs, 16-phit packets, the tpds2010 preset) with both tie rules of the records,
   the latency and accepted-vs-offered curves (Figs. 8, 9) and the link utilisation per dimension (Fig. 10);
4. hot-region traffic (Fig. 11) and the paper's qualitative claims about it;
5. the permutation gains (bit complement, bit reversal, perfect shuffle) of the twisted tori over the plain ones,
   as optimal-routing capacity (flows) and simulated saturation (Fig. 12);
6. nearest-neighbour traffic of a logical 2a x 2a torus of processes on RTT(a) with the twisted mapping of
   section 7.4, against RT(a) with its natural mapping and a naive row-major mapping on the RTT.

``--past-saturation`` runs only the accepted load past saturation under uniform traffic (the paper's Fig. 8
text: it stabilises in some networks and drops before stabilising in others) on the 2-D uniform-traffic networks
of the mode and the 3-D ones at 16 x 8 x 8 (full mode: also at the paper's 32 x 16 x 16, about 10 minutes), and
records it as its own section.

Saturation search: a few low-load points for the latency curve (0.1, 0.3, 0.5 of the reference bound), then from
0.6 of it in steps of 0.1 until two points are saturated (accepted < 0.95 offered), then one refinement point
between the last unsaturated and the first saturated load. Saturation = the highest accepted load seen.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import candidates as cd
from flows import Demands, FlowProblem, max_concurrent_flow, solve_lp

from _record import record, table

T0 = time.perf_counter()
CLOSED = {  # diameter, average distance, link utilisation (DESIGN.md, from the paper)
    "rt": (lambda a: 3 * a / 2, lambda a: 3 * a / 4, 3 / 4),
    "rtt": (lambda a: a, lambda a: 2 * a / 3, 1.0),
    "pt": (lambda a: 2 * a, lambda a: a, 2 / 3),
    "ptt": (lambda a: 3 * a / 2, lambda a: 11 * a / 12, 11 / 12),
    "pdtt": (lambda a: 3 * a / 2, lambda a: 7 * a / 8, 1.0),
}
BOUND = {"rt": lambda a: 4 / a, "rtt": lambda a: 6 / a, "pt": lambda a: 4 / a, "ptt": lambda a: 6 / a,
         "pdtt": lambda a: 48 / (7 * a)}
PAPER_GAINS = {  # Section 7.3 (simulation, 32 x 16 and 64 x 32 x 32): twisted over plain, percent
    ("rtt", "rt"): {"bitcomplement": 24.3, "bitreversal": 41.1, "shuffle": None},
    ("ptt", "pt"): {"bitcomplement": None, "bitreversal": 37.1, "shuffle": 53.2},
    ("pdtt", "pt"): {"bitcomplement": None, "bitreversal": 59.7, "shuffle": 74.5},
}
PAPER_UNIFORM_GAIN = {("rtt", "rt"): 50.0, ("ptt", "pt"): 50.0, ("pdtt", "pt"): 71.4}  # bounds, section 5
FIG10 = {  # the paper's Fig. 10 (text of section 7.1): claim, check on the per-dimension utilisation
    "rt": ("X near full, Y under half", lambda u: u["x"] >= 0.75 and u["y"] < 0.5),
    "rtt": ("all near full", lambda u: min(u["x"], u["y"]) >= 0.75),
    "pt": ("X bottleneck, Y and Z under half", lambda u: u["x"] >= 0.75 and max(u["y"], u["z"]) < 0.5),
    "ptt": ("X and Y high, Z higher than PT's", lambda u: min(u["x"], u["y"]) >= 0.7),
    "pdtt": ("all full", lambda u: min(u["x"], u["y"], u["z"]) >= 0.75),
}
PATS = ("bitcomplement", "bitreversal", "shuffle")


def log(msg: str) -> None:
    print(f"[{time.perf_counter() - T0:7.0f} s] {msg}", file=sys.stderr, flush=True)


def emit(out: list[str], text: str) -> None:
    """Keep a table for the record and show it at once (long runs can be followed)."""
    out.append(text)
    print(text + "\n", flush=True)


def size(t: cd.Topology) -> str:
    return "x".join(str(s) for s in t.shape)


_TOPO: dict[str, cd.Topology] = {}


def topo(spec: str) -> cd.Topology:
    """One Topology object per spec: the simulator caches its routing tables on it."""
    if spec not in _TOPO:
        _TOPO[spec] = cd.from_spec(spec)
    return _TOPO[spec]


class Counter:
    router_cycles = 0
    seconds = 0.0
    points = 0


def search(t, cfg, pat, ref: float, *, lat_fracs=(0.1, 0.3, 0.5), start=0.6, step=0.1, cap=1.0, label=""):
    """Latency points, then a coarse saturation search and one refinement (see the module doc)."""
    import sim

    pts = {}

    def run(x: float):
        x = round(min(x, cap), 6)
        if x in pts:
            return pts[x]
        r = sim.simulate(t, cfg, pat, x, seed=1)
        pts[x] = r
        Counter.router_cycles += t.n * r.cycles
        Counter.seconds += r.seconds
        Counter.points += 1
        log(f"{label} load {x:.4f}: accepted {r.accepted:.4f}, latency "
            f"{'-' if r.latency is None else round(r.latency, 1)}{' DEADLOCK' if r.deadlock else ''} ({r.seconds:.1f} s)")
        return r

    def saturated(r) -> bool:
        return r.deadlock or r.accepted < 0.95 * r.offered

    for f in lat_fracs:
        if f * ref < cap:
            run(f * ref)
    x = min(start * ref, cap)
    r = run(x)
    while saturated(r) and x > 0.05 * ref:  # started beyond the knee: step down
        x /= 2
        r = run(x)
    last_ok, first_bad, bad = (x if not saturated(r) else None), None, 0
    while bad < 2 and x < cap:
        x = min(x + step * ref, cap)
        r = run(x)
        if saturated(r):
            bad += 1
            first_bad = x if first_bad is None else first_bad
        else:
            last_ok = x
    if last_ok is not None and first_bad is not None and first_bad - last_ok > 0.03 * ref:
        run((last_ok + first_bad) / 2)
    points = [pts[k] for k in sorted(pts)]
    ok = [p for p in points if not p.deadlock]
    best = max(ok, key=lambda p: p.accepted) if ok else None
    return points, best


def util_dims(r) -> dict[str, float]:
    return {k: v["mean"] for k, v in r.utilisation.items()}


def util_str(u: dict[str, float]) -> str:
    return ", ".join(f"{k} {v:.2f}" for k, v in u.items())


def nn_mappings(a: int):
    """Process -> terminal maps of a logical 2a x 2a torus (process p = r * 2a + c at column c, row r) onto
    2a x a routers with 2 terminals each (terminal = 2 * router + slot, router = x * a + y).

    twisted (RTT, section 7.4): logical column c (a Y ring of length 2a) runs along the twisted physical Y ring
    through columns c mod a and c mod a + a: (c, r) -> x = (c + a * (r // a)) mod 2a, y = r mod a, slot r // a.
    Going up from row a - 1 to row a crosses the twisted wraparound (x, a - 1) - (x + a, 0); X neighbours keep y
    and move x by one. natural (RT): (c, r) -> x = c, y = r // 2, slot r % 2. naive: terminal = p."""
    L = 2 * a
    c, r = np.meshgrid(np.arange(L), np.arange(L), indexing="xy")  # c[r, c], r[r, c]
    c, r = c.ravel(), r.ravel()  # index = r * L + c
    tw = 2 * (((c + a * (r // a)) % L) * a + r % a) + r // a
    nat = 2 * (c * a + r // 2) + r % 2
    naive = np.arange(L * L)
    return {"twisted": tw, "natural": nat, "naive": naive}


def nn_matrix(a: int, mapping: np.ndarray) -> np.ndarray:
    """Terminal-level demand of the logical torus: every process sends 1/4 to each of its 4 neighbours."""
    L = 2 * a
    p = np.arange(L * L)
    r, c = p // L, p % L
    M = np.zeros((L * L, L * L))
    for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        q = ((r + dr) % L) * L + (c + dc) % L
        M[mapping[p], mapping[q]] += 0.25
    return M


def hop_matrix(t: cd.Topology) -> np.ndarray:
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import shortest_path

    A = csr_matrix((np.ones(len(t.links)), (t.links[:, 0], t.links[:, 1])), shape=(t.n, t.n))
    return shortest_path(A, directed=False, unweighted=True)


#: offered loads past saturation, as multiples of the paper's bound (capped at 1 phit/cycle/PE)
PAST_MULTIPLES = (0.9, 1.2, 2.0, 4.0)
#: a drop is a fall of the accepted load at the highest offered load below the peak by more than this share;
#: the load has stabilised when the last two points differ by at most STABLE of the peak
DROP, STABLE = 0.03, 0.02
PAST_SECTION = "Reproduction: twisted-tori-tpds2010, accepted load past saturation (Fig. 8)"


def past_loads(bound: float, multiples=PAST_MULTIPLES) -> list[float]:
    """Offered loads (phits/cycle/PE) at the multiples of ``bound``, capped at 1, without repeats."""
    return sorted({round(min(1.0, m * bound), 6) for m in multiples})


def past_reading(accepted: list[float]) -> tuple[float, float, str]:
    """(peak, the last point's fall below it, the reading) of accepted loads at increasing offered loads."""
    peak = max(accepted)
    drop = 1 - accepted[-1] / peak
    flat = len(accepted) > 1 and abs(accepted[-1] - accepted[-2]) <= STABLE * peak
    if drop <= DROP:
        return peak, drop, "stabilises at its peak"
    return peak, drop, "drops, then stabilises" if flat else "still falling at the highest load"


def past_saturation(nets: list[tuple[str, int]], multiples=PAST_MULTIPLES, drain: int = 4000) -> list[dict]:
    """Accepted load under uniform traffic at the offered loads of :func:`past_loads` on every network
    (tpds2010 preset, ties = first, seed 1)."""
    import sim

    cfg = sim.preset("tpds2010", drain=drain)
    rows = []
    for fam, a in nets:
        t = topo(f"{fam}:a={a}")
        t0 = time.perf_counter()
        loads = past_loads(BOUND[fam](a), multiples)
        res = []
        for x in loads:
            r = sim.simulate(t, cfg, "uniform", x, seed=1)
            log(f"past saturation {fam}:a={a} load {x:.4f}: accepted {r.accepted:.4f} ({r.seconds:.1f} s)")
            res.append(r)
        acc = [r.accepted for r in res]
        peak, drop, reading = past_reading(acc)
        rows.append(dict(fam=fam, a=a, size=size(t), bound=BOUND[fam](a), loads=loads, offered=[r.offered for r in res],
                         accepted=acc, deadlock=[r.deadlock for r in res], peak=peak, drop=drop, reading=reading,
                         seconds=time.perf_counter() - t0))
    return rows


def past_report(rows: list[dict], multiples=PAST_MULTIPLES) -> str:
    trows = []
    for r in rows:
        at = {x: (acc, d) for x, acc, d in zip(r["loads"], r["accepted"], r["deadlock"])}
        cells, shown = [], set()
        for m in multiples:
            x = round(min(1.0, m * r["bound"]), 6)
            cells.append("-" if x in shown else f"{at[x][0]:.4f} ({x:.3g}){' D' if at[x][1] else ''}")
            shown.add(x)
        trows.append([f"{r['fam'].upper()}({r['a']})", r["size"], round(r["bound"], 4), *cells, f"{r['peak']:.4f}",
                      f"{100 * r['drop']:.1f}%", r["reading"], f"{r['seconds']:.0f}"])
    kinds = sorted({r["reading"] for r in rows})
    return ("Accepted load (phits/cycle/PE) under uniform traffic at offered loads past saturation: "
            + ", ".join(f"{m:g}" for m in multiples) + " x the paper's bound, capped at 1 (offered load in "
            "brackets; '-': capped, the point to its left; D: the watchdog fired); tpds2010 preset, ties = first, seed 1, the preset's window (2000 "
            "warm-up + 5000 measured cycles). 'Fall' is the accepted load at the highest offered load below the "
            f"peak; a network 'drops' when it falls more than {100 * DROP:g}% and has stabilised when its last two "
            f"points differ by at most {100 * STABLE:g}% of the peak:\n\n"
            + table(["network", "size", "paper bound", *[f"{m:g} x bound" for m in multiples], "peak",
                     "fall at the highest load", "reading", "s"], trows)
            + f"\n\nReadings seen: {'; '.join(kinds)}. The paper (section 7.1): past saturation the accepted load "
            "stabilises in some networks and drops to a lower point before stabilising in others.")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--record", action="store_true")
    ap.add_argument("--no-sim", action="store_true", help="skip the simulations")
    ap.add_argument("--figures", type=Path, default=Path(__file__).with_name("figures"), metavar="DIR",
                    help="where the PNGs and their JSON data go (default benchmarks/figures, the committed ones)")
    ap.add_argument("--past-saturation", action="store_true",
                    help="only the accepted load past saturation (uniform traffic, the mode's networks)")
    args = ap.parse_args()
    quick = args.quick
    if args.past_saturation:
        # 3-D at a = 8 (16 x 8 x 8, the size of the hot-region and permutation runs) in both modes (a = 4's bounds
        # are 1) and, in full mode, at the paper's 32 x 16 x 16
        uni2, uni3 = ([8], [8]) if quick else ([16, 32], [8, 16])
        nets = [(f, a) for a in uni2 for f in ("rt", "rtt")] + [(f, a) for a in uni3 for f in ("pt", "ptt", "pdtt")]
        body = past_report(past_saturation(nets, drain=20000 if quick else 4000))
        body += f"\n\nTotal {time.perf_counter() - T0:.0f} s wall."
        print(body)
        if args.record:
            record(PAST_SECTION + (" (quick)" if quick else ""), body)
        return
    if quick:
        uni2, uni3 = [8], [4]          # uniform traffic (2-D a, 3-D a)
        hr2, hr3 = [8], [4]            # hot region
        perm2, perm3 = 8, 4            # permutations (sim and flows)
        nn_a = 8
        rand3 = True                   # ties = random also for the 3-D networks
    else:
        uni2, uni3 = [16, 32], [16]
        hr2, hr3 = [16, 32], [8]
        perm2, perm3 = 16, 8
        nn_a = 16
        rand3 = False
    out: list[str] = []
    timing: list[list[object]] = []
    figs = args.figures
    tag = "" if quick else "full_"

    # ------------------------------------------------------------ distances
    t_ph = time.perf_counter()
    log("distance properties")
    rows = []
    dist_nets = [(f, a) for a in sorted(set(uni2 + [perm2])) for f in ("rt", "rtt")] + \
        [(f, a) for a in sorted(set(uni3 + [perm3])) for f in ("pt", "ptt", "pdtt")]
    for fam, a in dist_nets:
        t = topo(f"{fam}:a={a}")
        ds = cd.distance_stats(t)
        ul = cd.uniform_load(t)
        dia, avg, lu = CLOSED[fam]
        rows.append([f"{fam.upper()}({a})", t.n, ds.diameter, dia(a), round(ds.average_distance_with_self, 3),
                     round(avg(a), 3), round(ul.link_utilisation, 3), round(lu, 3)])
    emit(out, "Distance properties (BFS; average over all N^2 pairs, self included, the papers' convention) "
         "against the closed forms (the paper's average distances and PTT link utilisation drop terms of order "
         "1/a: RTT 2a/3 - 1/(6a) exactly):\n\n" + table(
             ["network", "routers", "diameter", "paper", "avg distance", "paper", "LU", "paper"], rows))
    timing.append(["distances", f"{time.perf_counter() - t_ph:.0f}"])

    # ------------------------------------------------------------ bounds
    t_ph = time.perf_counter()
    log("injection bounds (LP / PTAS)")
    rows = []
    # the exact LP (HiGHS) takes 20-100 s per 128-router network on this machine: solve it only for the
    # 32-router RT(4)/RTT(4) (an earlier recorded run: it equals the analytic bound at 128 routers too)
    lp_max, lp_2d, lp_3d = 32, [4], []
    bound_nets = [(f, a) for a in sorted(set(lp_2d + uni2 + [perm2])) for f in ("rt", "rtt")] + \
        [(f, a) for a in sorted(set(lp_3d + uni3 + [perm3])) for f in ("pt", "ptt", "pdtt")]
    for fam, a in bound_nets:
        t = topo(f"{fam}:a={a}")
        t0 = time.perf_counter()
        ul = cd.uniform_load(t)
        lam, ptas_s = None, "-"
        if t.n <= 1024:
            p = FlowProblem.from_topology(t, Demands.uniform(t.n))
            r = solve_lp(p) if t.n <= lp_max else None
            ptas = max_concurrent_flow(p, eps=0.02)
            lam = r.lam if r is not None else None
            ptas_s = f"[{ptas.lam:.4f}, {ptas.upper_bound:.4f}]"
        rows.append([f"{fam.upper()}({a})", round(BOUND[fam](a), 4), round(ul.injection_bound, 4),
                     "-" if lam is None else round(lam, 4), ptas_s, f"{time.perf_counter() - t0:.1f}"])
        log(f"bound {fam}:a={a} done")
    emit(out, "Uniform-traffic injection bound (phits/cycle/PE): the paper's formula, our 2|E_j|/(N tau_j), the "
         f"exact LP optimum (HiGHS; up to {lp_max} routers) and the PTAS interval (eps 0.02, up to 1024 routers):\n\n" + table(
             ["network", "paper 4/a ...", "analytic", "exact LP", "PTAS [lambda, bound]", "s"], rows))

    import sim

    rows = []
    pn = [("rt", perm2), ("rtt", perm2), ("pt", perm3), ("ptt", perm3), ("pdtt", perm3)]
    for pat in PATS:
        cap = {}
        for fam, a in pn:
            t = topo(f"{fam}:a={a}")
            dem = Demands.from_matrix(sim.traffic(pat).demand_matrix(t, 1.0))
            cap[fam] = max_concurrent_flow(FlowProblem.from_topology(t, dem), eps=0.02)
        for (tw, pl), paper in PAPER_GAINS.items():
            lo = cap[tw].lam / cap[pl].upper_bound - 1
            hi = cap[tw].upper_bound / cap[pl].lam - 1
            rows.append([pat, f"{tw.upper()} / {pl.upper()}", f"{100 * lo:.0f}..{100 * hi:.0f}",
                         "-" if paper[pat] is None else paper[pat]])
        log(f"flows {pat} done")
    emit(out, f"Permutation traffic (RT/RTT a = {perm2}, PT/PTT/PDTT a = {perm3}), optimal-routing capacity gain of "
         "the twisted network (percent; certified interval from the PTAS brackets) against the paper's simulated "
         "gain:\n\n" + table(["pattern", "networks", "ours (flows)", "paper (sim)"], rows))
    timing.append(["bounds and flows", f"{time.perf_counter() - t_ph:.0f}"])

    if not args.no_sim:
        # full mode: a 4000-cycle drain (default 20000) -- it only finishes the latency of the window's
        # packets, which past the knee is not reported; below the knee they arrive within a few hundred cycles
        drain = {} if quick else {"drain": 4000}
        cfg_first = sim.preset("tpds2010", **drain)
        cfg_rand = sim.preset("tpds2010", tie_break="random", **drain)

        # -------------------------------------------------------- uniform
        t_ph = time.perf_counter()
        rows = []
        uni = {}  # (fam, a, ties) -> (points, best)
        nets_u = [(f, a) for a in uni2 for f in ("rt", "rtt")] + [(f, a) for a in uni3 for f in ("pt", "ptt", "pdtt")]
        for ties, cfg in (("first", cfg_first), ("random", cfg_rand)):
            for fam, a in nets_u:
                if ties == "random" and fam.startswith("p") and not rand3:
                    continue
                t = topo(f"{fam}:a={a}")
                t0 = time.perf_counter()
                pts, best = search(t, cfg, "uniform", BOUND[fam](a), label=f"uniform {fam}:a={a} ties={ties}")
                uni[(fam, a, ties)] = (pts, best)
                ul = cd.uniform_load(t)
                rec_b = ul.routing_bound if ties == "first" else ul.injection_bound
                zl = pts[0]
                rows.append(["uniform", f"{fam.upper()}({a})", size(t), ties, round(BOUND[fam](a), 4),
                             round(rec_b, 4), round(best.accepted, 4), f"{best.accepted / BOUND[fam](a):.2f}",
                             f"{best.accepted / rec_b:.2f}", round(zl.latency, 1), round(zl.hops, 2),
                             len(pts), f"{time.perf_counter() - t0:.0f}"])
        emit(out, "Simulated saturation under uniform traffic (the maximum accepted load, phits/cycle/PE; tpds2010 "
             "preset) against the paper's bound and the bound of the routing records actually used ('record "
             "bound': with ties = first every tie between equally short records goes one way, RT X-/Y-, RTT Y-; "
             "with ties = random one minimal record is drawn per packet, the even split the paper's bounds "
             "assume, so the record bound is the analytic one). The paper's Table 1 (its measured maxima) is not "
             "legible in our copy; its text says the maxima are close to the bounds. Zero-load latency and hops "
             "at 0.1 of the bound:\n\n" + table(
                 ["pattern", "network", "size", "ties", "paper bound", "record bound", "saturation",
                  "of paper bound", "of record bound", "latency (low load)", "hops", "points", "s"], rows))
        rows = []
        for ties in ("first", "random"):
            for (tw, pl), paper in PAPER_UNIFORM_GAIN.items():
                for a in (uni2 if pl == "rt" else uni3):
                    if (tw, a, ties) in uni and (pl, a, ties) in uni:
                        g = 100 * (uni[(tw, a, ties)][1].accepted / uni[(pl, a, ties)][1].accepted - 1)
                        rows.append(["uniform", f"{tw.upper()}({a}) / {pl.upper()}({a})", ties, f"{g:.0f}",
                                     f"{paper:.1f} (bounds)"])
        emit(out, "Simulated uniform gain of the twisted networks (percent) against the paper's bound ratios:\n\n"
             + table(["pattern", "networks", "ties", "ours (sim)", "paper"], rows))
        rows = []
        for (fam, a, ties), (pts, best) in uni.items():
            u = util_dims(best)
            claim, ok = FIG10[fam]
            rows.append([f"{fam.upper()}({a})", size(topo(f"{fam}:a={a}")), ties, round(best.load, 4),
                         *[f"{u[k]:.2f}" if k in u else "-" for k in ("x", "y", "z", "all")], claim,
                         "yes" if ok(u) else "no"])
        emit(out, "Link utilisation per dimension at saturation (uniform traffic; mean phits/cycle per channel at the "
             "load of the maximum accepted load) against the paper's Fig. 10 (32x16 and 32x16x16):\n\n" + table(
                 ["network", "size", "ties", "at load", "x", "y", "z", "all", "paper (Fig. 10)", "consistent"], rows))
        timing.append(["uniform (sim)", f"{time.perf_counter() - t_ph:.0f}"])
        _figures_uniform(uni, figs, tag, out)

        # -------------------------------------------------------- hot region
        t_ph = time.perf_counter()
        rows = []
        hr = {}
        nets_h = [(f, a) for a in hr2 for f in ("rt", "rtt")] + [(f, a) for a in hr3 for f in ("pt", "ptt", "pdtt")]
        for fam, a in nets_h:
            t = topo(f"{fam}:a={a}")
            t0 = time.perf_counter()
            pts, best = search(t, cfg_first, "hotregion", BOUND[fam](a), lat_fracs=(0.1,), start=0.3,
                               label=f"hotregion {fam}:a={a}")
            hr[(fam, a)] = (pts, best)
            rows.append(["hotregion", f"{fam.upper()}({a})", size(t), round(best.accepted, 4),
                         f"{best.accepted / BOUND[fam](a):.2f}", util_str(util_dims(best)), len(pts),
                         f"{time.perf_counter() - t0:.0f}"])
        emit(out, "Hot-region traffic (25% of packets to the lowest 12.5% of rows (2-D) or planes (3-D), the rest "
             "uniform; ties = first): saturation, its fraction of the uniform bound and the utilisation at it:\n\n"
             + table(["pattern", "network", "size", "saturation", "of uniform bound", "utilisation", "points", "s"],
                     rows))
        rows = []
        for (tw, pl) in PAPER_UNIFORM_GAIN:
            for a in (hr2 if pl == "rt" else hr3):
                g_hr = 100 * (hr[(tw, a)][1].accepted / hr[(pl, a)][1].accepted - 1)
                u = uni.get((tw, a, "first")), uni.get((pl, a, "first"))
                if u[0] is None or u[1] is None:  # no uniform run at this size: use the nearest simulated one
                    a_u = min((uni2 if pl == "rt" else uni3), key=lambda b: abs(b - a))
                    u = uni[(tw, a_u, "first")], uni[(pl, a_u, "first")]
                    a_note = f" (uniform at a = {a_u})"
                else:
                    a_note = ""
                g_un = 100 * (u[0][1].accepted / u[1][1].accepted - 1)
                if pl == "rt":
                    claim, ok = "gain > 0 but below uniform's", 0 < g_hr < g_un
                elif tw == "ptt":
                    claim, ok = "keeps its uniform gain", g_hr >= g_un - 10
                else:
                    g_ptt_hr = 100 * (hr[("ptt", a)][1].accepted / hr[("pt", a)][1].accepted - 1)
                    g_ptt_un = 100 * (u_ptt(uni, a, uni3) - 1)
                    claim = "gain shrinks (more than PTT's)"
                    ok = g_hr < g_un and (g_un - g_hr) > (g_ptt_un - g_ptt_hr)
                rows.append([f"{tw.upper()}({a}) / {pl.upper()}({a})", f"{g_hr:.0f}", f"{g_un:.0f}{a_note}", claim,
                             "yes" if ok else "no"])
        emit(out, "Hot region against uniform: simulated gain of the twisted network (percent) and the paper's "
             "qualitative claims (section 7.2):\n\n" + table(
                 ["networks", "hot region", "uniform", "paper (Fig. 11)", "consistent"], rows))
        timing.append(["hot region (sim)", f"{time.perf_counter() - t_ph:.0f}"])
        _figure_curves(hr, figs / f"twisted_tori_{tag}hotregion.png", "hot-region traffic (Fig. 11)", out)

        # -------------------------------------------------------- permutations
        t_ph = time.perf_counter()
        rows = []
        sat = {}
        perm_curves = {}
        for pat in PATS:
            for fam, a in pn:
                t = topo(f"{fam}:a={a}")
                t0 = time.perf_counter()
                pts, best = search(t, cfg_first, pat, BOUND[fam](a), lat_fracs=(), start=0.3,
                                   label=f"{pat} {fam}:a={a}")
                sat[(pat, fam)] = best.accepted
                perm_curves[(f"{pat} {fam}", a)] = (pts, best)
                rows.append([pat, f"{fam.upper()}({a})", size(t), round(best.accepted, 4),
                             util_str(util_dims(best)), len(pts), f"{time.perf_counter() - t0:.0f}"])
        emit(out, "Permutation traffic, simulated saturation (ties = first):\n\n" + table(
            ["pattern", "network", "size", "saturation", "utilisation", "points", "s"], rows))
        rows = []
        for pat in PATS:
            for (tw, pl), paper in PAPER_GAINS.items():
                g = 100 * (sat[(pat, tw)] / sat[(pat, pl)] - 1)
                rows.append([pat, f"{tw.upper()} / {pl.upper()}", f"{g:.0f}", "-" if paper[pat] is None else paper[pat]])
        emit(out, "Simulated permutation gain of the twisted networks (percent) against the paper's (32x16 and "
             "64x32x32):\n\n" + table(["pattern", "networks", "ours (sim)", "paper"], rows))
        timing.append(["permutations (sim)", f"{time.perf_counter() - t_ph:.0f}"])

        # -------------------------------------------------------- nearest neighbour
        t_ph = time.perf_counter()
        a = nn_a
        maps = nn_mappings(a)
        rows = []
        nn_curves = {}
        for name, spec, key in (("RT, natural", f"rt:a={a}:c=2", "natural"),
                                ("RTT, twisted (7.4)", f"rtt:a={a}:c=2", "twisted"),
                                ("RTT, naive row-major", f"rtt:a={a}:c=2", "naive")):
            t = topo(spec)
            M = nn_matrix(a, maps[key])
            tr = np.repeat(np.arange(t.n), 2)
            H = hop_matrix(t)[tr][:, tr]
            pairs = M > 0
            mean_hops = float((M * H).sum() / M.sum())
            max_hops = int(H[pairs].max())
            if key != "naive":  # the mapping's promise: every logical neighbour physically adjacent or co-located
                assert max_hops <= 1, (key, max_hops)
                assert np.array_equal(np.sort(maps[key]), np.arange(4 * a * a))
            Mr = np.zeros((t.n, t.n))
            np.add.at(Mr, (tr[:, None], tr[None, :]), M)
            np.fill_diagonal(Mr, 0.0)
            ptas = max_concurrent_flow(FlowProblem.from_topology(t, Demands.from_matrix(Mr)), eps=0.02)
            cap_pe = ptas.lam * M.sum() / (2 * t.n)  # lambda scales the whole matrix: per-PE phits/cycle
            t0 = time.perf_counter()
            pts, best = search(t, cfg_first, sim.demand(M), 1.0, lat_fracs=(0.1,), start=0.3,
                               label=f"neighbour {key} {spec}")
            nn_curves[(name, a)] = (pts, best)
            rows.append([name, spec, max_hops, round(mean_hops, 3), round(pts[0].hops, 3),
                         f"{cap_pe:.2f}", round(best.accepted, 4), round(pts[0].latency, 1),
                         util_str(util_dims(best)), f"{time.perf_counter() - t0:.0f}"])
        emit(out, f"Nearest-neighbour traffic of a logical {2 * a}x{2 * a} torus of processes (each sends a quarter "
             f"of its load to each of its 4 logical neighbours; 2 processes per router, each its own injection "
             f"queue and reception port; built as a demand matrix, sim.demand). 'twisted': logical column c "
             f"runs along the twisted physical Y ring of columns c mod a and c mod a + a, (c, r) -> "
             f"(x = (c + a*(r div a)) mod 2a, y = r mod a), verified in code: every logical neighbour is one hop "
             f"away. 'natural' on RT: (c, r) -> (c, r div 2). 'naive': process r*2a + c on terminal r*2a + c "
             f"(routers in index order). Capacity = optimal-routing (PTAS) per-PE load the links allow, without "
             f"the 1 phit/cycle injection limit:\n\n" + table(
                 ["mapping", "spec", "max hops", "mean hops", "sim hops", "link capacity", "saturation",
                  "latency (0.1)", "utilisation", "s"], rows))
        timing.append(["nearest neighbour (sim)", f"{time.perf_counter() - t_ph:.0f}"])

        # -------------------------------------------------------- notes
        rate = Counter.router_cycles / max(Counter.seconds, 1e-9)
        big_points = 3 * 8 * 2  # 3 networks x ~8 points x (uniform + hot region)
        big_est = big_points * 65536 * 15000 / rate
        out.append(
            f"Simulator speed over this run: {Counter.points} points, {Counter.router_cycles / 1e9:.2f} G "
            f"router-cycles in {Counter.seconds:.0f} s of kernel time = {rate / 1e6:.1f} M router-cycles/s. "
            f"64x32x32 (65536 routers) is not simulated: the routing tables of the record routings are n x n "
            f"(int16 records x 3 dimensions + int64 distances = 14 bytes a pair, {65536 ** 2 * 14 / 1e9:.0f} GB; "
            f"the machine has 23 GB), and even with them a uniform plus hot-region sweep of the three networks "
            f"(~{big_points} points of ~15000 cycles) would take ~{big_est / 3600:.0f} h at this speed.")
    _notes(out, quick)
    t_all = time.perf_counter() - T0
    timing.append(["total", f"{t_all:.0f}"])
    emit(out, "Wall time per phase (seconds; the machine is shared):\n\n" + table(["phase", "s"], timing))
    body = "\n\n".join(out)
    if args.record:
        record("Reproduction: twisted-tori-tpds2010" + (" (quick)" if quick else ""), body)
        log("recorded")


def u_ptt(uni, a, uni3) -> float:
    """Uniform PTT/PT ratio at a (or the nearest simulated size)."""
    a_u = min(uni3, key=lambda b: abs(b - a))
    return uni[("ptt", a_u, "first")][1].accepted / uni[("pt", a_u, "first")][1].accepted


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


class _Colours(dict):
    def __missing__(self, key):
        self[key] = f"C{len(self) % 10}"
        return self[key]


COLOURS = _Colours()


def _dump(figs: Path, name: str, curves, tag: str) -> None:
    """The simulated points behind a figure, as JSON next to it (to redraw it without simulating again)."""
    import json

    d = {f"{k}": [{"load": p.load, "offered": p.offered, "accepted": p.accepted, "latency": p.latency,
                   "hops": p.hops, "deadlock": p.deadlock, "utilisation": util_dims(p)} for p in pts]
         for k, (pts, best) in curves.items()}
    path = figs / f"twisted_tori_{tag}{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(d, indent=0))


def _figures_uniform(uni, figs: Path, tag: str, out: list[str]) -> None:
    _dump(figs, "uniform", uni, tag)
    try:
        plt = _plt()
        figs.mkdir(parents=True, exist_ok=True)
        fig, axes = plt.subplots(1, 2, figsize=(11, 4))
        fig2, axes2 = plt.subplots(1, 2, figsize=(11, 4))
        for (fam, a, ties), (pts, best) in sorted(uni.items(), key=lambda kv: (len(kv[0][0]), kv[0])):
            k = 0 if fam in ("rt", "rtt") else 1
            t = topo(f"{fam}:a={a}")
            lbl = f"{fam.upper()} {size(t)}" + (" (random ties)" if ties == "random" else "")
            ls = "o-" if ties == "first" else "s--"
            col = COLOURS[(fam, a)]
            x = [p.load for p in pts]
            axes[k].plot(x, [p.accepted for p in pts], ls, ms=3, color=col, label=lbl)
            ok = [p for p in pts if p.latency is not None and not p.deadlock]
            axes2[k].plot([p.load for p in ok], [p.latency for p in ok], ls, ms=3, color=col, label=lbl)
        for k, title in enumerate(("2-D", "3-D")):
            axes[k].set(xlabel="offered load (phits/cycle/PE)", ylabel="accepted load", title=f"{title}, uniform")
            axes2[k].set(xlabel="offered load (phits/cycle/PE)", ylabel="average latency (cycles)",
                         title=f"{title}, uniform", ylim=(0, 600))
            axes[k].legend(fontsize=7)
            axes2[k].legend(fontsize=7)
        p1 = figs / f"twisted_tori_{tag}uniform.png"
        p2 = figs / f"twisted_tori_{tag}latency.png"
        fig.savefig(p1, dpi=90, bbox_inches="tight")
        fig2.savefig(p2, dpi=90, bbox_inches="tight")
        plt.close(fig)
        plt.close(fig2)
        emit(out, f"Accepted vs offered load under uniform traffic (Fig. 8): `benchmarks/figures/{p1.name}`; "
             f"average latency vs offered load (Fig. 9): `benchmarks/figures/{p2.name}`.")
    except Exception as exc:  # a figure must not lose the numbers
        emit(out, f"(figures not written: {exc})")


def _figure_curves(curves, png: Path, title: str, out: list[str]) -> None:
    _dump(png.parent, png.stem.replace("twisted_tori_", "", 1).replace("full_", "", 1), curves,
          "full_" if "full_" in png.name else "")
    try:
        plt = _plt()
        png.parent.mkdir(parents=True, exist_ok=True)
        fig, axes = plt.subplots(1, 2, figsize=(11, 4))
        for (fam, a), (pts, best) in curves.items():
            k = 0 if fam in ("rt", "rtt") else 1
            axes[k].plot([p.load for p in pts], [p.accepted for p in pts], "o-", ms=3, color=COLOURS[(fam, a)],
                         label=f"{fam.upper()} {size(topo(f'{fam}:a={a}'))}")
        for k in range(2):
            axes[k].set(xlabel="offered load (phits/cycle/PE)", ylabel="accepted load", title=title)
            axes[k].legend(fontsize=7)
        fig.savefig(png, dpi=90, bbox_inches="tight")
        plt.close(fig)
        emit(out, f"Accepted vs offered load, {title}: `benchmarks/figures/{png.name}`.")
    except Exception as exc:
        emit(out, f"(figure not written: {exc})")


def _notes(out: list[str], quick: bool) -> None:
    n = [
        "The flows columns are what an optimal, splittable routing achieves; the paper's numbers are simulated with "
        "minimal adaptive routing, finite buffers and one bubble escape channel, so flows is an upper reference, "
        "not a reproduction of the paper's simulated gains.",
        "The paper's Table 1 (its simulated maxima beside the bounds) and all its figures are not legible in our "
        "copy; what we can compare is the bounds (4/a, 6/a, 4/a, 6/a, 48/(7a)), the 50%/50%/71% bound ratios and the "
        "qualitative statements of sections 7.1-7.4. Our analytic bound differs from the paper's formula by terms "
        "of order 1/N (N - 1 other PEs instead of N) and, for the PTT/PDTT, by the 1/a terms the paper drops; the "
        "exact LP optimum equals our analytic bound.",
        "Tie rule. With tie_break = first (the tpds2010 preset) every tie between equally short routing records "
        "goes one way (RT X-/Y-, RTT Y-), so one direction of a dimension carries more than its share and the "
        "record bound is below the paper's (RT 32x16: 0.235 vs 0.25); the maximum accepted load is then a lower "
        "fraction of the paper's bound than of the record bound. tie_break = random draws one minimal record per "
        "packet, the even split the paper's bounds assume; it raises RT more than RTT at small sizes.",
        "Fraction of the bound. Our simulated maxima reach about 0.8-0.9 of the bound for the 2-D networks (the "
        "paper says its maxima are close to the bounds). The RTT reaches a smaller fraction than the RT at small "
        "a, so the simulated RTT/RT gain is below the 50% of the bounds there and approaches it as a grows.",
        "3-D networks. A PE injects at most 1 phit/cycle (one injection queue, as in the paper's router); at "
        "a = 4 (quick) the 3-D bounds are 1.0-1.7, so the 3-D saturations are capped by injection, the 3-D gains "
        "are compressed and the Fig. 10 claims for PT/PTT/PDTT cannot hold (the 'consistent' column says no for "
        "that reason, not because the topology behaves otherwise); at a = 16 (full) the bounds are 0.25-0.43 and "
        "the links are the bottleneck as in the paper.",
        "Hot region. The region is the lowest 12.5% of rows (2-D) / planes in the last coordinate (3-D), as "
        "the paper says (sim draws hot destinations from that list of PEs, whatever the numbering). Full mode "
        "runs the 3-D hot region at 16x8x8, not 32x16x16, to keep the run within about an hour and a half: a "
        "saturated 32x16x16 point takes minutes. The 2-D claim holds (RTT gains, less than under uniform "
        "traffic). The 3-D claim that the PTT keeps its uniform gain does not hold with our region: the "
        "lowest Z planes are reached over the Z rings, which the PT and the PTT share unchanged (the PTT "
        "twists Y only), so the PTT's gain shrinks to a fraction of its uniform gain (table above). The paper does not say "
        "which coordinate orders its nodes, i.e. which planes are 'lowest'; with the region cut across a "
        "twisted dimension the PTT's extra paths would reach it.",
        "Permutations. Their gains depend on the node numbering (ours: C order of the coordinates, x slowest; the "
        "paper does not say) and on the size: the paper's 3-D permutation results are for 64x32x32, ours for "
        + ("8x4x4 (quick, injection-capped)" if quick else "16x8x8") + ", so only the sign and rough size of the "
        "gains compare. Bit complement on the RT/RTT is a fixed-distance pattern where the tie rule matters most.",
        "Nearest neighbour. With the twisted mapping every logical neighbour is one hop away on the RTT "
        "(checked in code), and the RTT then does at least as well as the RT with its natural mapping, the "
        "paper's point (section 7.4: the mapping removes the twisted torus's apparent drawback). Both are far "
        "below their link capacity (2 phits/cycle/PE), so the end points limit them (one injection queue and one "
        "reception port per process, 16-phit packets): the RT's natural mapping puts a quarter of the traffic "
        "between the two processes of one router, which never uses a link, and still saturates lower; we did "
        "not isolate why (a candidate: those packets go from an injection queue straight to a reception port "
        "that in-transit packets take first, transit priority). The "
        "naive row-major mapping on the RTT (logical row r on physical column x = r) keeps most neighbours one hop "
        "away but the wraparound of every logical row, (x, a - 1) -> (x, 0), is not a link of the RTT (its Y "
        "wraparound is twisted): those packets travel up to a - 1 hops and load a few channels heavily.",
    ]
    out.append("Notes on the differences:\n\n" + "\n".join(f"{i + 1}. {x}" for i, x in enumerate(n)))


if __name__ == "__main__":
    main()
