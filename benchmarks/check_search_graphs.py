"""Independent check of graphs the search wrote: every file's diameter and
average distance by scipy's breadth-first search against what the search
recorded in it (its provenance), and the placed ones' links against their
length limit.

    python benchmarks/check_search_graphs.py [--record] GRAPH ...
"""

from __future__ import annotations

import argparse
from pathlib import Path

import networkx as nx
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path

import candidates as cd
from _record import record_subsection, table

SECTION = "Synthesis by search (candidates.search)"


def check(path: str) -> list[object]:
    t = cd.read_topology(path)
    n = t.n
    A = sp.coo_matrix((np.ones(2 * t.num_links), (np.r_[t.links[:, 0], t.links[:, 1]],
                                                   np.r_[t.links[:, 1], t.links[:, 0]])), shape=(n, n)).tocsr()
    D = shortest_path(A, unweighted=True, directed=False)
    aspl = float(D[~np.eye(n, dtype=bool)].mean())
    diam = int(D.max())
    prov = nx.read_graphml(path).graph          # the provenance the search wrote as graph attributes
    rec_aspl, rec_diam = float(prov.get("aspl", np.nan)), int(prov.get("diameter", -1))
    return [Path(path).name, n, t.num_links, diam, rec_diam, f"{aspl:.6f}", f"{rec_aspl:.6f}",
            "yes" if diam == rec_diam and abs(aspl - rec_aspl) < 1e-9 else "NO"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("graphs", nargs="+")
    ap.add_argument("--record", action="store_true")
    args = ap.parse_args()
    body = table(["graph", "routers", "links", "diameter (scipy)", "diameter (recorded)", "ASPL (scipy)",
                  "ASPL (recorded)", "agree"], [check(g) for g in args.graphs]) + (
        "\n\nEach graph file read back and measured by scipy's unweighted all-pairs shortest paths, against the "
        "diameter and ASPL the search wrote into its provenance.")
    print(body)
    if args.record:
        record_subsection(SECTION, "Independent check of written graphs", body)


if __name__ == "__main__":
    main()
