"""Synthesis under packaging (``[candidates] search`` in studies, ``toposynth
search --packaging/--grid``): the built-in studies and a 4096-router search.

    python benchmarks/bench_synth_packaging.py [--parts interposer,bgl,big] [--jobs 2] [--workdir DIR] [--record]

- ``interposer``: the built-in study ``interposer-20`` (20 routers on a 5x4
  grid, 4 ports, links of at most 1.5 / 2.0 / 2.5): per length class the
  searched design's average hops and certified uniform capacity beside the
  best listed design's (mesh, folded torus, Kite, Butter Donut, Double
  Butterfly), and how long the search took.
- ``bgl``: the built-in study ``bgl-search`` (the Blue Gene/L midplane of
  ``bgl-midplane``, same pins and traffic): per T the searched designs'
  certified capacity over the uniform-wired torus's and the best
  composition's, the winner's and the torus's simulated saturation.
- ``big``: 4096 routers of degree 6 in boards of 64 (a pin budget per board,
  a backplane between the boards), uniform traffic, the physical objective
  lifted over the boards' shift (one board's 64 routers as base), two
  restarts at once; its even-split capacity under the packaging beside the
  16x16x16 torus's (in boards of 4x4x4) and a random 6-regular graph's in
  the same boards, with the wall time.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import networkx as nx
import numpy as np

import candidates as cd
from _record import record_subsection, table

SECTION = "Synthesis under packaging (studies' [candidates] search)"

BIG_PACKAGING = """[physical]
packaging = "custom"
pins_per_wire = 2
# boards of 64 routers (8 x 8), 512 pins of connectors each: 256 wires leave a board; a backplane of 8 x 8 boards
boards = [
  {level = "board", width_m = 0.4, height_m = 0.4, signal_layers = 8, wire_pitch_m = 0.001, connectors = 1, pins_per_connector = 512},
  {level = "system", width_m = 2.0, height_m = 2.0, signal_layers = 16, wire_pitch_m = 0.001},
]
"""


def _run_builtin(name: str, work: Path, jobs: int):
    from synth.runner import run
    from synth.study import builtin_study

    t0 = time.perf_counter()
    res = run(builtin_study(name), work / name, jobs=jobs, progress=True)
    return res, time.perf_counter() - t0


def _times(res) -> str:
    """What the study's run took, from its own records (a rerun that resumed it keeps them): the searches'
    wall time (their restarts' clocks) and the evaluations' (each candidate's record)."""
    search = evaluate = 0.0
    for _, v in res.variants:
        search += sum(t.params["search_seconds"] for _, t in _searched(v).values())
        evaluate += sum(r.seconds for r in v.records)
    return f"searches {search:.0f} s wall, evaluations {evaluate:.0f} s (one worker's time, summed)"


def _searched(res) -> dict[str, object]:
    """label -> (record, topology) of the searched candidates of one variant."""
    out = {}
    for r in res.records:
        if r.spec.startswith("graph:") and "/searched/" in r.spec:
            t = cd.read_topology(r.spec[6:])
            out[t.params["label"]] = (r, t)
    return out


def interposer(work: Path, jobs: int) -> str:
    res, wall = _run_builtin("interposer-20", work, jobs)
    rows = []
    better = 0
    for label, v in res.variants:
        rec, topo = _searched(v)["searched"]
        exact = {c["spec"]: c["lp_lambda"] for c in v.cross_check}     # HiGHS's exact lambda of every ranked design
        listed = [r for r in v.records if r.ok and r.spec.startswith("interposer:")]
        hops = min(listed, key=lambda r: r.average_distance)
        cap = max(listed, key=lambda r: exact[r.spec])
        ok_h = rec.average_distance <= hops.average_distance + 1e-12
        ok_c = exact[rec.spec] >= exact[cap.spec] * (1 - 1e-9)
        strictly = rec.average_distance < hops.average_distance - 1e-12
        better += strictly
        rows.append([label.split("=")[1], f"{hops.spec.split(':')[1]} {hops.average_distance:.4f}",
                     f"{cap.spec.split(':')[1]} {exact[cap.spec]:.4f}", f"{rec.average_distance:.4f}",
                     f"{exact[rec.spec]:.4f}", topo.num_links,
                     f"{_longest(topo):.3g}",
                     ("fewer hops" if strictly else "same hops" if ok_h else "MORE hops") + ", "
                     + ("capacity no lower" if ok_c else "LOWER capacity"),
                     topo.params["search_seconds"], topo.params["search_cpu_seconds"]])
    return table(["max length", "fewest hops listed", "most capacity listed", "searched hops",
                  "searched capacity", "links", "longest", "verdict", "search wall s", "search CPU s"], rows) + (
        f"\n\nThe built-in study `interposer-20` (`toposynth run builtin:interposer-20 --jobs {jobs}`): {_times(res)}; "
        f"this run {wall:.0f} s wall. Hops: the average over ordered router pairs; capacity: uniform traffic on unit links, "
        f"phits/cycle/PE, exact (HiGHS's LP of every ranked design: the study's cross-check). The searched design has fewer hops than every listed design in "
        f"{better} of the 3 classes and at least the capacity of the best in each. Listed designs as NetSmith's "
        "artefact gives them (two-way links); NetSmith's own designs (one-way channels) are not compared.")


def _longest(topo) -> float:
    xy = topo.coords.astype(float)
    return float(np.sqrt(((xy[topo.links[:, 0]] - xy[topo.links[:, 1]]) ** 2).sum(axis=1)).max())


def bgl(work: Path, jobs: int) -> str:
    res, wall = _run_builtin("bgl-search", work, jobs)
    rows = []
    above, below = [], []
    for label, v in res.variants:
        by = {r.spec: r for r in v.records}
        torus = by["torus:8x8x8"]
        comp = max((r for r in v.records if r.ok and r.spec.startswith("bgl:")), key=lambda r: r.capacity.lam)
        found = _searched(v)
        sims = {x["spec"]: x for x in v.simulation if x.get("status") == "ok"}
        def lat(r) -> str:
            v = r.latency_at(0)
            return "-" if v is None else f"{v:.2f}"

        for name, (rec, topo) in sorted(found.items()):
            sat, tsat = sims.get(rec.spec, {}).get("saturation"), sims.get("torus:8x8x8", {}).get("saturation")
            if sat is not None and tsat:
                (above if sat > tsat else below).append(f"{label.split('=')[1]} ({sat / tsat - 1:+.1%})")
            rows.append([label.split("=")[1], name, int(topo.degree.max()),
                         f"{rec.capacity.lam:.4f}", f"{torus.capacity.lam:.4f}",
                         f"{rec.capacity.lam / torus.capacity.upper_bound:.2f}-{rec.capacity.upper_bound / torus.capacity.lam:.2f}",
                         f"{comp.capacity.lam:.4f}",
                         f"{rec.capacity.lam / comp.capacity.lam - 1:+.1%}",
                         f"{lat(rec)} / {lat(torus)} / {lat(comp)}",
                         sims.get(rec.spec, {}).get("saturation", ""), sims.get("torus:8x8x8", {}).get("saturation", ""),
                         topo.params["search_seconds"], topo.params["search_cpu_seconds"]])
    return table(["T", "searched", "degree", "lambda", "torus lambda (uniform wiring)", "x torus (certified range)",
                  "best composition lambda", "vs composition", "latency ns at scale 0.5 (searched / torus / composition)",
                  "saturation", "torus saturation", "search wall s", "search CPU s"],
                 rows) + (
        f"\n\nThe built-in study `bgl-search` (`toposynth run builtin:bgl-search --jobs {jobs}`): {_times(res)}; "
        f"this run {wall:.0f} s wall. Capacity in multiples of the demand set (flow in wires, 200 pins per node card), certified to "
        "eps 0.05 (lambda is the feasible value; the range divides the bounds crosswise). The best composition is "
        "the best of g6:Gr`GpK with P4, C4 or K4 columns and K4 x K4 between node cards (radix 12). Latency: the "
        "minimum average latency (router and wire delays) of the demand set at scale 0.5, '-' where a network "
        "cannot carry it. Saturation: the winner and the torus simulated under the study's traffic (preset tpds2010, "
        "phits/cycle/PE). The simulator gives every link one phit per cycle whatever wires the packaging would "
        "give it, so it compares the graphs under the traffic, not the wiring the flow certifies: the searched "
        f"design saturates above the torus at T = {', '.join(above) or 'none'}"
        + (f" and below it at T = {', '.join(below)}." if below else "."))


def big(work: Path, jobs: int, moves: int) -> str:
    from candidates.search import search_problem
    from candidates.search.engine import score_links
    from candidates.search.layout import box_layout
    from flows.physical import link_resources
    from synth.search import search
    from synth.workload import physical_from_options

    pack = work / "boards-of-64.toml"
    pack.write_text(BIG_PACKAGING)
    phys = physical_from_options(str(pack), blocks="1x1x8x8,8x8x8x8")
    pk, _ = phys.packaging_and_technology()
    placed = phys.place(cd.mesh((8, 8, 8, 8)))
    layout = box_layout((8, 8, 8, 8), placed.placement)
    out = search(4096, 6, objective="physical", moves=moves, restarts=2, seed=1, symmetry=64, jobs=jobs,
                 checkpoint=work / "big-4096", capacity=False, layout=layout, physical=phys)
    r = out.result
    # the restarts' own clocks (they ran at once; a rerun resumed from the checkpoints keeps them)
    wall = max(x.seconds for x in r.restarts)

    def split(topo, placement, shape) -> tuple[float, float, int]:
        res = link_resources(placement, pk, "flexible")
        p = search_problem(topo.n, int(topo.degree.max()), objective="physical", symmetry=1, resources=res,
                           regular=False, layout=box_layout(shape, placement))
        links = np.concatenate([topo.links, np.zeros((topo.num_links, 1), np.int64)], axis=1)
        d, sumd, unr, load, (use, _lat) = score_links(p, links)
        return 1.0 / use, sumd / (topo.n * (topo.n - 1.0)), d

    torus = physical_from_options(str(pack), blocks="4x4x4,16x16x16").place(cd.torus((16, 16, 16)))
    rr = cd.Topology.from_networkx(nx.random_regular_graph(6, 4096, seed=1))
    found = split(r.topology, placed.placement, (8, 8, 8, 8))
    ref = {"searched": found, "torus:16x16x16": split(torus, torus.placement, (16, 16, 16)),
           "random 6-regular": split(rr, placed.placement, (8, 8, 8, 8))}
    rows = [[name, f"{lam:.4e}", f"{found[0] / lam:.3f}" if name != "searched" else "", f"{aspl:.4f}", d]
            for name, (lam, aspl, d) in ref.items()]
    made = sum(x.moves for x in r.restarts)
    return table(["network", "even-split capacity (x uniform traffic)", "searched / it", "ASPL", "diameter"], rows) + (
        f"\n\n4096 routers of degree 6 (radix 7 with one PE) in boards of 64 (8 x 8 routers), 512 connector pins per "
        "board (2 per wire: 256 wires leave a board), 8 signal layers of 1 mm tracks on a 0.4 m board, the 64 boards "
        "on a 2 m backplane of 16 layers (its cross-sections priced too); uniform traffic (one unit between every "
        "ordered pair of routers); flexible wiring. Capacity: the largest multiple of the traffic that an even split "
        "over all shortest paths carries within the wires (a feasible flow: a lower bound on the physical flow's "
        "optimum, which for 16.7 million demands is out of the LP's reach). The search: objective physical, lifted "
        f"over the shift by one board (base: one board's 64 routers; every move repeated on all 64 boards), 2 "
        f"restarts of {moves:,} moves at once (seed 1): {made:,} moves, {wall:.0f} s wall (the slower restart's "
        f"clock), {sum(x.cpu_seconds for x in r.restarts):.0f} s CPU. The torus sits in boards of "
        "4 x 4 x 4 (its natural blocks); the random regular graph (networkx, seed 1) and the searched graph in the "
        "same boards of 64 consecutive routers.")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--parts", default="interposer,bgl,big")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--workdir", default="bench-packaging-work", help="the studies' runs and the checkpoints")
    ap.add_argument("--big-moves", type=int, default=100_000, help="moves per restart of the 4096-router search")
    ap.add_argument("--record", action="store_true")
    args = ap.parse_args()
    parts = set(args.parts.split(","))
    work = Path(args.workdir)
    work.mkdir(exist_ok=True)
    for name, title, fn in (("interposer", "interposer-20: chip scale", lambda: interposer(work, args.jobs)),
                            ("bgl", "bgl-search: the Blue Gene/L midplane", lambda: bgl(work, args.jobs)),
                            ("big", "4096 routers in boards of 64",
                             lambda: big(work, args.jobs, args.big_moves))):
        if name in parts:
            body = fn()
            print(body, flush=True)
            if args.record:
                record_subsection(SECTION, title, body)


if __name__ == "__main__":
    main()
