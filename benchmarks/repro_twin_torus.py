"""Reproduce '5d-twin-torus-extoll' with toposynth: 3D torus vs 5D twin torus with the same cards.

    python benchmarks/repro_twin_torus.py [--quick] [--big] [--record] [--no-sim]

The paper's Table I cases: 256 PEs (8x8x4 vs 4x4x2x2x2), 512 (8x8x8 vs 4x4x2x4x2) and, with
--big, 1024 (16x8x8 vs 4x4x2x4x4). Compared: average hop distance (the paper's zero-load latency
reductions 10/15/30%), the optimal-routing uniform capacity (flows), and the simulated zero-load
latency and saturation (sim, packets of 1..32 cells, the paper's TS-DOR against DOR; the same
runs as `bench_sim.py --twin`).
"""

from __future__ import annotations

import argparse
import time

import candidates as cd
from flows import Demands, FlowProblem, max_concurrent_flow

from _record import record, table

PAPER = {256: ("-10%", "+20%"), 512: ("-15%", "+12%"), 1024: ("-30%", "35% -> 80% of maximum")}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--big", action="store_true")
    ap.add_argument("--record", action="store_true")
    ap.add_argument("--no-sim", action="store_true")
    args = ap.parse_args()
    sizes = [(256, "torus:8x8x4", "ndt:4x4x2x2x2"), (512, "torus:8x8x8", "ndt:4x4x2x4x2")]
    if args.big or not args.quick:
        sizes.append((1024, "torus:16x8x8", "ndt:4x4x2x4x4"))
    rows = []
    for pes, s3, s5 in sizes:
        t3, t5 = cd.from_spec(s3), cd.from_spec(s5)
        d3, d5 = cd.distance_stats(t3).average_distance, cd.distance_stats(t5).average_distance
        t0 = time.perf_counter()
        c3 = max_concurrent_flow(FlowProblem.from_topology(t3, Demands.uniform(t3.n)), eps=0.05)
        c5 = max_concurrent_flow(FlowProblem.from_topology(t5, Demands.uniform(t5.n)), eps=0.05)
        rows.append([pes, s3, s5, f"{d3:.3f}", f"{d5:.3f}", f"{100 * (d5 / d3 - 1):+.1f}%", PAPER[pes][0],
                     f"[{c3.lam:.3f}, {c3.upper_bound:.3f}]", f"[{c5.lam:.3f}, {c5.upper_bound:.3f}]", PAPER[pes][1],
                     f"{time.perf_counter() - t0:.1f}"])
    out = ["Hop distance (the internal link counts as a hop, as in the paper) and optimal-routing uniform capacity "
           "(PTAS interval, phits/cycle/PE) of the 3D torus and the 5DT with the same cards, against the paper's "
           "zero-load latency and saturation changes:\n\n" + table(
               ["PEs", "3D", "5DT", "3D hops", "5DT hops", "change", "paper latency", "3D capacity", "5DT capacity",
                "paper saturation", "s"], rows)]
    if args.no_sim:
        out.append("Simulation: not run here; `bench_sim.py --twin --big` records the same comparison in the "
                   "Simulator section (3D torus vs 5DT).")
    else:
        import bench_sim

        text, _, lines = bench_sim.twin(args.quick, args.big or not args.quick)
        out.append("Simulation (extoll preset: packets uniform 1..32 phits, VCT; zero load = 0.01):\n\n" + text +
                   "\n\n" + "\n".join(f"- {x}" for x in lines))
    out.append(
        "Notes. Hops fall as the paper's zero-load latency does (-12/-17/-32% against -10/-15/-30%); simulated "
        "latency falls less because serialising a mean packet of 16.5 phits dominates at these sizes. With "
        "optimal routing the two networks have the same uniform capacity at 256 and 512 PEs (within the PTAS "
        "intervals), so the paper's +20%/+12% saturation gains there come from routing and router details we do "
        "not model (EXTOLL's VOQ/iSLIP, its traffic classes); at 1024 PEs the 3D torus's 16-node rings halve its "
        "bound and the 5DT wins clearly, as in the paper.")
    body = "\n\n".join(out)
    print(body)
    if args.record:
        record("Reproduction: 5d-twin-torus-extoll" + (" (quick)" if args.quick else ""), body)


if __name__ == "__main__":
    main()
