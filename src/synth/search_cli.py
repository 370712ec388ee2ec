"""The ``toposynth search`` subcommand: the best graph of N routers of degree D.

>>> import argparse
>>> p = argparse.ArgumentParser(prog="toposynth")
>>> _ = add_subcommand(p.add_subparsers(dest="command"))
>>> a = p.parse_args(["search", "--routers", "64", "--degree", "4", "--moves", "1000", "--json"])
>>> a.func is cmd_search, a.routers, a.degree, a.objective
(True, 64, 4, 'aspl')
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from candidates.errors import EXIT_INTERRUPTED, EXIT_OK, SpecError
from candidates.paths import atomic_write_text, check_out_file

__all__ = ["add_subcommand", "cmd_search", "DEFAULT_MOVES"]

#: moves per restart when neither --moves nor --time is given
DEFAULT_MOVES = 100_000


def add_subcommand(subparsers: Any) -> argparse.ArgumentParser:
    """Register ``search`` on an argparse subparsers object."""
    from candidates.search import OBJECTIVES

    s = subparsers.add_parser(
        "search", help="search for the best graph of N routers with D ports (simulated annealing)",
        description="Search for the best network of --routers routers with --degree ports each: simulated annealing "
                    "over random graphs by degree-preserving link swaps, scored by bit-parallel all-pairs BFS. The "
                    "same seed and --moves give the same graph on any machine and with any --jobs.")
    s.add_argument("--routers", type=int, required=True, metavar="N", help="router count")
    s.add_argument("--degree", type=int, required=True, metavar="D", help="network ports per router")
    s.add_argument("--objective", default="aspl", choices=list(OBJECTIVES),
                   help="aspl (default: diameter, then average distance), throughput (uniform capacity: the busiest "
                        "link of an even shortest-path split; the finalists certified by a flow solver), or mix")
    s.add_argument("--weight", type=float, default=0.5, help="mix: the share of latency (default 0.5)")
    s.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
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
    from candidates import write_topology

    write_topology(topo, path)
    if path.suffix.lower() == ".g6":
        atomic_write_text(path.with_name(path.name + ".json"), json.dumps(provenance, indent=1) + "\n")


def cmd_search(args: argparse.Namespace) -> int:
    from synth.search import search

    from candidates import from_spec

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
    out = check_out_file(args.out) if args.out else None
    if out is not None and out.suffix.lower() not in (".graphml", ".g6", ".json", ".edges"):
        raise SpecError(f"--out {args.out}: the graph is written as .graphml, .g6, .json or .edges")
    checkpoint = args.checkpoint or (str(out) + ".checkpoint" if out is not None else None)
    fixed = from_spec(args.fixed) if args.fixed else None
    start = from_spec(args.start) if args.start else None
    backend = "dask" if args.scheduler else args.backend
    show = args.progress if args.progress is not None else sys.stderr.isatty()
    if show and args.jobs > args.restarts:
        print(f"toposynth: {args.restarts} restart(s) on {args.jobs} jobs: {args.jobs - args.restarts} job(s) idle; "
              "--restarts sets how many independent searches run", file=sys.stderr)
    try:
        outcome = search(args.routers, args.degree, objective=args.objective, weight=args.weight, seed=args.seed,
                         moves=moves, time_limit=args.time, restarts=args.restarts, symmetry=_symmetry(args.symmetry),
                         regular=not args.irregular, fixed=fixed, start=start, temperature=args.temperature,
                         jobs=args.jobs, backend=backend,
                         scheduler=args.scheduler, checkpoint=checkpoint, capacity=args.capacity, eps=args.eps,
                         progress=_print_progress if show else None)
    except KeyboardInterrupt:
        where = f"; rerun the same command to resume from {checkpoint}" if checkpoint else ""
        print(f"toposynth: interrupted{where}", file=sys.stderr)
        return EXIT_INTERRUPTED
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
    if outcome.capacity is not None:
        c = outcome.capacity
        print(f"certified        lambda {c.lam:.6g}, upper bound {c.upper_bound:.6g} (gap {c.gap:.2g}, {c.method})")
    print(f"search           {r.moves:,} moves per restart, seed {r.seed}, objective {r.objective}: "
          f"{r.seconds:.1f} s wall, {r.cpu_seconds:.1f} s CPU")
    if r.topology.spec:
        print(f"spec             {r.topology.spec}")
    if out is not None:
        print(f"written          {out}")
    return EXIT_OK
