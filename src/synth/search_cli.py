"""The ``toposynth search`` subcommand: the best graph of N routers of degree D.

>>> import argparse
>>> p = argparse.ArgumentParser(prog="toposynth")
>>> _ = add_subcommand(p.add_subparsers(dest="command"))
>>> a = p.parse_args(["search", "--routers", "64", "--degree", "4", "--moves", "1000", "--json"])
>>> a.func is cmd_search, a.routers, a.degree, a.objective   # None: aspl, or physical with --packaging
(True, 64, 4, None)
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from candidates.errors import SpecError
from common.compiletime import compile_note
from common.errors import EXIT_BAD_INPUT, EXIT_INTERRUPTED, EXIT_OK, OutputPathError, seed_arg
from common.paths import atomic_write_text, check_out_file

__all__ = ["add_subcommand", "cmd_search", "DEFAULT_MOVES"]

#: moves per restart when neither --moves nor --time is given
DEFAULT_MOVES = 100_000


def add_subcommand(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``search`` on an argparse subparsers object."""
    # per command: the parser starts without it (docs/ARCHITECTURE.md)
    from candidates.search import OBJECTIVES

    s = subparsers.add_parser(
        "search", help="search for the best graph of N routers with D ports (simulated annealing)",
        description="Search for the best network of --routers routers with --degree ports each: simulated annealing "
                    "over random graphs by degree-preserving link swaps, scored by bit-parallel all-pairs BFS. The "
                    "same seed and --moves give the same graph on any machine and with any --jobs.")
    s.add_argument("--routers", type=int, required=True, metavar="N", help="router count")
    s.add_argument("--degree", type=int, required=True, metavar="D", help="network ports per router")
    s.add_argument("--objective", default=None, choices=list(OBJECTIVES),
                   help="aspl (default without --packaging: diameter, then average distance), throughput (uniform "
                        "capacity: the busiest link of an even shortest-path split; the finalists certified by a flow "
                        "solver), mix, or physical (default with --packaging: the busiest board cross-section, "
                        "connector or router pin set of an even split of --traffic; the finalists certified by the "
                        "physical flow)")
    s.add_argument("--weight", type=float, default=None,
                   help="the share of latency: mix (default 0.5), physical (default 0: capacity alone)")
    s.add_argument("--seed", type=seed_arg, default=0, help="random seed (default 0)")
    s.add_argument("--moves", type=int, help=f"moves per restart (default {DEFAULT_MOVES} unless --time is given)")
    s.add_argument("--time", type=float, metavar="SECONDS",
                   help="wall time per restart: alone, the search runs on the clock (not reproducible); "
                        "with --moves, it stops a restart early")
    s.add_argument("--restarts", type=int, default=1, help="independent restarts, the best kept (default 1)")
    s.add_argument("--jobs", type=int, default=1, help="restarts run at once (loky processes or dask workers)")
    s.add_argument("--backend", choices=("loky", "dask"), default="loky", help="where restarts run (default loky)")
    s.add_argument("--scheduler", metavar="ADDR", help="dask scheduler tcp://HOST:PORT (implies --backend dask)")
    s.add_argument("--symmetry", default="auto", metavar="G|auto",
                   help="search graphs invariant under x -> x + N/G (a lift over the cyclic group of order G: G times "
                        "less work per move); 1: none; auto (default): the largest G of 4 or more leaving at least 16 base routers")
    s.add_argument("--irregular", action="store_true",
                   help="at most --degree links per router (links may be added and removed); default: every port used")
    s.add_argument("--fixed", metavar="SPEC", help="keep this topology's links (same router count, e.g. torus:8x8x8) "
                                                  "and search the remaining ports")
    s.add_argument("--start", metavar="SPEC",
                   help="start from this topology instead of a random graph (at most --routers routers; the routers "
                        "it lacks and its free ports are joined by splitting its links), e.g. affinepolar:q=32")
    s.add_argument("--temperature", type=float, default=1.0,
                   help="first temperature as a multiple of the calibrated one (default 1; below 1 polishes a --start "
                        "graph rather than scrambling it, e.g. 0.01)")
    s.add_argument("--pes", type=int, default=1, help="processing elements per router of the result (default 1)")
    pl = s.add_argument_group("placement and packaging (links that fit the machine)")
    pl.add_argument("--grid", metavar="CxR", help="routers on a grid of C columns and R rows, unit spacing: router i at "
                                                 "(i mod C, i div C); C x R = --routers")
    pl.add_argument("--max-length", type=float, metavar="L",
                    help="links at most L long: grid units between grid points (--metric), or metres of wire as the "
                         "physical model measures it with --packaging")
    pl.add_argument("--metric", choices=("euclidean", "manhattan"), default="euclidean",
                    help="--max-length on a --grid: euclidean (default) or manhattan")
    pl.add_argument("--packaging", metavar="bgl|FILE.toml",
                    help="price links by a packaging: bgl (Blue Gene/L compute card / node card / midplane), or a "
                         "TOML file with a study's [physical] table (packaging = \"custom\", boards = [...])")
    pl.add_argument("--blocks", metavar="B0,B1,...",
                    help="the routers in nested blocks of a lattice box, innermost first (router i at the i-th point "
                         "of the last block in C order); default with bgl and 512 routers: 1x1x2,4x4x2,8x8x8")
    pl.add_argument("--connector-pins", action="append", metavar="LEVEL=PINS",
                    help="connector pins of every unit of a packaging level (repeatable), e.g. node_card=240")
    pl.add_argument("--wiring", choices=("flexible", "uniform"), default="flexible",
                    help="flexible (default): the flow decides each link's wires; uniform: resources split equally")
    pl.add_argument("--traffic", default="uniform",
                    help="what the physical objective carries: uniform (default), random:COUNT or "
                         "local:COUNT[:S0,S1,S2] (shares per packaging level), seeded by --seed; as a study's [traffic]")
    s.add_argument("--capacity", action=argparse.BooleanOptionalAction, default=None,
                   help="certify every restart's uniform capacity with a flow solver and keep the best (default: "
                        "with the throughput and mix objectives)")
    s.add_argument("--eps", type=float, default=0.01, help="certified gap of --capacity (default 0.01)")
    s.add_argument("--out", metavar="FILE", help="write the graph: .graphml (with its provenance), .g6 (provenance "
                                                 "beside it in FILE.json), .json or .edges")
    s.add_argument("--checkpoint", metavar="DIR",
                   help="keep the restarts' state here (default FILE.checkpoint with --out): rerunning the same "
                        "command resumes an interrupted search")
    s.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="progress lines on stderr every 5 s (default when stderr is a terminal)")
    s.add_argument("--json", action="store_true", help="print JSON")
    s.set_defaults(func=cmd_search)
    return s


def _symmetry(text: str) -> int | str:
    if text == "auto":
        return "auto"
    try:
        return int(text)
    except ValueError:
        raise SpecError(f"--symmetry takes a group order (an integer dividing --routers) or auto, got {text!r}") from None


def _print_progress(p: dict[str, Any]) -> None:
    target = f"/{p['target']:,}" if p.get("target") else ""
    print(f"toposynth: restart {p['restart']}: {p['seconds']:.0f} s, {p['moves']:,}{target} moves "
          f"({p['moves_per_second']:,.0f}/s): diameter {p['diameter']} (Moore {p['moore_diameter']}), "
          f"ASPL {p['aspl']:.4f} (Moore {p['moore_aspl']:.4f}, gap {100 * p['moore_gap']:.2f}%)",
          file=sys.stderr, flush=True)


def _write_graph(topo, path: Path, provenance: dict[str, Any]) -> None:
    # per command: the parser starts without it (docs/ARCHITECTURE.md)
    from candidates import write_topology

    try:
        write_topology(topo, path)
        if path.suffix.lower() == ".g6":
            atomic_write_text(path.with_name(path.name + ".json"), json.dumps(provenance, indent=1) + "\n")
    except OSError as exc:  # checked writable up front; a full disk shows only now
        raise OutputPathError(f"cannot write --out {path}: {exc.strerror or exc}; make room or choose another "
                              f"--out, then rerun the same command (its checkpoint keeps the search's result)") from None


def _placement(args: argparse.Namespace, start=None):
    """The layout, physical model and demands the options describe (all None
    without them); under a packaging without --blocks, a --start topology's
    own placement when it has one (a Blue Gene/L composition's cards)."""
    # per command: the parser starts without it (docs/ARCHITECTURE.md)
    import numpy as np

    from candidates import mesh
    from candidates.search.layout import Layout, box_layout, grid_layout

    from .workload import Traffic, physical_from_options

    n = args.routers
    if args.grid and (args.packaging or args.blocks):
        raise SpecError("--grid places routers on a chip; --packaging and --blocks place them on boards: give one")
    if args.packaging is None:
        if args.connector_pins or args.wiring != "flexible" or args.traffic != "uniform":
            raise SpecError("--connector-pins, --wiring and --traffic need --packaging")
        if args.blocks:
            raise SpecError("--blocks places routers on a packaging's boards: give --packaging too")
    layout = None
    if args.grid:
        try:
            cols, rows = (int(x) for x in args.grid.lower().split("x"))
        except ValueError:
            raise SpecError(f"--grid needs COLUMNSxROWS, e.g. 5x4, got {args.grid!r}") from None
        if cols * rows != n:
            raise SpecError(f"--grid {args.grid} holds {cols * rows} routers, --routers is {n}")
        layout = grid_layout(cols, rows)
    if args.max_length is not None and layout is None and args.packaging is None:
        raise SpecError("--max-length needs the routers' positions: --grid CxR, or --packaging with --blocks")
    if args.packaging is None:
        return layout, None, None
    blocks = args.blocks
    own = start is not None and start.placement is not None and start.n == n and blocks is None
    if blocks is None and args.packaging == "bgl" and n == 512 and not own:
        blocks = "1x1x2,4x4x2,8x8x8"
    physical = physical_from_options(args.packaging, args.wiring, blocks, args.connector_pins, errors=SpecError)
    traffic = Traffic.parse(args.traffic, seed=args.seed)
    if own:
        pk, _ = physical.packaging_and_technology()
        for level in start.placement.levels:
            pk.board(level)      # every level of the start's placement must be a board of the packaging
        layout = Layout(start.coords if start.coords is not None else np.zeros((n, 1), np.int64),
                        start.shape or (n,), start.placement, name=f"the placement of {start.spec or 'the start'}")
        return layout, physical, None if traffic.pattern == "uniform" else traffic.demands(start)
    if not physical.blocks:
        raise SpecError("--packaging needs the routers' blocks: --blocks B0,B1,... (innermost first), the last "
                        f"holding all {n} routers")
    box = physical.blocks[-1]
    if int(np.prod(box)) != n:
        raise SpecError(f"the outermost block {'x'.join(map(str, box))} holds {int(np.prod(box))} routers, "
                        f"--routers is {n}")
    placed = physical.place(mesh(box))
    layout = box_layout(box, placed.placement)
    demands = None if traffic.pattern == "uniform" else traffic.demands(placed)
    return layout, physical, demands


def _longest_link(topo, layout, physical) -> str:
    # per command: the parser starts without it (docs/ARCHITECTURE.md)
    import numpy as np

    if physical is not None:
        # per command: the parser starts without it (docs/ARCHITECTURE.md)
        from flows.physical import link_lengths

        pk, _ = physical.packaging_and_technology()
        return f"{link_lengths(layout.placement, pk, topo.links[:, 0], topo.links[:, 1]).max():.3f} m of wire"
    xy = layout.coords.astype(float)
    d = xy[topo.links[:, 0]] - xy[topo.links[:, 1]]
    return f"{float(np.sqrt((d ** 2).sum(axis=1)).max()):.4g} (euclidean, grid units)"


def cmd_search(args: argparse.Namespace) -> int:
    # per command: the parser starts without it (docs/ARCHITECTURE.md)
    from candidates import from_spec
    from synth.backends import NoWorkers
    from synth.search import search

    if args.pes < 1:
        raise SpecError(f"--pes must be at least 1, got {args.pes}")
    if args.time is not None and not args.time > 0:
        raise SpecError(f"--time must be a positive number of seconds, got {args.time}")
    if args.moves is not None and args.moves < 1:
        raise SpecError(f"--moves must be at least 1 (a budget of 0 moves searches nothing), got {args.moves}")
    if args.restarts < 1:
        raise SpecError(f"--restarts must be at least 1, got {args.restarts}")
    if args.jobs < 1:
        raise SpecError(f"--jobs must be at least 1, got {args.jobs}")
    moves = args.moves if args.moves is not None or args.time is not None else DEFAULT_MOVES
    from .study_search import check_search_budget  # the study's search entries take the same budget

    check_search_budget(moves, args.restarts, lambda key, msg: SpecError(f"--{key}: {msg}"))
    out = check_out_file(args.out) if args.out else None
    if out is not None and out.suffix.lower() not in (".graphml", ".g6", ".json", ".edges"):
        raise SpecError(f"--out {args.out}: the graph is written as .graphml, .g6, .json or .edges")
    checkpoint = args.checkpoint or (str(out) + ".checkpoint" if out is not None else None)
    fixed = from_spec(args.fixed) if args.fixed else None
    start = from_spec(args.start) if args.start else None
    layout, physical, demands = _placement(args, start)
    objective = args.objective or ("physical" if physical is not None else "aspl")
    backend = "dask" if args.scheduler else args.backend
    show = args.progress if args.progress is not None else sys.stderr.isatty()
    if show and args.jobs > args.restarts:
        print(f"toposynth: {args.restarts} restart(s) on {args.jobs} jobs: {args.jobs - args.restarts} job(s) idle; "
              "--restarts sets how many independent searches run", file=sys.stderr)
    try:
        outcome = search(args.routers, args.degree, objective=objective, weight=args.weight, seed=args.seed,
                         moves=moves, time_limit=args.time, restarts=args.restarts, symmetry=_symmetry(args.symmetry),
                         regular=not args.irregular, fixed=fixed, start=start, temperature=args.temperature,
                         jobs=args.jobs, backend=backend,
                         scheduler=args.scheduler, checkpoint=checkpoint, capacity=args.capacity, eps=args.eps,
                         progress=_print_progress if show else None, layout=layout, max_length=args.max_length,
                         metric=args.metric, physical=physical, demands=demands, pes=args.pes)
    except KeyboardInterrupt:
        where = f"; rerun the same command to resume from {checkpoint}" if checkpoint else ""
        print(f"toposynth: interrupted{where}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except NoWorkers as exc:
        where = f"; rerun the same command to resume from {checkpoint}" if checkpoint else ""
        print(f"toposynth: error: the search stopped: {exc}{where}", file=sys.stderr)
        return EXIT_BAD_INPUT
    r = outcome.result
    topo = r.topology.with_concentration(args.pes) if args.pes != 1 else r.topology
    d = outcome.to_dict()
    d["pes"] = args.pes
    d["out"] = str(out) if out is not None else None
    d["checkpoint"] = checkpoint
    d["moves_per_second"] = sum(x.moves for x in r.restarts) / max(r.cpu_seconds, 1e-9)
    if out is not None:
        _write_graph(topo, out, {k: v for k, v in d.items() if k != "restarts"})
    if args.json:
        json.dump(d, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return EXIT_OK
    gap = 100 * r.moore_gap
    print(f"best graph       {r.routers} routers of degree {r.degree}, {r.topology.num_links} links "
          f"(restart {r.best_restart} of {len(r.restarts)}; symmetry {r.symmetry})")
    print(f"diameter         {r.diameter}   (Moore bound {r.moore_diameter})")
    print(f"ASPL             {r.aspl:.4f}   (Moore bound {r.moore_aspl:.4f}; {gap:.2f}% above)")
    print(f"uniform capacity {r.split_throughput:.4g} by an even shortest-path split, at most {r.throughput_bound:.4g} "
          "(per router; one unit per link direction)")
    if r.split_physical is not None:
        print(f"under packaging  {r.split_physical:.4g} x the traffic by an even shortest-path split within the "
              f"packaging's wires ({physical.packaging}, {physical.wiring} wiring); its average latency "
              f"{r.split_latency:.4g} ns")
    if layout is not None:
        longest = _longest_link(r.topology, layout, physical)
        print(f"placement        {layout.name}; longest link {longest}")
    if outcome.not_certified:
        print(f"not certified    {outcome.not_certified}")
    if outcome.capacity is not None:
        c = outcome.capacity
        what = " (physical flow, wires)" if physical is not None else ""
        print(f"certified        lambda {c.lam:.6g}, upper bound {c.upper_bound:.6g} (gap {c.gap:.2g}, "
              f"{c.method}){what}")
    print(f"search           {r.moves:,} moves per restart, seed {r.seed}, objective {r.objective}: "
          f"{r.seconds:.1f} s wall, {r.cpu_seconds:.1f} s CPU"
          + compile_note(r.compile_seconds))
    if r.topology.spec:
        print(f"spec             {r.topology.spec}")
    if out is not None:
        print(f"written          {out}")
    return EXIT_OK
