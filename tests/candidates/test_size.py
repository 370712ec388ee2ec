"""Size guards: estimates before allocation, one-line refusals, and the
estimates checked against what is built and what is measured."""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path

import pytest

import patience  # tests/patience.py: limits in CPU seconds, not wall-clock timeouts

import candidates as cd
from candidates.enumeration.graphs import estimate_count, search_bytes
from candidates.registry import spec_size
from common.size import SizeError, check_memory, format_bytes, memory_limit, parse_bytes
from synth.cli import main

SRC = str(Path(__file__).resolve().parents[2] / "src")


@pytest.fixture
def limit(monkeypatch):
    monkeypatch.setenv("TOPOSYNTH_MEMORY_LIMIT", "2G")


# ------------------------------------------------------------ the limit itself
def test_parse_and_limit(monkeypatch):
    assert parse_bytes("4G") == 4e9 and parse_bytes("500M") == 5e8 and parse_bytes("2GiB") == 2 * 2**30
    monkeypatch.setenv("TOPOSYNTH_MEMORY_LIMIT", "1.5T")
    assert memory_limit() == 1.5e12
    monkeypatch.setenv("TOPOSYNTH_MEMORY_LIMIT", "lots")
    with pytest.raises(SizeError, match="TOPOSYNTH_MEMORY_LIMIT='lots' is not a size"):
        memory_limit()
    monkeypatch.delenv("TOPOSYNTH_MEMORY_LIMIT")
    # MemAvailable of /proc/meminfo, read independently
    with open("/proc/meminfo") as f:
        avail = next(int(l.split()[1]) * 1024 for l in f if l.startswith("MemAvailable:"))
    assert abs(memory_limit() - avail) < 0.2 * avail


def test_check_memory_message(limit):
    check_memory("x", 1.9e9, "smaller")
    with pytest.raises(SizeError) as e:
        check_memory("x (3 routers)", 37.4e9, "use a smaller x")
    assert str(e.value) == ("x (3 routers) needs about 37 GB but the memory limit is 2.0 GB "
                            "(TOPOSYNTH_MEMORY_LIMIT); use a smaller x, or raise TOPOSYNTH_MEMORY_LIMIT")
    assert format_bytes(8.8e12) == "8.8 TB"


# ----------------------------------------------- family size hooks vs building
SPECS = ["torus:8x8x8", "torus:6x4x2", "torus:5x1x3", "torus:8x8:mesh=1", "torus:4x4x4:mesh=0,2", "mesh:4x4",
         "mesh:7x1x3", "ring:8", "path:9", "path:1", "hypercube:1", "hypercube:7", "complete:2", "complete:13",
         "rt:a=2", "rt:a=5", "rtt:a=3", "pt:a=3", "ptt:a=4", "pdtt:a=3", "twisted:16x8:t1=8",
         "twisted:6x4x3:t1=2,0:t2=3,1", "twisted:5x1:t1=2", "twisted:4x1:t1=0", "ndt:4x4x2x2x2", "ndt:3x2x5",
         "product:ring:8*path:4", "product:complete:4*hypercube:3*ring:5", "bgl:ring:8*ring:4*ring:4*ring:4",
         "bgl:path:8*complete:4*ring:4*path:4", "torus:4x4:c=3",
         "dragonfly:a=4:p=2:h=2", "dragonfly:a=4:p=1:h=2:g=5:arrangement=circulant", "slimfly:q=5", "slimfly:q=8:p=2"]
SPECS += ["fattree:k=4", "fattree:k=6", "ktree:k=2:n=2", "ktree:k=3:n=4", "hyperx:4x4x4:t=2", "hyperx:2x5x3",
          "flatfly:k=4:n=3", "flatfly:k=3:n=2", "polarfly:q=5", "polarfly:q=8:p=2", "affinepolar:q=4",
          "affinepolar:q=9", "search:n=32:d=3:moves=500:seed=1", "search:n=30:d=4:moves=500:symmetry=3",
          "interposer:kite_large", "interposer:design=mesh",
          "search:n=20:d=3:moves=300:grid=5x4"]


@pytest.mark.parametrize("spec", SPECS)
def test_spec_size_equals_built(spec):
    z = spec_size(spec)
    t = cd.from_spec(spec)
    assert (z.routers, z.links, z.dims) == (t.n, t.num_links, t.ndim)


def test_every_family_has_a_size_hook_but_files():
    assert {f.name for f in cd.families() if f.size is None} == {"g6", "graph"}
    assert {s.partition(":")[0] for s in SPECS} >= {f.name for f in cd.families() if f.size is not None}


# ------------------------------------------------- refusals through the CLI
def _refused(capsys, argv, *needles):
    r0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.process_time()
    rc = main(argv)
    dt = time.process_time() - t0
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert rc == 2, err
    assert len(lines) == 1 and lines[0].startswith("toposynth: error: "), err
    assert "needs about" in lines[0] or "would produce about" in lines[0] or "examines" in lines[0]
    for s in needles:
        assert s in lines[0], lines[0]
    assert dt < 10.0  # refused from the estimate, not after building (CPU seconds: the machine is shared)
    # nothing large was allocated (ru_maxrss is in kB)
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - r0 < 100_000
    return lines[0]


@pytest.mark.parametrize("argv, needles", [
    (["describe", "hypercube:40"], ["1.1e+12 routers", "2.2e+13 links", "2.4 PB", "2.0 GB"]),
    (["describe", "torus:1000x1000x1000"], ["1e+09 routers", "256 GB", "2.0 GB"]),
    (["describe", "complete:100000"], ["5e+09 links", "200 GB", "2.0 GB"]),
    (["describe", "product:hypercube:30*ring:4"], ["4.3e+09 routers"]),
    (["describe", "torus:200x200x200"], ["8,000,000 routers", "2.0 GB"]),
    (["describe", "torus:8x6", "--exact-bisection", "48"], ["1.6e+13 balanced partitions", "below 48"]),
    (["enumerate", "--nodes", "40", "--max-degree", "39"], ["181 TB", "2.0 GB"]),
    (["enumerate", "--nodes", "12", "--max-degree", "11", "--count"], ["1.6e+11 graphs"]),
    (["enumerate", "--nodes", "40", "--max-degree", "3"], ["8.7e+18 graphs"]),
    # --solver ptas: under auto, uniform traffic on a lattice goes to flows.symmetric_uniform,
    # which builds no demands (its LP is sized by the next row)
    (["flow", "torus:60x60x60", "--solver", "ptas"], ["216,000 routers", "4.7e+10 demands", "2.0 GB"]),
    (["flow", "torus:80x80x80"], ["by symmetry", "512,000 routers", "3.4 GB", "2.0 GB"]),
    # the same uniform pattern by its older spelling; a rate pattern is a dense matrix
    (["flow", "torus:60x60x60", "--traffic", "sim:uniform"], ["216,000 routers", "4.7e+10 demands", "2.0 GB"]),
    (["flow", "torus:60x60x60", "--traffic", "bitreversal"], ["bitreversal demand matrix", "216,000 x 216,000",
                                                              "1.1 TB", "2.0 GB"]),
    (["flow", "torus:10x10x10", "--solver", "lp"], ["LP columns", "use --solver ptas", "2.0 GB"]),
    # records by displacement class: the state, not tables, decides (a 64x32x32 torus fits in 1.5 GB)
    (["simulate", "torus:128x64x64"], ["524,288 routers", "13 GB", "2.0 GB"]),
    (["simulate", "ndt:8x8x8x4x4", "--routing", "table"], ["16,384 routers", "table routing"]),
])
def test_refusals(capsys, limit, argv, needles):
    _refused(capsys, argv, *needles)


def test_equivalent_refused(capsys, monkeypatch):
    # mesh:64x64: the full table path holds about 29 bytes per router pair (487 MB)
    monkeypatch.setenv("TOPOSYNTH_MEMORY_LIMIT", "100M")
    _refused(capsys, ["describe", "mesh:64x64", "--equivalent", "minimal"],
             "equivalent distance", "4,096 routers", "487 MB", "100 MB")


def test_describe_skips_kernighan_lin_that_does_not_fit(capsys, monkeypatch):
    # complete:300: KL's networkx graph ~28 MB, the rest ~5 MB
    monkeypatch.setenv("TOPOSYNTH_MEMORY_LIMIT", "20M")
    d = cd.describe(cd.from_spec("complete:300"))
    assert d["bisection"]["skipped"].startswith("Kernighan-Lin skipped: its networkx graph needs about")
    assert d["diameter"] == 1 and d["links"] == 300 * 299 // 2
    monkeypatch.delenv("TOPOSYNTH_MEMORY_LIMIT")
    assert cd.describe(cd.from_spec("complete:30"))["bisection"]["width"] == 15 * 15


# ---------------------------------------------------- enumeration estimates
def test_enumeration_estimates():
    # exact where the degree is free (OEIS A001349 / A000088, checked by enumerating at n = 7)
    assert estimate_count(7, 6) == cd.count_graphs(7, 6) == 853
    assert estimate_count(7, 6, connected=False) == cd.count_graphs(7, 6, connected=False) == 1044
    # regular-graph asymptotics within 25% of the published counts of connected
    # cubic graphs (OEIS A002851; n = 18 also enumerated here: 41301 in 249 s)
    # and 4-regular graphs (A006820)
    for n, r, exact in ((18, 3, 41301), (20, 3, 510489), (24, 3, 117940535), (12, 4, 1544), (13, 4, 10778)):
        assert 0.75 < estimate_count(n, r, regular=True) / exact < 1.25
    # the search's widest step: 2^(n-1) - 1 subsets of (8n + 9)-byte rows
    assert search_bytes(40, 39) == (2**39 - 1) * (8 * 40 + 9)


# ------------------------------------------- estimates against measured peaks
_PROBE = r"""
import json, resource, sys
import candidates as cd
# warm every kernel the probes use, so no compilation lands in the measurement
for w in ("torus:4x4", "complete:6", "pdtt:a=2", "hypercube:3", "ring:5", "twisted:4x2:t1=1"):
    cd.describe(cd.from_spec(w))
def cur():
    with open("/proc/self/statm") as f: return int(f.read().split()[1]) * 4096
def hwm():  # peak RSS since the last reset (VmHWM), in bytes
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM:"))
def reset():  # Linux: writing 5 to clear_refs resets VmHWM to the current RSS
    with open("/proc/self/clear_refs", "w") as f: f.write("5")
spec = sys.argv[1]
reset(); b0 = cur()
t = cd.from_spec(spec)
build = hwm() - b0
cost = cd.analytics.measures.describe_cost(t)
cd.describe(t)
peak = hwm() - b0
z = cd.registry.spec_size(spec)
print(json.dumps({"build": build, "build_est": z.nbytes, "peak": peak, "est": z.nbytes + cost.nbytes}))
"""


@pytest.mark.parametrize("spec", ["torus:64x64x64", "ring:1000000", "pdtt:a=32", "hypercube:17"])
def test_describe_estimates_within_factor_two(spec):
    out = patience.run([sys.executable, "-c", _PROBE, spec], cpu=300, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": SRC}, check=True)
    r = json.loads(out.stdout)
    assert 0.5 < r["build"] / r["build_est"] < 2.0, r
    assert 0.5 < r["peak"] / r["est"] < 2.0, r
