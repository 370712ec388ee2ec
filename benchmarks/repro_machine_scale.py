"""'twisted-tori-tpds2010' at the paper's full machine size: 64 x 32 x 32 (65,536 routers).

    python benchmarks/repro_machine_scale.py [--quick] [--jobs 2] [--workdir DIR] [--only PART,..] [--record]

Parts (in this order; ``--only`` picks some):

- ``uniform``: Table 1's 3-D networks at a = 32 -- PT(32) (the 64x32x32 torus: Blue Gene/L's size, the paper's
  router is Blue Gene/L-like), PTT(32) and PDTT(32) -- under uniform traffic with the paper's router (the
  ``tpds2010`` preset: VCT, a bubble escape VC and two adaptive VCs, 16-phit packets), ties between equally short
  records drawn at random (the even split the paper's bounds assume). Maximum accepted load against the bounds
  4/a, 6/a, 48/(7a) and the channel bound of the routing (``candidates.channel_loads``); the PT(32) also at low
  loads, for its latency.
- ``hotregion``: Fig. 11b's hot-region traffic (25% of packets to the lowest 12.5% of the planes) on the same three
  networks. At 16 x 8 x 8 the three sat at the hot PEs' own reception cap (each receives 2.75 times the offered
  load, so nothing above 1/2.75 = 0.364 is deliverable) and could not be told apart; at a = 32 the uniform bounds
  (0.125-0.214) are below that cap, so the networks limit.
- ``first``: the uniform runs again with ties always broken the same way (the records' fixed rule): what the
  tie rule costs at full size.
- ``permutations``: Fig. 12b, bit reversal, perfect shuffle and bit complement on the same three networks, the PEs
  numbered x fastest (as the 32x16 permutations, docs/results/twisted-tori-tpds2010.md "Permutations"), ties at
  random, the highest accepted load of the loads run against the paper's gains (PTT +37.1% to +53.2%, PDTT +59.7%
  to +74.5% over PT). ``--patterns`` picks which to run; recorded as its own section ("... at 64x32x32, permutations"),
  which shows every pattern with points stored.

Every load point is simulated once and appended to ``WORKDIR/points.jsonl`` (default
``benchmarks/machine_scale``, kept in the repository): an interrupted run resumes where it stopped, and points of different runs
add up. Loads are fractions of the uniform bound; the points of a part run in a joblib pool (``--jobs``, default
2). ``--quick`` runs a = 8 (16 x 8 x 8, 1,024 routers) in a few minutes. The measurement is the preset's
(warm-up 2,000 cycles, window 5,000, drain at most 20,000): a point past saturation stops at the drain's first
check whose mean latency is above the 500-cycle threshold (unstable, BookSim2's rule; its accepted load is measured
in the window and does not depend on it).
``--record`` writes the section "Reproduction: twisted-tori-tpds2010 at 64x32x32" of the results book (docs/results/twisted-tori-tpds2010.md).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path

from joblib import Parallel, delayed

import numpy as np

import candidates as cd
import sim

from _record import record, table

HERE = Path(__file__).resolve().parent
BOUND = {"pt": lambda a: 4 / a, "ptt": lambda a: 6 / a, "pdtt": lambda a: 48 / (7 * a)}
FAMILIES = ("pt", "ptt", "pdtt")
UNIFORM_FRACTIONS = (0.6, 0.8, 0.9, 1.0, 1.1)
LATENCY_FRACTIONS = (0.1, 0.3, 0.5)
HOT_FRACTIONS = (0.4, 0.6, 0.8, 1.0)
HOT_CAP = 1 / (0.75 + 0.25 / 0.125)          # a hot PE receives 2.75 x the offered load
PERM_FRACTIONS = (0.5, 0.75, 1.0, 1.25)
PATTERNS = ("bitreversal", "shuffle", "bitcomplement")
#: the paper's gains over PT (percent, section 7.3): bit reversal the smallest, perfect shuffle the largest
PAPER_PERM = {("ptt", "bitreversal"): "+37.1", ("ptt", "shuffle"): "+53.2", ("pdtt", "bitreversal"): "+59.7",
              ("pdtt", "shuffle"): "+74.5"}
PARTS = ("uniform", "hotregion", "first", "permutations")
X_FASTEST = "@x-fastest"


def config(ties: str) -> sim.SimConfig:
    return replace(sim.preset("tpds2010"), tie_break=ties)


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


_TOPOLOGIES: dict[str, cd.Topology] = {}


def point(spec: str, ties: str, pattern: str, load: float, seed: int) -> dict:
    """One simulation (in a worker): the result's dict plus its CPU time."""
    t = _TOPOLOGIES.get(spec)
    if t is None:                              # a worker builds each topology once
        t = _TOPOLOGIES[spec] = cd.from_spec(spec)
    traffic = x_fastest(t, pattern[:-len(X_FASTEST)]) if pattern.endswith(X_FASTEST) else pattern
    r = sim.simulate(t, config(ties), traffic, load, seed=seed)
    d = r.to_dict()
    d["cpu_seconds"] = r.cpu_seconds
    d["router_cycles"] = t.n * r.cycles
    return d


def x_fastest(t: cd.Topology, pattern: str) -> sim.TrafficPattern:
    """The named permutation with the PEs numbered x fastest (PE ``x + X y + X Y z`` at router (x, y, z); the
    simulator numbers them x slowest): no n x n matrix, so it builds at 65,536 routers."""
    perm = sim.traffic(pattern).destinations(t).perm        # by PE index; -1: sends to itself
    shape = np.asarray(t.shape)
    index = (t.coords * np.concatenate([[1], np.cumprod(shape[:-1])])).sum(axis=1)   # router -> its PE index
    router = np.empty(t.n, dtype=np.int64)
    router[index] = np.arange(t.n)
    dest = perm[index]
    p = np.arange(t.n)
    sends = dest >= 0
    p[sends] = router[dest[sends]]
    return sim.permutation(p)


def _task(t: tuple) -> tuple[tuple, dict]:
    return t, point(*t)


def key(spec: str, ties: str, pattern: str, load: float, seed: int) -> str:
    return f"{spec}|{ties}|{pattern}|{load:.6f}|{seed}"


class Points:
    """The points simulated so far (WORKDIR/points.jsonl), appended to as each finishes."""

    def __init__(self, workdir: Path):
        workdir.mkdir(parents=True, exist_ok=True)
        self.path = workdir / "points.jsonl"
        self.known: dict[str, dict] = {}
        if self.path.exists():
            for line in self.path.read_text().splitlines():
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:       # a line cut by a kill: simulate that point again
                    continue
                self.known[rec["key"]] = rec["result"]

    def run(self, tasks: list[tuple], jobs: int) -> None:
        todo = [t for t in tasks if key(*t) not in self.known]
        if not todo:
            return
        log(f"{len(todo)} point(s) to simulate ({len(tasks) - len(todo)} known), {jobs} worker(s)")
        # by reference from the module, not from __main__: a worker then keeps its topologies between points
        from repro_machine_scale import _task as task

        gen = Parallel(n_jobs=jobs, return_as="generator_unordered")(delayed(task)(t) for t in todo)
        with self.path.open("a") as f:
            for t, res in gen:
                self.known[key(*t)] = res
                f.write(json.dumps({"key": key(*t), "result": res}) + "\n")
                f.flush()
                log(f"{t[0]} {t[2]} ties={t[1]} load {t[3]:.4f}: accepted {res['accepted']:.4f} "
                    f"({res['cpu_seconds']:.0f} s CPU, {res['router_cycles'] / res['cpu_seconds'] / 1e6:.2f} "
                    f"M router-cycles/CPU s)")

    def get(self, *t) -> dict | None:
        return self.known.get(key(*t))


def saturation(points: list[dict]) -> dict | None:
    ok = [p for p in points if p is not None and not p["deadlock"]]
    return max(ok, key=lambda p: p["accepted"]) if ok else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="a = 8 (16x8x8) instead of a = 32 (64x32x32)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--workdir", type=Path, default=HERE / "machine_scale")
    ap.add_argument("--only", default=",".join(PARTS), help=f"comma list of {', '.join(PARTS)}")
    ap.add_argument("--patterns", default=",".join(PATTERNS), help=f"part permutations: comma list of {', '.join(PATTERNS)}")
    ap.add_argument("--record", action="store_true")
    args = ap.parse_args()
    patterns = [p.strip() for p in args.patterns.split(",") if p.strip()]
    if [p for p in patterns if p not in PATTERNS]:
        ap.error(f"unknown pattern(s) in --patterns {args.patterns}; use {', '.join(PATTERNS)}")
    parts = [p.strip() for p in args.only.split(",") if p.strip()]
    bad = [p for p in parts if p not in PARTS]
    if bad:
        ap.error(f"unknown part(s) {', '.join(bad)}; use {', '.join(PARTS)}")
    a = 8 if args.quick else 32
    store = Points(args.workdir)
    specs = {f: f"{f}:a={a}" for f in FAMILIES}
    topos = {f: cd.from_spec(s) for f, s in specs.items()}
    seed = 1
    out: list[str] = []
    t0 = time.perf_counter()
    known_before = len(store.known)

    def loads(f: str, fracs) -> list[float]:
        return [round(x * BOUND[f](a), 6) for x in fracs]

    plan = {
        "uniform": [(specs[f], "random", "uniform", x, seed) for f in FAMILIES
                    for x in loads(f, UNIFORM_FRACTIONS + (LATENCY_FRACTIONS if f == "pt" else ()))],
        "hotregion": [(specs[f], "random", "hotregion", x, seed) for f in FAMILIES for x in loads(f, HOT_FRACTIONS)],
        "first": [(specs[f], "first", "uniform", x, seed) for f in FAMILIES for x in loads(f, UNIFORM_FRACTIONS)],
        "permutations": [(specs[f], "random", p + X_FASTEST, x, seed) for p in patterns for f in FAMILIES
                         for x in loads(f, PERM_FRACTIONS)],
    }
    try:
        for part in parts:
            log(f"part {part}: {len(plan[part])} points")
            store.run(plan[part], args.jobs)
    except KeyboardInterrupt:
        log("interrupted: the finished points are kept; run again to resume")

    if "permutations" in parts:
        # the section shows every pattern with points stored, not only those run now: a run of one pattern
        # re-records the section without dropping the others
        shown = [p for p in PATTERNS if p in patterns or any(
            store.get(specs[f], "random", p + X_FASTEST, x, seed) for f in FAMILIES for x in loads(f, PERM_FRACTIONS))]
        text = permutations_text(store, specs, topos, shown, [loads(f, PERM_FRACTIONS) for f in FAMILIES], seed,
                                 a, time.perf_counter() - t0, args.jobs, len(store.known) - known_before)
        print(text)
        if args.record:
            record("Reproduction: twisted-tori-tpds2010 at 64x32x32, permutations (Fig. 12b)"
                   + (" (quick)" if args.quick else ""), text)
        if parts == ["permutations"]:
            return
    rows = []
    sat: dict[tuple[str, str], float] = {}          # (family, uniform ties / "hot") -> max accepted
    cut: dict[str, float] = {}                      # family -> how much lower the fixed rule's routing bound is
    for f in FAMILIES:
        t = topos[f]
        lo = cd.channel_loads(t, "ties").bound
        rec = cd.channel_loads(t, "records").bound
        cut[f] = 1 - rec / lo
        for ties, part in (("random", "uniform"), ("first", "first")):
            pts = [store.get(specs[f], ties, "uniform", x, seed) for x in loads(f, UNIFORM_FRACTIONS)]
            best = saturation(pts)
            if best is not None:
                sat[(f, ties)] = best["accepted"]
            done = sum(p is not None for p in pts)
            stable = [p["load"] for p in pts if p is not None and p["stable"]]
            rows.append([f.upper() + f"({a})", "x".join(map(str, t.shape)), ties, round(BOUND[f](a), 4),
                         round(lo if ties == "random" else rec, 4),
                         "-" if best is None else round(best["accepted"], 4),
                         "-" if best is None else round(best["accepted"] / BOUND[f](a), 3),
                         round(max(stable), 4) if stable else "-", f"{done}/{len(pts)}"])
    out.append("### Uniform traffic (Table 1, 3-D at full size)\n")
    out.append("Maximum accepted load (phits/cycle/PE) of the loads run, against the paper's bound and the channel "
               "bound of the routing (ties at random: `channel_loads(t, 'ties')`; ties first: the records' fixed "
               "rule, `channel_loads(t, 'records')`); 'highest stable load': the highest offered load of those run "
               "whose measured packets all arrived under the 500-cycle latency threshold; 'points' = loads "
               "simulated of those planned.\n")
    out.append(table(["network", "size", "ties", "paper bound", "routing bound", "max accepted",
                      "accepted / paper bound", "highest stable load", "points"], rows))
    lat = [store.get(specs["pt"], "random", "uniform", x, seed) for x in loads("pt", LATENCY_FRACTIONS)]
    if any(p is not None for p in lat):
        out.append("\nPT(%d) (the %s torus) at low load: " % (a, "x".join(map(str, topos["pt"].shape))) + "; ".join(
            f"load {p['load']:.4g}: latency {p['latency']:.1f} cycles, {p['hops']:.2f} hops"
            for p in lat if p is not None and p["latency"] is not None))
    hot = []
    for f in FAMILIES:
        pts = [store.get(specs[f], "random", "hotregion", x, seed) for x in loads(f, HOT_FRACTIONS)]
        best = saturation(pts)
        if best is not None:
            sat[(f, "hot")] = best["accepted"]
        hot.append([f.upper() + f"({a})", round(BOUND[f](a), 4), round(HOT_CAP, 4),
                    "-" if best is None else round(best["accepted"], 4), f"{sum(p is not None for p in pts)}/{len(pts)}"])
    out.append("\n### Hot-region traffic (Fig. 11b)\n")
    out.append(table(["network", "uniform bound", "offered load the hot PEs can absorb", "max accepted", "points"], hot))
    gains = []
    for what, label in (("random", "uniform, ties at random"), ("first", "uniform, ties first"),
                        ("hot", "hot region")):
        if all((f, what) in sat for f in FAMILIES):
            pt = sat[("pt", what)]
            gains.append(f"{label}: PTT {100 * (sat[('ptt', what)] / pt - 1):+.0f}%, "
                         f"PDTT {100 * (sat[('pdtt', what)] / pt - 1):+.0f}%")
    if gains:
        out.append("\nGain over PT(%d) in maximum accepted load (the bounds: PTT +50%%, PDTT +71%%): " % a
                   + "; ".join(gains) + ".")
    if all((f, t) in sat for f in FAMILIES for t in ("random", "first")):
        out.append("The fixed tie rule costs " + ", ".join(
            f"{f.upper()} {100 * (1 - sat[(f, 'first')] / sat[(f, 'random')]):.1f}%" for f in FAMILIES)
            + " of the random rule's throughput; its routing bounds are " + ", ".join(
                f"{100 * cut[f]:.1f}%" for f in FAMILIES) + " lower.")
    done = [p for p in store.known.values()]
    if done:
        cpu = sum(p["cpu_seconds"] for p in done)
        rc = sum(p["router_cycles"] for p in done)
        out.append(f"\nSimulator over the stored points: {len(done)} points, {rc / 1e9:.2f} G router-cycles in "
                   f"{cpu:.0f} s CPU = {rc / cpu / 1e6:.2f} M router-cycles per CPU second; this run "
                   f"{time.perf_counter() - t0:.0f} s wall with {args.jobs} worker(s).")
    text = "\n".join(out)
    print(text)
    if args.record:
        record("Reproduction: twisted-tori-tpds2010 at 64x32x32" + (" (quick)" if args.quick else ""), text)


def permutations_text(store: Points, specs: dict, topos: dict, patterns: list[str], load_lists: list, seed: int,
                      a: int, wall: float, jobs: int, new: int) -> str:
    rows, sat, done = [], {}, []
    rising = []         # a maximum at the highest load run may still rise: PT's makes the gains over it upper bounds
    for p in patterns:
        for f, fl in zip(FAMILIES, load_lists):
            pts = [store.get(specs[f], "random", p + X_FASTEST, x, seed) for x in fl]
            done += [q for q in pts if q is not None]
            best = saturation(pts)
            if best is not None:
                sat[f, p] = best["accepted"]
                if best["load"] == max(fl):
                    rising.append(f"{f.upper()} under {p}")
            gain = (f"{100 * (sat[f, p] / sat['pt', p] - 1):+.1f}%" if f != "pt" and (f, p) in sat and ("pt", p) in sat
                    else "")
            rows.append([p, f.upper() + f"({a})", "x".join(map(str, topos[f].shape)),
                         ", ".join(f"{x:.4g}" for x in fl),
                         "-" if best is None else f"{best['accepted']:.4f} (at {best['load']:.4g}"
                         + (", the highest run)" if best["load"] == max(fl) else ")"),
                         gain, PAPER_PERM.get((f, p), "-" if f == "pt" else "(in the range)"),
                         f"{sum(q is not None for q in pts)}/{len(pts)}"])
    cpu = sum(q["cpu_seconds"] for q in done)
    rc = sum(q["router_cycles"] for q in done)
    return ("Permutation traffic on PT, PTT and PDTT (a = %d), the PEs numbered x fastest, tpds2010 preset with ties "
            "at random, seed %d; throughput = the highest accepted load (phits/cycle/PE) of the loads run (0.5, "
            "0.75, 1 and 1.25 x each network's uniform bound), the paper's measure; gain over PT beside the "
            "paper's (section 7.3 gives bit reversal's and perfect shuffle's, bit complement lies between):\n\n"
            % (a, seed)
            + table(["pattern", "network", "size", "loads run", "max accepted", "gain over PT", "paper", "points"],
                    rows)
            + (f"\n\n{len(done)} points, {rc / 1e9:.2f} G router-cycles in {cpu:.0f} s CPU"
               + (f" = {rc / cpu / 1e6:.2f} M router-cycles per CPU second" if cpu else "")
               + (f"; this run simulated {new} of them in {wall:.0f} s wall with {jobs} worker(s), the others are "
                  "earlier runs' (points.jsonl)." if new else "; every one simulated by earlier runs (points.jsonl).")
               if done else "")
            + "\n\nReading it: the paper's gains are measured as the paper measures them (highest accepted load, "
            "PEs numbered x fastest, ties at random). Where the twisted networks fall short of them, the 32x16 "
            "networks show why under bit reversal (\"Permutations of 'twisted-tori-tpds2010'\", output selection "
            "against the LP's split): the adaptive router's local output selection does not find the spread of "
            "routes the twisted networks' bounds need; the LP's split that would show it needs an n x n table, "
            "out of reach at 65,536 routers."
            + (" The accepted load of " + ", ".join(rising) + " was still rising at the highest load run: its "
               "maximum may lie higher (for PT, the gains over it are then upper bounds)." if rising else ""))


if __name__ == "__main__":
    main()
