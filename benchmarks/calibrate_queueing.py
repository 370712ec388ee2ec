"""The queueing load model of ``flows`` against the simulator: latency under load.

    python benchmarks/calibrate_queueing.py [--quick] [--record] [--seeds N] [--only SPEC,...]

What it does, for each network (8x8 torus, 8x8x8 torus, the twisted torus RTT(8), a searched 64-router
4-regular graph) under uniform traffic and the bit-complement permutation:

1. simulates (``toposynth simulate``, run as a user types it, ``--jobs 1``) the stable saturation
   (``--saturation --definition stable``: raise the load by 0.05, then bisect to 0.005; the highest offered
   load whose run stays stable: no deadlock, mean latency under the 500-cycle threshold), then a
   latency-load sweep (``--sweep --json``) at fixed fractions of that saturation, each load over
   ``--seeds`` seeds;
2. solves the queueing model at the same offered loads (``flows.latency_curve``: flow deviation, certified
   to ``EPS``): demands ``Demands.from_pattern`` (one unit per PE, so the demand scale is the offered load
   in phits/cycle/PE), every channel ``H`` cycles of latency and one phit/cycle of capacity, and
   ``QueueingModel(service=P, variability=0)``: a P-phit packet holds a channel for P cycles, fixed-size
   packets are M/D/1;
3. adds the zero-load constant ``C0``; nothing load-dependent is fitted.

The preset and the zero-load calibration
----------------------------------------
The simulator's ``default`` preset: virtual cut-through, 16-phit packets, 3 VCs of 4 packets, 8-packet
injection queues, router delay 1, link latency 1, Bernoulli arrivals, transit before injection. Its
documented pipeline (sim.engine) delivers a packet of L phits over k links in ``(k + 1) router_delay + k
link_latency + L`` cycles: ``H = router_delay + link_latency`` cycles per hop and ``C0 = router_delay + L``
(injection routing and serialisation at the destination). Both come from the preset, not from a fit; the
zero-load table checks them against the simulated latency at 0.01 phits/cycle/PE and the simulated hops.

Routing: DOR with the random tie rule on the tori and the twisted torus (a pair with two shortest records
draws one per packet: under uniform traffic DOR then loads every channel of a torus alike, as the model's
optimum does); ``table`` (minimal adaptive, up*/down* escape; what ``auto`` picks) on the searched graph,
where DOR does not apply. The permutation is bit complement: every network here has 2^k routers and no
PE sends to itself, so each PE offers exactly the load; transpose needs an even number of address bits
(128 and 512 routers have an odd one) and tornado a lattice (the searched graph has none).

Columns
-------
``sim``: mean packet latency from generation (``latency_generation``) over the seeds whose run stayed
stable, with the 95% interval over them. ``model``: ``C0`` + the model's certified average latency;
``gap``: its certified relative gap. ``+ terminals``: the same model also charged on the PE's injection
and ejection channels -- one phit/cycle each, carrying exactly the offered load whatever the routing, so
the model's optimum gains ``2 tau x / (1 - x)`` and its routing stays the same; a physical part of the
network the topology's flow problem leaves out, not a fitted term. ``sim loads``: the model's formula
evaluated on the channel loads the simulator measured in the very same runs (re-run through the Python
API from the JSON's config and seed, checked to give the same latency), with the simulated hops: the
difference from ``model`` is the routing's, the difference from ``sim`` the queueing formula's.

The last part simulates the 8x8 torus's uniform saturation with more buffering, more VCs, more
injection/ejection ports, the default tie rule and adaptive routing, to show what holds the simulated
saturation below the model's capacity.

Run time: about 3 CPU minutes with 5 seeds (``--quick``: the 8x8 torus only, one seed, about 10 s).
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import candidates as cd  # noqa: E402
import flows  # noqa: E402
import sim  # noqa: E402
from flows.curve import latency_curve  # noqa: E402

from _record import record, table  # noqa: E402

SECTION = "Queueing model against the simulator"
PRESET = "default"
_CFG = sim.preset(PRESET)
P = int(_CFG.packet_length)
H = _CFG.router_delay + _CFG.link_latency
C0 = _CFG.router_delay + P
#: the model's certified gap (and the capacity run's)
EPS = 0.01
#: the sweep's loads, as fractions of the simulated stable saturation
FRACTIONS = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0)
QUICK_FRACTIONS = (0.1, 0.3, 0.5, 0.7, 0.9)
#: the zero-load check's load, phits/cycle/PE
ZERO_LOAD = 0.01
TARGET_ERROR = 0.15
TARGET_FRACTION = 0.7
DOR = ("--routing", "dor", "--tie-break", "random")
NETWORKS = (
    ("torus:8x8", "8x8 torus", DOR),
    ("torus:8x8x8", "8x8x8 torus", DOR),
    ("rtt:a=8", "RTT(8), 16x8 twisted torus", DOR),
    ("search:n=64:d=4:moves=5000:seed=1", "searched 64-router 4-regular graph", ("--routing", "table")),
)
TRAFFICS = ("uniform", "bitcomplement")
T0 = time.perf_counter()
#: simulate options added to every run (--router-args): a router with less head-of-line blocking
ROUTER_EXTRA: tuple[str, ...] = ()


def log(msg: str) -> None:
    print(f"[{time.perf_counter() - T0:6.0f} s] {msg}", file=sys.stderr, flush=True)


def cpu_seconds() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


@dataclass(frozen=True)
class Case:
    spec: str
    label: str
    routing: tuple[str, ...]
    traffic: str

    @property
    def routing_name(self) -> str:
        opts = dict(zip(self.routing[::2], self.routing[1::2]))
        name = opts["--routing"]
        return f"{name} ({opts['--tie-break']} ties)" if "--tie-break" in opts else name


def simulate(case: Case, extra: tuple[str, ...], what: tuple[str, ...], seeds: int) -> tuple[str, dict]:
    """``toposynth simulate`` as a user types it: (the command, its JSON)."""
    args = ["simulate", case.spec, "--preset", PRESET, *case.routing, *extra, "--traffic", case.traffic, *what,
            "--seeds", str(seeds), "--jobs", "1", "--json", "--quiet"]
    p = subprocess.run([sys.executable, "-m", "synth", *args], capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"toposynth {' '.join(args)} failed:\n{p.stderr[-2000:]}")
    return "toposynth " + " ".join(a for a in args if a not in ("--quiet",)), json.loads(p.stdout)


def runs_of(d: dict) -> list[dict]:
    """The per-seed sweeps of a ``--seeds`` JSON (one seed prints a plain sweep)."""
    return d["runs"] if "runs" in d else [d]


def sat_point(run: dict) -> dict:
    return next(p for p in run["points"] if p["load"] == run["saturation_load"])


def ci95(xs: list[float]) -> float | None:
    if len(xs) < 2:
        return None
    from scipy import stats

    return float(stats.t.ppf(0.975, len(xs) - 1) * np.std(xs, ddof=1) / math.sqrt(len(xs)))


def kleinrock(util: np.ndarray, accepted: float, terminals: int, hops: float) -> float:
    """``C0`` + the model's latency at the measured channel loads: ``H`` per hop taken plus the waits
    ``sum_a f_a tau rho_a / (1 - rho_a)`` per unit of flow (``f_a = rho_a``: channels of one phit/cycle)."""
    tau = flows.QueueingModel(service=P, variability=0.0).tau
    if np.any(util >= 1.0):
        return math.inf
    wait = float(np.sum(util * tau * util / (1.0 - util))) / (accepted * terminals)
    return C0 + H * hops + wait


def sim_loads(topo: cd.Topology, case: Case, point: dict) -> tuple[float, int]:
    """Re-run one point of the CLI's sweep through the API (same config and seed) for its channel loads:
    the model's latency at them, and how many channels carried traffic."""
    cfg = dict(point["config"])
    if isinstance(cfg.get("packet_length"), list):
        cfg["packet_length"] = tuple(cfg["packet_length"])
    r = sim.simulate(topo, sim.SimConfig(**cfg), case.traffic, point["load"], seed=point["seed"])
    if r.latency_generation != point["latency_generation"] or r.accepted != point["accepted"]:
        raise SystemExit(f"{case.spec} {case.traffic} at {point['load']}: the API run differs from the CLI's "
                         f"({r.latency_generation} vs {point['latency_generation']})")
    util = np.asarray(r.channel_utilisation)
    return kleinrock(util, r.accepted, topo.num_terminals, r.hops), int(np.count_nonzero(util))


def pct(x: float | None) -> str:
    return "-" if x is None or not math.isfinite(x) else f"{100 * x:+.1f}%"


def cyc(x: float | None) -> str:
    return "-" if x is None else "inf" if not math.isfinite(x) else f"{x:.1f}"


def swept(res: dict) -> list[dict]:
    """The rows of the sweep's fractions of saturation (not the zero-load check's)."""
    return [r for r in res["rows"] if r["swept"]]


def within(rows: list[dict], key: str) -> float:
    """The highest fraction of saturation up to which every point's |error| is within the target."""
    best = 0.0
    for r in sorted(rows, key=lambda r: r["fraction"]):
        e = r[key]
        if e is None or not abs(e) <= TARGET_ERROR:
            break
        best = r["fraction"]
    return best


def run_case(case: Case, seeds: int, fractions: tuple[float, ...]) -> dict:
    topo = cd.from_spec(case.spec)
    t0 = cpu_seconds()
    sat_cmd, sat = simulate(case, ROUTER_EXTRA, ("--saturation", "--definition", "stable"), seeds)
    x_s = float(sat["saturation_load"])
    at_sat = [sat_point(r) for r in runs_of(sat)]
    log(f"{case.spec} {case.traffic}: stable saturation {x_s:.4f} (seeds: "
        f"{', '.join(str(r['saturation_load']) for r in runs_of(sat))})")
    nominal = {round(f * x_s, 4): f for f in fractions}
    loads = sorted({ZERO_LOAD, *nominal})
    sweep_cmd, sw = simulate(case, ROUTER_EXTRA, ("--sweep", "--loads", ",".join(f"{x:g}" for x in loads)), seeds)
    by_load: dict[float, list[dict]] = {}
    for run in runs_of(sw):
        for p in run["points"]:
            by_load.setdefault(p["load"], []).append(p)
    t_sim = cpu_seconds() - t0

    dem = flows.Demands.from_pattern(topo, case.traffic)
    problem = flows.FlowProblem.from_topology(topo, dem, latency=float(H) * np.ones(topo.num_arcs))
    t0 = cpu_seconds()
    cap = flows.max_concurrent_flow(problem, eps=EPS)
    scales = [x for x in loads if x < cap.lam]
    curve = latency_curve(problem, queueing=flows.QueueingModel(service=P, variability=0.0), scales=scales,
                          eps=EPS, capacity=cap)
    t_model = cpu_seconds() - t0
    model = {pt.scale: pt for pt in curve.points}
    tau = flows.QueueingModel(service=P, variability=0.0).tau

    rows = []
    for x in loads:
        pts = by_load[x]
        ok = [p for p in pts if p["stable"] and not p["deadlock"]]
        lat = [p["latency_generation"] for p in ok]
        s = float(np.mean(lat)) if lat else None
        m = model.get(x)
        pred = None if m is None or m.average_latency is None else C0 + m.average_latency
        # a PE offering a phit per cycle or more fills its own channel: no finite wait there
        term = None if pred is None or x >= 1.0 else pred + 2.0 * tau * x / (1.0 - x)
        sl = [sim_loads(topo, case, p) for p in ok]
        at = float(np.mean([v for v, _ in sl])) if sl else None
        # source-destination flows sharing a channel that carries any (each pair on one route): Kleinrock's
        # independence assumption -- every channel's arrivals as if Poisson -- needs many
        shared = (float(np.mean([len(dem) * p["hops"] / used for p, (_, used) in zip(ok, sl)]))
                  if sl else None)

        def err(v):
            return None if v is None or s is None or not math.isfinite(v) else (v - s) / s
        rows.append({"load": x, "fraction": nominal.get(x, x / x_s), "swept": x in nominal, "sim": s,
                     "ci": ci95(lat), "unstable": len(pts) - len(ok), "seeds": len(pts),
                     "hops": float(np.mean([p["hops"] for p in ok])) if ok else None,
                     "accepted": float(np.mean([p["accepted"] for p in ok])) if ok else None,
                     "model": pred, "err": err(pred), "gap": None if m is None else m.gap,
                     "status": None if m is None else m.status, "term": term, "err_term": err(term),
                     "at_loads": at, "err_loads": err(at), "zero_load": None if m is None else m.zero_load_part,
                     "max_rho": None if m is None else m.max_channel_load, "flows_per_channel": shared})
    log(f"{case.spec} {case.traffic}: sim {t_sim:.0f} CPU s, model {t_model:.1f} CPU s "
        f"(lambda {cap.lam:.4f}, bound {cap.upper_bound:.4f})")
    util = [p["utilisation"]["all"] for p in at_sat]
    return {"case": case, "saturation": x_s, "sat_seeds": [r["saturation_load"] for r in runs_of(sat)],
            "sat_accepted": float(np.mean([p["accepted"] for p in at_sat])),
            "sat_util_max": float(np.mean([u["max"] for u in util])),
            "sat_util_mean": float(np.mean([u["mean"] for u in util])),
            "lam": float(cap.lam), "lam_ub": float(cap.upper_bound), "rows": rows,
            "commands": (sat_cmd, sweep_cmd), "cpu": (t_sim, t_model)}


def case_table(res: dict) -> str:
    rows = []
    for r in swept(res):
        s = cyc(r["sim"])
        if r["ci"] is not None:
            s += f" ± {r['ci']:.1f}"
        if r["unstable"]:
            s += f" ({r['unstable']}/{r['seeds']} unstable)"
        rows.append([f"{r['load']:.4f}", f"{r['fraction']:.2f}", s, cyc(r["model"]), pct(r["err"]),
                     "-" if r["gap"] is None else f"{r['gap']:.1e}", cyc(r["term"]), pct(r["err_term"]),
                     cyc(r["at_loads"]), pct(r["err_loads"])])
    c = res["case"]
    head = (f"**{c.label}** (`{c.spec}`), {c.traffic}, routing {c.routing_name}: stable saturation "
            f"{res['saturation']:.4f} phits/cycle/PE (accepted {res['sat_accepted']:.4f}); the model's capacity "
            f"lambda {res['lam']:.4f} (certified upper bound {res['lam_ub']:.4f}).")
    return head + "\n\n" + table(["offered", "of sat.", "sim", "model", "err", "gap", "+ terminals", "err",
                                  "sim loads", "err"], rows)


def zero_load_table(results: list[dict]) -> str:
    rows = []
    for res in results:
        r = next(r for r in res["rows"] if r["load"] == ZERO_LOAD)
        c = res["case"]
        pred = C0 + H * r["hops"]
        rows.append([c.spec, c.traffic, cyc(r["sim"]), f"{r['hops']:.3f}", f"{pred:.1f}",
                     pct((pred - r["sim"]) / r["sim"]), f"{r['zero_load'] / H:.3f}", cyc(r["model"]),
                     pct(r["err"])])
    return table(["network", "traffic", f"sim at {ZERO_LOAD}", "sim hops", "C0 + H x hops", "err",
                  "model hops", "model", "err"], rows)


def half_point(res: dict) -> dict:
    """The sweep's point nearest half the saturation (where the flows per channel are read)."""
    return min(swept(res), key=lambda r: abs(r["fraction"] - 0.5))


def summary_table(results: list[dict]) -> str:
    rows = []
    for res in results:
        c = res["case"]
        fpc = half_point(res)["flows_per_channel"]
        below = [r for r in swept(res) if r["fraction"] <= TARGET_FRACTION]
        worst = max((abs(r["err"]) for r in below if r["err"] is not None), default=None)
        worst_t = max((abs(r["err_term"]) for r in below if r["err_term"] is not None), default=None)
        rows.append([c.spec, c.traffic, c.routing_name, f"{res['saturation']:.4f}",
                     f"{res['lam']:.4f} [{res['lam_ub']:.4f}]", f"{res['saturation'] / res['lam']:.2f}",
                     f"{res['sat_util_max']:.2f} / {res['sat_util_mean']:.2f}", "-" if fpc is None else f"{fpc:.1f}",
                     f"{within(swept(res), 'err'):.2f}", "-" if worst is None else f"{100 * worst:.0f}%",
                     f"{within(swept(res), 'err_term'):.2f}",
                     "-" if worst_t is None else f"{100 * worst_t:.0f}%"])
    return table(["network", "traffic", "routing", "sim saturation", "model lambda [bound]", "sat / lambda",
                  "channel util. at sat. (max / mean)", "flows per channel", "model within 15% up to",
                  "worst err to 0.7",
                  "+ terminals within 15% up to", "worst err to 0.7"], rows)


VARIANTS = (
    ("as calibrated", DOR),
    ("DOR, first tie rule", ("--routing", "dor", "--tie-break", "first")),
    ("minimal adaptive (bubble escape)", ("--routing", "adaptive", "--tie-break", "random")),
    ("12 VCs of 16 packets", DOR + ("--vcs", "12", "--buffer", "16")),
    ("2 injection queues, 2 ejectors", DOR + ("--injectors", "2", "--ejectors", "2")),
    ("12 VCs of 16 packets, 4 injection queues, 4 ejectors",
     DOR + ("--vcs", "12", "--buffer", "16", "--injectors", "4", "--ejectors", "4")),
)


def variants(spec: str, seeds: int, lam: float, quick: bool) -> tuple[str, list[str], list[dict]]:
    """The uniform saturation of ``spec`` as the router changes: what holds it below the model's lambda."""
    rows, cmds, out = [], [], []
    for name, opts in VARIANTS[:3] if quick else VARIANTS:
        cmd, d = simulate(Case(spec, spec, opts, "uniform"), (), ("--saturation", "--definition", "stable"), seeds)
        pts = [sat_point(r) for r in runs_of(d)]
        x = float(d["saturation_load"])
        umax = float(np.mean([p["utilisation"]["all"]["max"] for p in pts]))
        umean = float(np.mean([p["utilisation"]["all"]["mean"] for p in pts]))
        rows.append([name, f"{x:.4f}", f"{float(np.mean([p['accepted'] for p in pts])):.4f}", f"{x / lam:.2f}",
                     f"{umax:.2f} / {umean:.2f}"])
        cmds.append(cmd)
        out.append({"name": name, "saturation": x, "util_max": umax, "util_mean": umean})
        log(f"variant {name}: saturation {x:.4f}")
    return table(["router", "stable saturation", "accepted there", "of lambda", "channel util. (max / mean)"],
                 rows), cmds, out


def span(xs: list[float], fmt: str = "{:.2f}") -> str:
    """``lo-hi`` of some numbers (one number when they agree to the format)."""
    lo, hi = fmt.format(min(xs)), fmt.format(max(xs))
    return lo if lo == hi else f"{lo} to {hi}"


def findings(results: list[dict], var: list[dict] | None) -> list[str]:
    """The summary's reading, every number from this run."""
    out = []
    met = [f"{res['case'].spec} {res['case'].traffic}" for res in results
           if within(swept(res), "err") >= TARGET_FRACTION]
    met_t = [f"{res['case'].spec} {res['case'].traffic}" for res in results
             if within(swept(res), "err_term") >= TARGET_FRACTION]
    out.append(f"Target (within 15% up to {TARGET_FRACTION:.1f} of the simulated saturation): the model as specified "
               f"meets it on {', '.join(met) if met else 'no case'}; charged on the terminal channels too, on "
               f"{', '.join(met_t) if met_t else 'no case'}.")
    zero = [next(r for r in res["rows"] if r["load"] == ZERO_LOAD) for res in results]
    zerr = [100 * (C0 + H * r["hops"] - r["sim"]) / r["sim"] for r in zero]
    out.append(f"Zero load. C0 + H x (simulated hops), from the preset's pipeline, is within "
               f"{span(zerr, '{:+.1f}')}% of the simulated latency at {ZERO_LOAD} phits/cycle/PE on every case; "
               "nothing was fitted.")
    for traffic in TRAFFICS:
        group = [res for res in results if res["case"].traffic == traffic]
        if not group:
            continue
        names = ", ".join(f"{res['case'].spec} {within(swept(res), 'err'):.2f}" for res in group)
        names_t = ", ".join(f"{res['case'].spec} {within(swept(res), 'err_term'):.2f}" for res in group)
        ratio = [res["saturation"] / res["lam"] for res in group]
        busy = [res["sat_util_max"] for res in group]
        fpc = [half_point(res)["flows_per_channel"] for res in group]
        fpc = [f for f in fpc if f is not None]
        mid = [r for res in group for r in swept(res) if r["fraction"] <= TARGET_FRACTION
               and r["err"] is not None]
        hi = max(mid, key=lambda r: r["err"]) if mid else None
        lo = min(mid, key=lambda r: r["err"]) if mid else None
        s = (f"{traffic.capitalize()} traffic. The model stays within 15% of the simulator up to these "
             f"fractions of the simulated saturation: {names}; charged on the PE's injection and ejection "
             f"channels too: {names_t}. Up to {TARGET_FRACTION:.1f} of saturation its error runs from "
             f"{pct(lo['err'] if lo else None)} to {pct(hi['err'] if hi else None)}. The simulator saturates at "
             f"{span(ratio)} of the model's lambda, its busiest channel then {span(busy)} busy; a channel "
             f"carrying traffic at half the saturation is shared by {span(fpc, '{:.1f}')} source-destination flows.")
        out.append(s)
    if var:
        base = var[0]
        best = max(var, key=lambda v: v["saturation"])
        out.append(f"8x8 torus, uniform: as calibrated the simulator saturates at offered {base['saturation']:.4f} "
                   f"with its busiest channel {base['util_max']:.2f} busy; with {best['name']} at "
                   f"{best['saturation']:.4f} (busiest channel {best['util_max']:.2f}).")
    for res in results:
        if res["lam"] > 1.0:
            out.append(f"{res['case'].spec}, {res['case'].traffic}: the model's lambda {res['lam']:.4f} exceeds the "
                       "PE's own injection channel (one phit/cycle); with the terminal channels it would be 1.")
    return out


COLUMNS = (
    "Columns. `sim`: mean packet latency from generation over the seeds whose run stayed stable, with its 95% "
    "interval. `model`: C0 + the model's certified minimum average latency (flow deviation, free routing); "
    "`gap`: its certified relative gap. `+ terminals`: the same model also charged on the PE's injection and "
    "ejection channels (one phit/cycle each, carrying the offered load whatever the routing: `2 tau x / (1 - x)` "
    "more, the routing unchanged) -- a part of the network the topology's flow problem leaves out, not a fitted "
    "term. `sim loads`: the model's formula on the channel loads the simulator measured in the same runs, with "
    "the simulated hops: its difference from `model` is the routing's, from `sim` the queueing formula's. "
    "Summary: `channel util. at sat.`: the busiest and the mean channel's utilisation in the saturation run; "
    "`flows per channel`: source-destination pairs x simulated hops / channels carrying traffic, at half the "
    "saturation (the flows one channel merges; below 1 where adaptive routing splits a pair's packets); `within "
    "15% up to`: the highest fraction of saturation up to which every point is within 15%."
)

READING = (
    "Reading. Uniform traffic: the model falls more and more below the simulator as the load grows, and the "
    "formula on the simulator's own channel loads (`sim loads`) falls as far: DOR with random ties loads a "
    "torus's channels as the model's optimum does, so the routing is not what differs. What differs is what the "
    "flow problem leaves out. (1) The PE's injection and ejection channels, which every packet crosses at the "
    "offered load: charged the same M/D/1 wait (`+ terminals`) the model follows the simulator further; they "
    "weigh most where routes are short (the searched graph). (2) Blocking: the simulated routers saturate with "
    "no channel full (`channel util. at sat.`), because a packet that cannot advance holds the head of its VC or "
    "of its injection queue, the packets behind it wait while their own channels idle, and a PE has one "
    "ejector. The last table measures it: more VC buffering alone hardly moves the 8x8 torus's saturation, more "
    "injection queues and ejectors move it, both together take it most of the way to lambda with the busiest "
    "channel nearly full. A wait that depends on channel loads alone cannot see blocking, so near saturation the "
    "model stays below the simulator.\n\n"
    "Permutation (bit complement): at light and medium loads the model lies above the simulator, and so does the "
    "formula on the simulator's own loads: not the routing again, but Kleinrock's independence assumption, "
    "which charges every channel the wait of Poisson arrivals. Under a permutation a channel carries the packets "
    "of one or two PEs (`flows per channel`), which arrive spaced by the channel they came over; a channel fed "
    "over a single upstream channel never makes a packet wait, as every packet holds a channel for the same P "
    "cycles. Under uniform traffic each channel merges dozens to hundreds of flows from every input, what the "
    "assumption needs. Charging the terminal channels as well widens the permutations' over-estimate. Near "
    "saturation the simulator overtakes the model where its routing cannot spread the permutation: DOR on the "
    "RTT and the table routing (minimal, up*/down* escape) on the searched graph saturate with their busiest "
    "channel full at a fraction of lambda, while the model's optimum splits every demand over many routes, "
    "non-minimal ones included; on the tori DOR comes close to lambda.\n\n"
    "The variability stays 0: packets have a fixed length (M/D/1). Kleinrock's exponential service "
    "(variability 1) would double every wait; it is not this simulator's service law, and it would widen the "
    "permutations' over-estimate."
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="the 8x8 torus only, one seed, five loads")
    ap.add_argument("--record", action="store_true", help="write the section of the results book (docs/results/queueing-model.md)")
    ap.add_argument("--seeds", type=int, default=None, help="seeds per load (default 5; --quick 1)")
    ap.add_argument("--only", default=None, help="comma-separated specs of NETWORKS to run")
    ap.add_argument("--router-args", default="",
                    help="simulate options added to every run, e.g. '--vcs 12 --buffer 16 --injectors 4 --ejectors 4' "
                         "(a router with less head-of-line blocking; recorded in a section of its own)")
    args = ap.parse_args()
    global ROUTER_EXTRA
    ROUTER_EXTRA = tuple(args.router_args.split())
    seeds = args.seeds or (1 if args.quick else 5)
    fractions = QUICK_FRACTIONS if args.quick else FRACTIONS
    nets = NETWORKS[:1] if args.quick else NETWORKS
    if args.only:
        keep = set(args.only.split(","))
        nets = tuple(n for n in nets if n[0] in keep)
    results = []
    out = []
    for spec, label, routing in nets:
        for pat in TRAFFICS:
            res = run_case(Case(spec, label, routing, pat), seeds, fractions)
            results.append(res)
            text = case_table(res)
            out.append(text)
            print(text + "\n", flush=True)
    var_text, var_cmds, var = None, [], None
    torus = next((r for r in results if r["case"].spec == "torus:8x8" and r["case"].traffic == "uniform"), None)
    if torus is not None and not ROUTER_EXTRA:
        var_text, var_cmds, var = variants("torus:8x8", seeds, torus["lam"], args.quick)
        print(var_text + "\n", flush=True)
    zl = zero_load_table(results)
    summ = summary_table(results)
    print(zl + "\n\n" + summ + "\n", flush=True)
    lines = findings(results, var)
    for s in lines:
        print("- " + s)
    cpu = cpu_seconds()
    print(f"\nCPU: {cpu:.0f} s", flush=True)
    if args.record:
        body = [
            f"Preset `{PRESET}` (virtual cut-through, {P}-phit packets, {_CFG.vcs} VCs of {_CFG.buffer_packets} "
            f"packets, router delay {_CFG.router_delay}, link latency {_CFG.link_latency}, {_CFG.injection} "
            f"arrivals); {seeds} seed(s) per load; the model `QueueingModel(service={P}, variability=0)` (M/D/1), "
            f"H = {H} cycles per hop and C0 = {C0} cycles from the preset's pipeline (not fitted), certified to "
            f"eps = {EPS}. Loads in phits/cycle/PE; `of sat.` is the offered load over the simulated stable "
            "saturation. Method in the script's docstring."
            + (f" Every simulation also takes `{' '.join(ROUTER_EXTRA)}` (a router with less head-of-line "
               "blocking than the preset's, which these options override)." if ROUTER_EXTRA else ""),
            COLUMNS,
            "### Summary\n\n" + summ,
            "\n".join("- " + s for s in lines),
            READING,
            f"### Zero load: C0 + H x hops against the simulator at {ZERO_LOAD}\n\n" + zl,
            "### Latency against load\n\n" + "\n\n".join(out),
        ]
        if var_text is not None:
            body.append("### What holds the 8x8 torus's uniform saturation below lambda\n\n"
                        f"The model's lambda: {torus['lam']:.4f}.\n\n" + var_text)
        cmds = [c for r in results for c in r["commands"]] + var_cmds
        body.append(f"### Commands\n\nCPU time of the whole run: {cpu:.0f} s (simulations and model).\n\n"
                    + "\n".join(f"- `{c}`" for c in cmds))
        router = f", router {' '.join(ROUTER_EXTRA)}" if ROUTER_EXTRA else ""
        record(SECTION + router + (" (quick)" if args.quick else ""), "\n\n".join(body))


if __name__ == "__main__":
    main()
