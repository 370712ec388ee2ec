"""Synthesis by search (``candidates.search``, ``toposynth search``): speed, the
order/degree records, uniform capacity and simulation against tori.

    python benchmarks/bench_search.py [--parts speed,order,pairs,lifts,throughput,sim] [--jobs 2] [--record]

- ``speed``: full evaluations per second (bit-parallel all-pairs BFS, no early
  stop) at 512 routers of degree 6 and 4096 of degree 16, plain and lifted,
  and annealing moves per second, beside one all-pairs BFS of the same graph
  by scipy (``shortest_path``, unweighted) and networkx
  (``all_pairs_shortest_path_length``): ratio of their times.
- ``order``: the Graph Golf pairs (256, 8), (1024, 8) and (1024, 32) within 10
  minutes of wall time on the machine's cores (restarts run at once), against
  the published records, the Moore bound and random regular graphs (networkx,
  three seeds); the best restart's time-to-quality curve.
- ``pairs``: other (n, d) up to 4096 routers with two minutes per pair.
- ``lifts``: the ASPL reached at equal move budgets against the lift's
  number of base routers (what ``symmetry=auto`` chooses by).
- ``throughput``: the best 512-router degree-6 and 1024-router degree-4
  graphs' certified uniform capacity (flows: the exact shift-symmetric LP)
  over the 8x8x8 and 32x32 tori's exact capacity (lattice symmetry).
- ``sim``: the 512-router graph and the 8x8x8 torus simulated to saturation
  under uniform traffic (the ``default`` preset: virtual cut-through, 4 VCs
  per port, each family's automatic routing).
"""

from __future__ import annotations

import argparse
import math
import os
import time
from pathlib import Path

import networkx as nx
import numpy as np

import candidates as cd
from candidates.analytics.moore import moore_bound
from candidates.search import search_problem
from candidates.search._kernels import evaluate, fill
from candidates.search._bits import seed_state
from candidates.search.engine import move_weights, run_restart
from candidates.search.state import new_graph, new_log, new_work, objective_tuple, lifted_links

from _record import record_subsection, table

SECTION = "Synthesis by search (candidates.search)"
#: Graph Golf's published records (diameter, ASPL), research.nii.ac.jp/graphgolf
RECORDS = {(256, 8): (4, 2.736), (1024, 8): (5, 3.505), (1024, 32): (3, 1.998), (1024, 3): (11, 7.679),
           (1024, 11): (4, 3.059), (512, 8): (4, 3.111), (10000, 20): (4, 3.376)}


ORDER_NOTE = """

(1024, 32) is within reach only from structure. Its record (diameter 3, ASPL 1.998) leaves each router 30
routers at distance 3 and 961 at distance 2 of the 992 its 32 neighbours' other links reach: nearly every
path of length 2 must end at a different router, which random graphs and local moves do not approach (a
random 32-regular graph has about 635 routers at distance 2; the annealing from a random start, lifted or
plain, levels off near 2.20 -- the last row, and 2.2034-2.2157 for 1 M moves at lifts of 16-64 base
routers; 2.1998 for 10 M moves at 32). The affine polarity graph of F_32 (`affinepolar:q=32`: routers
(x, y), (x, y) ~ (a, b) iff y + b = x a) has exactly that structure -- routers with different x share
one neighbour, the 31 others with the same x are 3 hops away -- and its 32 routers of degree 31 paired up
by the start's fill give the record; the annealing at 1% of the calibrated temperature keeps it
(no move found lowers it). PolarFly ER_31 (993 routers, `polarfly:q=31`) grown to 1024 routers by
inserting the 31 new routers into its links starts at 2.0415 and anneals to 2.0381 in 1 M moves
(240 s): inserting routers breaks the polarity's unique paths."""


def _random_graph(n: int, d: int, g) -> tuple:
    p = search_problem(n, d, symmetry=g, seed=1)
    G = new_graph(p.lift, p.caps, p.fixed_base)
    L, W = new_log(), new_work(p.lift, len(G.eu))
    fill(G, L, seed_state(1, 0), np.zeros(int(p.caps.sum()) + 1, np.int32), 10 ** 6, 10 * len(G.eu),
         move_weights(p, 0))
    return p, G, W


def speed() -> str:
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import shortest_path

    rows = []
    for n, d in ((512, 6), (4096, 16)):
        for g in (1, "auto"):
            p, G, W = _random_graph(n, d, g)
            O = objective_tuple(0, 0.5, p.lift, p.caps)
            evaluate(G, W, O)   # compiled
            k, c0, w0 = 0, time.process_time(), time.perf_counter()
            while time.perf_counter() - w0 < 3.0:
                evaluate(G, W, O)
                k += 1
            cpu, wall = time.process_time() - c0, time.perf_counter() - w0
            per = wall / k
            ne = int(G.ecount[0])
            links = lifted_links(p.lift, G.eu[:ne], G.ev[:ne], G.es[:ne])
            A = csr_matrix((np.ones(2 * len(links)), (np.r_[links[:, 0], links[:, 1]], np.r_[links[:, 1], links[:, 0]])),
                           shape=(n, n))
            w1 = time.perf_counter()
            Dm = shortest_path(A, unweighted=True, directed=False)
            t_scipy = time.perf_counter() - w1
            assert Dm.sum() == W.res[3], "the kernel's distances are scipy's"
            t_nx = float("nan")
            if n <= 1024:
                H = nx.Graph(links.tolist())
                w1 = time.perf_counter()
                sum(sum(x.values()) for _, x in nx.all_pairs_shortest_path_length(H))
                t_nx = time.perf_counter() - w1
            # annealing moves per second (rejected moves stop their BFS early)
            moves = 200_000 if n <= 512 else 2_000
            r = run_restart(p, 0, moves=moves)
            rows.append([f"({n}, {d})", p.lift.g, round(k / wall), round(1e3 * per, 3), round(cpu / wall, 2),
                         round(t_scipy, 3), round(t_scipy / per), "-" if math.isnan(t_nx) else round(t_nx, 2),
                         "-" if math.isnan(t_nx) else round(t_nx / per), round(r.moves / r.cpu_seconds)])
            print(rows[-1], flush=True)
    return table(["(routers, degree)", "lift order g", "evaluations / s", "ms / evaluation", "CPU / wall",
                  "scipy APSP s", "scipy / kernel", "networkx APSP s", "networkx / kernel",
                  "annealing moves / CPU s"], rows) + (
        "\n\nOne core. An evaluation is a full all-pairs BFS (64 sources per machine word, from the routers of one "
        "fibre of the lift: 1/g of them) of a random regular graph; scipy's and networkx's all-pairs BFS of the same "
        "graph run once (their time over one evaluation's). The annealing's moves are cheaper than an evaluation "
        "when rejected: the BFS stops once its lower bound exceeds the acceptance threshold.")


def _random_regular_aspl(n: int, d: int, seeds=(1, 2, 3)) -> float:
    from scipy.sparse.csgraph import shortest_path

    out = []
    for s in seeds:
        A = nx.to_scipy_sparse_array(nx.random_regular_graph(d, n, seed=s), format="csr")
        out.append(shortest_path(A, unweighted=True, directed=False).sum() / (n * (n - 1)))
    return float(np.mean(out))


def _curve(history, marks=(1, 2, 5, 10, 30, 60, 120, 300, 600)) -> str:
    end = history[-1][0]
    pts = []
    for m in [m for m in marks if m < end] + [end]:
        best = [h for h in history if h[0] <= m]
        if best:
            label = f"{m} s" if m != end else f"last gain at {end:.0f} s"
            pts.append(f"{label}: {best[-1][3]:.4f}" + ("" if best[-1][2] == history[-1][2] else f" (d {best[-1][2]})"))
    return "; ".join(pts)


def order(jobs: int, pairs: list[tuple], workdir: Path, per_pair: float | None = None) -> str:
    from synth.search import search

    rows, curves = [], []
    for item in pairs:
        n, d, moves, kw = item
        tag = "-".join(f"{k}={getattr(v, 'spec', v)}" for k, v in sorted(kw.items())).replace(":", "_")
        out = search(n, d, moves=moves, restarts=jobs, jobs=jobs, seed=1, time_limit=per_pair,
                     checkpoint=workdir / f"order-{n}-{d}-{moves}-{per_pair}-{tag}", **kw)
        r = out.result
        # restarts run at once, one per core: the search's wall time is its slowest restart's (kept in the
        # checkpoints, so a resumed benchmark reports the time the search took, not the time to read it)
        wall = max(x.seconds for x in r.restarts)
        mb = moore_bound(n, d)
        rec = RECORDS.get((n, d))
        rr = _random_regular_aspl(n, d)
        best = r.restarts[r.best_restart]
        how = ", ".join(f"{k} {getattr(v, 'spec', v)}" for k, v in kw.items()) or "random start"
        rows.append([f"({n}, {d})", how, r.symmetry, f"{r.moves:,}", r.diameter, f"{r.aspl:.4f}",
                     "-" if rec is None else f"{rec[0]}, {rec[1]:.3f}",
                     "-" if rec is None else f"{100 * (r.aspl / rec[1] - 1):+.2f}%",
                     mb.diameter, f"{mb.aspl:.4f}", f"{100 * r.moore_gap:.2f}%", f"{rr:.4f}",
                     round(wall), round(r.cpu_seconds)])
        curves.append(f"- ({n}, {d}), {how}, restart {r.best_restart}: {_curve(best.history)}; random regular "
                      f"{rr:.4f}, Moore {mb.aspl:.4f}")
        print(rows[-1], flush=True)
    body = table(["(n, d)", "start", "lift g", "moves / restart (made)", "diameter", "ASPL", "record (d, ASPL)",
                  "ASPL vs record", "Moore d", "Moore ASPL", "gap to Moore", "random regular ASPL", "wall s",
                  "CPU s"], rows)
    return body + f"\n\n{jobs} restarts at once (seed 1; one per core), the best kept; wall s is the slowest " \
                  "restart's wall time, CPU s all restarts' together. Time to quality (the best restart's ASPL at " \
                  "each wall time):\n\n" + "\n".join(curves)


def lifts(jobs: int, workdir: Path) -> str:
    """ASPL at equal move budgets against the lift's base size (what symmetry=auto picks by)."""
    from synth.search import search

    rows = []
    for n, d, moves, bases in ((256, 8, 5_000_000, (8, 16, 32, 64, 256)), (1024, 8, 3_000_000, (16, 32, 64, 128)),
                               (1024, 32, 1_000_000, (16, 32, 64))):
        for m in bases:
            out = search(n, d, moves=moves, restarts=jobs, jobs=jobs, seed=1, symmetry=n // m,
                         checkpoint=workdir / f"lift-{n}-{d}-{moves}-{m}")
            r = out.result
            vals = sorted(x.sum_distances / (n * (n - 1)) for x in r.restarts)
            rows.append([f"({n}, {d})", f"{moves:,}", m, n // m, r.diameter, f"{vals[0]:.4f}",
                         f"{float(np.mean(vals)):.4f}", round(max(x.seconds for x in r.restarts))])
            print(rows[-1], flush=True)
    return table(["(n, d)", "moves / restart", "base routers m", "lift order g", "diameter", "best ASPL",
                  f"mean ASPL ({jobs} seeds)", "wall s"], rows) + (
        "\n\nEqual move budgets; a lift of at most 64 base routers costs the same per move (one machine word of "
        "sources), a plain graph (m = n) more. `symmetry=auto` takes the largest order g >= 4 leaving at "
        "least 16 base routers.")


def throughput(jobs: int, workdir: Path) -> tuple[str, dict]:
    import flows
    from flows.problem import Demands, FlowProblem
    from synth.search import search

    rows, graphs = [], {}
    for n, d, torus, moves in ((512, 6, "torus:8x8x8", 20_000_000), (1024, 4, "torus:32x32", 20_000_000)):
        base = cd.from_spec(torus)
        tb = flows.solve(FlowProblem.from_topology(base, Demands.uniform(n)), eps=0.0, topology=base)
        for objective in ("aspl", "throughput"):
            t0 = time.perf_counter()
            mv = moves if objective == "aspl" else moves // 50
            out = search(n, d, moves=mv, restarts=jobs, jobs=jobs, seed=1, objective=objective, capacity=True,
                         eps=0.01, checkpoint=workdir / f"tp-{n}-{d}-{objective}-{mv}")
            wall = time.perf_counter() - t0
            c = out.capacity
            graphs[(n, d, objective)] = out.result.topology
            rows.append([f"({n}, {d})", objective, f"{mv:,}", f"{out.result.aspl:.4f}", f"{c.lam:.5f}",
                         f"{c.upper_bound:.5f}", c.method, torus, f"{tb.lam:.5f}", f"{c.lam / tb.lam:.3f}",
                         f"{out.result.throughput_bound / tb.lam:.3f}", round(wall)])
            print(rows[-1], flush=True)
    body = table(["(n, d)", "objective", "moves / restart", "ASPL", "lambda (certified)", "upper bound", "method",
                  "torus", "torus lambda (exact)", "ratio", "bound ratio (links / distances)", "wall s"], rows)
    return body + ("\n\nUniform traffic: every router sends one unit in all, spread over the others; one unit per "
                   "link direction. The searched graphs' capacity by the exact LP over one fibre's sources (the "
                   "lift's shift symmetry); the tori's by their lattice symmetry. The throughput objective anneals "
                   "on the busiest link of an even shortest-path split (50 x fewer moves: each costs a BFS with "
                   "path counts per source)."), graphs


def simulate(graph) -> str:
    import sim

    rows, gain = [], {}
    for c in (1, 2):
        sat = {}
        for name, t in (("searched (512, 6)", graph), ("torus:8x8x8", cd.from_spec("torus:8x8x8"))):
            t = t.with_concentration(c) if c > 1 else t
            cfg = sim.preset("default")
            t0 = time.perf_counter()
            s = sim.saturation(t, cfg, "uniform", step=0.05, max_load=1.0, seed=1)
            wall = time.perf_counter() - t0
            sat[name] = s.saturation
            rows.append([name, c, cfg.vcs, sim.resolve_routing(t, cfg.routing), round(s.saturation, 4),
                         f"{sat[name] / sat['searched (512, 6)'] - 1:+.1%}" if name != "searched (512, 6)" else "",
                         round(wall)])
            print(rows[-1], flush=True)
        gain[c] = sat["searched (512, 6)"] / sat["torus:8x8x8"] - 1
    return table(["network", "PEs per router", "VCs per port", "routing", "saturation (phits/cycle/PE)",
                  "vs searched", "wall s"], rows) + (
        "\n\nThe simulator's `default` preset (virtual cut-through, 3 VCs per port), uniform traffic between PEs, "
        "highest accepted load of a sweep in steps of 0.05 (seed 1); the searched graph is the throughput "
        "objective's (above). With one PE per router both networks' capacity exceeds what a PE injects "
        "(1.64 and 1.00 per router: the 8x8x8 torus's equals the injection channel), so both run into the PEs' "
        "injection and ejection; with two PEs per router the networks are the limit (per PE: 0.82 and 0.50) and "
        f"the searched graph saturates {gain[2]:.0%} above the torus ({gain[1]:.0%} with one PE per router). "
        "Routings table, minimal and distance (3-6 VCs) saturate the searched graph within 1% of each other "
        "at one PE per router (toposynth simulate SPEC --saturation --routing R --vcs V).")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--parts", default="speed,order,pairs,lifts,throughput,sim")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--workdir", default="bench-search-work", help="checkpoints: a rerun resumes")
    ap.add_argument("--record", action="store_true")
    args = ap.parse_args()
    parts = set(args.parts.split(","))
    work = Path(args.workdir)
    work.mkdir(exist_ok=True)
    if "speed" in parts:
        body = speed()
        print(body)
        if args.record:
            record_subsection(SECTION, "Evaluation speed", body)
    if "order" in parts:
        af = cd.from_spec("affinepolar:q=32")
        body = order(args.jobs, [
            (256, 8, 60_000_000, {}),
            (1024, 8, 20_000_000, {}),
            (1024, 32, 200_000, {"start": af, "temperature": 0.01}),
            (1024, 32, 3_000_000, {}),
        ], work)
        body += ORDER_NOTE
        print(body)
        if args.record:
            record_subsection(SECTION, "The order/degree problem: Graph Golf's pairs", body)
    if "pairs" in parts:
        body = order(args.jobs, [(n, d, None, {}) for n, d in ((512, 8), (1024, 3), (1024, 11), (2048, 12),
                                                               (4096, 8), (4096, 16))], work, per_pair=120.0)
        print(body)
        if args.record:
            record_subsection(SECTION, "Other pairs, two minutes each", body)
    if "lifts" in parts:
        body = lifts(args.jobs, work)
        print(body)
        if args.record:
            record_subsection(SECTION, "Lifts: ASPL against the base size at equal moves", body)
    graphs = {}
    if "throughput" in parts or "sim" in parts:
        body, graphs = throughput(args.jobs, work)
        print(body)
        if args.record and "throughput" in parts:
            record_subsection(SECTION, "Uniform capacity against tori", body)
    if "sim" in parts:
        body = simulate(graphs[(512, 6, "throughput")])
        print(body)
        if args.record:
            record_subsection(SECTION, "Simulated saturation against the 8x8x8 torus", body)


if __name__ == "__main__":
    main()
