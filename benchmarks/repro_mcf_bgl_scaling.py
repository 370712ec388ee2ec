"""Capacity x demand count on the Blue Gene/L midplane ('topology-synthesis-mcf-bgl', Table I): one network,
many demand counts.

    python benchmarks/repro_mcf_bgl_scaling.py [--quick] [--record]

The paper's Table I gives the capacity (the largest multiple of the demand set the network carries) of the
8x8x8 torus and of its optimal design at T = 2048, 3072 and 4096 random demands. For one network, demands drawn
from one distribution (here the study's 'local' draw: 40% inside a compute card, 50% inside a node card, 10%
across) load each channel in proportion to T, so the capacity goes as 1/T and capacity x T stays constant up
to the sampling noise of the busiest channel. This script measures that product for the uniform-wired torus
(the paper's baseline; bgl-midplane study, its packaging and wiring) at T = 1024 to 6144 over three demand
seeds, and for the Table I winner of the book (a composition with flexible wiring), and sets it beside the
products of the paper's own Table I. The flow solver is the study's (``synth.evaluate``: the PTAS's certified
capacity, latency at one scale).

Records a part of the section "Reproduction: topology-synthesis-mcf-bgl" of the results book
(docs/results/topology-synthesis-mcf-bgl.md).
"""

from __future__ import annotations

import argparse
import copy
import time

import numpy as np

from _record import commit, record_subsection, table

from synth.evaluate import evaluate
from synth.study import BUILTIN_STUDIES, study_from_dict

SECTION = "Reproduction: topology-synthesis-mcf-bgl"
TITLE = "Capacity x demand count: one network across Table I's T"
TORUS = "torus:8x8x8"
#: the Table I winner by capacity in the book (g6:Gr`GpK, columns C4, upper K4 x K4; flexible wiring)
BEST = "bgl:g6:Gr`GpK*ring:4*complete:4*complete:4"
#: the paper's Table I capacities: T -> (optimal topology, 3D torus)
PAPER = {2048: (2.0, 1.1), 3072: (1.3, 0.7), 4096: (0.8, 0.3)}
COUNTS = (1024, 2048, 3072, 4096, 6144)
SEEDS = (1, 2, 3)
QUICK_COUNTS = (2048, 4096)
QUICK_SEEDS = (1,)


def study(spec: str, count: int, seed: int):
    """The bgl-midplane study reduced to one candidate, ``count`` demands drawn with ``seed``, one latency
    scale (the capacity does not depend on it)."""
    d = copy.deepcopy(BUILTIN_STUDIES["bgl-midplane"])
    d["candidates"] = {"specs": [spec]}
    d["traffic"]["count"] = count
    d["traffic"]["scales"] = [0.5]
    d["seed"] = seed
    d["ranking"]["prune"] = False
    return study_from_dict(d)


def capacity(spec: str, count: int, seed: int) -> dict:
    """Capacity (lambda, the certified lower end, and its upper bound) and wiring of ``spec`` at ``count``
    demands drawn with ``seed``."""
    r = evaluate(spec, study(spec, count, seed)).to_dict()
    if r["status"] != "ok":
        raise RuntimeError(f"{spec} at T = {count}, seed {seed}: {r['status']}")
    cap = r["capacity"]
    return {"lambda": cap["lambda"], "upper": cap["upper_bound"], "wiring": r["wiring"]}


def products(caps: dict[int, float]) -> dict[int, float]:
    """capacity x T for each demand count T of ``caps`` (T -> capacity)."""
    return {T: c * T for T, c in caps.items()}


def spread(values) -> float:
    """(largest - smallest) / smallest: how far a product that should be constant moves."""
    v = np.asarray(list(values), dtype=float)
    return float(v.max() / v.min() - 1.0)


def change(prod: dict[int, float]) -> str:
    """The products over the paper's demand counts, and their change from the first to the last."""
    v = [prod[T] for T in PAPER if T in prod]
    return f"{' / '.join(f'{x:.0f}' for x in v)} ({100 * (v[-1] / v[0] - 1):+.1f}%)"


def summary(ours: dict[int, float], paper_torus: dict[int, float], paper_opt: dict[int, float],
            best: dict[int, float], torus_means: dict[int, float]) -> str:
    """The result in words: how capacity x T moves for our networks and for the paper's columns."""
    text = (f"Capacity x T over the paper's T = 2048, 3072, 4096: our torus {change(ours)} (seed means), the "
            f"paper's torus {change(paper_torus)}; our winner {change(best)}, the paper's optimum "
            f"{change(paper_opt)}. Over T = {min(ours)} to {max(ours)} our torus's products span "
            f"{100 * spread(ours.values()):.1f}%, the smallest at T = {min(ours, key=ours.get)} (with few "
            f"demands the busiest channel's excess over its mean share is largest).")
    if 4096 in torus_means:
        text += (f" At T = 4096 one network with the paper's T = 2048 and 3072 products would carry "
                 f"{paper_torus[2048] / 4096:.2f} and {paper_torus[3072] / 4096:.2f} (ours: "
                 f"{torus_means[4096]:.3f}); the paper's 0.3 is {paper_torus[3072] / 4096 / 0.3:.2f} to "
                 f"{paper_torus[2048] / 4096 / 0.3:.2f} x below.")
    return text


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="T = 2048 and 4096, one seed")
    ap.add_argument("--record", action="store_true", help="write the part of the results book")
    args = ap.parse_args()
    counts = QUICK_COUNTS if args.quick else COUNTS
    seeds = QUICK_SEEDS if args.quick else SEEDS
    t0 = time.perf_counter()

    paper_rows = []
    for T, (opt, tor) in PAPER.items():
        paper_rows.append([T, f"{opt:g}", f"{opt * T:.0f}", f"{tor:g}", f"{tor * T:.0f}"])
    paper_torus = products({T: v[1] for T, v in PAPER.items()})
    paper_opt = products({T: v[0] for T, v in PAPER.items()})

    rows, torus_means = [], {}
    for T in counts:
        lam = []
        for s in seeds:
            c = capacity(TORUS, T, s)
            assert c["wiring"] == "uniform", "the baseline must be the uniform-wired torus"
            lam.append(c["lambda"])
            print(f"torus T={T} seed={s}: {c}", flush=True)
        lam = np.array(lam)
        torus_means[T] = float(lam.mean())
        rows.append([T, " / ".join(f"{x:.3f}" for x in lam), " / ".join(f"{x * T:.0f}" for x in lam),
                     f"{lam.mean() * T:.0f}"])
    best_rows, best_caps = [], {}
    for T in [T for T in counts if T in PAPER]:
        c = capacity(BEST, T, 1)
        best_caps[T] = c["lambda"]
        print(f"best T={T}: {c}", flush=True)
        best_rows.append([T, f"{c['lambda']:.3f}", f"{c['lambda'] * T:.0f}", f"{torus_means[T]:.3f}",
                          f"{best_caps[T] / torus_means[T]:.2f}", f"{PAPER[T][0] / PAPER[T][1]:.2f}"])
    ours = products(torus_means)

    text = [
        "The paper's Table I, capacity and capacity x T (the demands the network carries at its capacity, in "
        "the paper's units):\n\n"
        + table(["T", "optimal", "optimal x T", "3D torus", "3D torus x T"], paper_rows),
        f"Measured: the uniform-wired 8x8x8 torus (bgl-midplane study: 'local' demands, its packaging and "
        f"wiring), capacity at each demand count for demand seeds {', '.join(map(str, seeds))}, and capacity x T "
        f"(each seed, and the mean capacity x T):\n\n"
        + table(["T", "capacity per seed", "capacity x T per seed", "mean x T"], rows),
    ]
    if best_rows:
        text.append(
            f"The Table I winner ({BEST}, flexible wiring; seed 1) at the paper's T, and its ratio to the torus "
            "(mean over the seeds) beside the paper's:\n\n"
            + table(["T", "winner capacity", "winner x T", "torus capacity (mean)", "winner / torus", "paper"],
                    best_rows))
    text.append(summary(ours, paper_torus, paper_opt, products(best_caps), torus_means))
    text.append(f"Commit {commit()}; {time.perf_counter() - t0:.0f} s.")
    body = "\n\n".join(text)
    print(body)
    if args.record:
        record_subsection(SECTION + (" (quick)" if args.quick else ""), TITLE + (" (quick)" if args.quick else ""),
                          body)


if __name__ == "__main__":
    main()
