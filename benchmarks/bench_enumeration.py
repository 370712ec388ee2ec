"""Time graph enumeration and linear placements.

    python benchmarks/bench_enumeration.py [--quick] [--record]

Enumeration: every graph of n vertices and maximum degree d up to
isomorphism, streamed as graph6 (``candidates.enumeration.graphs.iter_graph6``),
up to n = 10, d = 3 (n = 11, 12 and cubic n = 14, 16 without ``--quick``).
Targets: n = 10, d = 3 connected well under a minute (aim: seconds); n = 12,
d = 3 practical. Linear placements: all distinct placements of the 192
8-node graphs of 'topology-synthesis-mcf-bgl'.
"""

from __future__ import annotations

import argparse
import time

from candidates.enumeration.graphs import iter_graph6, iter_graphs
from candidates.enumeration.linear import count_linear_placements, linear_placements

from _record import record, table


def timed(fn, *args, **kwargs):
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0


def consume(n: int, d: int, **options) -> int:
    return sum(1 for _ in iter_graph6(n, d, **options))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--record", action="store_true", help="write the tables into the results book (docs/results/candidates.md)")
    args = ap.parse_args()
    # compile (or load) the numba kernels outside the timings
    warm = next(iter_graphs(4, 3))
    consume(6, 3), count_linear_placements(warm), linear_placements(warm)

    cases: list[tuple[str, int, int, dict]] = []
    cases += [("connected", n, 3, {}) for n in range(6, 11)]
    cases += [("connected, max degree exactly 3", 8, 3, {"exact_max_degree": True})]
    cases += [("connected cubic", n, 3, {"regular": True}) for n in (8, 10, 12)]
    cases += [("any (disconnected too)", n, 3, {"connected": False}) for n in (8, 9, 10)]
    cases += [("connected", n, 4, {}) for n in (6, 7, 8)]
    if not args.quick:
        cases += [("connected", n, 3, {}) for n in (11, 12)]
        cases += [("connected cubic", n, 3, {"regular": True}) for n in (14, 16)]
        cases += [("connected", 9, 4, {}), ("any (disconnected too)", 11, 3, {"connected": False})]
    rows = []
    for label, n, d, options in cases:
        count, secs = timed(consume, n, d, **options)
        rows.append([label, n, d, count, round(secs, 3), int(count / secs) if secs > 0 else "-"])
        print(rows[-1], flush=True)
    enum_table = table(["graphs", "n", "max degree", "count", "seconds", "graphs/s"], rows)

    graphs, t_graphs = timed(lambda: list(iter_graphs(8, 3, exact_max_degree=True)))
    counts, t_count = timed(lambda: [count_linear_placements(g) for g in graphs])
    lists, t_list = timed(lambda: [linear_placements(g) for g in graphs])
    assert sum(counts) == sum(len(x) for x in lists)
    total = sum(counts)
    del lists
    lin_rows = [
        ["enumerate the 192 graphs (Topology objects)", len(graphs), round(t_graphs, 3)],
        ["count_linear_placements of each", total, round(t_count, 3)],
        ["linear_placements of each (LinearPlacement objects)", total, round(t_list, 3)],
    ]
    lin_table = table(["8-node graphs, max degree exactly 3", "items", "seconds"], lin_rows)
    print()
    print(enum_table)
    print()
    print(lin_table)
    if args.record:
        record("Enumeration and linear placements (candidates)", enum_table + "\n\n" + lin_table)


if __name__ == "__main__":
    main()
