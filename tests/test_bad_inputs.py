"""The table of bad inputs: every row is a command line (with the files it
needs), the exit status it must give and what its one message line must
say. Exit statuses: 2 bad input (one ``toposynth: error:`` line, no
traceback), 3 a simulation deadlocked, 4 a limit stopped the computation
short of its certified answer (the docs' exit-code reference, made from common.errors.EXIT_CODES); 0
for an input once refused or misread that must be accepted (its stdout is matched).

Rows run in-process through ``synth.cli.main`` in a scratch directory; the
few that need a process of their own (signals, killed workers) live in
tests/synth/test_backends.py.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

import pytest

from synth.cli import main

GRAPHML_DIRECTED_ONE_WAY = (
    b'<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph edgedefault="directed">'
    b'<node id="a"/><node id="b"/><node id="c"/><edge source="a" target="b"/><edge source="b" target="c"/>'
    b'<edge source="c" target="a"/></graph></graphml>'
)
GRAPHML_DIRECTED_BOTH_WAYS = (
    b'<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph edgedefault="directed">'
    b'<node id="a"/><node id="b"/><node id="c"/><edge source="a" target="b"/><edge source="b" target="a"/>'
    b'<edge source="b" target="c"/><edge source="c" target="b"/></graph></graphml>'
)
SMALL = b"[candidates]\nspecs = ['ring:8', 'complete:8']\n"


def _conflicting_log() -> tuple[bytes, bytes]:
    """A study and a record log holding two different records of one candidate (pruned records: no flow
    solved to write them), in the study's fingerprint."""
    import json
    import tomllib

    from synth.study import study_from_dict

    study = SMALL + b"max_degree = 2\n"
    fp = study_from_dict(tomllib.loads(study.decode())).fingerprint()
    rec = {"spec": "complete:8", "status": "pruned", "routers": 8, "pes": 8, "links": 28, "max_degree": 7,
           "radix": 8, "family": "complete", "wiring": None,
           "cost": {"routers": 8, "pes": 8, "radix": 8, "ports": 64, "links": 28, "wire_length": None, "wires": None,
                    "pins": None, "cables": None, "longest_link": None},
           "reason": "router degree 7 > max_degree 2", "seconds": 0.001, "compile_seconds": 0, "fingerprint": fp}
    other = {**rec, "reason": "router degree 6 > max_degree 2"}
    return study, (json.dumps(rec) + "\n" + json.dumps(other) + "\n").encode()


CONFLICT_STUDY, CONFLICT_LOG = _conflicting_log()


@dataclass
class Row:
    id: str
    argv: list[str]
    rc: int
    says: str  # a regular expression the message line must match
    files: dict[str, bytes] = field(default_factory=dict)
    dirs: tuple[str, ...] = ()


ROWS = [
    # ---- topology specs
    Row("unknown family", ["describe", "nosuch:4"], 2, r"unknown topology family 'nosuch'; valid families: torus"),
    Row("zero size", ["describe", "torus:0x4"], 2, r"shape sizes must be positive"),
    Row("non-integer size", ["describe", "torus:4xa"], 2, r"sizes joined by 'x'"),
    Row("missing shape", ["describe", "torus:"], 2, r"torus needs shape; example"),
    Row("ring too small", ["describe", "ring:1"], 2, r"at least 3 routers, got 1"),
    Row("rtt a=0", ["describe", "rtt:a=0"], 2, r"a >= 2, got a=0"),
    Row("unknown parameter", ["describe", "ring:8:foo=1"], 2, r"ring does not take parameter 'foo'; it takes: n"),
    Row("concentration 0", ["describe", "torus:4x4:c=0"], 2, r"concentration c must be a positive integer"),
    Row("concentration negative", ["describe", "torus:4x4:c=-1"], 2, r"got c=-1"),
    Row("bad graph6", ["describe", "g6:!!!!"], 2, r"not a graph6 string"),
    Row("twist not an offset", ["describe", "twisted:8x4:t1=8"], 2, r"not a valid offset"),
    # ---- graph files
    Row("missing graph file", ["describe", "graph:missing.graphml"], 2, r"missing.graphml: no such graph file"),
    Row("binary graphml", ["describe", "graph:bin.graphml"], 2, r"not a GraphML file",
        files={"bin.graphml": b"\x00\xff\xfe\x01garbage"}),
    Row("directed one-way arcs", ["describe", "graph:d.graphml"], 2, r"one-way arc .* add the reverse arc",
        files={"d.graphml": GRAPHML_DIRECTED_ONE_WAY}),
    Row("edge list mixes names", ["describe", "graph:e.txt"], 2, r"e.txt:2: node 'banana' is a name but earlier",
        files={"e.txt": b"0 1\n1 banana\n"}),
    Row("edge list negative node", ["describe", "graph:e.txt"], 2, r"e.txt:2: node -5 is negative",
        files={"e.txt": b"0 1\n1 -5\n"}),
    Row("edge list latin-1", ["describe", "graph:e.txt"], 2, r"edge list e.txt is not UTF-8 text \(byte 0xe9",
        files={"e.txt": "0 1\n1 caf\xe9\n".encode("latin-1")}),
    Row("edge list self-loop", ["describe", "graph:e.el"], 2, r"e.el:1: self-loop", files={"e.el": b"3 3\n"}),
    Row("graph file unknown type", ["describe", "graph:g.xyz"], 2, r"unknown graph file type .xyz",
        files={"g.xyz": b"0 1\n"}),
    Row("empty edge list", ["describe", "graph:e.txt"], 2, r"no links found", files={"e.txt": b"# nothing\n"}),
    Row("json not a graph", ["describe", "graph:g.json"], 2, r"neither a toposynth topology", files={"g.json": b"[1, 2]"}),
    # ---- sizes: refused from an estimate before anything is allocated (a limit far below any of these)
    Row("hypercube:40", ["describe", "hypercube:40"], 2, r"hypercube:40 \(1.1e\+12 routers.* needs about 2.4 PB"),
    Row("complete:100000", ["describe", "complete:100000"], 2, r"complete:100000 \(100,000 routers, 5e\+09 links\) needs"),
    Row("torus of a billion", ["describe", "torus:1000x1000x1000"], 2, r"torus:1000x1000x1000 \(1e\+09 routers"),
    Row("enumerate 40 nodes", ["enumerate", "--nodes", "40", "--max-degree", "39"], 2,
        r"enumerating graphs of 40 nodes with maximum degree 39 needs about"),
    Row("flow of a million routers", ["flow", "torus:100x100x100", "--traffic", "random:100000"], 2, r"needs about"),
    Row("simulate 65536 routers with tables", ["simulate", "torus:64x32x32", "--routing", "table"], 2,
        r"simulating torus:64x32x32 \(65,536 routers, table routing: n x n tables\) needs about"),
    # ---- describe / enumerate options
    Row("negative exact-bisection", ["describe", "ring:8", "--exact-bisection", "-1"], 2, r"must be an integer >= 0, got -1"),
    Row("bad choice (argparse)", ["describe", "ring:8", "--equivalent", "bogus"], 2,
        r"toposynth: error: describe: argument --equivalent: invalid choice: 'bogus'.*--help"),
    Row("unknown option (argparse)", ["describe", "ring:8", "--bogus"], 2, r"unrecognized arguments: --bogus"),
    Row("non-integer option (argparse)", ["enumerate", "--nodes", "x", "--max-degree", "2"], 2,
        r"argument --nodes: invalid int value: 'x'"),
    Row("no command (argparse)", [], 2, r"the following arguments are required: COMMAND"),
    Row("enumerate zero nodes", ["enumerate", "--nodes", "0", "--max-degree", "2"], 2, r"n must be at least 1"),
    Row("enumerate negative degree", ["enumerate", "--nodes", "5", "--max-degree", "-1"], 2, r"max_degree must be >= 0"),
    Row("enumerate min above max", ["enumerate", "--nodes", "5", "--max-degree", "2", "--min-degree", "3"], 2,
        r"min_degree=3 exceeds max_degree=2"),
    # ---- flow
    Row("PTAS eps 0", ["flow", "torus:4x4", "--solver", "ptas", "--eps", "0"], 2, r"the PTAS needs eps > 0; use --solver colgen"),
    Row("negative eps", ["flow", "torus:4x4", "--eps", "-0.1"], 2, r"eps must be in \[0, 1\) \(0 = exact\), got -0.1"),
    Row("eps above 1", ["flow", "torus:4x4", "--eps", "1.5"], 2, r"eps must be in \[0, 1\) \(0 = exact\), got 1.5"),
    Row("eps nan", ["flow", "torus:4x4", "--eps", "nan"], 2, r"eps must be in \[0, 1\) \(0 = exact\), got nan"),
    Row("random count negative", ["flow", "torus:4x4", "--traffic", "random:-3"], 2, r"traffic.count: must be an integer >= 1"),
    Row("random count not a number", ["flow", "torus:4x4", "--traffic", "random:abc"], 2, r"unknown traffic 'random:abc'"),
    Row("unknown traffic", ["flow", "torus:4x4", "--traffic", "nosuch"], 2, r"unknown traffic 'nosuch': write uniform"),
    Row("unknown NAS kernel", ["flow", "torus:4x4", "--traffic", "app:nosuch"], 2, r"traffic.app: must be one of cg"),
    Row("missing demand file", ["flow", "torus:4x4", "--demands", "missing.csv"], 2, r"no such demand file 'missing.csv'"),
    Row("demand file header", ["flow", "torus:4x4", "--demands", "d.csv"], 2, r"the first line must be the header",
        files={"d.csv": b"a,b,c\n0,1,1\n"}),
    Row("demand negative amount", ["flow", "torus:4x4", "--demands", "d.csv"], 2, r"d.csv:2: amount -2 must be a finite",
        files={"d.csv": b"src,dst,amount\n0,1,-2\n"}),
    Row("demand infinite amount", ["flow", "torus:4x4", "--demands", "d.csv"], 2, r"d.csv:2: amount inf must be a finite",
        files={"d.csv": b"src,dst,amount\n0,1,inf\n"}),
    Row("demand negative router", ["flow", "torus:4x4", "--demands", "d.csv"], 2, r"router indices start at 0",
        files={"d.csv": b"src,dst,amount\n-1,1,1\n"}),
    Row("demand router out of range", ["flow", "torus:4x4", "--demands", "d.csv"], 2, r"names router 99, but torus:4x4 has 16",
        files={"d.csv": b"src,dst,amount\n0,99,1\n"}),
    Row("demand not a number", ["flow", "torus:4x4", "--demands", "d.csv"], 2, r"d.csv:2: src and dst must be router indices",
        files={"d.csv": b"src,dst,amount\n0,1,lots\n"}),
    Row("demand file latin-1", ["flow", "torus:4x4", "--demands", "d.csv"], 2, r"demand file d.csv is not UTF-8 text",
        files={"d.csv": "src,dst,amount\n0,1,1 \xe9\n".encode("latin-1")}),
    Row("demand file binary", ["flow", "torus:4x4", "--demands", "d.csv"], 2, r"demand file d.csv is a binary file",
        files={"d.csv": b"\x00\xff\xfe\x01"}),
    Row("demand file is a directory", ["flow", "torus:4x4", "--demands", "ddir"], 2, r"no such demand file 'ddir'",
        dirs=("ddir",)),
    Row("negative scale", ["flow", "torus:4x4", "--scale", "-1"], 2, r"--scale must be a positive number in 1e-30\.\.1e\+30, got -1"),
    Row("infinite scale", ["flow", "torus:4x4", "--scale", "inf"], 2, r"--scale must be a positive number in .*, got inf"),
    Row("symmetry off a lattice", ["flow", "complete:8", "--solver", "symmetry"], 2, r"symmetr"),
    Row("negative seed", ["flow", "torus:4x4", "--seed", "-1"], 2, r"argument --seed: must be an integer >= 0, got -1"),
    Row("pins not a number", ["flow", "torus:4x4", "--packaging", "bgl", "--connector-pins", "node_card=abc"], 2,
        r"--connector-pins needs LEVEL=PINS"),
    Row("wiring without packaging", ["flow", "torus:4x4", "--wiring", "uniform"], 2, r"need --packaging"),
    Row("blocks of the wrong depth", ["flow", "torus:8x8x8", "--packaging", "bgl", "--blocks", "1x1x3"], 2,
        r"one block per packaging level"),
    Row("blocks not numbers", ["flow", "torus:4x4", "--blocks", "axb"], 2, r"--blocks needs shapes like"),
    Row("phase budget zero", ["flow", "torus:4x4", "--solver", "ptas", "--max-phases", "0"], 2, r"argument --max-phases: must be an integer in 1\.\.2\*\*62, got 0"),
    Row("PTAS stopped above eps", ["flow", "torus:4x4", "--solver", "ptas", "--traffic", "random:64", "--eps", "0.01",
                                    "--max-phases", "2"], 4,
        r"not certified: \[ptas\] stopped after 2 phases \(exit status 4\)"),
    # ---- simulate
    Row("negative load", ["simulate", "torus:4x4", "--load", "-0.1"], 2, r"load must be non-negative"),
    Row("zero VCs", ["simulate", "torus:4x4", "--vcs", "0"], 2, r"vcs must be a positive integer, got 0"),
    Row("latency threshold not a number", ["simulate", "torus:4x4", "--latency-threshold", "nan"], 2,
        r"latency_threshold and stopping_threshold must be positive numbers \(inf: no threshold\), got nan"),
    Row("unknown pattern", ["simulate", "torus:4x4", "--traffic", "nosuch"], 2, r"unknown traffic pattern 'nosuch'; valid"),
    Row("unknown pattern option", ["simulate", "torus:4x4", "--traffic", "hotregion:foo=1"], 2, r"takes options"),
    Row("zero packet", ["simulate", "torus:4x4", "--packet", "0"], 2, r"1 <= lo <= hi, got 0"),
    Row("packet range reversed", ["simulate", "torus:4x4", "--packet", "5-2"], 2, r"1 <= lo <= hi, got \(5, 2\)"),
    Row("packet not a number", ["simulate", "torus:4x4", "--packet", "big"], 2, r"--packet takes L or LO-HI"),
    Row("zero buffer", ["simulate", "torus:4x4", "--buffer", "0"], 2, r"buffer_packets must be a positive integer"),
    Row("loads not numbers", ["simulate", "torus:4x4", "--sweep", "--loads", "a,b"], 2, r"--loads takes a comma list"),
    Row("empty load range", ["simulate", "torus:4x4", "--sweep", "--loads", "0.5:0.1:0.1"], 2, r"at least one load"),
    Row("zero step", ["simulate", "torus:4x4", "--saturation", "--step", "0"], 2, r"need 0 < step <= max_load"),
    Row("zero seeds", ["simulate", "torus:4x4", "--saturation", "--seeds", "0"], 2, r"--seeds is how many seeds"),
    Row("seeds without a sweep", ["simulate", "torus:4x4", "--seeds", "3"], 2, r"--seeds repeats a --sweep"),
    Row("negative seed (sim)", ["simulate", "torus:4x4", "--seed", "-1"], 2, r"argument --seed: must be an integer >= 0, got -1"),
    Row("negative warmup", ["simulate", "torus:4x4", "--warmup", "-5"], 2, r"warmup must be a non-negative integer"),
    Row("zero injectors", ["simulate", "torus:4x4", "--injectors", "0"], 2, r"injectors must be a positive integer"),
    Row("negative link latency", ["simulate", "torus:4x4", "--link-latency", "-1"], 2, r"link_latency must be a positive"),
    Row("zero watchdog", ["simulate", "torus:4x4", "--watchdog", "0"], 2, r"watchdog must be a positive integer"),
    Row("unknown routing (argparse)", ["simulate", "torus:4x4", "--routing", "nosuch"], 2,
        r"argument --routing: invalid choice: 'nosuch'"),
    Row("dateline with one VC", ["simulate", "torus:4x4", "--routing", "dor", "--deadlock", "dateline", "--vcs", "1"], 2,
        r"dateline deadlock avoidance needs at least 2 virtual channels"),
    Row("deadlock option off dor", ["simulate", "torus:4x4", "--routing", "adaptive", "--deadlock", "bubble"], 2,
        r"applies to routing dor on routing records only"),
    Row("missing trace", ["simulate", "torus:4x4", "--trace", "missing.txt"], 2, r"cannot read trace 'missing.txt'"),
    Row("trace latin-1", ["simulate", "torus:4x4", "--trace", "t.txt"], 2, r"trace t.txt is not UTF-8 text \(byte 0xe9",
        files={"t.txt": "# toposynth trace v1 \xe9\n".encode("latin-1")}),
    Row("trace binary", ["simulate", "torus:4x4", "--trace", "t.txt"], 2, r"trace t.txt is a binary file",
        files={"t.txt": b"\x00\xff\xfe\x01"}),
    Row("trace is a directory", ["simulate", "torus:4x4", "--trace", "tdir"], 2, r"cannot read trace 'tdir': Is a directory",
        dirs=("tdir",)),
    Row("NAS procs not a power of 2", ["simulate", "torus:4x4", "--trace", "nas:cg:3"], 2, r"power-of-2 number of processes"),
    Row("unknown NAS kernel (sim)", ["simulate", "torus:4x4", "--trace", "nas:nosuch:16"], 2, r"unknown NAS kernel 'nosuch'"),
    Row("NAS spec not numbers", ["simulate", "torus:4x4", "--trace", "nas:cg:x"], 2, r"needs integers"),
    Row("zero max-cycles", ["simulate", "torus:4x4", "--trace", "nas:cg:16:S:1", "--max-cycles", "0"], 2,
        r"--max-cycles must be a positive integer of at most 1e\+12 cycles .*, got 0"),
    Row("write-trace without trace", ["simulate", "torus:4x4", "--write-trace", "x.txt"], 2, r"--write-trace needs --trace"),
    Row("plot without sweep", ["simulate", "torus:4x4", "--plot", "x.png"], 2, r"--plot needs --sweep or --saturation"),
    Row("trace with sweep", ["simulate", "torus:4x4", "--trace", "nas:cg:16:S:1", "--sweep"], 2, r"does not combine"),
    Row("deadlock", ["simulate", "torus:8x8", "--routing", "dor", "--deadlock", "none", "--vcs", "1", "--buffer", "1",
                     "--packet", "8", "--load", "0.9", "--traffic", "tornado"], 3,
        r"deadlock at offered load 0\.\d+: latency and throughput there are not measurements \(exit status 3\)"),
    Row("trace cut short", ["simulate", "torus:4x4", "--trace", "nas:cg:16:S:1", "--max-cycles", "50"], 4,
        r"did not complete within --max-cycles 50 \(exit status 4\)"),
    # ---- run: study files
    Row("missing study", ["run", "missing.toml"], 2, r"cannot read study file 'missing.toml': No such file"),
    Row("binary study", ["run", "s.toml"], 2, r"study file s.toml is a binary file", files={"s.toml": b"\x00\xff\xfebinary"}),
    Row("latin-1 study", ["run", "s.toml"], 2, r"study file s.toml is not UTF-8 text \(byte 0xe9 at offset 6, line 1\)",
        files={"s.toml": "name='\xe9t\xe9'\n".encode("latin-1")}),
    Row("study is a directory", ["run", "sdir"], 2, r"cannot read study file 'sdir': Is a directory", dirs=("sdir",)),
    Row("bad TOML", ["run", "s.toml"], 2, r"is not valid TOML: Expected ']'", files={"s.toml": b"[candidates\n"}),
    Row("unknown section", ["run", "s.toml"], 2, r"study field nosuch: unknown field", files={"s.toml": b"[nosuch]\nx = 1\n"}),
    Row("unknown key", ["run", "s.toml"], 2, r"study field candidates.foo: unknown field",
        files={"s.toml": SMALL + b"foo = 1\n"}),
    Row("unknown builtin", ["run", "builtin:nosuch"], 2, r"no built-in study 'nosuch'; built-in studies: default"),
    Row("jobs zero", ["run", "--jobs", "0"], 2, r"jobs must be a positive integer, got 0"),
    Row("infinite scale (study)", ["run", "s.toml"], 2, r"traffic.scales: must be a list of finite positive numbers",
        files={"s.toml": SMALL + b"[traffic]\nscales = [2.0, inf]\n"}),
    Row("NaN scale (study)", ["run", "s.toml"], 2, r"traffic.scales: must be a list of finite positive numbers",
        files={"s.toml": SMALL + b"[traffic]\nscales = [nan]\n"}),
    Row("negative demands (study)", ["run", "s.toml"], 2, r"traffic.file: .*neg.csv:2: amount -2 must be a finite",
        files={"s.toml": SMALL + b"[traffic]\npattern = 'file'\nfile = 'neg.csv'\n", "neg.csv": b"src,dst,amount\n0,1,-2\n"}),
    Row("eps 0 (study)", ["run", "s.toml"], 2, r"ranking.eps: must be a number in \(0, 1\), got 0",
        files={"s.toml": SMALL + b"[ranking]\neps = 0\n"}),
    Row("bad spec in pool", ["run", "s.toml"], 2, r"candidates.specs: 'nosuch:3': unknown topology family",
        files={"s.toml": b"[candidates]\nspecs = ['ring:8', 'nosuch:3']\n"}),
    Row("negative seed (study)", ["run", "s.toml"], 2, r"study field seed: must be an integer >= 0, got -1",
        files={"s.toml": b"seed = -1\n" + SMALL}),
    Row("empty pool", ["run", "s.toml"], 2, r"the pool is empty", files={"s.toml": b"[candidates]\nspecs = []\n"}),
    Row("machine of another size", ["run", "s.toml"], 2, r"ring:16.*compare_sizes",
        files={"s.toml": b"[candidates]\nspecs = ['ring:8', 'ring:16']\n"}),
    Row("unknown objective", ["run", "s.toml"], 2, r"ranking.objective", files={"s.toml": SMALL + b"[ranking]\nobjective = 'speed'\n"}),
    Row("latency without scales", ["run", "s.toml"], 2, r"the latency objective needs demand scales",
        files={"s.toml": SMALL + b"[ranking]\nobjective = 'latency'\n"}),
    Row("bad baseline", ["run", "s.toml"], 2, r"ranking.baseline: 'nosuch:1'",
        files={"s.toml": SMALL + b"[ranking]\nbaseline = 'nosuch:1'\n"}),
    Row("missing candidate file", ["run", "s.toml"], 2, r"candidates.files: '.*none.graphml' is not a file",
        files={"s.toml": b"[candidates]\nfiles = ['none.graphml']\n"}),
    Row("shares not adding up", ["run", "s.toml"], 2, r"traffic.shares: must be at least 2 non-negative fractions adding up to 1",
        files={"s.toml": SMALL + b"[traffic]\npattern = 'local'\ncount = 8\nshares = [0.5, 0.6]\n"}),
    Row("nothing left to rank", ["run", "s.toml", "--out", "o", "--quiet"], 2,
        r"no candidate of the 8-PE machine could be evaluated: ring:8: pruned: router degree 2 > max_degree 1; "
        r"complete:8: .*the records are in o/records.jsonl", files={"s.toml": SMALL + b"max_degree = 1\n"}),
    Row("unknown sim preset", ["run", "s.toml"], 2, r"simulation.preset", files={"s.toml": SMALL + b"[simulation]\npreset = 'fast'\n"}),
    Row("zero simulation seeds", ["run", "s.toml"], 2, r"simulation.seeds", files={"s.toml": SMALL + b"[simulation]\nseeds = 0\n"}),
    # ---- report / studies
    Row("report of a missing dir", ["report", "missingdir"], 2, r"missingdir does not exist; give the --out directory"),
    Row("report without results", ["report", "rdir"], 2, r"rdir holds no results.json; run `toposynth run STUDY --out rdir`",
        dirs=("rdir",)),
    Row("report of damaged results", ["report", "bad"], 2, r"cannot read bad/results.json \(not JSON: Expecting property",
        files={"bad/results.json": b"{nope"}),
    # ---- output paths: refused before any work
    Row("run --out is a file", ["run", "s.toml", "--out", "afile"], 2, r"--out afile is a file; give a directory",
        files={"s.toml": SMALL, "afile": b"x"}),
    Row("run --out cannot be created", ["run", "s.toml", "--out", "/proc/x/y"], 2, r"cannot create /proc/x.*choose another --out",
        files={"s.toml": SMALL}),
    Row("run --out holds a directory for a result", ["run", "s.toml", "--out", "o"], 2, r"results.json",
        files={"s.toml": SMALL}, dirs=("o", "o/results.json")),
    Row("enumerate --out is a directory", ["enumerate", "--nodes", "4", "--max-degree", "2", "--out", "adir"], 2,
        r"--out adir is a directory", dirs=("adir",)),
    Row("plot into a directory", ["simulate", "torus:4x4", "--sweep", "--loads", "0.1", "--plot", "adir"], 2,
        r"--plot adir is a directory", dirs=("adir",)),
    Row("plot format unknown", ["simulate", "torus:4x4", "--sweep", "--loads", "0.1", "--plot", "x.docx"], 2,
        r"unknown image format 'docx'"),
    Row("write-trace into a directory", ["simulate", "torus:4x4", "--trace", "nas:cg:16:S:1", "--write-trace", "adir"], 2,
        r"--write-trace adir is a directory", dirs=("adir",)),
    Row("unknown builtin (studies)", ["studies", "--show", "nosuch"], 2, r"no built-in study 'nosuch'"),
    # ---- the simulator, traces and long runs: bounds checked where a value is parsed, sizes before building
    Row("one packet after a long idle stretch is no deadlock", ["simulate", "ring:6", "--preset", "tpds2010", "--load",
                                                               "2.62e-7", "--seed", "1"], 0,
        r"latency \(injection\)\s+mean 23, p50 23, p99 23, max 23\n.*\n.*\n.*\ndeadlock\s+no\n"),
    Row("trace compute cycles past 2^63", ["simulate", "ring:6", "--trace", "t.trace"], 2,
        r"trace line 2: cycles, size and tags must be at most 2\^62",
        files={"t.trace": b"processes 2\n0 compute 9223372036854775000\n0 compute 9223372036854775000\n"}),
    Row("trace compute cycles summing past 2^62", ["simulate", "ring:6", "--trace", "t.trace"], 2,
        r"process 0 of the trace computes for 9.22e\+18 cycles in all, more than the simulator's cycle counter",
        files={"t.trace": b"processes 2\n0 compute 4611686018427387904\n0 compute 4611686018427387904\n"}),
    Row("trace message of 9e18 bytes", ["simulate", "ring:6", "--trace", "t.trace"], 2,
        r"trace line 2: cycles, size and tags must be at most 2\^62",
        files={"t.trace": b"processes 2\n0 send 1 9000000000000000000\n1 recv 0\n"}),
    Row("trace bytes summing past 2^62", ["simulate", "ring:6", "--trace", "t.trace"], 2,
        r"the trace's messages carry 9.22e\+18 bytes in all",
        files={"t.trace": b"processes 2\n0 send 1 4611686018427387904\n0 send 1 4611686018427387904\n"}),
    Row("trace tag past int64", ["simulate", "ring:6", "--trace", "t.trace"], 2,
        r"trace line 2: cycles, size and tags must be at most 2\^62",
        files={"t.trace": b"processes 2\n0 send 1 8 99999999999999999999999\n1 recv 0 99999999999999999999999\n"}),
    Row("trace negative tag", ["simulate", "ring:6", "--trace", "t.trace"], 2,
        r"trace line 2: negative rank, cycles, peer, size or tag", files={"t.trace": b"processes 2\n0 send 1 8 -3\n"}),
    Row("trace declaring 1e11 processes", ["simulate", "ring:6", "--trace", "t.trace"], 2,
        r"trace line 1: the trace has 100000000000 processes but the topology has only 6 processing elements",
        files={"t.trace": b"processes 100000000000\n0 send 1 8\n1 recv 0\n"}),
    Row("trace naming a process past its declared count", ["simulate", "ring:6", "--trace", "t.trace"], 2,
        r"trace line 2: the trace declares 2 processes but names process 5", files={"t.trace": b"processes 2\n0 send 5 8\n"}),
    Row("trace read from /dev/zero", ["simulate", "ring:6", "--trace", "/dev/zero"], 2,
        r"trace /dev/zero is a binary file, not text \(a NUL byte at offset 0\)"),
    Row("NAS trace of 2^20 processes on 16 PEs", ["simulate", "torus:4x4", "--trace", "nas:cg:1048576"], 2,
        r"nas:cg:1048576: 1048576 processes but the topology has only 16 processing elements"),
    Row("NAS trace of 10^9 iterations", ["simulate", "torus:4x4", "--trace", "nas:cg:16:S:1000000000"], 2,
        r"NAS CG with 16 processes and 1e\+09 iterations \(at least 8e\+11 events\) needs about 160 TB"),
    Row("max-cycles past 1e12", ["simulate", "torus:4x4", "--trace", "nas:cg:16:S:1", "--max-cycles", "10000000000000"],
        2, r"--max-cycles must be a positive integer of at most 1e\+12 cycles"),
    Row("seed past 32 bits (sim)", ["simulate", "ring:6", "--seed", "99999999999999999999"], 2,
        r"argument --seed: must be an integer in 0\.\.4294967295 \(32 bits\), got 99999999999999999999"),
    Row("seed past 32 bits (flow)", ["flow", "ring:6", "--seed", "4294967296"], 2,
        r"argument --seed: must be an integer in 0\.\.4294967295 \(32 bits\), got 4294967296"),
    Row("seed past 32 bits (search)", ["search", "--routers", "8", "--degree", "3", "--seed", "4294967296"], 2,
        r"argument --seed: must be an integer in 0\.\.4294967295"),
    Row("seeds past the largest seed", ["simulate", "ring:6", "--sweep", "--seed", "4294967295", "--seeds", "2"], 2,
        r"--seed 4294967295 --seeds 2 goes past the largest seed 4294967295"),
    Row("a trillion seeds", ["simulate", "ring:6", "--sweep", "--seeds", "1000000000000"], 2,
        r"--seeds 1000000000000 goes past the largest seed"),
    Row("seed past 32 bits (study)", ["run", "s.toml"], 2, r"study field seed: must be an integer in 0\.\.4294967295",
        files={"s.toml": b"seed = 4294967296\n" + SMALL}),
    Row("study seeds past the largest seed", ["run", "s.toml"], 2,
        r"simulation.seeds: 500 seeds from seed 4294967000 go past the largest seed 4294967295",
        files={"s.toml": b"seed = 4294967000\n" + SMALL + b"[simulation]\nseeds = 500\n"}),
    Row("measure of 1e15 cycles", ["simulate", "ring:6", "--measure", "999999999999999"], 2,
        r"measure must be at most 1e\+12 cycles .*got 999999999999999"),
    Row("warmup of 1e13 cycles", ["simulate", "ring:6", "--warmup", "10000000000000"], 2, r"warmup must be at most 1e\+12"),
    Row("drain of 1e13 cycles", ["simulate", "ring:6", "--drain", "10000000000000"], 2, r"drain must be at most 1e\+12"),
    Row("watchdog of 1e13 cycles", ["simulate", "ring:6", "--watchdog", "10000000000000"], 2,
        r"watchdog must be at most 1e\+12"),
    Row("router delay of 1e9 cycles", ["simulate", "ring:6", "--router-delay", "1000000000"], 2,
        r"router_delay must be at most 1e\+06 cycles \(the credit wheel"),
    Row("buffer past 2^62", ["simulate", "ring:6", "--buffer", "99999999999999999999"], 2,
        r"buffer_packets must be at most 2\^62"),
    Row("sweep with zero load step", ["simulate", "ring:6", "--sweep", "--loads", "0:1:0"], 2,
        r"--loads lo:hi:step needs a step > 0, got '0:1:0'"),
    Row("sweep with negative load step", ["simulate", "ring:6", "--sweep", "--loads", "0:1:-0.1"], 2,
        r"--loads lo:hi:step needs a step > 0"),
    Row("sweep of a billion loads", ["simulate", "ring:6", "--sweep", "--loads", "0:1:1e-9"], 2,
        r"--loads 0:1:1e-9 has 1e\+09 loads, more than 10000 \(each is a simulation\)"),
    Row("sweep range to infinity", ["simulate", "ring:6", "--sweep", "--loads", "0:inf:0.1"], 2,
        r"--loads lo:hi:step needs finite loads, lo >= 0, got '0:inf:0.1'"),
    Row("sweep with an infinite load", ["simulate", "ring:6", "--sweep", "--loads", "0.1,inf"], 2,
        r"load must be non-negative and finite"),
    Row("sweep with a load past bernoulli", ["simulate", "ring:6", "--sweep", "--loads", "0.1,40"], 2,
        r"load 40 with 16-phit packets needs more than one packet per cycle .*Bernoulli arrivals: loads 0 to 16 here"),
    Row("saturation step below 1e-9", ["simulate", "ring:6", "--saturation", "--step", "1e-12"], 2,
        r"step must be at least 1e-9 \(loads are rounded to 10 decimals\), got 1e-12"),
    Row("saturation of a million loads", ["simulate", "ring:6", "--saturation", "--step", "1e-6"], 2,
        r"step 1e-06 up to load 1 is 1e\+06 loads, more than 10000 .*use a step of at least 0.0001"),
    Row("study load step of a million loads", ["run", "s.toml"], 2,
        r"simulation.step: 1e-06 up to max_load 1.0 is 1e\+06 loads per search, more than 10000",
        files={"s.toml": SMALL + b"[simulation]\ntop = 1\nstep = 1e-6\nmax_load = 1.0\n"}),
    Row("load 1e308 with poisson", ["simulate", "ring:6", "--load", "1e308", "--injection", "poisson"], 2,
        r"load 1e\+308 with 16-phit packets means more than 64 packets per cycle .*Poisson arrivals take loads 0 to "
        r"1024 here"),
    Row("infinite load", ["simulate", "ring:6", "--load", "inf"], 2, r"load must be non-negative and finite .*got inf"),
    Row("NaN load", ["simulate", "ring:6", "--load", "nan"], 2, r"load must be non-negative and finite .*got nan"),
    Row("sweep and saturation together", ["simulate", "ring:6", "--sweep", "--saturation"], 2,
        r"argument --saturation: not allowed with argument --sweep"),
    Row("subnormal flow scale", ["flow", "ring:6", "--scale", "1e-320"], 2,
        r"--scale must be a positive number in 1e-30\.\.1e\+30, got 9.99989e-321"),
    Row("huge flow scale", ["flow", "ring:6", "--scale", "1e31"], 2, r"--scale must be a positive number in .*got 1e\+31"),
    Row("NaN flow scale", ["flow", "ring:6", "--scale", "nan"], 2, r"--scale must be a positive number in .*got nan"),
    # ---- hostile files, studies and outputs: numbers out of range, deep or inconsistent files, output paths
    Row("demand router index beyond int64", ["flow", "torus:4x4", "--demands", "d.csv"], 2,
        r"d.csv:2: router index 99999999999999999999999 is out of range",
        files={"d.csv": b"src,dst,amount\n0,99999999999999999999999,1\n"}),
    Row("demand amount beyond the solvers' range", ["flow", "torus:4x4", "--demands", "d.csv"], 2,
        r"d.csv:2: amount 99999999999999999999999999 is outside \[1e-06, 1e\+06\], where the solvers' tolerances hold",
        files={"d.csv": b"src,dst,amount\n0,1,99999999999999999999999999\n"}),
    Row("demand amount below the solvers' range", ["flow", "torus:4x4", "--demands", "d.csv"], 2,
        r"d.csv:3: amount 1e-300 is outside", files={"d.csv": b"src,dst,amount\n0,1,1\n2,5,1e-300\n"}),
    Row("concentration of 1e11", ["describe", "torus:4x4:c=99999999999"], 2,
        r"concentration c must be at most 1,000,000 PEs per router, got c=99999999999"),
    Row("concentration beyond int64", ["flow", "torus:4x4:c=99999999999999999999", "--traffic", "random:100"], 2,
        r"concentration c must be at most 1,000,000 PEs per router"),
    Row("PEs counted in the size", ["describe", "torus:100x100x10:c=10000"], 2,
        r"torus:100x100x10:c=10000 \(100,000 routers, 300,000 links, 1e\+09 PEs\) needs about 16 GB"),
    Row("PEs of a graph file counted", ["describe", "graph:p.txt:c=1000000"], 2,
        r"graph:p.txt:c=1000000 \(100 routers, 99 links, 100,000,000 PEs\) needs about 1.6 GB",
        files={"p.txt": "".join(f"{i} {i + 1}\n" for i in range(99)).encode()}),
    Row("deeply nested JSON graph", ["describe", "graph:deep.json"], 2,
        r"deep.json: JSON nested too deeply to be a graph file", files={"deep.json": b"[" * 100_000 + b"]" * 100_000}),
    Row("deeply nested study", ["run", "s.toml"], 2, r"study file 's.toml' nests arrays or tables too deeply",
        files={"s.toml": b"x = " + b"[" * 100_000 + b"]" * 100_000 + b"\n"}),
    Row("deeply nested results", ["report", "o"], 2, r"cannot read o/results.json \(JSON nested too deeply",
        files={"o/results.json": b"[" * 100_000 + b"]" * 100_000}),
    Row("run --out name too long", ["run", "s.toml", "--out", "a" * 300], 2,
        r"--out a{40}\.\.\.a{20} \(300 characters\): File name too long; use shorter names", files={"s.toml": SMALL}),
    Row("run --out path too long", ["run", "s.toml", "--out", "x/" + "a" * 300 + "/y"], 2,
        r"cannot create x/a+\.\.\.a+/y \(304 characters\): File name too long", files={"s.toml": SMALL}),
    Row("enumerate --out name too long", ["enumerate", "--nodes", "4", "--max-degree", "2", "--out", "a" * 300], 2,
        r"--out a+\.\.\.a+ \(300 characters\): File name too long"),
    Row("plot name too long", ["simulate", "torus:4x4", "--sweep", "--loads", "0.1", "--plot", "a" * 300 + ".png"], 2,
        r"--plot a+\.\.\.a+\.png \(304 characters\): File name too long"),
    Row("enumerate onto a full disk", ["enumerate", "--nodes", "4", "--max-degree", "2", "--out", "/dev/full"], 2,
        r"cannot write to /dev/full: No space left on device; make room"),
    Row("trace onto a full disk", ["simulate", "torus:4x4", "--trace", "nas:cg:16:S:1", "--write-trace", "/dev/full"],
        2, r"cannot write --write-trace /dev/full: No space left on device"),
    Row("study enumerating 11.7 M graphs", ["run", "s.toml", "--check"], 2,
        r"candidates.enumerate: graphs of 10 nodes with maximum degree 9 are about 11,716,571 candidates, each built, "
        r"compared and flow-solved \(more than .* at 40 ms a candidate\); a study enumerates at most 200,000",
        files={"s.toml": b"[candidates]\nenumerate = {nodes = 10, max_degree = 9}\n"}),
    Row("study of 1e8 seeds", ["run", "s.toml", "--check"], 2,
        r"simulation.seeds: 100,000,000 seeds would be about 2e\+09 simulations \(1 candidate\(s\) x up to 20 loads a "
        r"seed\); at most 1,000 seeds", files={"s.toml": SMALL + b"[simulation]\ntop = 1\nseeds = 100000000\n"}),
    Row("study seed beyond 63 bits", ["run", "s.toml", "--check"], 2,
        r"study field seed: must be an integer in 0\.\.4294967295 \(32 bits\), got 100000000000000000000000",
        files={"s.toml": b"seed = 100000000000000000000000\n" + SMALL}),
    Row("study of 1e8 dask workers", ["run", "s.toml", "--check"], 2,
        r"dask.workers: must be at most 1,024, got 100,000,000 \(a local cluster starts a process per worker\)",
        files={"s.toml": SMALL + b"[dask]\nworkers = 100000000\n"}),
    Row("run with 1e8 jobs", ["run", "s.toml", "--jobs", "100000000"], 2,
        r"--jobs 100,000,000 \(100,000,000 worker processes, about 150 MB each\) needs about 15 PB", files={"s.toml": SMALL}),
    Row("simulate with 1e8 jobs", ["simulate", "torus:4x4", "--sweep", "--loads", "0.1,0.2", "--jobs", "100000000"], 2,
        r"jobs 100,000,000 \(100,000,000 worker processes, about 150 MB each\) needs about 15 PB"),
    Row("search of 1e15 moves", ["search", "--routers", "16", "--degree", "3", "--moves", "1000000000000000"], 2,
        r"--moves: 1,000,000,000,000,000 moves a restart would take about 127 years at 250,000 moves/s"),
    Row("search of 1e11 restarts", ["search", "--routers", "16", "--degree", "3", "--restarts", "100000000000"], 2,
        r"--restarts: 100,000,000,000 restarts: at most 10,000"),
    Row("study search of 1e15 moves", ["run", "s.toml", "--check"], 2,
        r"candidates.search\[0\].moves: 1,000,000,000,000,000 moves a restart would take about 127 years",
        files={"s.toml": b"[machine]\npes = 8\n" + SMALL
               + b"search = [{label = 's', degree = 3, moves = 1000000000000000}]\n"}),
    Row("simulate seed beyond int64", ["simulate", "torus:4x4", "--seed", "1000000000000000000000000000000", "--load", "0.05"], 2,
        r"argument --seed: must be an integer in 0\.\.4294967295 \(32 bits\), got 1000000000000000000000000000000"),
    Row("flow seed beyond int64", ["flow", "torus:4x4", "--seed", "1000000000000000000000000000000"], 2,
        r"argument --seed: must be an integer in 0\.\.4294967295 \(32 bits\), got 1000000000000000000000000000000"),
    Row("warmup of 1e30 cycles", ["simulate", "torus:4x4", "--warmup", "1000000000000000000000000000000"], 2,
        r"warmup must be at most 1e\+12 cycles .*got 1000000000000000000000000000000"),
    Row("watchdog of 1e30 cycles", ["simulate", "torus:4x4", "--watchdog", "1000000000000000000000000000000"], 2, r"watchdog must be at most 1e\+12 cycles"),
    Row("packet of 1e30 flits", ["simulate", "torus:4x4", "--packet", "1000000000000000000000000000000"], 2,
        r"packet lengths must be at most 2\^62 phits, got 1000000000000000000000000000000"),
    Row("max-cycles of 1e22", ["simulate", "torus:4x4", "--trace", "nas:cg:16:S:1", "--max-cycles", "1" + "0" * 22], 2,
        r"--max-cycles must be a positive integer of at most 1e\+12 cycles"),
    Row("simulate 1e30 seeds", ["simulate", "torus:4x4", "--saturation", "--seeds", "1000000000000000000000000000000"], 2,
        r"--seeds 1000000000000000000000000000000 goes past the largest seed 4294967295"),
    Row("phase budget of 1e30", ["flow", "torus:4x4", "--solver", "ptas", "--max-phases", "1000000000000000000000000000000"], 2,
        r"argument --max-phases: must be an integer in 1\.\.2\*\*62, got 1000000000000000000000000000000"),
    Row("phase budget the solver ignores", ["flow", "ring:4", "--max-phases", "-1"], 2,
        r"argument --max-phases: must be an integer in 1\.\.2\*\*62, got -1"),
    Row("curve of 1e30 points", ["flow", "torus:4x4", "--curve", "1000000000000000000000000000000"], 2,
        r"--curve 1,000,000,.* latency solves; at most 1,000 points"),
    Row("search of 1e30 routers", ["search", "--routers", "1" + "0" * 30, "--degree", "3"], 2,
        r"a search of 1e\+30 routers of degree 3 needs about"),
    Row("node-link link to an undeclared node", ["describe", "graph:g.json"], 2,
        r"g.json: links\[2\] target 7 is not a declared node; add it to 'nodes'",
        files={"g.json": b'{"directed": false, "multigraph": false, "graph": {}, "nodes": [{"id": 0}, {"id": 1}, '
                         b'{"id": 2}], "links": [{"source": 0, "target": 1}, {"source": 1, "target": 2}, '
                         b'{"source": 2, "target": 7}]}'}),
    Row("graph6 file of two graphs", ["describe", "graph:two.g6"], 2,
        r"two.g6: holds 2 graph6 lines, a graph file is one graph", files={"two.g6": b"Cw\nC~\n"}),
    Row("regular = 5", ["run", "s.toml", "--check"], 2, r"candidates.enumerate.regular: must be true or false, got 5",
        files={"s.toml": b"[candidates]\nenumerate = {nodes = 6, max_degree = 3, regular = 5}\n"}),
    Row("routing the family cannot use", ["run", "s.toml", "--out", "o"], 2,
        r"simulation.routing: 'dor' cannot simulate candidate complete:8: routing 'dor' needs routing records",
        files={"s.toml": SMALL + b"[simulation]\ntop = 2\nrouting = 'dor'\n"}),
    Row("routing the family cannot use (check)", ["run", "s.toml", "--check"], 2,
        r"simulation.routing: 'dor' cannot simulate candidate complete:8",
        files={"s.toml": SMALL + b"[simulation]\ntop = 2\nrouting = 'dor'\n"}),
    Row("the same traffic variant twice", ["run", "s.toml", "--out", "o"], 2,
        r"traffic.pattern: the sweep lists 'uniform' twice; give each value once",
        files={"s.toml": SMALL + b"[traffic]\npattern = ['uniform', 'tornado', 'uniform']\n"}),
    Row("the same count twice", ["run", "s.toml", "--check"], 2, r"traffic.count: the sweep lists 8 twice",
        files={"s.toml": SMALL + b"[traffic]\npattern = 'random'\ncount = [8, 16, 8]\n"}),
    Row("a study named to escape the directory", ["run", "s.toml"], 0,
        r"toposynth: study 'x/\.\./\.\./escaped': 2 candidates, 0 already done, 2 to evaluate",
        files={"s.toml": b"name = 'x/../../escaped'\n" + SMALL}),
    Row("a large sparse flow says its time up front", ["flow", "torus:40x40x40", "--traffic", "random:100", "--solver",
                                                        "ptas", "--max-phases", "1"], 4,
        r"toposynth: large problem: 64,000 routers, 100 demands in 100 source groups; roughly 90 s or more"),
    Row("two different records of one candidate", ["run", "s.toml", "--out", "o"], 0,
        r"o/records.jsonl: 2 damaged or invalid records set aside in records.rejected.jsonl \(lines 1, 2: two "
        r"different records of complete:8, neither trusted\); they will be recomputed",
        files={"s.toml": CONFLICT_STUDY, "o/records.jsonl": CONFLICT_LOG}),
]


@pytest.fixture(autouse=True)
def _memory_limit(monkeypatch):
    # the size rows must not depend on this machine's free memory
    monkeypatch.setenv("TOPOSYNTH_MEMORY_LIMIT", "1G")


def _run(row: Row, tmp_path, capsys):
    for d in row.dirs:
        (tmp_path / d).mkdir()
    for name, data in row.files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        try:
            rc = main(row.argv)
        except SystemExit as exc:  # argparse's own exit
            rc = exc.code
    finally:
        os.chdir(cwd)
    out, err = capsys.readouterr()
    return rc, out, err


def test_table_is_large_and_ids_unique():
    assert len(ROWS) >= 60
    assert len({r.id for r in ROWS}) == len(ROWS)


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_bad_input(row, tmp_path, capsys):
    rc, out, err = _run(row, tmp_path, capsys)
    assert rc == row.rc, (rc, err)
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    if row.rc == 2:
        assert len(lines) == 1, err
        assert lines[0].startswith("toposynth: error: "), err
        assert out == ""
        assert re.search(row.says, lines[0]), lines[0]
    elif row.rc == 0:
        # accepted (an input once refused or mistaken): its result (stdout) or its note (stderr) says what it
        # must, no error line
        assert not any(line.startswith("toposynth: error") for line in lines), err
        assert re.search(row.says, out) or re.search(row.says, err), out + err
    else:
        # a result was printed, and one line on stderr says why it is not a valid one
        assert out.strip()
        said = [line for line in lines if re.search(row.says, line)]
        assert len(said) == 1, err


def test_directed_graph_with_both_arcs_is_its_undirected_graph(tmp_path, capsys):
    (tmp_path / "d.graphml").write_bytes(GRAPHML_DIRECTED_BOTH_WAYS)
    rc, out, err = _run(Row("", ["describe", str(tmp_path / "d.graphml").join(["graph:", ""]), "--json"], 0, ""),
                        tmp_path, capsys)
    import json

    d = json.loads(out)
    assert rc == 0 and err == ""
    assert (d["nodes"], d["links"], d["diameter"]) == (3, 2, 2)   # the path a - b - c


def test_dor_with_one_vc_says_it_uses_bubbles(tmp_path, capsys):
    rc, out, err = _run(Row("", ["simulate", "torus:4x4", "--routing", "dor", "--vcs", "1", "--load", "0.05",
                                 "--json"], 0, ""), tmp_path, capsys)
    import json

    assert rc == 0
    assert json.loads(out)["routing"] == "dor/bubble"
    assert err.strip().splitlines() == ["toposynth: note: dor with 1 virtual channel uses bubble flow control "
                                        "(datelines need --vcs 2); --deadlock bubble chooses it explicitly"]
    # said only where a default chose it
    rc, out, err = _run(Row("", ["simulate", "torus:4x4", "--routing", "dor", "--vcs", "1", "--deadlock", "bubble",
                                 "--load", "0.05", "--json"], 0, ""), tmp_path, capsys)
    assert rc == 0 and err == ""


def test_usage_errors_name_the_command_once(capsys):
    from synth.cli import main

    for argv, head in (([], "toposynth: error: the following arguments are required: COMMAND"),
                       (["flow", "--eps", "x"], "toposynth: error: flow: argument --eps: invalid float value")):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        err = capsys.readouterr().err
        assert exc.value.code == 2 and err.startswith(head) and err.count("toposynth") == 2, err


def test_version_is_the_installed_distributions(capsys):
    import importlib.metadata

    from synth.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"toposynth {importlib.metadata.version('toposynth')}"
