"""Speed and saturation benchmarks of the packet simulator (``sim``).

Speed: router-cycles per second (routers x simulated cycles / seconds of
the kernel, compile excluded: the first call compiles or loads the cache)
on the 8x8x8 torus at 0.1 phits/cycle/PE with single-phit packets (DOR,
2 dateline VCs) and on the 16x8 RTT with the 'twisted-tori-tpds2010'
router. CPU seconds of this process are reported next to wall seconds
because the machine is shared.

Saturation: highest accepted load under uniform traffic (tpds2010 preset,
a load sweep in 0.05 steps past saturation) for RT/RTT(a) and
PT/PTT/PDTT(a) against the bounds 4/a, 6/a, 4/a, 6/a, 48/(7a).

    python benchmarks/bench_sim.py            # print the tables
    python benchmarks/bench_sim.py --record   # and record them in RESULTS.md
    python benchmarks/bench_sim.py --quick    # smaller windows
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import candidates as cd  # noqa: E402
import sim  # noqa: E402
from _record import record, table  # noqa: E402


def speed(quick: bool) -> tuple[str, list[list[object]]]:
    cases = [
        ("torus:8x8x8", sim.preset("singleflit", warmup=1000, measure=10000 if quick else 40000), 0.1),
        ("torus:8x8x8", sim.preset("singleflit", warmup=1000, measure=10000 if quick else 40000), 0.3),
        ("rtt:a=8", sim.preset("tpds2010", warmup=1000, measure=20000 if quick else 80000), 0.3),
        ("rtt:a=8", sim.preset("singleflit", routing="adaptive", deadlock="auto", vcs=3, warmup=1000,
                               measure=20000 if quick else 80000), 0.3),
        ("pdtt:a=8", sim.preset("tpds2010", warmup=1000, measure=5000 if quick else 20000), 0.3),
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--record", action="store_true", help="record the tables in RESULTS.md")
    ap.add_argument("--quick", action="store_true", help="shorter windows")
    ap.add_argument("--big", action="store_true", help="also the 16x8x8 prisms (a=8)")
    args = ap.parse_args()
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
        record("Simulator (sim)", body)


if __name__ == "__main__":
    main()
