"""The closed-form claims of 'twisted-tori-tpds2010' about RTT(a), checked by graph computations.

    python benchmarks/repro_tpds2010_analytic.py [--quick] [--record] [--ilp-limit SECONDS]

Two parts, both on the rectangular twisted torus RTT(a) (``candidates.rtt``: 2a x a routers, the vertical
wraparound links shifted by a), recorded as one section of the results book
(docs/results/twisted-tori-tpds2010.md):

* **Distance distribution** (section 3.3, Proposition 6): the number of routers at each distance d from a
  router, by networkx's BFS from every router (the RTT is vertex-transitive, so every router must give the
  same histogram), against the paper's 4d for 0 < d < a; the rest (2a - 1 routers at distance a) follows
  from the 2a^2 routers.
* **The cut and the traffic that crosses it twice** (section 5.2): the paper's cut separates columns
  0..a-1 from a..2a-1 (4a links); its minimum bisection is found exactly by an integer program (HiGHS: a
  0/1 side per router, half the routers on each side, one cut variable per link) where that finishes within
  ``--ilp-limit`` seconds, beside RT(a)'s (the paper: 2a, half the RTT's). Under uniform traffic (one packet
  from every router to every other) with minimal routing, the ordered pairs internal to one half whose
  route leaves the half and re-enters it are counted two ways: (i) every shortest path of a pair weighted
  equally (networkx's BFS and a count of the shortest paths that stay inside), (ii) the project's routing
  records (``candidates.analytics.records``: the first minimal record, and all minimal records with ties
  split evenly); each against the paper's 2a^4/3. The channels' loads across the cut (every shortest path
  of a pair weighted equally: Brandes' accumulation over networkx's BFS) give the share of the cut's traffic
  that goes between the halves, against the paper's "3a of the 4a links".
"""

from __future__ import annotations

import argparse
import time

import networkx as nx
import numpy as np

import candidates as cd
from candidates.analytics.records import record_ties
from candidates.generators.lattice import reduce_to_box

from _record import commit, record, table

SECTION = "Reproduction: twisted-tori-tpds2010, distance distribution and the RTT's bisection (sections 3.3, 5.2)"
#: the sizes of the distance histograms and of the crossing counts (a = 2 has parallel links: left out)
SIZES = (3, 4, 5, 6, 8, 12, 16)
QUICK_SIZES = (3, 4, 6, 8)
#: the sizes whose minimum bisection the integer program tries (the largest may stop at the time limit)
ILP_SIZES = (4, 6, 8)
QUICK_ILP_SIZES = (4,)


def graph(t: cd.Topology) -> nx.Graph:
    """The routers and links of ``t`` as a networkx graph (simple: checked)."""
    G = nx.Graph()
    G.add_nodes_from(range(t.n))
    G.add_edges_from(t.links.tolist())
    if G.number_of_edges() != t.num_links:
        raise ValueError(f"{t.spec} has parallel links; the counts below assume a simple graph")
    return G


def distance_histogram(t: cd.Topology) -> np.ndarray:
    """Routers at each distance from a router, by networkx BFS from every router; raises unless every
    router sees the same histogram (vertex transitivity), so one row stands for all."""
    G = graph(t)
    rows = []
    for s in range(t.n):
        d = np.fromiter(nx.single_source_shortest_path_length(G, s).values(), dtype=np.int64)
        rows.append(np.bincount(d))
    width = max(len(r) for r in rows)
    H = np.array([np.pad(r, (0, width - len(r))) for r in rows])
    if not (H == H[0]).all():
        raise AssertionError(f"{t.spec}: the routers' distance histograms differ")
    return H[0]


def paper_histogram(a: int) -> np.ndarray:
    """Proposition 6: 1 router at distance 0, 4d at 0 < d < a, and the remaining 2a - 1 at distance a."""
    h = np.array([1] + [4 * d for d in range(1, a)] + [0])
    h[a] = 2 * a * a - h.sum()
    return h


def halves(t: cd.Topology) -> np.ndarray:
    """The paper's cut of RT(a) and RTT(a): True for columns 0..a-1 (the left half), False for a..2a-1."""
    return t.coords[:, 0] < t.params["a"]


def cut_width(t: cd.Topology, side: np.ndarray) -> int:
    """Links with one end on each side."""
    return int(np.count_nonzero(side[t.links[:, 0]] != side[t.links[:, 1]]))


def min_bisection_ilp(t: cd.Topology, time_limit: float) -> dict:
    """Exact minimum bisection by an integer program (HiGHS): x_v in {0, 1} with sum x = n/2, router 0 on
    side 1 (the families here are vertex-transitive), y_e >= |x_u - x_v| per link, minimise sum y.

    Returns the best cut found, HiGHS's proven lower bound, whether it is optimal, and the CPU seconds."""
    import highspy

    n = t.n
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", float(time_limit))
    h.setOptionValue("threads", 1)
    x = [h.addBinary() for _ in range(n)]
    y = [h.addVariable(lb=0) for _ in range(t.num_links)]
    for k, (u, v) in enumerate(t.links.tolist()):
        h.addConstr(y[k] - x[u] + x[v] >= 0)
        h.addConstr(y[k] - x[v] + x[u] >= 0)
    h.addConstr(sum(x) == n // 2)
    h.addConstr(x[0] == 1)
    t0 = time.process_time()
    h.minimize(sum(y))
    seconds = time.process_time() - t0          # CPU seconds: one thread, whatever else shares the machine
    info = h.getInfo()
    status = h.modelStatusToString(h.getModelStatus())
    side = np.array(h.getSolution().col_value[:n]) > 0.5
    best = cut_width(t, side) if side.sum() == n // 2 else None
    return {"best": best, "bound": float(info.mip_dual_bound), "optimal": status == "Optimal",
            "status": status, "seconds": seconds}


def crossing_pairs_paths(t: cd.Topology, side: np.ndarray) -> tuple[float, int]:
    """Ordered pairs (s, d), both on side True, s != d, weighted by the share of their shortest paths that
    leave the side (networkx BFS; each path counted once); and how many pairs have some but not all of
    their shortest paths leaving."""
    G = graph(t)
    total, mixed = 0.0, 0
    for s in np.flatnonzero(side).tolist():
        dist = nx.single_source_shortest_path_length(G, s)
        every = np.zeros(t.n)            # shortest paths from s
        inside = np.zeros(t.n)           # ... that stay on the side
        every[s] = inside[s] = 1.0
        for w in sorted(dist, key=dist.get)[1:]:
            for p in G[w]:
                if dist[p] == dist[w] - 1:
                    every[w] += every[p]
                    inside[w] += inside[p] if side[w] else 0.0
        d = np.flatnonzero(side)
        d = d[d != s]
        share = 1.0 - inside[d] / every[d]
        total += float(share.sum())
        mixed += int(np.count_nonzero((share > 0) & (share < 1)))
    return total, mixed


def crossing_pairs_records(t: cd.Topology, side: np.ndarray, reach: int = 2) -> tuple[int, float]:
    """Ordered pairs internal to side True whose routing record leaves it: with the first minimal record
    (ties = first), and with the ties split evenly over all minimal records (``record_ties(reach)``).

    A record is a staircase from the source to one image of the destination in the plane the RTT tiles;
    the halves are a checkerboard of a x a squares there (the lattice (2a, 0), (a, a)), so the route
    leaves the half exactly when that image lies in another square than the source (then it crosses the
    cut twice: through one square of the other half and back)."""
    a = t.params["a"]
    X = t.coords
    recs, count = record_ties(t, reach)
    L = np.flatnonzero(side)
    S, D = np.repeat(L, len(L)), np.tile(L, len(L))
    keep = S != D
    S, D = S[keep], D[keep]
    box = reduce_to_box(X[D] - X[S], t.shape, t.lattice)
    v = np.ravel_multi_index(tuple(box.T), t.shape)    # the displacement class: its router seen from router 0
    first, even = 0, np.zeros(len(S))
    for k in range(recs.shape[0]):
        end = X[S] + recs[k, v]
        leaves = ((end // a) != (X[S] // a)).any(axis=1)
        if k == 0:
            first = int(np.count_nonzero(leaves))
        even += np.where(count[v] > k, leaves, False) / count[v]
    return first, float(even.sum())


def arc_loads(G: nx.Graph, sources, targets) -> dict[tuple[int, int], float]:
    """Load of every channel (arc u -> v) when each source sends one packet to each target (itself excepted),
    every shortest path of a pair weighted equally: Brandes' accumulation over networkx BFS distances.

    (networkx's ``edge_betweenness_centrality_subset`` splits a node's dependency evenly over its
    predecessors rather than by their path counts, so it is not used here.)"""
    targets = set(int(x) for x in targets)
    load: dict[tuple[int, int], float] = {}
    for s in (int(x) for x in sources):
        dist = nx.single_source_shortest_path_length(G, s)
        order = sorted(dist, key=dist.get)
        sigma = dict.fromkeys(order, 0.0)
        sigma[s] = 1.0
        pred: dict[int, list[int]] = {w: [] for w in order}
        for w in order[1:]:
            pred[w] = [v for v in G[w] if dist[v] == dist[w] - 1]
            sigma[w] = sum(sigma[v] for v in pred[w])
        delta = dict.fromkeys(order, 0.0)
        for w in reversed(order[1:]):
            own = 1.0 if w in targets else 0.0
            for v in pred[w]:
                c = sigma[v] / sigma[w] * (own + delta[w])
                load[(v, w)] = load.get((v, w), 0.0) + c
                delta[v] += c
    return load


def cut_loads(t: cd.Topology, side: np.ndarray) -> dict:
    """Loads of the cut's channels from side True to side False under uniform traffic (one packet per ordered
    pair), every shortest path of a pair weighted equally (:func:`arc_loads`): the traffic between the halves,
    the traffic internal to either half that crosses, and the total (all pairs)."""
    G = graph(t)
    A, B = np.flatnonzero(side), np.flatnonzero(~side)
    between = arc_loads(G, A, B)
    inner_a, inner_b, back = arc_loads(G, A, A), arc_loads(G, B, B), arc_loads(G, B, A)
    arcs = [(u, v) for u, v in G.to_directed().edges() if side[u] and not side[v]]
    btw = np.array([between.get(e, 0.0) for e in arcs])
    inner = np.array([inner_a.get(e, 0.0) + inner_b.get(e, 0.0) for e in arcs])
    other = np.array([back.get(e, 0.0) for e in arcs])      # right-to-left pairs on left-to-right channels
    return {"channels": len(arcs), "between": float(btw.sum()), "internal": float(inner.sum()),
            "back": float(other.sum()), "between_min": float(btw.min()), "between_max": float(btw.max()),
            "total_min": float((btw + inner + other).min()), "total_max": float((btw + inner + other).max())}


def flow_bound(a: int) -> float:
    """A lower bound on the bisection width of RTT(a): uniform traffic over every shortest path loads each of
    its channels with a(4a^2 - 1)/12 (edge symmetry: the total distance spread evenly), and the a^4 ordered
    pairs from either half to the other must cross any bisection, so it has at least
    a^4 / (a(4a^2 - 1)/12) = 12a^3/(4a^2 - 1) channels each way."""
    return 12 * a ** 3 / (4 * a * a - 1)


def closed_form_crossing(a: int) -> int:
    """The count measured here for one half, in closed form: a^2 (a^2 - 1) / 6 ordered pairs."""
    return a * a * (a * a - 1) // 6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a <= 8 and the integer program at a = 4 only")
    ap.add_argument("--record", action="store_true", help="write the section of the results book")
    ap.add_argument("--ilp-limit", type=float, default=300.0, metavar="SECONDS",
                    help="time limit of each minimum-bisection integer program (default 300)")
    args = ap.parse_args()
    sizes = QUICK_SIZES if args.quick else SIZES
    ilp_sizes = QUICK_ILP_SIZES if args.quick else ILP_SIZES
    out: list[str] = []
    t_start = time.perf_counter()

    # --- Proposition 6
    rows = []
    for a in sizes:
        h = distance_histogram(cd.rtt(a))
        p = paper_histogram(a)
        ok = len(h) == len(p) and bool((h == p).all())
        rows.append([a, 2 * a * a, " ".join(map(str, h.tolist())), "yes" if ok else "**no**",
                     f"{h @ np.arange(len(h)) / h.sum():.4f}", f"{2 * a / 3:.4f}"])
        print(f"RTT({a}): {h.tolist()} {'=' if ok else '!='} {p.tolist()}", flush=True)
    out.append(
        "Distance distribution (Proposition 6: 1 router at distance 0, 4d at each 0 < d < a; the 2a - 1 "
        "left over at distance a). Routers at distance 0, 1, ..., a from a router, BFS (networkx) from every "
        "router of RTT(a); every router gives the same row. Average over the N routers, self included, beside "
        "the paper's 2a/3 (Corollary 7; exactly 2a/3 - 1/(6a)).\n\n"
        + table(["a", "routers", "routers at distance 0, 1, ..., a", "= 1, 4d, 2a - 1", "average", "2a/3"], rows))

    # --- section 5.2: the cut
    rows = []
    for fam in ("rt", "rtt"):
        for a in ilp_sizes:
            t = cd.from_spec(f"{fam}:a={a}")
            natural = cut_width(t, halves(t))
            r = min_bisection_ilp(t, args.ilp_limit)
            fb = int(np.ceil(flow_bound(a) - 1e-9)) if fam == "rtt" else None
            if r["optimal"]:
                exact = f"{r['best']}"
            else:
                low = int(np.ceil(r["bound"] - 1e-6))
                exact = (f"between {max(low, fb or 0)} and {r['best']} (time limit; the program's bound {low}"
                         + (f", the flow bound {fb})" if fb else ")"))
            rows.append([t.spec, t.n, natural, f"{(2 if fam == 'rt' else 4) * a}", fb if fb else "-", exact,
                         f"{r['seconds']:.0f}"])
            print(f"{t.spec}: natural cut {natural}, ILP {r}", flush=True)
    out.append(
        f"Minimum bisection (the paper: RT(a) 2a links, RTT(a) 4a, 'again a minimal cut'). 'cut 0..a-1 | "
        f"a..2a-1': the links across the paper's cut; 'minimum bisection': the integer program (HiGHS, one "
        f"thread, {args.ilp_limit:.0f} s limit per size, its CPU seconds); where it stops at the limit, the best "
        f"lower bound known and the best cut it found. 'flow bound': the RTT's a^4 ordered pairs from either "
        f"half to the other cross any bisection, and uniform traffic over every shortest path loads each "
        f"channel with a(4a^2 - 1)/12, so a bisection has at least 12a^3/(4a^2 - 1) (about 3a) links, "
        f"rounded up.\n\n"
        + table(["network", "routers", "cut 0..a-1 \\| a..2a-1", "paper", "flow bound", "minimum bisection",
                 "CPU s"], rows))

    rows = []
    for a in sizes:
        t = cd.rtt(a)
        side = halves(t)
        paths, mixed = crossing_pairs_paths(t, side)
        first, even = crossing_pairs_records(t, side)
        loads = cut_loads(t, side)
        if loads["back"] > 1e-9:
            raise AssertionError(f"RTT({a}): right-to-left pairs load the left-to-right channels ({loads['back']})")
        share = loads["between"] / (loads["between"] + loads["internal"])
        rows.append([a, cut_width(t, side), f"{paths:.0f}", mixed, first, f"{even:.0f}",
                     closed_form_crossing(a), f"{a ** 4 / 6:.0f}", f"{2 * a ** 4 / 3:.0f}",
                     f"{2 * paths:.0f}", f"{loads['between']:.0f}", f"{loads['internal']:.0f}",
                     f"{share:.4f}", f"{4 * a * share:.2f}", f"{3 * a}",
                     f"{loads['between_min']:.1f}-{loads['between_max']:.1f}",
                     f"{loads['total_min']:.1f}-{loads['total_max']:.1f}", f"{a * (4 * a * a - 1) / 12:.1f}"])
        print(f"RTT({a}): crossing pairs per half {paths} (mixed {mixed}), records {first} / {even}; "
              f"loads {loads}", flush=True)
    out.append(
        "Uniform traffic, one packet from every router to every other, across the paper's cut of RTT(a) "
        "(columns 0..a-1 | a..2a-1, 4a links). 'pairs leaving a half': ordered pairs (s, d) inside one half "
        "whose minimal route leaves the half and re-enters it, weighted by the share of their shortest paths "
        "that do ('paths', networkx BFS; 'mixed': pairs with some shortest paths inside and some outside) and "
        "by the project's routing records ('first record': ties = first; 'records, ties even': every minimal "
        "record equally). 'crossings': the cut crossings of both halves' internal packets (two each). "
        "Channel loads (every shortest path equally; Brandes' accumulation over networkx BFS) on the 4a "
        "channels from the left half to the right: the traffic between the halves (a^4 packets, one "
        "crossing each), the internal traffic that crosses, the share of the cut's load that is between the "
        "halves, and 'links used between halves' = 4a x that share (the paper: 3a); per channel the "
        "traffic between the halves and the whole load (all pairs; a(4a^2 - 1)/12 on every channel of the "
        "edge-symmetric RTT). No right-to-left pair uses a left-to-right channel.\n\n"
        + table(["a", "cut", "pairs leaving a half (paths)", "mixed", "first record", "records, ties even",
                 "a^2(a^2-1)/6", "a^4/6", "2a^4/3", "crossings (both halves)", "between (left to right)",
                 "internal crossing (left to right)", "share between", "links used between halves", "3a",
                 "between per channel", "load per channel", "a(4a^2-1)/12"], rows))
    out.append(
        f"Commit {commit()}; {time.perf_counter() - t_start:.0f} s.")
    body = "\n\n".join(out)
    print(body)
    if args.record:
        record(SECTION + (" (quick)" if args.quick else ""), body)


if __name__ == "__main__":
    main()
