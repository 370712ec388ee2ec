"""The ``toposynth simulate`` subcommand.

``synth.cli`` calls :func:`add_subcommand` with its subparsers; the
subcommand's ``func`` is :func:`run`. Errors are
:class:`~sim.errors.SimError` (a ``ToposynthError``), which the main CLI
prints on one line with exit status 2.

>>> import argparse
>>> p = argparse.ArgumentParser(prog="toposynth")
>>> _ = add_subcommand(p.add_subparsers(dest="command"))
>>> a = p.parse_args(["simulate", "ring:8", "--load", "0.1", "--routing", "dor", "--json"])
>>> a.func is run, a.load, a.routing
(True, 0.1, 'dor')
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from common import compiletime, defaults
from common.errors import EXIT_DEADLOCK, EXIT_INTERRUPTED, EXIT_NOT_CERTIFIED, EXIT_OK, MAX_SEED, seed_arg
from common.paths import check_out_file

from .routing.registry import SELECTIONS

__all__ = ["add_subcommand", "run", "build_parser", "main", "load_trace"]

#: seconds between two progress lines of a running simulation (``--progress`` without a value)
PROGRESS_EVERY = 5.0
#: the most seeds of ``--seeds``: each repeats a whole sweep or search (a 95% interval needs a handful)
MAX_SEEDS = 1000


def _loads(text: str) -> list[float]:
    from .errors import SimError  # per command: the parser starts without it (docs/ARCHITECTURE.md, Start-up)

    from .search import MAX_LOAD_POINTS  # per command: the parser starts without it (docs/ARCHITECTURE.md, Start-up)

    try:
        if ":" in text:
            lo, hi, step = (float(x) for x in text.split(":"))
        else:
            out = [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise SimError(f"--loads takes a comma list (0.1,0.2) or lo:hi:step (0.05:1:0.05), got {text!r}") from None
    if ":" in text:
        # counted before the list is made: a zero step never reached hi (a loop growing without end)
        if not (math.isfinite(lo) and math.isfinite(hi) and lo >= 0):
            raise SimError(f"--loads lo:hi:step needs finite loads, lo >= 0, got {text!r}")
        if not (step > 0 and math.isfinite(step)):
            raise SimError(f"--loads lo:hi:step needs a step > 0, got {text!r}")
        count = math.floor((hi + 1e-9 - lo) / step) + 1
        if count > MAX_LOAD_POINTS:
            raise SimError(f"--loads {text} has {count:.3g} loads, more than {MAX_LOAD_POINTS} (each is a "
                           "simulation); use a larger step")
        out, x = [], lo
        while x <= hi + 1e-9:
            out.append(round(x, 10))
            x += step
        return out
    if len(out) > MAX_LOAD_POINTS:
        raise SimError(f"--loads has {len(out)} loads, more than {MAX_LOAD_POINTS} (each is a simulation)")
    return out


def add_subcommand(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``simulate`` on an argparse subparsers object."""
    from .config import PRESETS, ROUTINGS  # per command: the parser starts without it (docs/ARCHITECTURE.md, Start-up)

    s = subparsers.add_parser(
        "simulate",
        help="cycle-level packet simulation (one load, a load sweep, or the saturation throughput)",
        description="Simulate a topology under synthetic traffic. Loads are phits/cycle per processing element.",
    )
    s.add_argument("spec", help="topology spec (e.g. rtt:a=8, torus:8x8x8, ndt:4x4x2x2x2)")
    s.add_argument("--traffic", default="uniform",
                   help="uniform, hotregion, bitcomplement, bitreversal, shuffle, butterfly, transpose, tornado, "
                        "diagonal, neighbor, localglobal, groupshift (dragonfly), randperm, random:COUNT (COUNT pairs "
                        "of random PEs), local:COUNT[:S0,S1,...] (a share per packaging level); options as "
                        "name:key=value; the same names as `toposynth flow --traffic`; default uniform")
    s.add_argument("--load", type=float, default=0.1, help="offered load, phits/cycle/PE (default 0.1)")
    # one search or the other: a saturation search would silently ignore --sweep's loads
    search = s.add_mutually_exclusive_group()
    search.add_argument("--sweep", action="store_true", help="sweep the load (see --loads) and report the saturation")
    search.add_argument("--saturation", action="store_true",
                        help="raise the load in --step increments until the network saturates")
    s.add_argument("--loads", default=None, help="sweep loads: 0.1,0.2,... or lo:hi:step (default 0.05:1:0.05)")
    s.add_argument("--step", type=float, default=defaults.LOAD_STEP,
                   help=f"load step of --saturation (default {defaults.LOAD_STEP:g})")
    s.add_argument("--preset", default="default", choices=list(PRESETS), help="configuration preset (default 'default')")
    s.add_argument("--routing", choices=list(ROUTINGS), help="routing (default from the preset: auto)")
    s.add_argument("--deadlock", choices=("auto", "dateline", "bubble", "none"), help="deadlock avoidance of dor")
    s.add_argument("--vcs", type=int, help="virtual channels per port")
    s.add_argument("--packet", help="packet length in phits: L or LO-HI (uniform)")
    s.add_argument("--buffer", type=int, dest="buffer_packets", help="VC buffer in maximum-size packets")
    s.add_argument("--switching", choices=("vct", "wormhole"),
                   help="virtual cut-through (vct, default) or flit-level wormhole")
    s.add_argument("--buffer-flits", type=int, dest="buffer_flits",
                   help="wormhole: VC buffer in flits (default 0: --buffer x the longest packet)")
    s.add_argument("--router", choices=("simple", "iq"),
                   help="router model: simple (VCT/wormhole kernels) or iq (BookSim2's input-queued router)")
    s.add_argument("--measurement", choices=("fixed", "booksim"),
                   help="fixed warm-up/window/drain, or BookSim2's sample periods and latency threshold (router iq)")
    s.add_argument("--self-traffic", dest="self_traffic", action="store_true", default=None,
                   help="router iq: uniform traffic includes the source, permutation fixed points send to themselves")
    s.add_argument("--definition", choices=("accepted", "stable"), default="accepted",
                   help="with --saturation: highest accepted load, or BookSim2's highest stable offered load")
    s.add_argument("--router-delay", type=int, help="router pipeline delay, cycles")
    s.add_argument("--link-latency", type=int, help="link latency, cycles")
    s.add_argument("--injection", choices=("bernoulli", "poisson"), help="arrival process")
    s.add_argument("--tie-break", choices=("first", "random"),
                   help="record routings: take the one routing record of a pair (first, default) or draw one of "
                        "its minimal records per packet (random: the papers' even split)")
    s.add_argument("--selection", choices=tuple(SELECTIONS),
                   help="how a packet picks among its allowed outputs with room: the most free phits (credits, "
                        "default; ties in the routing's order), the same with ties at random (credits-random), "
                        "uniformly (random), or in proportion to free phits (weighted)")
    s.add_argument("--no-transit-priority", dest="transit_priority", action="store_false", default=None,
                   help="serve injections in the same round robin as in-transit packets")
    s.add_argument("--injectors", type=int, help="injection queues per PE (each 1 phit/cycle; default 1)")
    s.add_argument("--ejectors", type=int, help="reception ports per PE (default 1)")
    s.add_argument("--warmup", type=int, help="warm-up cycles")
    s.add_argument("--measure", type=int, help="measurement cycles")
    s.add_argument("--drain", type=int, help="most drain cycles after the window")
    s.add_argument("--latency-threshold", type=float, dest="latency_threshold",
                   help="a run whose mean latency passes this in the drain is unstable and stops "
                        "(default 500, BookSim2's; inf: drain to the limit)")
    s.add_argument("--watchdog", type=int, help="deadlock watchdog, cycles")
    s.add_argument("--ugal-threshold", type=int, dest="ugal_threshold",
                   help="routing ugal: minimal when q_min*H_min <= q_val*H_val + this (phits x hops; default 0)")
    s.add_argument("--seed", type=seed_arg, default=0, help="random seed (default 0)")
    s.add_argument("--seeds", type=int, default=1, metavar="N",
                   help="with --sweep/--saturation: repeat it with the seeds SEED, SEED+1, ..., SEED+N-1 and "
                        "report the mean and its 95%% interval over them (default 1)")
    s.add_argument("--trace", metavar="FILE",
                   help="trace-driven run: a trace file (see sim.trace) or nas:KERNEL:PROCS[:CLASS[:ITERS]] "
                        "(cg, mg, ft, is, lu, bt, sp; e.g. nas:cg:16:S:1); reports the cycles to complete it")
    s.add_argument("--write-trace", metavar="FILE", help="with --trace: also write the trace in the text format")
    s.add_argument("--max-cycles", type=int, default=10**10, help="with --trace: stop after this many cycles")
    s.add_argument("--phit-bytes", type=int, help="with --trace: bytes per phit (default 4)")
    s.add_argument("--jobs", type=int, default=1,
                   help="with --sweep/--saturation: simulate this many loads (of every seed) at once in worker "
                        "processes (0: every core; default 1); the numbers are the serial run's")
    s.add_argument("--threads", type=int, default=1,
                   help="threads of each simulation (its routers split among them; traces run on one; the "
                        "numbers do not depend on it; default 1)")
    s.add_argument("--progress", nargs="?", type=float, const=PROGRESS_EVERY, default=None, metavar="SECONDS",
                   help="progress lines on stderr even when it is not a terminal: the loads running, and a "
                        "running simulation's cycles and accepted load every SECONDS (default 5)")
    s.add_argument("--quiet", action="store_true", help="no progress lines, even on a terminal")
    s.add_argument("--plot", metavar="FILE", help="with --sweep/--saturation: write accepted and latency curves (PNG/SVG)")
    s.add_argument("--channels", action="store_true", help="with --json: include per-channel utilisation")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=run)
    return s


def _config(args: argparse.Namespace):
    from .config import preset  # per command: the parser starts without it (docs/ARCHITECTURE.md, Start-up)
    from .errors import SimError  # per command: the parser starts without it (docs/ARCHITECTURE.md, Start-up)

    changes: dict[str, Any] = {}
    for f in ("routing", "deadlock", "vcs", "buffer_packets", "router_delay", "link_latency", "injection",
              "transit_priority", "phit_bytes", "tie_break", "selection", "injectors", "ejectors",
              "warmup", "measure", "drain", "watchdog", "switching", "buffer_flits", "router", "measurement",
              "self_traffic", "latency_threshold", "ugal_threshold"):
        v = getattr(args, f, None)
        if v is not None:
            changes[f] = v
    if args.packet:
        try:
            if "-" in args.packet:
                lo, hi = (int(x) for x in args.packet.split("-"))
                changes["packet_length"] = (lo, hi)
            else:
                changes["packet_length"] = int(args.packet)
        except ValueError:
            raise SimError(f"--packet takes L or LO-HI, got {args.packet!r}") from None
    return preset(args.preset, **changes)


def _print_json(obj: Any) -> None:
    json.dump(obj, sys.stdout, indent=2)
    sys.stdout.write("\n")


def _fmt(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.4g}"
    return str(x)


def run(args: argparse.Namespace) -> int:
    """Execute ``toposynth simulate``; returns the exit status."""
    from candidates import from_spec  # per command: the parser starts without it (docs/ARCHITECTURE.md, Start-up)
    from traffic import traffic  # per command: the parser starts without it (docs/ARCHITECTURE.md, Start-up)

    from .engine import simulate  # per command: the parser starts without it (docs/ARCHITECTURE.md, Start-up)
    from .errors import SimError  # per command: the parser starts without it (docs/ARCHITECTURE.md, Start-up)

    if getattr(args, "jobs", 1) != 1 and not (args.sweep or args.saturation):
        raise SimError("--jobs runs the loads of --sweep or --saturation in parallel; add one of them")
    seeds = getattr(args, "seeds", 1)
    if seeds != 1:
        if seeds < 1:
            raise SimError(f"--seeds is how many seeds to run (>= 1), got {seeds}")
        # the seeds' list is made below: counted first (a huge N was a MemoryError)
        if args.seed + seeds - 1 > MAX_SEED:
            raise SimError(f"--seed {args.seed} --seeds {seeds} goes past the largest seed {MAX_SEED}; use fewer "
                           "seeds or a smaller --seed")
        if seeds > MAX_SEEDS:   # every seed is a whole sweep
            raise SimError(f"--seeds {seeds:,} would repeat the sweep {seeds:,} times; at most {MAX_SEEDS:,} "
                           f"(the 95% interval narrows as 1/sqrt(seeds): 30 give most of it)")
        if not (args.sweep or args.saturation) or getattr(args, "trace", None):
            raise SimError("--seeds repeats a --sweep or --saturation; for one load use --sweep --loads LOAD")
    topo = from_spec(args.spec)
    cfg = _config(args)
    # the files this run writes, checked before it simulates: a sweep that cannot be plotted is lost work
    for option in ("plot", "write_trace"):
        if getattr(args, option, None):
            check_out_file(getattr(args, option), option="--" + option.replace("_", "-"))
    if getattr(args, "plot", None):
        _check_plot_format(args.plot)
    cfg = _fit_vcs(args, topo, cfg)
    _say_switches(topo, cfg)
    if getattr(args, "trace", None):
        return _run_trace(args, topo, cfg)
    if getattr(args, "write_trace", None):
        raise SimError("--write-trace needs --trace")
    pat = traffic(args.traffic)
    if args.plot and not (args.sweep or args.saturation):
        raise SimError("--plot needs --sweep or --saturation")
    show = _show_progress(args)
    if args.sweep or args.saturation:
        if args.jobs < 0:
            raise SimError(f"--jobs must be >= 0 (0: every core), got {args.jobs}")
        table = _Table(topo, pat, cfg, print_rows=not args.json, show=show, jobs=args.jobs,
                       seed_column=seeds > 1)
        try:
            res = _run_sweeps(args, topo, cfg, pat, table, list(range(args.seed, args.seed + seeds)))
        except KeyboardInterrupt:
            if args.json and table.points:   # what finished is kept (the text rows are printed already)
                _print_json({"points": [p.to_dict() for p in table.points], "interrupted": True})
            raise
        runs = res.runs if seeds > 1 else [res]
        if args.plot:
            from .plot import plot_sweeps  # per command: the parser starts without it (docs/ARCHITECTURE.md, Start-up)

            curves = ({f"seed {sd}": r for sd, r in zip(res.seeds, res.runs)} if seeds > 1
                      else {topo.spec or topo.family: res})
            plot_sweeps(curves, args.plot, title=f"{topo.spec} {pat}")
        stuck = [p.offered for r in runs for p in r.points if p.deadlock]
        if seeds > 1:
            stuck = sorted(set(stuck))
        status = EXIT_DEADLOCK if stuck else EXIT_OK
        if args.json:
            _print_json(res.to_dict())
            _say_deadlock(stuck)
            return status
        if seeds > 1:
            _print_seed_summary(res, args.saturation)
        else:
            print(f"saturation throughput {res.saturation:.4g} phits/cycle/PE (at offered load "
                  f"{res.saturation_load:.4g})")
            unstable = [f"{p.offered:.4g}" for p in res.points if not p.stable and not p.deadlock]
            if unstable:
                print(f"unstable at offered {', '.join(unstable)}: latency of the packets that arrived before the "
                      "drain stopped")
        if args.plot:
            print(f"plot written to {args.plot}")
        _say_deadlock(stuck)
        return status
    hook = None if show is None else _RunProgress(show, topo.n)
    r = simulate(topo, cfg, pat, args.load, seed=args.seed, progress=hook, threads=args.threads)
    status = EXIT_DEADLOCK if r.deadlock else EXIT_OK
    if args.json:
        _print_json(r.to_dict(channels=args.channels))
        _say_deadlock([r.offered] if r.deadlock else [])
        return status
    rows = [
        ("topology", f"{r.spec}  ({topo.n} routers, {topo.num_terminals} PEs)"),
        ("routing", r.routing),
        ("traffic", f"{r.traffic} at {args.load:g} phits/cycle/PE"),
        ("offered / accepted", f"{r.offered:.4g} / {r.accepted:.4g}"),
        ("latency (injection)", f"mean {_fmt(r.latency)}, p50 {_fmt(r.latency_percentiles['p50'])}, "
                                f"p99 {_fmt(r.latency_percentiles['p99'])}, max {_fmt(r.latency_max)}"),
        ("latency (generation)", f"mean {_fmt(r.latency_generation)}"
                                 + (f" +- {r.latency_ci95:.3g} (95%)" if r.latency_ci95 is not None else "")),
        ("hops", f"{_fmt(r.hops)} (minimal {_fmt(r.min_hops)})"),
        ("channel utilisation", ", ".join(f"{k} {v['mean']:.3g}" for k, v in r.utilisation.items())),
        ("deadlock", f"{r.deadlock} ({r.deadlock_kind})" if r.deadlock else "no"),
        ("cycles", f"{r.cycles} in {r.seconds:.3g} s ({r.router_cycles_per_second / 1e6:.3g} M router-cycles/s"
                   f"{compiletime.compile_note(r.compile_seconds, inside=True)})"),
    ]
    cut = not r.drained and r.cycles < cfg.warmup + cfg.measure + cfg.drain
    if not r.stable and not r.deadlock and (cfg.measurement == "booksim" or cut):
        rows.append(("note", f"unstable: the mean latency passed the latency threshold ({cfg.latency_threshold:g} "
                             "cycles; beyond saturation)"))
    elif not r.drained and not r.deadlock:
        rows.append(("note", "the window's packets did not all arrive within the drain limit (saturated)"))
    w = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{w}}  {v}")
    _say_deadlock([r.offered] if r.deadlock else [])
    return status


def _run_sweeps(args: argparse.Namespace, topo, cfg, pat, table: "_Table", seeds: list[int]):
    """The sweep or saturation search of ``args``: a SweepResult, or with several ``seeds`` a ReplicatedSweep."""
    from .engine import saturation, sweep  # per command: the parser starts without it (docs/ARCHITECTURE.md, Start-up)

    # per command: the parser starts without it (docs/ARCHITECTURE.md, Start-up)
    from .replicate import saturation_seeds, sweep_seeds

    loads = _loads(args.loads) if args.loads else None
    if len(seeds) == 1:
        if args.saturation:
            return saturation(topo, cfg, pat, step=args.step, seed=seeds[0], definition=args.definition,
                              jobs=args.jobs, progress=table, threads=args.threads)
        return sweep(topo, cfg, pat, loads, seed=seeds[0], jobs=args.jobs, progress=table, threads=args.threads)
    if args.saturation:
        return saturation_seeds(topo, cfg, pat, seeds=seeds, step=args.step, definition=args.definition,
                                jobs=args.jobs, progress=table, threads=args.threads)
    return sweep_seeds(topo, cfg, pat, loads, seeds=seeds, jobs=args.jobs, progress=table, threads=args.threads)


def _print_seed_summary(res, saturation_search: bool) -> None:
    """``--seeds``: a sweep's means by load, then the saturation's mean and interval over the seeds."""
    seeds = res.seeds
    rows = res.by_load()
    if rows and not saturation_search:
        print(f"over {len(seeds)} seeds (mean +- 95% interval)")
        print(f"{'load':>9} {'accepted':>18} {'latency':>18} {'unstable':>8}")
        for r in rows:
            lat = "-" if r.latency is None else f"{r.latency:.4g} +- {r.latency_ci95:.2g}" if r.latency_ci95 else _fmt(r.latency)
            print(f"{r.load:>9.4f} {f'{r.accepted:.4f} +- {r.accepted_ci95:.2g}':>18} {lat:>18} {r.unstable:>8}")
    print(f"saturation throughput {res.saturation:.4g} +- {res.saturation_ci95:.2g} phits/cycle/PE (95% interval "
          f"over seeds {seeds[0]}..{seeds[-1]}: {', '.join(f'{x:.4g}' for x in res.saturations)})")
    unstable = sum(1 for r in res.runs for p in r.points if not p.stable and not p.deadlock)
    if unstable:
        print(f"unstable: {unstable} of {sum(len(r.points) for r in res.runs)} points (latency of the packets that "
              "arrived before the drain stopped)")


def _show_progress(args: argparse.Namespace) -> float | None:
    """Seconds between progress lines on stderr, or None for none: asked
    for (``--progress``), or on a terminal unless ``--quiet`` or ``--json``."""
    from .errors import SimError  # per command: the parser starts without it (docs/ARCHITECTURE.md, Start-up)

    every = getattr(args, "progress", None)
    if every is not None and not every > 0:
        raise SimError(f"--progress takes the seconds between lines (> 0), got {every:g}")
    if getattr(args, "quiet", False):
        return None
    if every is not None:
        return every
    return PROGRESS_EVERY if sys.stderr.isatty() and not getattr(args, "json", False) else None


class _RunProgress:
    """A line on stderr every ``every`` seconds of a running simulation, with
    its speed since the previous line (router-cycles per second, given the
    ``routers``)."""

    def __init__(self, every: float = PROGRESS_EVERY, routers: int | None = None) -> None:
        self.last = 0.0
        self.last_cycles = 0
        self.every = every
        self.routers = routers

    def __call__(self, p) -> None:
        # the first line after `every` too: a run that ends sooner prints none
        if p.elapsed - self.last < self.every:
            return
        speed = ""
        if self.routers and p.elapsed > self.last and p.cycles >= self.last_cycles:
            rate = (p.cycles - self.last_cycles) * self.routers / (p.elapsed - self.last)
            speed = f", {rate / 1e6:.3g} M router-cycles/s"
        self.last, self.last_cycles = p.elapsed, p.cycles
        acc = "" if p.accepted is None else f", accepted {p.accepted:.4g}"
        print(f"toposynth: load {p.load:g}: cycle {p.cycles} of {p.planned} planned ({p.phase}){acc}, "
              f"{p.elapsed:.0f} s{speed}", file=sys.stderr, flush=True)


class _Table:
    """A sweep's progress: each point's row on stdout as it joins the
    result, and (``show``) the loads running on stderr and the running
    simulation's progress lines."""

    def __init__(self, topo, pat, cfg, *, print_rows: bool, show: float | None, jobs: int,
                 seed_column: bool = False):
        self.head = f"{topo.spec}  {{routing}}  traffic {pat}  ({cfg.name} preset)"
        self.print_rows, self.show, self.jobs, self.seed_column = print_rows, show, jobs, seed_column
        self.points: list = []
        self.running: tuple = ()
        self.routers = topo.n
        self.run_progress = _RunProgress(show or PROGRESS_EVERY, topo.n)

    def __call__(self, ev) -> None:
        from .search import SweepProgress  # per command: the parser starts without it (docs/ARCHITECTURE.md, Start-up)

        if not isinstance(ev, SweepProgress):   # a serial sweep's running point
            if self.show is not None:
                self.run_progress(ev)
            return
        if ev.point is not None:
            p = ev.point
            self.points.append(p)
            if self.print_rows:
                seed = f"{p.seed:>5} " if self.seed_column else ""
                if len(self.points) == 1:
                    print(self.head.format(routing=p.routing))
                    print(f"{'seed':>5} " * self.seed_column + f"{'offered':>9} {'accepted':>9} {'latency':>9} "
                          f"{'p99':>7} {'hops':>6} {'deadlock':>8}")
                print(f"{seed}{p.offered:>9.4f} {p.accepted:>9.4f} {_fmt(p.latency):>9} "
                      f"{_fmt(p.latency_percentiles['p99']):>7} {_fmt(p.hops):>6} {str(p.deadlock):>8}", flush=True)
        if ev.running != self.running:
            self.running = ev.running
            self.run_progress = _RunProgress(self.show or PROGRESS_EVERY, self.routers)
            # a point event's running set is the one before new loads start: said by the next event
            if self.show is not None and ev.point is None and ev.running and self.jobs != 1:
                what = (", ".join(f"{x:g} (seed {k})" for k, x in sorted(ev.tasks, key=lambda t: (t[1], t[0])))
                        if self.seed_column else ", ".join(f"{x:g}" for x in ev.running))
                print(f"toposynth: running load{'s' if len(ev.running) > 1 else ''} "
                      f"{what} ({ev.finished} point{'s' if ev.finished != 1 else ''} done)", file=sys.stderr,
                      flush=True)


def _fit_vcs(args: argparse.Namespace, topo, cfg):
    """Without ``--vcs``: enough VCs for a distance-class routing (one per
    hop of its longest route) where the preset has fewer, said on stderr;
    an explicit ``--vcs`` too small is refused by the run (one line)."""
    from .errors import SimError  # per command: the parser starts without it (docs/ARCHITECTURE.md, Start-up)

    # per command: the parser starts without it (docs/ARCHITECTURE.md, Start-up)
    from .routing.tables import resolve_routing, with_class_vcs

    if args.vcs is not None or cfg.router != "simple":
        return cfg
    try:
        routing = resolve_routing(topo, cfg.routing, cfg.router)
        fitted = with_class_vcs(topo, cfg, routing)
    except SimError:
        return cfg  # the run itself reports it
    if fitted.vcs > cfg.vcs:
        print(f"toposynth: note: routing {routing} uses a VC class per hop of its longest route: {fitted.vcs} "
              f"virtual channels here (the preset's {cfg.vcs} are too few; --vcs sets them)", file=sys.stderr)
    return fitted


def _say_switches(topo, cfg) -> None:
    """Say what a default chose for the user where it changes the network."""
    from .errors import SimError  # per command: the parser starts without it (docs/ARCHITECTURE.md, Start-up)

    # per command: the parser starts without it (docs/ARCHITECTURE.md, Start-up)
    from .routing.tables import resolve_routing, table_kind

    try:
        routing = resolve_routing(topo, cfg.routing, cfg.router)
    except SimError:
        return  # the run itself reports it
    if (routing == "dor" and cfg.router != "iq" and cfg.deadlock == "auto" and cfg.vcs < 2
            and table_kind(topo, routing) == "records"):
        print("toposynth: note: dor with 1 virtual channel uses bubble flow control (datelines need --vcs 2); "
              "--deadlock bubble chooses it explicitly", file=sys.stderr)


def _say_deadlock(loads: list[float]) -> None:
    if loads:
        at = ", ".join(f"{x:.4g}" for x in loads)
        print(f"toposynth: deadlock at offered load {at}: latency and throughput there are not measurements "
              f"(exit status {EXIT_DEADLOCK}); use a deadlock-free routing (dor with --vcs 2, adaptive, table)",
              file=sys.stderr)


def _check_plot_format(path: str) -> None:
    """The plot's file suffix must be a format matplotlib writes (no suffix: PNG)."""
    # here, not at the top: importing matplotlib takes about 2 s (measured with -X importtime on this
    # machine), and every toposynth command imports this module
    from matplotlib.backend_bases import FigureCanvasBase

    from .errors import SimError  # per command: the parser starts without it (docs/ARCHITECTURE.md, Start-up)

    suffix = Path(path).suffix.lower().lstrip(".")
    formats = FigureCanvasBase.get_supported_filetypes()
    if suffix and suffix not in formats:
        raise SimError(f"--plot {path}: unknown image format {suffix!r}; use one of {', '.join(sorted(formats))}")


def load_trace(text: str, seed: int = 0, max_processes: int | None = None):
    """A trace from a file name or ``nas:KERNEL:PROCS[:CLASS[:ITERS]]``;
    ``max_processes`` (the topology's processing elements) refuses a larger
    one before it is built.

    >>> load_trace("nas:lu:4:S:1").info["grid"]
    '2x2'
    """
    from .errors import SimError  # per command: the parser starts without it (docs/ARCHITECTURE.md, Start-up)
    from .nas import nas  # per command: the parser starts without it (docs/ARCHITECTURE.md, Start-up)
    from .trace import Trace  # per command: the parser starts without it (docs/ARCHITECTURE.md, Start-up)

    if text.lower().startswith("nas:"):
        parts = text.split(":")[1:]
        if not 2 <= len(parts) <= 4:
            raise SimError(f"--trace nas:KERNEL:PROCS[:CLASS[:ITERS]], e.g. nas:cg:16:S:1, got {text!r}")
        try:
            procs = int(parts[1])
            iters = int(parts[3]) if len(parts) == 4 else None
        except ValueError:
            raise SimError(f"--trace nas:KERNEL:PROCS[:CLASS[:ITERS]] needs integers, got {text!r}") from None
        if max_processes is not None and procs > max_processes:
            raise SimError(f"--trace {text}: {procs} processes but the topology has only {max_processes} processing "
                           "elements; use a larger topology, concentration (:c=2) or fewer processes")
        return nas(parts[0], procs, parts[2] if len(parts) >= 3 else "S", iterations=iters, seed=seed)
    return Trace.read(text, max_processes=max_processes)


def _run_trace(args: argparse.Namespace, topo, cfg) -> int:
    from .errors import SimError  # per command: the parser starts without it (docs/ARCHITECTURE.md, Start-up)
    # per command: the parser starts without it (docs/ARCHITECTURE.md, Start-up)
    from .threads import check_threads
    from .trace import check_max_cycles, run_trace

    if args.sweep or args.saturation or args.plot:
        raise SimError("--trace runs a workload to completion; it does not combine with --sweep, --saturation or --plot")
    check_max_cycles(args.max_cycles, "--max-cycles")   # before the trace is built
    if check_threads(args.threads) > 1:
        print(f"toposynth: note: a trace runs on one thread (--threads {args.threads} applies to synthetic traffic)",
              file=sys.stderr)
    tr = load_trace(args.trace, args.seed, max_processes=topo.num_terminals)
    if args.write_trace:
        try:
            tr.write(args.write_trace)
        except OSError as exc:  # checked writable up front; a full disk shows only now
            raise SimError(f"cannot write --write-trace {args.write_trace}: {exc.strerror or exc}; make room or "
                           f"choose another file") from None
    r = run_trace(topo, cfg, tr, seed=args.seed, max_cycles=args.max_cycles)
    status = EXIT_DEADLOCK if r.deadlock else (EXIT_OK if r.completed else EXIT_NOT_CERTIFIED)
    if args.json:
        d = r.to_dict()
        d["trace_info"] = tr.to_dict()
        _print_json(d)
        _say_trace(r, args.max_cycles)
        return status
    fin = r.finish
    rows = [
        ("topology", f"{r.spec}  ({topo.n} routers, {topo.num_terminals} PEs)"),
        ("routing", r.routing),
        ("trace", f"{r.trace}: {r.processes} processes, {r.messages} messages, {r.bytes} bytes"),
        ("completed", f"{r.completed} in {r.cycles} cycles" + (f" (deadlock: {r.deadlock_kind})" if r.deadlock else "")),
        ("process finish", f"min {min(fin)}, max {max(fin)}"),
        ("message latency", f"mean {_fmt(r.message_latency)}, max {_fmt(r.message_latency_max)}"),
        ("packet latency", f"mean {_fmt(r.latency)}"),
        ("hops", f"{_fmt(r.hops)} (minimal {_fmt(r.min_hops)})"),
        ("channel utilisation", ", ".join(f"{k} {v['mean']:.3g}" for k, v in r.utilisation.items())),
        ("seconds", f"{r.seconds:.3g}" + compiletime.compile_note(r.compile_seconds)),
    ]
    if args.write_trace:
        rows.append(("trace written", args.write_trace))
    w = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{w}}  {v}")
    _say_trace(r, args.max_cycles)
    return status


def _say_trace(r, max_cycles: int) -> None:
    if r.deadlock:
        print(f"toposynth: deadlock ({r.deadlock_kind}) after {r.cycles} cycles: the trace did not complete "
              f"(exit status {EXIT_DEADLOCK}); use a deadlock-free routing", file=sys.stderr)
    elif not r.completed:
        print(f"toposynth: the trace did not complete within --max-cycles {max_cycles} (exit status "
              f"{EXIT_NOT_CERTIFIED}); raise --max-cycles", file=sys.stderr)


def build_parser() -> argparse.ArgumentParser:
    """A stand-alone parser (``python -m sim.cli``) with only ``simulate``."""
    # per command: the parser starts without it (docs/ARCHITECTURE.md, Start-up)
    from common.errors import OneLineParser

    p = OneLineParser(prog="toposynth")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    add_subcommand(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    # per command: the parser starts without it (docs/ARCHITECTURE.md, Start-up)
    from common.errors import ToposynthError

    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except ToposynthError as exc:
        print(f"toposynth: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("toposynth: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
