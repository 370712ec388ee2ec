"""toposynth's BookSim2 router model beside BookSim2 itself, on a few small networks.

The ``booksim`` preset of the simulator (``sim.preset("booksim")``: ``SimConfig(router="iq")``, BookSim2's
input-queued virtual-channel router with its pipeline delays, allocators and measurement) is meant to give
BookSim2's numbers. For each case (an 8x8 torus or mesh, dimension-order routing, a traffic pattern) the
script simulates the mean packet latency, from a packet's creation to its tail's arrival, at three loads:

* zero load (0.005 flits/node/cycle, with BookSim2's sample period of 10000 cycles), the first seed;
* 50% and 80% of BookSim2's saturation load, averaged over the seeds BookSim2's figures used;

and sets it beside BookSim2's figure at the same load and seeds, with the tolerances of
``benchmarks/bench_booksim.py``: 2% at zero load, 5% at the two loads.

BookSim2's figures come from ``benchmarks/booksim_reference.json`` (recorded by ``bench_booksim.py
--reference-only``, with the loads and seeds used here), or, given a BookSim2 binary (``--booksim PATH``,
or the environment variable ``BOOKSIM``; build one from BookSim2's sources, ``make`` in its ``src``), from
BookSim2 run alongside on the same configurations. The first line of the output says which.

Run it from the repository's root::

    python examples/booksim_comparison.py
    python examples/booksim_comparison.py --cases torus8x8-dor-vc2-p16-uniform
    python examples/booksim_comparison.py --booksim ~/booksim2/src/booksim

A few seconds once numba's kernels are compiled and cached (BookSim2 run alongside adds about a second a
run).
"""

import argparse
import json
import os
import re
import subprocess
import tempfile
from pathlib import Path
from statistics import fmean

import candidates as cd
import sim

REFERENCE = Path(__file__).resolve().parents[1] / "benchmarks" / "booksim_reference.json"
CASES = "torus8x8-dor-vc2-p1-uniform,mesh8x8-dor-vc2-p1-uniform,torus8x8-dor-vc2-p1-tornado,mesh8x8-dor-vc2-p4-uniform"
#: the tolerances of benchmarks/bench_booksim.py
TOLERANCE = {"zero_load": 0.02, "latency_50": 0.05, "latency_80": 0.05}
POINTS = {"zero_load": "zero load", "latency_50": "50% sat.", "latency_80": "80% sat."}
#: BookSim2's names of patterns and routings, and toposynth's (BookSim2's `neighbor` is toposynth's `diagonal`)
PATTERN = {"uniform": "uniform", "bitcomp": "bitcomplement", "transpose": "transpose", "tornado": "tornado",
           "shuffle": "shuffle", "neighbor": "diagonal"}
ROUTING = {"dim_order": "dor", "min_adapt": "min_adapt"}
ZERO_LOAD_SAMPLE_PERIOD = 10000


def toposynth_latency(case, load, seed, sample_period=None):
    """toposynth's mean packet latency (creation to tail arrival) of ``case`` at ``load``."""
    topo = cd.from_spec(f"{case['topology']}:" + "x".join([str(case["k"])] * case["n"]))   # torus:8x8, mesh:8x8x8
    config = sim.preset("booksim", vcs=case["num_vcs"], packet_length=case["packet_size"],
                        buffer_flits=case["vc_buf_size"], routing=ROUTING[case["routing"]])
    if sample_period is not None:
        config = config.replace(sample_period=sample_period)
    result = sim.simulate(topo, config, PATTERN[case["traffic"]], load, seed=seed)
    return result.latency_generation if result.stable else None


def booksim_config(case, load, seed, sample_period=None):
    """BookSim2's configuration of ``case`` at ``load`` flits/node/cycle (everything else its defaults)."""
    lines = [f"topology = {case['topology']};", f"k = {case['k']};", f"n = {case['n']};",
             f"routing_function = {case['routing']};", f"num_vcs = {case['num_vcs']};",
             f"vc_buf_size = {case['vc_buf_size']};", f"packet_size = {case['packet_size']};",
             f"traffic = {case['traffic']};", "injection_rate_uses_flits = 1;", f"injection_rate = {load:.6g};",
             f"seed = {seed};"]
    if sample_period is not None:
        lines.append(f"sample_period = {sample_period};")
    return "\n".join(lines) + "\n"


def booksim_latency(binary, case, load, seed, sample_period=None):
    """BookSim2's "Packet latency average" of its overall statistics (None: it found the run unstable)."""
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "config"
        config.write_text(booksim_config(case, load, seed, sample_period))
        run = subprocess.run([binary, str(config)], capture_output=True, text=True, cwd=tmp)
    if "Simulation unstable" in run.stdout:
        return None
    overall = run.stdout.partition("====== Overall Traffic Statistics ======")[2]
    found = re.search(r"Packet latency average = ([0-9.eE+-]+)", overall)
    if found is None:
        raise SystemExit(f"BookSim2 printed no overall statistics (exit status {run.returncode})")
    return float(found.group(1))


def mean(values):
    return None if None in values else fmean(values)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--booksim", metavar="PATH", default=os.environ.get("BOOKSIM"),
                    help="a BookSim2 binary to run alongside (default: the environment variable BOOKSIM; "
                         "without one, BookSim2's recorded figures)")
    ap.add_argument("--cases", default=CASES,
                    help=f"comma-separated case names of the reference file (default {CASES})")
    args = ap.parse_args(argv)

    reference = json.loads(REFERENCE.read_text())
    if args.booksim:
        print(f"BookSim2: run alongside ({args.booksim}), on the loads and seeds of {REFERENCE.name}")
    else:
        print(f"BookSim2: the figures recorded in benchmarks/{REFERENCE.name} (BookSim2 "
              f"{reference['booksim_commit']}, {reference['generated']}); --booksim PATH runs it instead")
    print("mean packet latency in cycles, creation to tail arrival; loads in flits/node/cycle")
    print(f"{'case':<30} {'point':<10} {'load':>8} {'seeds':>5} {'BookSim2':>9} {'toposynth':>9} {'ratio':>6}  within")

    within = total = 0
    for name in args.cases.split(","):
        recorded = reference["cases"][name]
        case = recorded["config"]
        for point, label in POINTS.items():
            figure = recorded[point]
            load = figure["load"]
            # the zero-load figure is the first seed's; the others the mean over the recorded seeds
            seeds = figure.get("seeds", recorded["seeds"])[:len(figure["per_seed"])]
            period = ZERO_LOAD_SAMPLE_PERIOD if point == "zero_load" else None
            ours = mean([toposynth_latency(case, load, seed, period) for seed in seeds])
            if args.booksim:
                theirs = mean([booksim_latency(args.booksim, case, load, seed, period) for seed in seeds])
            else:
                theirs = figure["mean"]
            if ours is None or theirs is None:
                ratio, ok = "", False
                row = f"{'unstable' if theirs is None else theirs:>9} {'unstable' if ours is None else ours:>9}"
            else:
                ratio, ok = f"{ours / theirs:6.3f}", abs(ours / theirs - 1) <= TOLERANCE[point]
                row = f"{theirs:9.2f} {ours:9.2f}"
            within += ok
            total += 1
            print(f"{name:<30} {label:<10} {load:8.4f} {len(seeds):5d} {row} {ratio:>6}  "
                  f"{'yes' if ok else 'NO'} ({TOLERANCE[point]:.0%})")
    print(f"{within} of {total} points within tolerance")
    return 0 if within == total else 1


if __name__ == "__main__":
    raise SystemExit(main())
