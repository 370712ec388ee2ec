"""A design-space exploration: which 64-PE network, at what cost?

Every candidate of a small pool realises the same machine, 64 processing elements (PEs): tori and twisted
tori of 64 routers, the 6-cube, a mesh, concentrated tori with 2 or 4 PEs per router, and a graph of 64
routers of degree 4 found by the search (``candidates.search_graph``). Each is ranked by

* its capacity under uniform traffic: the maximum concurrent flow lambda, the rate every PE can inject
  (phits per cycle, one phit per cycle per link direction), certified by the solver: the upper bound
  proves that no routing does better;
* its zero-load latency: the average hop distance between two PEs;
* its latency at a load: the minimum average latency of the uniform traffic offered at ``--load``
  phits/cycle per PE, with Kleinrock's queueing wait on every channel (``flows.QueueingModel``), in
  hop times, with its certified lower bound;

and the table names the Pareto set: the candidates no other one beats in capacity, latency and links all at
once. ``--plot FILE`` also draws capacity against latency (matplotlib's object-oriented API: no pyplot).

Run it from the repository's root::

    python examples/design_space.py
    python examples/design_space.py --load 0.4 --plot design-space.png

A few seconds once numba's kernels are compiled and cached (the first run of a machine compiles them).
"""

import argparse

import candidates as cd
import flows

#: the pool: every spec makes a machine of 64 PEs (":c=K" puts K PEs on every router)
POOL = [
    "torus:8x8",
    "twisted:8x8:t1=4",     # the 8x8 torus whose wraparound in dimension 1 shifts dimension 0 by 4
    "torus:16x4",
    "mesh:8x8",
    "hypercube:6",
    "rtt:a=4:c=2",          # the rectangular twisted torus 8x4, 2 PEs per router
    "torus:4x4:c=4",
]


def evaluate(topo, load, eps):
    """Capacity, zero-load latency and latency at ``load`` of one candidate, as a dict."""
    # uniform traffic: every PE sends one unit in all, spread over the PEs of the other routers
    problem = flows.FlowProblem.from_topology(topo, flows.Demands.uniform(topo.n, topo.terminals))
    capacity = flows.solve(problem, eps, topology=topo)
    latency = flows.solve(problem.scaled(load), eps, objective="latency", queueing=flows.QueueingModel(),
                          topology=topo)
    return {
        "spec": topo.spec,
        "routers": topo.n,
        "links": topo.num_links,
        "radix": int(topo.degree.max() + topo.terminals.max()),   # network ports plus PEs
        "lambda": capacity.lam,
        "bound": capacity.upper_bound,
        "method": capacity.extra["method"],
        "distance": cd.pe_distances(topo).average_distance,
        "latency": latency.average_latency,        # None when the load does not fit
        "latency_bound": latency.latency_bound,
    }


def dominates(a, b):
    """``a`` is at least as good as ``b`` in capacity, latency and links, and better in one (capacity and
    latency compared to the digits printed: closer figures are ties within the solvers' tolerance)."""
    def figures(r):
        latency = round(r["latency"], 3) if r["latency"] is not None else float("inf")
        return -round(r["lambda"], 4), latency, r["links"]      # smaller is better in each

    fa, fb = figures(a), figures(b)
    return all(x <= y for x, y in zip(fa, fb)) and fa != fb


def pareto(rows):
    return [r for r in rows if not any(dominates(o, r) for o in rows)]


def plot(rows, front, path):
    """Capacity against latency, each point labelled with its links, the Pareto set in red
    (matplotlib's object-oriented API: a Figure of its own, pyplot's state untouched)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    rows = [r for r in rows if r["latency"] is not None]
    fig = Figure(figsize=(6.4, 4.2), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.scatter([r["latency"] for r in rows], [r["lambda"] for r in rows],
               c=["tab:red" if r in front else "tab:gray" for r in rows], zorder=2)
    for i, r in enumerate(rows):
        name = "searched" if r["spec"].startswith("search:") else r["spec"]
        # a label under the point where the one before has the same capacity (they would overlap)
        below = i > 0 and round(rows[i - 1]["lambda"], 2) == round(r["lambda"], 2)
        ax.annotate(f"{name} ({r['links']} links)", (r["latency"], r["lambda"]), textcoords="offset points",
                    xytext=(6, -12 if below else 4), fontsize=8)
    ax.set_xlabel("latency at the load (hop times, queueing)")
    ax.set_ylabel("capacity lambda (phits/cycle/PE)")
    ax.set_title("64 PEs under uniform traffic (red: the Pareto set)")
    ax.margins(x=0.25, y=0.1)
    ax.grid(alpha=0.3)
    fig.savefig(path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--load", type=float, default=0.3,
                    help="offered load of the latency column, phits/cycle per PE (default 0.3)")
    ap.add_argument("--eps", type=float, default=0.01, help="certified relative gap of the solvers (default 0.01)")
    ap.add_argument("--moves", type=int, default=20000,
                    help="moves of the graph search (default 20000; 0 leaves the searched graph out)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the graph search (default 1)")
    ap.add_argument("--plot", metavar="FILE", help="also draw capacity against latency into FILE (.png, .svg, .pdf)")
    args = ap.parse_args(argv)

    pool = [cd.from_spec(spec) for spec in POOL]
    if args.moves > 0:
        # the best graph of 64 routers of degree 4 (the torus's ports) the search finds by shortening
        # the average distance; its spec rebuilds it: cd.from_spec("search:n=64:d=4:moves=...:seed=...")
        found = cd.search_graph(64, 4, seed=args.seed, moves=args.moves)
        pool.append(found.topology)
    assert all(topo.pes == 64 for topo in pool)

    rows = [evaluate(topo, args.load, args.eps) for topo in pool]
    # by capacity (to the 4 digits printed), then by latency
    rows.sort(key=lambda r: (-round(r["lambda"], 4), r["latency"] if r["latency"] is not None else float("inf")))
    front = pareto(rows)

    print(f"64 PEs, uniform traffic; capacity certified to {args.eps:g}; latency at {args.load:g} phits/cycle/PE")
    print(f"{'candidate':<38} {'links':>5} {'radix':>5} {'lambda':>7} {'<= bound':>8}  {'solver':<20}"
          f" {'hops':>5} {'latency':>7} {'>= bound':>8}  Pareto")
    for r in rows:
        if r["latency"] is None:
            lat = f"{'over capacity':>17}"
        else:
            lat = f"{r['latency']:7.3f} {r['latency_bound']:8.3f}"
        line = (f"{r['spec']:<38} {r['links']:5d} {r['radix']:5d} {r['lambda']:7.4f} {r['bound']:8.4f}"
                f"  {r['method']:<20} {r['distance']:5.3f} {lat}  {'*' if r in front else ''}")
        print(line.rstrip())
    print("Pareto set (capacity, latency, links):", ", ".join(r["spec"] for r in front))
    if args.plot:
        plot(rows, front, args.plot)
        print(f"figure: {args.plot}")


if __name__ == "__main__":
    main()
