"""The ``toposynth`` command line.

Every command that computes something takes ``--json``. Input the user can
fix (a bad spec, a file that is not a graph, impossible parameters, an
unknown option) gives one ``toposynth: error: ...`` line on stderr and exit
status 2. The other statuses (:mod:`candidates.errors`): 0 a valid result,
3 a simulation deadlocked, 4 a limit stopped a computation short of its
certified answer, 130 interrupted.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.metadata
import json
import sys
import textwrap
from collections.abc import Sequence
from typing import Any

from common import compiletime, defaults
from common.errors import (EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_NOT_CERTIFIED, EXIT_OK, OneLineParser,
                           OutputPathError, ToposynthError, seed_arg)
from common.paths import open_out_file

DEFAULT_SPEC = "rtt:a=8"
#: flow --curve: at most this many points (each a latency solve)
MAX_CURVE_POINTS = 1000


def _print_json(obj: Any) -> None:
    json.dump(obj, sys.stdout, indent=2)
    sys.stdout.write("\n")


def _fmt(x: Any, digits: int = 4) -> str:
    if isinstance(x, float):
        return f"{x:.{digits}g}"
    return str(x)


# ------------------------------------------------------------------ describe
#: how `describe` names the routings of candidates.channel_loads
_CHANNEL_ROUTING_NAMES = {"records": "records (DOR)", "ties": "random ties", "ecmp": "ECMP"}

def cmd_describe(args: argparse.Namespace) -> int:
    # per command: the parser starts without it (docs/ARCHITECTURE.md)
    from candidates import describe, from_spec
    from candidates.analytics.measures import check_describe
    from common.size import format_count, format_seconds

    topo = from_spec(args.spec)
    cost, _ = check_describe(topo, bisection_exact_limit=args.exact_bisection, equivalent=args.equivalent)
    if cost.seconds > 30:
        print(f"toposynth: large problem: {format_count(topo.n)} routers, {format_count(topo.num_links)} links; "
              f"describe will take about {format_seconds(cost.seconds)} (mostly {cost.slowest})",
              file=sys.stderr, flush=True)
    d = describe(topo, bisection_exact_limit=args.exact_bisection, equivalent=args.equivalent)
    if args.json:
        _print_json(d)
        return 0
    rows = [
        ("topology", f"{d['spec'] or d['family']}"),
        ("routers", d["nodes"]),
        ("processing elements", d["terminals"]),
        ("links", d["links"]),
        ("degree", f"min {d['degree']['min']}, max {d['degree']['max']}, mean {d['degree']['mean']:.3g}"),
        ("connected", d["connected"]),
    ]
    if d["connected"]:
        rows += [
            ("diameter", d["diameter"]),
            ("average distance (distinct pairs)", _fmt(d["average_distance"])),
            ("average distance (self included)", _fmt(d["average_distance_with_self"])),
        ]
        if "moore_aspl" in d:
            rows.append(("Moore bound",
                         f"diameter {d['moore_diameter']}, average distance {_fmt(d['moore_aspl'])} "
                         f"(this graph {100 * d['moore_gap']:.2f}% above)"))
        if d["terminals"] != d["nodes"] and d.get("pe_diameter") is not None:
            # routers differ from PEs (concentration, PE-less spines): what a message travels
            rows += [("PE diameter", d["pe_diameter"]),
                     ("average distance between PEs", _fmt(d["pe_average_distance"]))]
        rows += [
            (
                f"per-dimension hops ({d['per_dimension_method']})",
                ", ".join(f"{k} {v:.4g}" for k, v in d["per_dimension"].items()),
            ),
        ]
        if "injection_bound" in d:
            rows += [
                ("uniform injection bound", f"{d['injection_bound']:.4g} phits/cycle/PE (bottleneck {d['injection_bottleneck']})"),
                ("link utilisation at the bound", _fmt(d["link_utilisation"])),
            ]
            for r, c in d.get("channel_loads", {}).items():
                per = ", ".join(f"{k} {p:.4g}/{m:.4g}" for k, p, m in zip(c["class_names"], c["plus"], c["minus"]))
                rows.append((f"channel bound, {_CHANNEL_ROUTING_NAMES[r]}",
                             f"{c['bound']:.4g} phits/cycle/PE at {c['bottleneck']} (loads +/- per class: {per})"))
        if "bisection" in d:
            b = d["bisection"]
            if "skipped" in b:
                rows.append(("bisection width", f"skipped ({b['skipped']})"))
            else:
                halves = " between PE halves" if b.get("halves") == "PEs" else ""
                rows.append((f"bisection width{halves}", f"{b['width']} ({'exact' if b['exact'] else b['method']})"))
        if "published" in d:
            pub = d["published"]
            rows.append((f"published ({pub['source']})", ", ".join(
                f"{k.replace('_', ' ')} {_fmt(v) if isinstance(v, float) else v}" for k, v in pub.items()
                if k != "source" and v is not None)))
        if "equivalent_distance" in d:
            e = d["equivalent_distance"]
            rows.append((f"equivalent distance ({e['routing']})", f"mean {e['mean']:.4g}, max {e['max']:.4g}"))
    else:
        rows.append(("unreachable ordered pairs", d["unreachable_pairs"]))
    w = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{w}}  {v}")
    return 0


# ---------------------------------------------------------------------- flow
def _workload(args):
    """The flow command's traffic and physical model, spelled as a study's."""
    # per command: the parser starts without it (docs/ARCHITECTURE.md)
    from .workload import Traffic, physical_from_options

    traffic = Traffic.parse("file:" + args.demands if args.demands else args.traffic, seed=args.seed)
    return traffic, physical_from_options(args.packaging, args.wiring, args.blocks, args.connector_pins)


def _print_progress(p: dict) -> None:
    """One stderr line per report of flows.solve's progress callback."""
    done = f"{p['phases']} phases" if "rounds" not in p else f"{p['rounds']} rounds"
    if not p.get("upper_bound", 0) > 0:
        # the PTAS reports before its first phase ends (its first bound check)
        print(f"toposynth: {p['seconds']:.0f} s: {done}, first phase running", file=sys.stderr, flush=True)
        return
    if "lower_bound" in p:
        what = f"latency in [{p['lower_bound']:.6g}, {p['upper_bound']:.6g}]"
    else:
        what = f"lambda {p['lam']:.6g}, upper bound {p['upper_bound']:.6g}"
    print(f"toposynth: {p['seconds']:.0f} s: {done}, {what}, gap {p['gap']:.3g}", file=sys.stderr, flush=True)


#: ``flow --scale``: the demands are multiplied by it and lambda divided by it, so a subnormal
#: scale (1e-320) made lambda infinite and a huge one overflows the demands; 1e-30..1e30 keeps
#: every product a normal float with room to spare for any demand and capacity
SCALE_RANGE = (1e-30, 1e30)


def cmd_flow(args: argparse.Namespace) -> int:
    # per command: the parser starts without it (docs/ARCHITECTURE.md)
    import numpy as np

    import flows
    from candidates import from_spec
    from flows.size import check_flow, flow_cost, large_problem_note

    from .workload import WORKLOADS

    if not SCALE_RANGE[0] <= args.scale <= SCALE_RANGE[1]:
        raise flows.FlowError(f"--scale must be a positive number in {SCALE_RANGE[0]:g}..{SCALE_RANGE[1]:g}, got "
                              f"{args.scale:g}")
    if not 0 <= args.eps < 1:
        raise flows.FlowError(f"eps must be in [0, 1) (0 = exact), got {args.eps}")
    if args.curve is not None:
        if args.curve < 1:
            raise flows.FlowError(f"--curve takes the number of points, at least 1, got {args.curve}")
        if args.curve > MAX_CURVE_POINTS:   # every point is a latency solve of its own
            raise flows.FlowError(f"--curve {args.curve:,} would be {args.curve:,} latency solves; at most "
                                  f"{MAX_CURVE_POINTS:,} points")
        if not 0 < args.up_to < 1:
            raise flows.FlowError(f"--up-to must be a fraction of the capacity in (0, 1), got {args.up_to}")
        if args.solver not in ("auto", "deviation") and args.load_model == "queueing":
            raise flows.FlowError(f"--curve with --load-model queueing is solved by flow deviation; drop --solver "
                                  f"{args.solver}")
        args.latency = True
    queueing = _queueing_model(args)
    traffic, physical = _workload(args)
    topo = physical.place(from_spec(args.spec))
    objective = "latency" if args.latency else "concurrent"
    results = {}
    r = _by_symmetry(args, topo, traffic, physical)
    if r is not None:
        # uniform traffic on a lattice: n (n - 1) demands are never built (4096 routers: 17 M)
        results[args.solver] = r
        n = topo.n
        out = {"spec": topo.spec, "routers": n, "demands": n * (n - 1), "total_demand": n * args.scale}
        out.update(r.to_dict())
        return _print_flow(args, out, results)
    # size the demands and the solver before building them (column generation's paths are sized as the
    # PTAS's trees; PDLP as the arc LP)
    sized = {"auto": "ptas", "colgen": "ptas", "symmetry": "ptas", "pdlp": "lp"}.get(args.solver, args.solver)
    if queueing is not None:
        sized = "deviation"
    pattern = None if traffic.pattern in WORKLOADS else traffic.pattern_of()
    if pattern is not None and pattern.entry.demands is None:
        # a rate pattern becomes a dense n x n demand matrix (then copied once)
        from common.size import check_memory, format_count

        check_memory(f"the {traffic.pattern} demand matrix of {topo.spec or topo.family} "
                     f"({format_count(topo.n)} x {format_count(topo.n)})", 24.0 * topo.n * topo.n,
                     "use fewer routers or --traffic random:COUNT")
    uniform = pattern is not None and pattern.name == "uniform"
    count = topo.n * (topo.n - 1) if uniform else None if pattern is None else pattern.options.get("count")
    if isinstance(count, int) and count > 0:
        check_flow(f"flow {topo.spec or topo.family} with {traffic.pattern} traffic",
                   flow_cost(topo.n, topo.num_arcs, count, topo.n if uniform else min(topo.n, count),
                             solver=sized, uniform=uniform))
    problem = physical.problem(topo, traffic.demands(topo).scaled(args.scale))
    dem = problem.demands
    if args.solver == "auto" and sized == "ptas":
        # the time of the solver auto will run
        sized = flows.choose_solver(problem, args.eps, objective)      # ptas, colgen or lp
    if args.curve is not None:
        return _print_curve(args, topo, problem, queueing, progress=_print_progress if show_progress(args) else None)
    cost = flow_cost(problem.n, problem.num_arcs, len(dem), min(len(np.unique(dem.src)), len(np.unique(dem.dst))),
                     nnz=problem.R.nnz, solver=sized)
    check_flow(f"flow {topo.spec or topo.family}", cost)
    note = large_problem_note(cost)
    show = show_progress(args)
    if note:
        note += "; progress every 5 s" if show else "; --progress shows it"
    if note:
        print(f"toposynth: {note}", file=sys.stderr, flush=True)
    progress = _print_progress if show else None
    if args.solver == "both":
        if queueing is not None:
            raise flows.FlowError("--solver both compares the PTAS with the exact LP, which solve the linear load "
                                  "model only; drop --load-model queueing or --solver both")
        # the PTAS beside the exact LP (the cross-check)
        results["ptas"] = flows.solve(problem, eps=args.eps, solver="ptas", objective=objective,
                                      max_phases=args.max_phases, progress=progress)
        results["lp"] = flows.solve(problem, eps=0.0, solver="lp", objective=objective)
    else:
        results[args.solver] = flows.solve(problem, eps=args.eps, solver=args.solver, objective=objective,
                                           max_phases=args.max_phases, topology=topo, progress=progress,
                                           queueing=queueing)
    out = {"spec": topo.spec, "routers": topo.n, "demands": len(problem.demands),
           "total_demand": problem.demands.total}
    main_r = next(iter(results.values()))
    out.update(main_r.to_dict())
    if args.latency and main_r.average_latency is None:
        out["average_latency"] = None  # infeasible: the message says why
    if args.solver == "both":
        out["lp"] = results["lp"].to_dict()
        if not args.latency:
            lp = results["lp"].lam
            out["lp_relative_difference"] = (lp - main_r.lam) / lp
    return _print_flow(args, out, results)


def show_progress(args) -> bool:
    return bool(args.progress or sys.stderr.isatty())


def _queueing_model(args):
    """The flow command's queueing model, or None for the linear load model."""
    # per command: the parser starts without it (docs/ARCHITECTURE.md)
    import flows

    if args.load_model != "queueing":
        if args.service is not None or args.variability != 1.0 or args.terminals:
            raise flows.FlowError("--service, --variability and --terminals set the queueing load model; add "
                                  "--load-model queueing")
        return None
    if not args.latency:
        raise flows.FlowError("--load-model queueing is the latency's load model; add --latency or --curve")
    service = args.service
    if service is None:
        service = defaults.BGL_PACKET_NS if args.packaging == "bgl" else defaults.QUEUEING_SERVICE
    return flows.QueueingModel(service, args.variability, args.terminals)


def _print_curve(args, topo, problem, queueing, progress) -> int:
    """The latency-throughput curve (``--curve``), as a table or JSON."""
    # per command: the parser starts without it (docs/ARCHITECTURE.md)
    from flows.curve import latency_curve

    def say(p):
        if progress is not None:
            print(f"toposynth: {p['seconds']:.0f} s: point {p['point']} of {p['of']} (scale {p['scale']:.4g})",
                  file=sys.stderr, flush=True)

    curve = latency_curve(problem, load_model=args.load_model, queueing=queueing, points=args.curve,
                          up_to=args.up_to, eps=args.eps if args.eps > 0 else 1e-4, progress=say)
    status = EXIT_OK if curve.certified else EXIT_NOT_CERTIFIED
    unit = "ns" if args.packaging else "hops"
    if args.json:
        _print_json({"spec": topo.spec, "routers": topo.n, "demands": len(problem.demands),
                     "total_demand": problem.demands.total, "latency_unit": unit, "curve": curve.to_dict()})
    else:
        model = ("linear (router and wire delays)" if queueing is None else
                 f"queueing (service {queueing.service:.6g} {unit}, variability {queueing.variability:g})")
        print(f"latency-throughput curve of {topo.spec or topo.family}: {len(problem.demands)} demands, "
              f"{model}")
        print(f"capacity lambda {curve.capacity:.6g} (certified at most {curve.capacity_bound:.6g}); "
              f"latency in {unit} per unit of demand")
        print(f"{'scale':>10} {'load':>6} {'avg latency':>12} {'bound':>12} {'gap':>8}  status")
        for q in curve.points:
            if q.average_latency is None:
                print(f"{q.scale:>10.4g} {q.load:>6.3f} {'-':>12} {'-':>12} {'-':>8}  {q.status}")
            else:
                print(f"{q.scale:>10.4g} {q.load:>6.3f} {q.average_latency:>12.6g} {q.latency_bound:>12.6g} "
                      f"{q.gap or 0.0:>8.2g}  {q.status}")
    if status != EXIT_OK:
        print(f"toposynth: not certified: a point of the curve stopped short of eps (exit status "
              f"{EXIT_NOT_CERTIFIED})", file=sys.stderr)
    return status


def _by_symmetry(args, topo, traffic, physical):
    """The exact capacity of uniform traffic on a lattice family from one
    source's flow (``flows.solve`` without the problem: the symmetry
    solver), where it applies and ``auto`` or ``symmetry`` is asked for; else None."""
    # per command: the parser starts without it (docs/ARCHITECTURE.md)
    import flows

    if (args.solver not in ("auto", "symmetry") or args.latency or traffic.pattern != "uniform"
            or physical.packaging != "none" or physical.blocks or not (topo.terminals == 1).all()):
        return None
    if topo.lattice is not None and topo.vertex_transitive:
        # the LP grows as n^2 in time: size it before it starts (64,000 routers: about 2.5 minutes)
        from flows.size import check_flow, large_problem_note, symmetry_cost

        cost = symmetry_cost(topo.n, topo.num_arcs)
        check_flow(f"flow {topo.spec or topo.family} with uniform traffic by symmetry", cost)
        note = large_problem_note(cost)
        if note:
            print(f"toposynth: {note}", file=sys.stderr, flush=True)
    try:
        r = flows.solve(None, args.eps, solver=args.solver, topology=topo)
    except flows.FlowError:
        if args.solver == "symmetry":
            raise
        return None
    return dataclasses.replace(r, lam=r.lam / args.scale, upper_bound=r.upper_bound / args.scale,
                               arc_flow=r.arc_flow / args.scale)


def _print_flow(args, out: dict, results: dict) -> int:
    status = EXIT_OK if all(r.certified for r in results.values()) else EXIT_NOT_CERTIFIED
    if args.json:
        _print_json(out)
        _say_uncertified(results)
        return status
    unit = "ns" if args.packaging else "hops"
    for name, r in results.items():
        d = r.to_dict()
        print(f"[{name}] {d.get('method', name)}: {d['status']}  "
              f"({d['seconds']:.3g} s{compiletime.compile_note(r.compile_seconds, inside=True)})")
        if d.get("capacity_from") == "latency prices":
            # the latency solver computed no capacity: the demands are routed, and its prices bound lambda
            print(f"  lambda       >= 1   (the demands are routed; capacity not computed, "
                  f"at most {d['upper_bound']:.6g})")
        else:
            print(f"  lambda       {d['lambda']:.6g} x the demands   (every demand x lambda is routable)")
            print(f"  upper bound  {d['upper_bound']:.6g}   gap {d['gap']:.3g}")
        if args.latency:
            if r.average_latency is not None:
                lgap = r.extra.get("latency_gap")
                gap = "" if lgap is None else f"   gap {lgap:.3g}"
                print(f"  avg latency  {r.average_latency:.6g} {unit}   certified lower bound {r.latency_bound:.6g} "
                      f"{unit}{gap}")
                if r.extra.get("load_model") == "queueing":
                    term = r.extra.get("terminal_part")
                    print(f"    of which   router and wire delays {r.extra['zero_load_part']:.6g} {unit}, queueing "
                          f"{r.extra['queueing_part']:.6g} {unit} (busiest channel {r.extra['max_channel_load']:.3f} "
                          "of its width)" + ("" if term is None else f", the PEs' own channels {term:.6g} {unit}"))
            else:
                print(f"  avg latency  -   {r.extra.get('message', '')}")
        tops = ", ".join(f"{b['resource']} ({b['utilisation']:.3f})" for b in d["bottlenecks"][:5])
        print(f"  bottlenecks  {tops}   (utilisation at lambda)")
    _say_uncertified(results)
    return status


def _say_uncertified(results) -> None:
    for name, r in results.items():
        if not r.certified:
            print(f"toposynth: not certified: [{name}] {r.status} (exit status {EXIT_NOT_CERTIFIED}); "
                  "raise --max-phases or --eps", file=sys.stderr)


# ----------------------------------------------------------------- enumerate
def cmd_enumerate(args: argparse.Namespace) -> int:
    # per command: the parser starts without it (docs/ARCHITECTURE.md)
    from candidates.enumeration.graphs import check_enumeration, count_graphs, iter_graph6

    opts = dict(
        min_degree=args.min_degree,
        exact_max_degree=args.exact_max_degree,
        regular=args.regular,
        connected=not args.disconnected,
    )
    check_enumeration(args.nodes, args.max_degree, **opts)
    if args.count:
        n = count_graphs(args.nodes, args.max_degree, **opts)
        if args.json:
            _print_json({"nodes": args.nodes, "max_degree": args.max_degree, **opts, "count": n})
        else:
            print(n)
        return 0
    graphs = iter_graph6(args.nodes, args.max_degree, **opts)
    if args.json:
        gl = list(graphs)
        _print_json({"nodes": args.nodes, "max_degree": args.max_degree, **opts, "count": len(gl), "graph6": gl})
        return 0
    # opened (parents created, a directory refused in one line) before the first graph is enumerated
    out = open_out_file(args.out, option="--out", encoding="ascii") if args.out else sys.stdout
    count = 0
    try:
        for g in graphs:
            out.write(g + "\n")
            count += 1
        if args.out:
            out.close()
    except OSError as exc:
        if not args.out:
            raise
        # a full disk mid-way (at a write, or at the close that flushes the last lines)
        raise OutputPathError(f"cannot write to {args.out}: {exc.strerror or exc}; make room and run the "
                              f"command again (the file is incomplete)") from None
    finally:
        if args.out and not out.closed:
            try:
                out.close()
            except OSError:
                pass  # the write's error above is the one to report
    if args.out:
        print(f"wrote {count} graphs to {args.out}", file=sys.stderr)
    return 0


# ----------------------------------------------------------------------- run
def _print_check(study, as_json: bool) -> int:
    # per command: the parser starts without it (docs/ARCHITECTURE.md)
    from common.size import check_memory, format_bytes, format_count

    from .check import check_study

    c = check_study(study)
    # the run would refuse what does not fit: so does the check, with the same kind of line
    for v in c.variants:
        check_memory(f"flow of {v.largest.spec} ({format_count(v.largest.routers)} routers, "
                     f"{format_count(v.largest.demands)} demands)", v.memory_bytes, "use fewer routers or demands")
    if as_json:
        _print_json(c.to_dict())
    else:
        print(f"study {c.name!r}: valid; {len(c.variants)} variant(s); nothing was run")
        for v in c.variants:
            big = v.largest
            same = sum(len(x) for x in v.same_network.values())
            print(f"  {v.label}: {v.candidates} candidates" + (f" ({same} left out as the same network)" if same else "")
                  + f", machine {v.pes} PEs; largest flow problem {big.spec}: {format_count(big.routers)} routers, "
                  f"{format_count(big.channels)} channels, {format_count(big.demands)} demands, "
                  f"about {format_bytes(big.memory_bytes)}")
        solves = sum(v.candidates for v in c.variants) * c.flow_runs
        # no time: flows.size's guess, made on tori with uniform and random traffic, overstates local traffic
        # tenfold (the bgl-midplane study: 3.8 h guessed, 18 min with 2 jobs measured)
        print(f"flows: {format_count(solves)} solves (each candidate's capacity"
              + (f" and {c.latency_scales} latency scale(s)" if c.flow_runs > 1 else "") + ")")
        if c.searches:
            print(f"searches: {c.searches} (run first; their graphs join the pool, not sized here)")
        if c.simulated_winners:
            print(f"simulations: the top {c.simulated_winners} candidates"
                  + (" and the baseline" if c.baseline else "") + " (not sized here)")
    return 0


def default_out_dir(name: str) -> str:
    """``toposynth-NAME`` in the working directory: the study's name made one path component (a
    separator or a ``..`` in a name must not put the output anywhere else).

    >>> default_out_dir("x/../../escaped"), default_out_dir("bgl midplane")
    ('toposynth-x-..-..-escaped', 'toposynth-bgl midplane')
    """
    safe = "".join("-" if c in "/\\\0" or ord(c) < 32 else c for c in name)
    return f"toposynth-{safe}"


def cmd_run(args: argparse.Namespace) -> int:
    # per command: the parser starts without it (docs/ARCHITECTURE.md)
    from .answer import units
    from .runner import SweepStudyResult, run, simulation_threads
    from .study import builtin_study, load_study

    if args.study is None:
        study = builtin_study("default")
    elif args.study.startswith("builtin:"):
        study = builtin_study(args.study.split(":", 1)[1])
    else:
        study = load_study(args.study)
    if args.check:
        if args.threads is not None:
            simulation_threads(study, args.threads, 1)    # a bad --threads is a bad command line, checked or not
        return _print_check(study, args.json)
    out = args.out or default_out_dir(study.name)
    res = run(study, out, jobs=args.jobs, backend=args.backend, scheduler=args.scheduler, progress=not args.quiet,
              verbose=args.verbose or None, threads=args.threads)
    _check_something_ranked(res, out)
    if args.json:
        _print_json(res.to_dict())
        return 0
    if isinstance(res, SweepStudyResult):
        print(f"study {study.name!r}: {len(res.variants)} variants, {res.seconds:.1f} s"
              f"{compiletime.compile_note(res.compile_seconds)}")
        base = study.baseline
        for v in res.summary():
            lat = "-" if v["latency"] is None else f"{v['latency']:.4g}"
            g = v["capacity_gain"]
            vs = "" if g is None or base is None else \
                f" ({(g[0] - 1) * 100:+.1f}% capacity vs {base}, certified {(g[1] - 1) * 100:+.1f}% to {(g[2] - 1) * 100:+.1f}%)"
            print(f"  {v['variant']}: winner {v['winner']}{vs}, latency {lat}, best capacity {v['best_capacity']:.4g}")
        # each variant's answer in full (the summary line above is the sweep's table): a swept pattern or pin
        # count is a question of its own
        for label, variant in res.variants:
            print(f"{label}:")
            _print_answers(variant, indent="  ")
        print(f"report: {out}/report.html")
        return 0
    print(f"study {study.name!r}: {len(res.records)} candidates ({res.resumed} resumed), {res.seconds:.1f} s"
          f"{compiletime.compile_note(res.compile_seconds)}; machine: {res.pes} PEs")
    _print_answers(res)
    u = units(study)
    print(f"ranking ({res.pes} PEs; lambda in {u['capacity_short']}, latency in {u['latency_short']}):")
    for k, spec in enumerate(res.ranking[:10], 1):
        r = res.record(spec)
        assert r.capacity is not None and r.cost is not None  # ranked: ok, so evaluated in full (validate() checks a resumed one)
        extra = "".join(f", latency@{x.scale:g} {x.average_latency:.4g}" for x in r.latency[:2]
                        if x.average_latency is not None)
        tie = f"; a tie with {res.ties[spec]} (certified intervals overlap)" if spec in res.ties else ""
        print(f"  {k:>2}. {spec}: lambda {r.capacity.lam:.4g}{extra}; {r.cost.links} links, radix {r.cost.radix}{tie}")
    for pes, ranked in res.classes.items():
        if pes != res.pes:
            print(f"other size ({pes} PEs, ranked apart): " + ", ".join(ranked[:5]) + (" ..." if len(ranked) > 5 else ""))
    for c in res.cross_check:
        print(f"  LP check {c['spec']}: PTAS {c['ptas_lambda']:.5g}, LP {c['lp_lambda']:.5g} "
              f"({'within eps' if c['within_eps'] else 'NOT within eps'})")
    print(f"report: {out}/report.html")
    return 0


def _check_something_ranked(res, out: str) -> None:
    """A study none of whose machine's candidates could be evaluated has no
    answer: say why (the first reasons), not a ranking that is empty."""
    # per command: the parser starts without it (docs/ARCHITECTURE.md)
    from .errors import StudyError

    results = [res] if not hasattr(res, "variants") else [r for _, r in res.variants]
    for r in results:
        if r.ranking:
            continue
        failed = [x for x in r.records if not x.ok]
        why = "; ".join(f"{x.spec}: {x.status}: {x.reason}" for x in failed[:2])
        more = f" (and {len(failed) - 2} more)" if len(failed) > 2 else ""
        raise StudyError(f"no candidate of the {r.pes}-PE machine could be evaluated: {why}{more}; "
                         f"the records are in {out}/records.jsonl")


def _print_answers(res, indent: str = "") -> None:
    # per command: the parser starts without it (docs/ARCHITECTURE.md)
    from .answer import units

    u = units(res.study)
    for a in res.answers:
        if a.label == "best":
            head = "answer: "
        elif a.label.startswith("at the baseline"):
            head = f"at the baseline's cost ({a.cost_measure} <= {a.baseline_cost.get(a.cost_measure):g}): "
        else:
            head = f"{a.label}: "
        print(textwrap.fill(head + a.sentence(u), width=110, initial_indent=indent,
                            subsequent_indent=indent + "    "))


def cmd_studies(args: argparse.Namespace) -> int:
    # per command: the parser starts without it (docs/ARCHITECTURE.md)
    from .study import BUILTIN_STUDIES, builtin_study
    from .toml_out import dumps, prune

    if args.show:
        # the validated study, every default spelled out: a file to start from
        study = builtin_study(args.show)
        print(f"# built-in study {args.show!r}; run it with: toposynth run FILE.toml --out DIR")
        print(dumps(prune(study.to_dict())), end="")
        return 0
    if args.json:
        _print_json(BUILTIN_STUDIES)
        return 0

    for name, d in BUILTIN_STUDIES.items():
        print(name)
        print(textwrap.fill(d.get("description", ""), width=100, initial_indent="    ", subsequent_indent="    "))
    print("\nRun one with: toposynth run builtin:NAME --out DIR; start a study file from one with: "
          "toposynth studies --show NAME > my-study.toml")
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    # per command: the parser starts without it (docs/ARCHITECTURE.md)
    from .report import render_report

    print(render_report(args.dir))
    return 0


# ------------------------------------------------------------------ families
def cmd_families(args: argparse.Namespace) -> int:
    # per command: the parser starts without it (docs/ARCHITECTURE.md)
    from candidates import families

    fams = families()
    if args.json:
        _print_json([f.to_dict() for f in fams])
        return 0
    for f in fams:
        params = "; ".join(f"{k}: {v}" for k, v in f.parameters)
        print(f"{f.name:<10} {f.summary}")
        print(f"{'':<10} parameters: {params}")
        print(f"{'':<10} example:    {f.example}")
        c = f.capabilities
        how = []
        if c.records:
            how.append(f"routing records ({c.records} rule{', ties' if c.ties else ''}): dor and adaptive, no tables")
        if c.twin:
            how.append("twin-torus routings (ts-dor and its classes)")
        if c.routes:
            how.append("its own " + " and ".join(sorted(c.routes)) + " routes (next-hop tables)")
        if c.intermediates is not None:
            how.append("valiant/ugal through its own intermediate points")
        if c.updown_minimal:
            how.append("minimal is up/down, deadlock-free")
        if c.auto_routing:
            how.append(f"auto = {c.auto_routing}")
        if how:
            print(f"{'':<10} routing:    {'; '.join(how)}")
    print("\nAny spec may end in :c=N for N processing elements on every router that carries any "
          "(a fat tree's aggregation and core switches carry none).")
    return 0


# ---------------------------------------------------------------------- main
def _version() -> str:
    """The installed distribution's version (a source tree on PYTHONPATH without an install: "unknown")."""
    try:
        return importlib.metadata.version("toposynth")
    except importlib.metadata.PackageNotFoundError:
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="toposynth",
        description="Optimization-based synthesis of interconnection topologies.",
    )
    p.add_argument("--version", action="version", version=f"toposynth {_version()}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    d = sub.add_parser("describe", help="analytic properties of a topology")
    d.add_argument("spec", nargs="?", default=DEFAULT_SPEC, help=f"topology spec (default {DEFAULT_SPEC}); see `toposynth families`")
    d.add_argument("--exact-bisection", type=int, default=24, metavar="N",
                   help="largest router count for the exhaustive bisection (default 24)")
    d.add_argument("--equivalent", choices=("minimal", "updown"),
                   help="also the equivalent distance (effective resistance over the routing's shortest routes)")
    d.add_argument("--json", action="store_true", help="print JSON")
    d.set_defaults(func=cmd_describe)

    e = sub.add_parser("enumerate", help="every connected graph of N nodes and maximum degree D, up to isomorphism (graph6)")
    e.add_argument("--nodes", type=int, required=True, metavar="N")
    e.add_argument("--max-degree", type=int, required=True, metavar="D")
    e.add_argument("--min-degree", type=int, default=0, metavar="d")
    e.add_argument("--exact-max-degree", action="store_true", help="the maximum degree must equal D")
    e.add_argument("--regular", action="store_true", help="every node has degree D")
    e.add_argument("--disconnected", action="store_true", help="include disconnected graphs")
    e.add_argument("--count", action="store_true", help="print the number of graphs only")
    e.add_argument("--out", metavar="FILE", help="write graph6 lines to FILE")
    e.add_argument("--json", action="store_true", help="print JSON")
    e.set_defaults(func=cmd_enumerate)

    fl = sub.add_parser("flow", help="maximum concurrent flow (capacity) or minimum latency of a topology")
    fl.add_argument("spec", help="topology spec")
    g = fl.add_mutually_exclusive_group()
    g.add_argument("--traffic", default="uniform",
                   help="uniform (every PE sends one unit over the others; lambda = injection rate), random:COUNT, "
                        "local:COUNT[:S0,S1,S2] (random with shares per packaging level; default 0.4,0.5,0.1), "
                        "app:KERNEL[:CLASS] (a NAS skeleton) or any pattern of `toposynth simulate --traffic` (bitreversal, "
                        "hotregion:fraction=0.5, ...; also spelled sim:NAME); as a study's [traffic]")
    g.add_argument("--demands", metavar="FILE.csv", help="demands as CSV with header src,dst,amount")
    fl.add_argument("--scale", type=float, default=1.0, help="multiply every demand (default 1)")
    fl.add_argument("--eps", type=float, default=defaults.EPS,
                    help=f"certified relative gap wanted (default {defaults.EPS:g}; 0 = exact, for colgen/lp/pdlp/auto)")
    fl.add_argument("--solver", choices=("auto", "ptas", "colgen", "lp", "pdlp", "symmetry", "deviation", "both"),
                    default="auto",
                    help="auto (default): uniform traffic on a lattice family by symmetry, else column generation "
                         "(the exact LP under 24 routers; the PTAS for more than 16 demands per router, at eps >= "
                         "0.02); ptas; colgen (path-based column generation, exact with --eps 0); "
                         "lp (HiGHS interior point, exact); pdlp (HiGHS PDLP, bound re-priced); "
                         "symmetry (uniform traffic, exactly, by the topology's symmetry); deviation (flow deviation: "
                         "the latency under --load-model queueing, auto's choice there); both (ptas beside lp)")
    fl.add_argument("--max-phases", type=_phase_budget, default=100000, metavar="N",
                    help="PTAS phase budget (default 100000); a run it stops above eps exits with status 4")
    fl.add_argument("--latency", action="store_true", help="minimum average latency at the given demand (one per hop; ns with --packaging)")
    fl.add_argument("--load-model", choices=("linear", "queueing"), default="linear",
                    help="the latency's load model: linear (default; router and wire delay per unit of flow, the "
                         "same at every load) or queueing (plus Kleinrock's wait tau rho / (1 - rho) on every "
                         "channel: latency grows with load)")
    fl.add_argument("--service", type=float, metavar="S",
                    help="queueing: a packet's service time on one unit of capacity, in the latency's units "
                         "(default 1 hop; with --packaging bgl a 256-byte packet on one wire, 1462.9 ns)")
    fl.add_argument("--variability", type=float, default=1.0, metavar="CV2",
                    help="queueing: squared coefficient of variation of the service time (default 1: M/M/1, "
                         "Kleinrock's; 0: fixed-size packets, M/D/1, half the wait)")
    fl.add_argument("--terminals", action="store_true",
                    help="queueing: also charge the wait of the PEs' own injection and ejection channels (one "
                         "phit/cycle each; plain topologies)")
    fl.add_argument("--curve", type=int, nargs="?", const=20, metavar="N",
                    help="print the latency-throughput curve: the minimum average latency at N demand scales "
                         "(default 20) evenly spaced up to --up-to of the capacity (implies --latency)")
    fl.add_argument("--up-to", type=float, default=0.95, metavar="F",
                    help="--curve's last point, a fraction of the capacity lambda (default 0.95)")
    fl.add_argument("--seed", type=seed_arg, default=0, help="seed of random traffic")
    fl.add_argument("--packaging", choices=("bgl",),
                    help="price wires with a packaging preset (bgl: Blue Gene/L compute card / node card / midplane); "
                         "flow in wires, latency in ns")
    fl.add_argument("--wiring", choices=("flexible", "uniform"), default="flexible",
                    help="flexible: the flow decides each link's wires; uniform: resources split equally up front")
    fl.add_argument("--blocks", metavar="B0,B1,...",
                    help="place a lattice in nested blocks, innermost first (Blue Gene/L: 1x1x2,4x4x2,8x8x8)")
    fl.add_argument("--connector-pins", action="append", metavar="LEVEL=PINS",
                    help="connector pins of every unit of a packaging level (repeatable), e.g. node_card=240")
    fl.add_argument("--progress", action="store_true",
                    help="progress lines on stderr every 5 s (default when stderr is a terminal)")
    fl.add_argument("--json", action="store_true", help="print JSON")
    fl.set_defaults(func=cmd_flow)

    r = sub.add_parser("run", help="run a study: candidates -> ranking -> LP cross-check -> report")
    r.add_argument("study", nargs="?", help="study TOML file, or builtin:NAME (default: the built-in default study)")
    r.add_argument("--out", metavar="DIR", help="output directory (default toposynth-STUDYNAME); reruns resume")
    r.add_argument("--jobs", type=int, help="parallel evaluations: loky processes, or the workers of a local "
                                            "dask cluster (default 1, or the study's dask.workers)")
    r.add_argument("--threads", type=int,
                   help="threads of each simulation of the winners (the numbers do not depend on it; default: "
                        "the cores shared among the --jobs workers for networks of 4,096 routers or more, else "
                        "1; 1 on a remote dask cluster)")
    r.add_argument("--backend", choices=("loky", "dask"),
                   help="loky (default) or dask (the default with --scheduler or a [dask] section in the study)")
    r.add_argument("--scheduler", metavar="ADDR",
                   help="dask scheduler address tcp://HOST:PORT (default: the study's dask.scheduler, else a local "
                        "cluster of --jobs workers)")
    r.add_argument("--quiet", action="store_true", help="no progress lines")
    r.add_argument("--verbose", action="store_true",
                   help="let the dask cluster's log messages through (also TOPOSYNTH_VERBOSE=1)")
    r.add_argument("--json", action="store_true", help="print the results as JSON")
    r.add_argument("--check", action="store_true",
                   help="validate the study and size it (candidates, machine, each flow problem's memory and a "
                        "rough time) without running anything; exit 0 when it would run")
    r.set_defaults(func=cmd_run)

    st = sub.add_parser("studies", help="the built-in studies")
    st.add_argument("--show", metavar="NAME", help="print the built-in study NAME as a TOML file to start from")
    st.add_argument("--json", action="store_true")
    st.set_defaults(func=cmd_studies)

    rp = sub.add_parser("report", help="re-render DIR/report.html from DIR/results.json")
    rp.add_argument("dir")
    rp.set_defaults(func=cmd_report)

    # per command: the parser starts without it (docs/ARCHITECTURE.md)
    from sim.cli import add_subcommand as add_simulate

    add_simulate(sub)

    # per command: the parser starts without it (docs/ARCHITECTURE.md)
    from .search_cli import add_subcommand as add_search

    add_search(sub)

    f = sub.add_parser("families", help="the registry of topology families")
    f.add_argument("--json", action="store_true", help="print JSON")
    f.set_defaults(func=cmd_families)
    return p


def _phase_budget(text: str) -> int:
    """``--max-phases``, checked where it is parsed: a budget the chosen solver ignores is still a typo to say."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None
    if not 1 <= n <= 2**62:      # the PTAS counts phases in int64
        raise argparse.ArgumentTypeError(f"must be an integer in 1..2**62, got {text}")
    return n


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    # the notice before a first compile is a progress line: not where progress lines are not wanted
    compiletime.set_notices(not (getattr(args, "quiet", False) or getattr(args, "json", False)))
    try:
        return int(args.func(args) or 0)
    except ToposynthError as exc:
        print(f"toposynth: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        hint = ""
        if getattr(args, "command", None) == "run":
            hint = "; finished candidates are kept: rerun the same command to resume"
        print(f"toposynth: interrupted{hint}", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
