"""Reproduce the routing figures of the dragonfly paper (Kim, Dally, Scott, Abts, ISCA 2008).

    python benchmarks/repro_dragonfly_routing.py [--big] [--seed S] [--record]

Saturation throughput (phits/cycle/PE; BookSim2's definition: the accepted load at the highest
offered load whose run stays under the 500-cycle latency threshold) of minimal (shortest-path,
``distance``), Valiant and UGAL-L routing on the simple router with single-flit packets, under
the adversarial pattern ``groupshift`` (every PE of group i to random PEs of group i+1) and
uniform traffic, beside the paper's figures, the flow LP's routing-free optimum and, for
minimal routing, the bound of the direct global channel (1 / (a p f), f the largest fraction
of a group pair's router pairs whose every shortest path takes that channel).
``dragonfly:a=4:p=2:h=2`` (g = 9) by default; ``--big`` adds the balanced a=8, p=h=4 (g = 33).
"""

from __future__ import annotations

import argparse
import time

import networkx as nx
import numpy as np

import candidates as cd
import sim
from flows import Demands, FlowProblem, max_concurrent_flow, solve_lp
from sim import SimConfig

from _record import record, table

ROUTINGS = ("distance", "valiant", "ugal")


def forced_fraction(t) -> float:
    """The largest fraction, over groups i, of the router pairs i -> i+1 whose
    every shortest path takes a direct global link between the two groups."""
    G = t.to_networkx()
    grp = t.coords[:, 0]
    g = int(grp.max()) + 1
    D = dict(nx.all_pairs_shortest_path_length(G))
    worst = 0.0
    for i in range(g):
        j = (i + 1) % g
        H = G.copy()
        H.remove_edges_from([(u, v) for u, v in G.edges() if {grp[u], grp[v]} == {i, j}])
        DH = dict(nx.all_pairs_shortest_path_length(H))
        S, T = np.flatnonzero(grp == i), np.flatnonzero(grp == j)
        worst = max(worst, float(np.mean([DH[s][d] > D[s][d] for s in S for d in T])))
    return worst


def run(spec: str, seed: int) -> tuple[list[list[object]], float]:
    t = cd.from_spec(spec)
    a, p = t.params["a"], t.params["p"]
    diam = int(cd.distance_stats(t).diameter)
    cfg = SimConfig(vcs=2 * diam, packet_length=1, warmup=1000, measure=2000)
    rows = []
    cpu = 0.0
    for pattern in ("groupshift", "uniform"):
        M = sim.traffic(pattern).demand_matrix(t)
        prob = FlowProblem.from_topology(t, Demands.from_matrix(M))
        # the exact LP on the small dragonfly; the PTAS (certified within 3%, its lower end shown) on the big one
        lam = solve_lp(prob).lam if t.n <= 100 else max_concurrent_flow(prob, eps=0.03).lam
        for r in ROUTINGS:
            c0 = time.process_time()
            s = sim.saturation(t, cfg.replace(routing=r), pattern, step=0.05, resolution=0.01, definition="stable",
                               seed=seed)
            cpu += time.process_time() - c0
            best = max((x for x in s.points if x.load == s.saturation_load), key=lambda x: x.accepted)
            zero = sim.simulate(t, cfg.replace(routing=r), pattern, 0.02, seed=seed)
            paper = {("groupshift", "distance"): f"1/(ap) = {1 / (a * p):.3g}", ("groupshift", "valiant"): "~0.5",
                     ("groupshift", "ugal"): "~0.5"}.get((pattern, r), "")
            rows.append([spec, pattern, r, s.saturation, round(s.saturation / lam, 3), best.hops, zero.latency,
                         paper, lam])
    f = forced_fraction(t)
    rows.append([spec, "groupshift", "bound: direct channel", 1 / (a * p * f), "", "", "", f"f = {f:.4g}", ""])
    return rows, cpu


NOTES = """Reading it.
- `distance` is minimal routing as shortest paths on the graph (adaptive among next hops), not the
  dragonfly's local-global-local route. Under `groupshift` only the router pairs without an equally short
  route through a third group must take the one direct global channel (f of them in the worst group pair,
  networkx), so the channel's bound is 1/(a p f), above the paper's 1/(a p). The measured saturations sit
  up to 17% above that bound: BookSim2's stable test averages the latency over all packets, and the forced
  packets of the worst group pair are few enough that their growing queues stay under the threshold for
  the window. By the "accepted"
  definition minimal routing looks far better, because the pairs that avoid the direct channel keep flowing
  while the others starve: these figures use the stable definition.
- Valiant picks a random intermediate router (the paper: a random group), so packets make 4.6 (a = 4) and
  5.4 (a = 8) hops on local and global channels alike; the single-flit input-queued VCT router fills its
  channels to about 70% at saturation (minimal routing gets 0.57 of the flow optimum even under uniform
  traffic). Valiant and UGAL thus reach 0.33-0.40 rather than the paper's 0.5, still well above minimal.
  Valiant is oblivious: the same saturation under `groupshift` and `uniform`.
- The LP optimum is the exact LP (HiGHS) for a = 4 and the PTAS's certified lower end (eps 0.03) for a = 8
  (closed form (a h + 1)/(2 a p) = 0.5156 under groupshift)."""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--big", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--record", action="store_true")
    args = ap.parse_args()
    specs = ["dragonfly:a=4:p=2:h=2"] + (["dragonfly:a=8:p=4:h=4"] if args.big else [])
    rows = []
    t0, cpu = time.perf_counter(), 0.0
    for spec in specs:
        r, c = run(spec, args.seed)
        rows += r
        cpu += c
    body = ("Saturation (phits/cycle/PE, stable definition), its ratio to the flow LP's optimum, mean hops at "
            "saturation, zero-load latency (load 0.02, cycles from injection), single-flit packets, "
            "vcs = 2 x diameter (distance classes), seed "
            f"{args.seed}; {time.perf_counter() - t0:.0f} s wall, {cpu:.0f} s CPU in the searches:\n\n"
            + table(["topology", "traffic", "routing", "saturation", "/ LP", "hops", "zero-load latency",
                     "paper", "LP optimum"], rows))
    body += "\n\n" + NOTES
    print(body)
    if args.record:
        record("Dragonfly routings (ISCA 2008)", body)


if __name__ == "__main__":
    main()
