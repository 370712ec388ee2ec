"""A study's results outside toposynth: GraphML into networkx, CSV into pandas, JSON into Python.

The script writes a small study file (five 16-PE networks and the 4-cube, which is the 4x4 torus again and
is left out as the same network), runs it with ``synth.run`` -- the same as ``toposynth run study.toml
--out DIR`` -- and reads back what the run wrote into ``DIR``:

* ``results.csv``, one row per candidate, with pandas: the rows in rank order are the run's ranking, and
  their ``lambda`` / ``upper_bound`` columns are the certified capacities of its records;
* ``results.json`` with the standard library: the same ranking, and the exact LP's cross-check of the
  winner;
* ``winners/*.graphml`` with networkx: each graph has the nodes and links of the topology its spec builds
  (``candidates.from_spec(spec).to_networkx()``);
* and a topology written by ``candidates.write_topology`` in toposynth's JSON format and as an edge list,
  read back by ``candidates.read_topology``: the same links.

Every check prints one line; the script exits with status 1 if one fails. The run's folder is a temporary
one unless ``--out DIR`` keeps it.

Run it from the repository's root::

    python examples/export_and_load.py
    python examples/export_and_load.py --out runs/export      # keep the files

A few seconds once numba's kernels are compiled and cached.
"""

import argparse
import json
import tempfile
from pathlib import Path

import networkx as nx
import pandas as pd

import candidates as cd
import synth

STUDY = """\
name = "export"
seed = 1

[candidates]
specs = ["torus:4x4", "mesh:4x4", "twisted:4x4:t1=2", "hypercube:4", "torus:8x2", "ring:16"]

[traffic]
pattern = "uniform"

[ranking]
objective = "capacity"
eps = 0.02

[cross_check]
top = 1

[simulation]
top = 0
"""

failures = []


def check(what, ok):
    print(f"  {'ok' if ok else 'FAILED'}: {what}")
    if not ok:
        failures.append(what)


def edge_set(graph):
    """The links of a networkx graph as sorted (u, v) pairs of ints, parallel links counted."""
    return sorted(tuple(sorted((int(u), int(v)))) for u, v in graph.edges())


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", metavar="DIR", help="the run's folder, kept (default: a temporary folder)")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.out) if args.out else Path(tmp) / "run"
        study_file = Path(tmp) / "study.toml"
        study_file.write_text(STUDY)
        result = synth.run(synth.load_study(study_file), out)

        print("written:", ", ".join(sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())))
        print("left out as the same network:", result.same_network)

        # results.csv: one row per candidate; the ranked ones have a rank
        table = pd.read_csv(out / "results.csv")
        ranked = table.dropna(subset=["rank"]).sort_values("rank")
        print("\nresults.csv in pandas (capacity lambda in phits/cycle/PE, certified <= upper_bound):")
        print(ranked[["rank", "spec", "cost_links", "lambda", "upper_bound", "gap"]].to_string(
            index=False, float_format=lambda x: f"{x:.4f}"))
        check("the CSV's rows in rank order are the run's ranking", list(ranked["spec"]) == result.ranking)
        lams = {r.spec: (r.capacity.lam, r.capacity.upper_bound) for r in result.records if r.capacity}
        check("their lambda and upper_bound are the records' certified capacities",
              all((row.lam, row.upper_bound) == lams[row.spec]
                  for row in ranked.rename(columns={"lambda": "lam"}).itertuples()))

        # results.json: the whole result
        doc = json.loads((out / "results.json").read_text())
        print("\nresults.json:")
        check("its ranking is the run's", doc["ranking"] == result.ranking)
        lp = doc["cross_check"][0]
        print(f"  exact LP of the winner {lp['spec']}: lambda {lp['lp_lambda']:.4f} "
              f"(the PTAS's {lp['ptas_lambda']:.4f} <= lambda <= {lp['ptas_upper_bound']:.4f})")
        slack = 1e-6 * lp["lp_lambda"]     # the LP solver's own tolerance
        inside = lp["ptas_lambda"] - slack <= lp["lp_lambda"] <= lp["ptas_upper_bound"] + slack
        check("the LP optimum lies in the PTAS's certified interval", inside)

        # winners/*.graphml: networkx reads them (node ids come back as strings: "0", "1", ...)
        print("\nwinners/*.graphml in networkx:")
        for path in sorted((out / "winners").glob("*.graphml")):
            graph = nx.read_graphml(path)
            spec = graph.graph["spec"]
            expected = cd.from_spec(spec).to_networkx()
            print(f"  {path.name}: {spec}, {graph.number_of_nodes()} nodes, {graph.number_of_edges()} links")
            check(f"{spec}: the same nodes and links as candidates.from_spec({spec!r})",
                  sorted(int(v) for v in graph.nodes) == sorted(expected.nodes)
                  and edge_set(graph) == edge_set(expected))

        # candidates' own I/O: toposynth JSON and an edge list, read back
        winner = cd.from_spec(result.ranking[0])
        print(f"\n{winner.spec} written and read back by candidates:")
        for name in ("winner.json", "winner.edges"):
            cd.write_topology(winner, Path(tmp) / name)
            back = cd.read_topology(Path(tmp) / name)
            check(f"{name}: {back.n} routers, {back.num_links} links, the same links",
                  back.n == winner.n and edge_set(back.to_networkx()) == edge_set(winner.to_networkx()))

    print("\nall checks passed" if not failures else f"\n{len(failures)} check(s) FAILED")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
