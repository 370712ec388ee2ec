"""Speed and saturation benchmarks of the packet simulator (``sim``).

Speed: router-cycles per second (routers x simulated cycles / seconds of
the kernel, compile excluded: the first call compiles or loads the cache)
on the 8x8x8 torus at 0.1 phits/cycle/PE with single-phit packets (DOR,
2 dateline VCs) and on the 16x8 RTT with the 'twisted-tori-tpds2010'
router; wormhole (flit-level kernel) on the 8x8x8 torus with 1- and
16-flit packets and BookSim2's examples/torus88 (8x8 torus, 2 VCs,
load 0.15) with the ``booksim`` preset. CPU seconds of this process are reported next to wall seconds
because the machine is shared.

Saturation: highest accepted load under uniform traffic (tpds2010 preset,
a load sweep in 0.05 steps past saturation) for RT/RTT(a) and
PT/PTT/PDTT(a) against the bounds 4/a, 6/a, 4/a, 6/a, 48/(7a).

3D torus vs 5DT ('5d-twin-torus-extoll', ``--twin``): the same EXTOLL-like
cards (6 ports) as a 3D torus or a 5D twin torus at 256, 512 (and 1024)
PEs, packets uniform on 1..32 phits; zero-load latency (uniform traffic at
0.01 phits/cycle/PE) and saturation throughput (highest accepted load of
a 0.05-step sweep).

RT/RTT like for like (``--rtt``): saturation of RT(a)/RTT(a) for a = 8 and
16 (the paper simulated 32 x 16 = a 16) with the tpds2010 router and the
per-dimension utilisation.

    python benchmarks/bench_sim.py            # print the tables
    python benchmarks/bench_sim.py --record   # and record them in the results book
    python benchmarks/bench_sim.py --quick    # smaller windows
    python benchmarks/bench_sim.py --twin --record [--big]   # 3D vs 5DT (--big: also 1024 PEs)
    python benchmarks/bench_sim.py --rtt --record            # RT vs RTT, a = 8 and 16
    python benchmarks/bench_sim.py --prisms --record         # PT/PTT/PDTT, a = 4 and 8

Each of the four records its own subsection in the results book (docs/results/) and keeps the
others: the speed and saturation in "## Simulator (sim)" of simulator.md, --twin in
"## Reproduction: 5d-twin-torus-extoll" of 5d-twin-torus-extoll.md, --rtt and --prisms in
"## Reproduction: twisted-tori-tpds2010, like for like on the tpds2010 router" of
twisted-tori-tpds2010.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import candidates as cd  # noqa: E402
import sim  # noqa: E402
from _record import record_subsection as _record_subsection, table  # noqa: E402

SECTION = "Simulator (sim)"
#: the like-for-like comparisons of a paper go to the paper's page of the results book
TWIN_SECTION = "Reproduction: 5d-twin-torus-extoll"
TWIN_TITLE = "3D torus vs 5DT with the same cards, simulated"
LIKE_SECTION = "Reproduction: twisted-tori-tpds2010, like for like on the tpds2010 router"


def record_subsection(title: str, body: str, section: str = SECTION) -> None:
    """Replace (or add) ``### title`` inside ``## section`` of the results book (docs/results/)."""
    _record_subsection(section, title, body, legacy_title="Speed and saturation under uniform traffic"
                       if section == SECTION else None)


def speed(quick: bool) -> tuple[str, list[list[object]]]:
    cases = [
        ("torus:8x8x8", sim.preset("singleflit", warmup=1000, measure=10000 if quick else 40000), 0.1),
        ("torus:8x8x8", sim.preset("singleflit", warmup=1000, measure=10000 if quick else 40000), 0.3),
        ("rtt:a=8", sim.preset("tpds2010", warmup=1000, measure=20000 if quick else 80000), 0.3),
        ("rtt:a=8", sim.preset("singleflit", routing="adaptive", deadlock="auto", vcs=3, warmup=1000,
                               measure=20000 if quick else 80000), 0.3),
        ("pdtt:a=8", sim.preset("tpds2010", warmup=1000, measure=5000 if quick else 20000), 0.3),
        ("torus:8x8x8", sim.preset("singleflit", switching="wormhole", buffer_flits=8, warmup=1000,
                                   measure=10000 if quick else 40000).replace(name="singleflit+wormhole"), 0.1),
        ("torus:8x8x8", sim.preset("singleflit", switching="wormhole", packet_length=16, buffer_flits=8, warmup=1000,
                                   measure=5000 if quick else 20000).replace(name="wormhole, 8-flit VCs"), 0.1),
        ("torus:8x8", sim.preset("booksim", measurement="fixed", warmup=1000, measure=20000 if quick else 80000), 0.15),
        ("torus:8x8x8", sim.preset("booksim", measurement="fixed", warmup=1000, measure=5000 if quick else 20000), 0.1),
    ]
    rows = []
    for spec, cfg, load in cases:
        t = cd.from_spec(spec)
        sim.simulate(t, cfg.replace(warmup=0, measure=50, drain=0), "uniform", load, seed=0)  # compile / load cache
        c0 = time.process_time()
        r = sim.simulate(t, cfg, "uniform", load, seed=1)
        cpu = time.process_time() - c0
        rc = t.n * r.cycles
        rows.append([spec, cfg.name, r.routing, cfg.length_range[1], load, round(r.accepted, 4), t.n, r.cycles,
                     round(r.seconds, 3), round(cpu, 3), round(rc / r.seconds / 1e6, 2), round(rc / cpu / 1e6, 2)])
        print(rows[-1], flush=True)
    headers = ["spec", "preset", "routing", "phits/packet", "load", "accepted", "routers", "cycles",
               "wall s", "cpu s", "M router-cycles/s (wall)", "M router-cycles/s (cpu)"]
    return table(headers, rows), rows


def saturations(quick: bool, big: bool) -> tuple[str, list[list[object]]]:
    cfg = sim.preset("tpds2010", warmup=2000 if quick else 3000, measure=3000 if quick else 6000,
                     drain=2000)
    sizes = [4, 8] if big else [4]
    cases = [(f"rt:a={a}", 4 / a, a) for a in (4, 8)] + [(f"rtt:a={a}", 6 / a, a) for a in (4, 8)]
    for a in sizes:
        cases += [(f"pt:a={a}", 4 / a, a), (f"ptt:a={a}", 6 / a, a), (f"pdtt:a={a}", 48 / (7 * a), a)]
    rows = []
    for spec, bound, a in cases:
        t = cd.from_spec(spec)
        t0 = time.perf_counter()
        s = sim.saturation(t, cfg, "uniform", step=round(bound / 10, 4), max_load=1.0, seed=1)
        best = max(s.points, key=lambda p: p.accepted)
        u = best.utilisation
        util = ", ".join(f"{k} {v['mean']:.2f}" for k, v in u.items() if k != "all")
        rows.append([spec, t.n, round(bound, 4), round(s.saturation, 4), round(s.saturation / bound, 3),
                     util, round(time.perf_counter() - t0, 1)])
        print(rows[-1], flush=True)
    headers = ["spec", "routers", "bound", "saturation", "fraction of bound", "utilisation at saturation", "seconds"]
    return table(headers, rows), rows


def twin(quick: bool, big: bool) -> tuple[str, list[list[object]], list[str]]:
    """3D torus vs 5DT with the same cards; packets uniform 1..32 phits."""
    sizes = [(256, "torus:8x8x4", "ndt:4x4x2x2x2"), (512, "torus:8x8x8", "ndt:4x4x2x4x2")]
    if big:
        sizes.append((1024, "torus:16x8x8", "ndt:4x4x2x4x4"))
    base = sim.preset("extoll", warmup=1000 if quick else 2000, measure=3000 if quick else 6000, drain=3000)
    variants = [
        ("3D", "dor", 2, "first", "DOR, 2 dateline VCs"),
        ("3D", "dor", 4, "first", "DOR, 4 VCs (2 per dateline class)"),
        ("3D", "dor", 4, "random", "DOR, 4 VCs, ties between minimal records split at random"),
        ("3D", "adaptive", 3, "first", "minimal adaptive + bubble escape, 3 VCs"),
        ("3D", "adaptive", 3, "random", "minimal adaptive + bubble escape, 3 VCs, ties split at random"),
        ("5DT", "tsdor", 4, "first", "TS-DOR, 2 traffic classes x 2 dateline VCs"),
        ("5DT", "tsdor-adaptive", 8, "first", "EXTOLL's 4 traffic classes: per source PE TS-DOR and adaptive + TS-DOR "
         "escape, 8 + 2 VCs"),
        ("5DT", "dort", 2, "first", "DORT, 2 dateline VCs (+ internal-link classes)"),
        ("5DT", "table", 3, "first", "shortest-path adaptive + up*/down* escape, 3 VCs"),
    ]
    rows = []
    best: dict[tuple[int, str], tuple[float, float]] = {}
    for pes, s3, s5 in sizes:
        for kind, routing, vcs, ties, desc in variants:
            spec = s3 if kind == "3D" else s5
            t = cd.from_spec(spec)
            cfg = base.replace(routing=routing, vcs=vcs, tie_break=ties)
            t0 = time.perf_counter()
            z = sim.simulate(t, cfg.replace(measure=4000 if quick else 10000), "uniform", 0.01, seed=1)
            s = sim.saturation(t, cfg, "uniform", step=0.05, max_load=1.0, seed=1)
            rows.append([pes, spec, routing, vcs, ties if kind == "3D" else "-", round(z.hops, 3),
                         round(z.latency, 2), round(s.saturation, 4), round(s.saturation_load, 2),
                         round(time.perf_counter() - t0, 1)])
            print(rows[-1], desc, flush=True)
            best[(pes, f"{kind}/{routing}/{vcs}" + ("/random" if ties == "random" else ""))] = (z.latency, s.saturation)
    headers = ["PEs", "spec", "routing", "VCs", "ties", "hops (zero load)", "latency (zero load, cycles)",
               "saturation (phits/cycle/PE)", "at offered", "seconds"]
    lines = []
    for pes, _, _ in sizes:
        for a, b in (("3D/dor/2", "5DT/tsdor/4"), ("3D/dor/4", "5DT/tsdor/4"), ("3D/dor/4/random", "5DT/tsdor/4"),
                     ("3D/dor/2", "5DT/tsdor-adaptive/8"), ("3D/dor/4", "5DT/tsdor-adaptive/8"),
                     ("3D/adaptive/3", "5DT/tsdor-adaptive/8"),
                     ("3D/adaptive/3", "5DT/table/3"), ("3D/adaptive/3/random", "5DT/table/3")):
            la, sa = best[(pes, a)]
            lb, sb = best[(pes, b)]
            lines.append(f"{pes} PEs, {b} vs {a}: zero-load latency {100 * (lb / la - 1):+.1f}%, "
                         f"saturation {100 * (sb / sa - 1):+.1f}%")
    return table(headers, rows), rows, lines


def record_bound(spec: str, ties: str) -> float:
    """Uniform-traffic channel bound of the record routing (vertex-transitive
    families): 1 / the largest mean number of hops per packet in one
    direction of one dimension, ties split evenly (``random``) or not."""
    import numpy as np

    from sim.routing import build_tables, pair_records, with_ties

    t = cd.from_spec(spec)
    tabs = build_tables(t, "adaptive")
    if ties == "random":
        tabs = with_ties(t, tabs)
    # router 0's records to every router: (K, n, D), alternative k valid where count > k
    recs, cnt = pair_records(tabs, np.zeros(t.n, dtype=np.int64), np.arange(t.n))
    recs, cnt = recs.astype(float), cnt.astype(float)
    if ties == "random":
        w = (np.arange(recs.shape[0])[:, None] < cnt[None, :]) / cnt[None, :]
    else:
        recs, w = recs[:1], np.ones((1, t.n))
    worst = 0.0
    for d in range(t.ndim):
        for sgn in (1, -1):
            h = (np.clip(sgn * recs[:, :, d], 0, None) * w).sum() / (t.n - 1)
            worst = max(worst, h)
    return 1.0 / worst


HEADERS_TIES = ["ties", "spec", "size", "paper bound", "record bound", "saturation", "of paper bound",
                "of record bound", "utilisation at saturation", "escape-VC hop fraction", "seconds"]


def tie_rows(quick: bool, nets: list[tuple[str, int, str, float]]) -> tuple[list[list[object]], dict]:
    """Saturation under uniform traffic (tpds2010 router, a sweep in steps of bound/20) of every
    (family, a, size, paper bound) with the records' fixed tie rule and with random ties."""
    rows, sat = [], {}
    for ties in ("first", "random"):
        cfg = sim.preset("tpds2010", warmup=2000 if quick else 3000, measure=3000 if quick else 6000, drain=2000,
                         tie_break=ties)
        for fam, a, size, bound in nets:
            spec = f"{fam}:a={a}"
            t = cd.from_spec(spec)
            t0 = time.perf_counter()
            s = sim.saturation(t, cfg, "uniform", step=round(bound / 20, 4), max_load=1.0, seed=1)
            b = max(s.points, key=lambda p: p.accepted)
            rb = record_bound(spec, ties)
            rows.append([ties, spec, size, round(bound, 4), round(rb, 4), round(s.saturation, 4),
                         round(s.saturation / bound, 3), round(s.saturation / rb, 3),
                         ", ".join(f"{k} {v['mean']:.2f}" for k, v in b.utilisation.items() if k != "all"),
                         round(b.escape_fraction or 0.0, 3), round(time.perf_counter() - t0, 1)])
            sat[(ties, fam, a)] = (s.saturation, rb)
            print(rows[-1], flush=True)
    return rows, sat


def rtt(quick: bool) -> tuple[str, list[list[object]], list[str]]:
    """RT(a) vs RTT(a) saturation under uniform traffic, a = 8 and 16, with
    the records' fixed tie rule and with random ties."""
    rows, sat = tie_rows(quick, [(fam, a, f"{2 * a}x{a}", b(a)) for a in (8, 16)
                                 for fam, b in (("rt", lambda a: 4 / a), ("rtt", lambda a: 6 / a))])
    lines = []
    for ties in ("first", "random"):
        for a in (8, 16):
            (s1, b1), (s2, b2) = sat[(ties, "rt", a)], sat[(ties, "rtt", a)]
            lines.append(f"ties {ties}: RTT({a}) / RT({a}) = {s2 / s1:.3f} measured, {b2 / b1:.3f} record bounds "
                         f"(paper bounds 1.5)")
    return table(HEADERS_TIES, rows), rows, lines


PRISM_BOUNDS = {"pt": lambda a: 4 / a, "ptt": lambda a: 6 / a, "pdtt": lambda a: 48 / (7 * a)}


def prisms(quick: bool, sizes: tuple[int, ...] = (4, 8)) -> tuple[str, list[list[object]], list[str]]:
    """PT(a) / PTT(a) / PDTT(a) (2a x a x a) saturation under uniform traffic
    with the tpds2010 router, both tie rules, utilisation per dimension."""
    rows, sat = tie_rows(quick, [(fam, a, f"{2 * a}x{a}x{a}", fb(a)) for a in sizes
                                 for fam, fb in PRISM_BOUNDS.items()])
    lines = []
    for ties in ("first", "random"):
        for a in sizes:
            (s0, b0) = sat[(ties, "pt", a)]
            for fam, paper in (("ptt", "1.5"), ("pdtt", "1.714")):
                s1, b1 = sat[(ties, fam, a)]
                lines.append(f"ties {ties}: {fam.upper()}({a}) / PT({a}) = {s1 / s0:.3f} measured, "
                             f"{b1 / b0:.3f} record bounds (paper bounds {paper})")
    return table(HEADERS_TIES, rows), rows, lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--record", action="store_true", help="record the tables in the results book (docs/results/)")
    ap.add_argument("--quick", action="store_true", help="shorter windows")
    ap.add_argument("--big", action="store_true", help="also the 16x8x8 prisms (a=8) / the 1024-PE tori with --twin")
    ap.add_argument("--twin", action="store_true", help="only the 3D torus vs 5DT comparison")
    ap.add_argument("--rtt", action="store_true", help="only RT vs RTT at a = 8 and 16")
    ap.add_argument("--prisms", action="store_true", help="only PT/PTT/PDTT at a = 4 and 8 (8x4x4, 16x8x8)")
    args = ap.parse_args()
    if args.prisms:
        tab, _, lines = prisms(args.quick)
        print(tab)
        print("\n".join(lines))
        if args.record:
            record_subsection(
                "PT / PTT / PDTT like for like (tpds2010 router)",
                "Uniform traffic, tpds2010 preset, saturation = highest accepted load of a sweep in steps of "
                "bound/20. 'paper bound' = 4/a (PT), 6/a (PTT), 48/(7a) (PDTT) ('twisted-tori-tpds2010' "
                "section 5); 'record bound' = the channel bound of the routing records actually used, with "
                "the records' fixed tie rule (first) or ties split at random per packet (random). The target "
                "is a large fraction of the bound and PDTT above PT by 50-70%.\n\n"
                + tab + "\n\n" + "\n".join(f"- {x}" for x in lines), section=LIKE_SECTION)
        return
    if args.twin:
        tab, _, lines = twin(args.quick, args.big)
        print(tab)
        print("\n".join(lines))
        if args.record:
            record_subsection(
                TWIN_TITLE,
                "Uniform traffic, packets uniform on 1..32 phits, VCT, 4-packet VCs, 8-packet injection queues "
                "(extoll preset; VOQ and iSLIP are not modelled; EXTOLL's four traffic classes are, by routing "
                "tsdor-adaptive: per source PE one TS-DOR class and one adaptive class, packets split at "
                "random). Zero-load = 0.01 "
                "phits/cycle/PE. Paper: the 5DT lowers zero-load latency by 10/15/30% and raises saturation by "
                "20/12% (256/512 PEs) and from 35% to 80% of the maximum at 1024 PEs. 'ties': the 3D torus's "
                "routing records with the fixed tie rule of candidates.routing_records, or ties split at random "
                "(tie_break); TS-DOR/DORT follow candidates.twin_route (plus direction on ties outside the middle "
                "dimension); 'table' is adaptive over all shortest paths.\n\n"
                + tab + "\n\n" + "\n".join(f"- {x}" for x in lines), section=TWIN_SECTION)
        return
    if args.rtt:
        tab, _, lines = rtt(args.quick)
        print(tab)
        print("\n".join(lines))
        if args.record:
            record_subsection(
                "RT vs RTT like for like (tpds2010 router)",
                "Uniform traffic, tpds2010 preset, saturation = highest accepted load of a sweep in steps of "
                "bound/20. 'paper bound' = 4/a (RT), 6/a (RTT); 'record bound' = the channel bound of the "
                "routing records actually used (1 / the largest mean hops per packet in one direction of one "
                "dimension): with ties = first every tie between equally short records goes the same way "
                "(RT: X-/Y-, RTT: Y-); with ties = random one of the pair's minimal records is drawn per "
                "packet, which is the even split the paper's bound assumes. The paper simulated 32x16 "
                "(a = 16) and 64x32; its Table 1 is lost in our copy.\n\n"
                + tab + "\n\n" + "\n".join(f"- {x}" for x in lines), section=LIKE_SECTION)
        return
    sp, _ = speed(args.quick)
    print(sp)
    sat, rows = saturations(args.quick, args.big)
    ratio = {r[0]: r[3] for r in rows}
    lines = []
    for a in (4, 8):
        if f"rt:a={a}" in ratio:
            lines.append(f"RTT({a}) / RT({a}) = {ratio[f'rtt:a={a}'] / ratio[f'rt:a={a}']:.3f}")
        if f"pt:a={a}" in ratio:
            lines.append(f"PTT({a}) / PT({a}) = {ratio[f'ptt:a={a}'] / ratio[f'pt:a={a}']:.3f}, "
                         f"PDTT({a}) / PT({a}) = {ratio[f'pdtt:a={a}'] / ratio[f'pt:a={a}']:.3f}")
    print(sat)
    print("\n".join(lines))
    if args.record:
        body = (
            "Speed (kernel only; compile cached; the machine is shared, so CPU seconds are given too):\n\n"
            + sp
            + "\n\nSaturation throughput under uniform traffic (phits/cycle/PE), tpds2010 preset "
            "(VCT, 1 bubble escape VC + 2 adaptive VCs, 16-phit packets, 4-packet VCs):\n\n"
            + sat + "\n\n" + "\n".join(f"- {x}" for x in lines)
        )
        record_subsection("Speed and saturation under uniform traffic", body)


if __name__ == "__main__":
    main()
