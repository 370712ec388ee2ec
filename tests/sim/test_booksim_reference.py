"""The recorded BookSim2 reference figures (benchmarks/booksim_reference.json).

No BookSim2 binary is needed: these tests check that the file is complete
and consistent with itself, with the configurations that
benchmarks/bench_booksim.py generates, and with closed forms --
BookSim2's zero-load latency ``6 + L + (4 + d) H`` (d = 1 on a mesh, 2 on
a torus: BookSim2's ``use_noc_latency`` default makes torus channels 2
cycles long), saturation below the channel-load bound of dimension-order
routing, more VCs never saturating earlier.
"""

from __future__ import annotations

import json
import math
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
REF = BENCH / "booksim_reference.json"
sys.path.insert(0, str(BENCH))

import bench_booksim as bb  # noqa: E402

pytestmark = pytest.mark.skipif(not REF.exists(), reason="benchmarks/booksim_reference.json not recorded")


@lru_cache(maxsize=1)
def doc() -> dict:
    return json.loads(REF.read_text())


def cases() -> dict:
    return doc()["cases"] if REF.exists() else {}


CASE_NAMES = sorted(cases())


# ------------------------------------------------------------- closed forms
def digits(i: int, k: int, n: int) -> list[int]:
    """BookSim2's node id -> coordinates: id = x0 + k x1 + k^2 x2."""
    return [(i // k ** d) % k for d in range(n)]


def node(ds: list[int], k: int) -> int:
    return sum(x * k ** d for d, x in enumerate(ds))


def destinations(pattern: str, s: int, k: int, n: int) -> list[tuple[int, float]]:
    """BookSim2's traffic.cpp definitions: (destination, probability)."""
    N = k ** n
    b = N.bit_length() - 1
    if pattern == "uniform":  # RandomInt(nodes - 1): the source included
        return [(d, 1.0 / N) for d in range(N)]
    if pattern == "bitcomp":
        return [(~s & (N - 1), 1.0)]
    if pattern == "transpose":
        h = b // 2
        lo = (1 << h) - 1
        return [(((s >> h) & lo) | ((s << h) & (lo << h)), 1.0)]
    if pattern == "shuffle":
        sh = s << 1
        return [((sh & (N - 1)) | int(bool(sh & N)), 1.0)]
    if pattern == "tornado":
        return [(node([(x + (k + 1) // 2 - 1) % k for x in digits(s, k, n)], k), 1.0)]
    if pattern == "neighbor":
        return [(node([(x + 1) % k for x in digits(s, k, n)], k), 1.0)]
    raise ValueError(pattern)


def dor_paths(s: int, t: int, k: int, n: int, torus: bool) -> list[tuple[float, list[tuple[int, int, int]]]]:
    """Dimension-order paths (dimension 0 first) as (weight, channels (node, dim, +1/-1));
    a torus distance of exactly k/2 goes either way with probability 1/2 (BookSim2's RandomInt(1))."""
    out: list[tuple[float, list[tuple[int, int, int]]]] = []

    def walk(cur: list[int], dim: int, w: float, chans: list[tuple[int, int, int]]) -> None:
        while dim < n and cur[dim] == digits(t, k, n)[dim]:
            dim += 1
        if dim == n:
            out.append((w, chans))
            return
        a, b = cur[dim], digits(t, k, n)[dim]
        if torus:
            fwd = (b - a) % k
            dirs = [(1, fwd)] if 2 * fwd < k else [(-1, k - fwd)] if 2 * fwd > k else [(1, fwd), (-1, k - fwd)]
        else:
            dirs = [(1 if b > a else -1, abs(b - a))]
        for sgn, steps in dirs:
            c, ch = list(cur), list(chans)
            for _ in range(steps):
                ch.append((node(c, k), dim, sgn))
                c[dim] = (c[dim] + sgn) % k
            walk(c, dim + 1, w / len(dirs), ch)

    walk(digits(s, k, n), 0, 1.0, [])
    return out


@lru_cache(maxsize=None)
def mean_hops(topology: str, k: int, n: int, pattern: str) -> tuple[float, float]:
    """Mean and standard deviation of the link hops H of one packet."""
    N = k ** n
    torus = topology == "torus"

    def dist(a: int, b: int) -> int:
        f = (b - a) % k
        return min(f, k - f) if torus else abs(b - a)

    if pattern == "uniform":  # independent dimensions, destination coordinates uniform
        ring = np.array([dist(a, b) for a in range(k) for b in range(k)], dtype=float)
        return n * ring.mean(), math.sqrt(n * ring.var())
    hs = []
    for s in range(N):
        (t, _), = destinations(pattern, s, k, n)
        hs.append(sum(dist(x, y) for x, y in zip(digits(s, k, n), digits(t, k, n))))
    return float(np.mean(hs)), float(np.std(hs))


@lru_cache(maxsize=None)
def dor_bound(topology: str, k: int, n: int, pattern: str) -> float:
    """Highest load (flits/node/cycle) before the busiest channel carries 1 flit/cycle under DOR."""
    if pattern == "uniform" and n == 3:  # closed forms, checked on 2D below
        return 8.0 / k if topology == "torus" else 4.0 / k
    load: dict[tuple[int, int, int], float] = {}
    for s in range(k ** n):
        for t, p in destinations(pattern, s, k, n):
            for w, chans in dor_paths(s, t, k, n, topology == "torus"):
                for c in chans:
                    load[c] = load.get(c, 0.0) + p * w
    return min(1.0, 1.0 / max(load.values())) if load else 1.0


def test_closed_form_bounds_by_enumeration():
    assert dor_bound("torus", 8, 2, "uniform") == pytest.approx(8 / 8)
    assert dor_bound("mesh", 8, 2, "uniform") == pytest.approx(4 / 8)
    assert mean_hops("torus", 8, 2, "uniform")[0] == pytest.approx(4.0)  # source included
    assert mean_hops("mesh", 8, 2, "uniform")[0] == pytest.approx(2 * 63 / 24)
    assert mean_hops("torus", 8, 2, "neighbor") == (2.0, 0.0)
    assert mean_hops("torus", 8, 2, "tornado") == (6.0, 0.0)


# ------------------------------------------------------------- integrity
def test_file_header():
    d = doc()
    assert d["booksim_commit"] == bb.BOOKSIM_COMMIT == "28f4329"
    assert "--reference-only" in d["command"] and "--booksim" in d["command"]
    assert "flits/node/cycle" in d["units"]
    assert d["quick"] is False


def test_covers_the_case_list():
    assert sorted(c.name for c in bb.CASES) == CASE_NAMES
    assert 25 <= len(CASE_NAMES) <= 35


def test_speed_entry():
    sp = doc()["speed"]
    e = sp["torus8x8x8-dor-vc2-p1-uniform"]
    assert e["routers"] == 512 and e["load"] == bb.SPEED_LOAD
    assert e["router_cycles_per_cpu_second"] == pytest.approx(e["routers"] * e["cycles"] / e["cpu_seconds"], rel=1e-3)
    assert e["router_cycles_per_cpu_second"] > 1e4


@pytest.mark.parametrize("name", CASE_NAMES)
def test_case_integrity(name):
    c = cases()[name]
    case = next(x for x in bb.CASES if x.name == name)
    assert c["config"] == case.config()
    assert c["seeds"] == list(case.seeds)
    sat = c["saturation"]
    # the recorded config text is exactly what the script generates
    assert c["config_text"] == bb.booksim_config(case, sat["per_seed"][0], case.seeds[0])
    for line in ("injection_rate_uses_flits = 1;", f"routing_function = {case.routing};",
                 f"num_vcs = {case.num_vcs};", f"packet_size = {case.packet_size};", f"traffic = {case.traffic};"):
        assert line in c["config_text"]
    assert len(sat["per_seed"]) == sat["n"] == len(case.seeds)
    assert sat["min"] <= sat["mean"] <= sat["max"]
    assert sat["mean"] == pytest.approx(np.mean(sat["per_seed"]))
    for i, (lo, hi) in enumerate(sat["brackets"]):
        assert lo == sat["per_seed"][i]
        assert 0 < lo < hi <= 1.0
        assert hi - lo <= 0.1 / 32 + 1e-9  # bisected to 0.003125 or better
    for key, frac in (("latency_50", 0.5), ("latency_80", 0.8)):
        p = c[key]
        assert p["load"] == pytest.approx(frac * sat["mean"], abs=1e-6)
        # the case's latency seeds (records made before latency_seeds existed: its seeds)
        assert p.get("seeds", c["seeds"]) == list(case.lat_seeds)
        assert all(p["stable"]) and len(p["per_seed"]) == p["n"] == len(case.lat_seeds)
        assert all(a >= 0.95 * p["load"] for a in p["accepted"])
        assert p["mean"] == pytest.approx(np.mean(p["per_seed"]))
        if p["n"] > 1:
            assert p["std"] == pytest.approx(np.std(p["per_seed"], ddof=1))
        if "se" in p:
            assert p["se"] == pytest.approx(bb.std_error(p))
    z = c["zero_load"]
    assert z["load"] == bb.ZERO_LOAD and all(z["stable"])
    assert z["mean"] < c["latency_50"]["mean"] < c["latency_80"]["mean"] < bb.LATENCY_THRES


# ------------------------------------------------------------- closed forms
def _d(case) -> int:
    return 2 if case.topology == "torus" else 1


@pytest.mark.parametrize("name", CASE_NAMES)
def test_zero_load_matches_the_pipeline_formula(name):
    """T0 = 6 + L + (4 + d) H, with BookSim2's own hop count (routers = H + 1):
    only contention at 0.005 flits/node/cycle may add to it."""
    c, case = cases()[name], next(x for x in bb.CASES if x.name == name)
    z = c["zero_load"]
    h = z["hops"][0] - 1
    t0 = 6 + case.packet_size + (4 + _d(case)) * h
    assert t0 * 0.999 <= z["per_seed"][0] <= t0 * 1.015, (z["per_seed"][0], t0)


@pytest.mark.parametrize("name", [n for n in CASE_NAMES if "minadapt" not in n])
def test_zero_load_matches_the_closed_form_hops(name):
    """With the mean DOR hop count of the pattern (BookSim2's definitions: uniform includes
    the source, fixed points send to themselves); uniform within 4 standard errors of the
    fewest packets BookSim2 can have measured (3 sample periods of 10000 cycles)."""
    c, case = cases()[name], next(x for x in bb.CASES if x.name == name)
    mh, sd = mean_hops(case.topology, case.k, case.n, case.traffic)
    t0 = 6 + case.packet_size + (4 + _d(case)) * mh
    packets = case.routers * bb.ZERO_LOAD / case.packet_size * 3 * bb.ZERO_LOAD_SAMPLE_PERIOD
    noise = (4 + _d(case)) * 4 * sd / math.sqrt(packets)
    got = c["zero_load"]["per_seed"][0]
    assert t0 - noise - 0.001 * t0 <= got <= t0 + noise + 0.015 * t0, (got, t0, noise)


@pytest.mark.parametrize("name", CASE_NAMES)
def test_saturation_below_the_channel_bound(name):
    c, case = cases()[name], next(x for x in bb.CASES if x.name == name)
    if case.routing == "dim_order":
        bound = dor_bound(case.topology, case.k, case.n, case.traffic)
    elif case.traffic == "uniform":  # any routing: the bisection (4/k on a mesh)
        bound = (4.0 if case.topology == "mesh" else 8.0) / case.k
    else:
        bound = 1.0  # one injection channel per node
    assert c["saturation"]["max"] <= bound + 1e-9, (c["saturation"]["max"], bound)


@pytest.mark.parametrize("prefix", ["torus8x8-dor", "mesh8x8-dor"])
def test_more_vcs_saturate_later(prefix):
    s = [cases()[f"{prefix}-vc{v}-p1-uniform"]["saturation"] for v in (2, 4, 8)]
    assert s[0]["max"] < s[1]["min"]
    assert s[1]["mean"] <= s[2]["mean"] * 1.02
    assert s[0]["mean"] < s[2]["mean"]


@pytest.mark.parametrize("name", [n for n in CASE_NAMES if len(next(x for x in bb.CASES if x.name == n).lat_seeds) > 1])
def test_latency_points_have_a_small_standard_error(name):
    """The latency seeds were chosen for a standard error of about 1% of the
    mean (bench_booksim's docstring); BookSim2's recorded scatter bears it out."""
    for key in ("latency_50", "latency_80"):
        p = cases()[name][key]
        assert bb.std_error(p) <= 0.015 * p["mean"], (key, bb.std_error(p), p["mean"])


def test_base_case_noise_recorded():
    s = cases()["torus8x8-dor-vc2-p1-uniform"]["saturation"]
    assert s["n"] >= 3 and s["std"] > 0
    assert (s["max"] - s["min"]) / s["mean"] < 0.1
