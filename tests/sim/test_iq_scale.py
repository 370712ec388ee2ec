"""BookSim2's router model (router=iq) at scale: no n x n tables, its memory
estimate against a closed form and against the arrays it allocates, the
refusal of what will not fit, and the packet pool and source queues that grow
with the traffic without changing a number."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import candidates as cd
from sim import cache as sim_cache
import sim
from common.size import SizeError
from sim import preset
from sim.routers import iq
from sim.memory import iq_sizes, memory_estimate
from traffic import traffic


def _cfg(**kw):
    return preset("booksim", **{"measurement": "fixed", "warmup": 200, "measure": 400, "drain": 5000, **kw})


def test_estimate_closed_form_torus_4x4():
    # torus 4x4: 32 links -> A = 64 arcs, T = 16; 2 VCs of 8 flits; route sets of D + 1 = 3
    t = cd.from_spec("torus:4x4")
    z = iq_sizes(t, _cfg(), 0.1)
    A, T, V, B, R = 64, 16, 2, 8, 3
    NIP, NOP = A + T, A + 2 * T
    NVC, NOV = NIP * V, NOP * V
    assert (z["NVC"], z["NOV"], z["R"], z["link"]) == (NVC, NOV, R, 2)
    assert z["pool_max"] == NVC * B + T + 1 == 1297
    # mean hops of a 4-ring (self included) 1, so 2 in all; a hop costs 4 stages + a 2-cycle channel;
    # 1.25 x (16 terminals x 0.1 x (2 x 6 + 6 + 4)) packets in flight + a cycle's takes (T + 1)
    assert z["pool"] == int(1.25 * 16 * 0.1 * 22 + T + 1) == 61
    # an input VC's int32 row: 8 scalars + 8 slots of 3 + 3 route entries of 4 = 44, in 64-byte lines: 48;
    # 5 more int32 per VC; an output VC's row of 4 int32
    assert z["vc_cols"] == 48
    assert z["parts"]["buffers"] == NVC * (48 * 4 + 20) + NOV * 16
    # a packet's row of 12 int32 padded to a 64-byte line, and its place in the free stack
    assert z["parts"]["packets"] == 61 * 68
    # wheel: a power of two above the longest credit delay (sa + st + 2 link + cd + 8 = 14); a slot holds a
    # credit per output port (the links' and ejections' in one wheel, the injection buffers' in another, each
    # with its int64 count)
    assert z["W"] == 16 and z["parts"]["wheel"] == 16 * (NOP * 4 + 16) + z["WW"] * 1 * 8
    # two partitions: a count per wheel each, a bitmap of routers to visit each, and the outboxes of a cycle's
    # flits (5 int32) and credits (2 int64) from each to the other, double buffered
    z2 = iq_sizes(t, _cfg(), 0.1, threads=2)
    box = 2 * 2 * 2 * ((NIP + NOP + 1) // 2) * 36
    assert z2["parts"]["wheel"] == 16 * (NOP * 4 + 32) + 2 * z["WW"] * 1 * 8 + box
    assert z2["parts"]["stats"] - z["parts"]["stats"] == (1 << 16) * 8
    m = memory_estimate(t, _cfg(), load=0.1)
    assert m.nbytes == sum(z["parts"].values())
    # without a load the pool is sized for a full network
    assert memory_estimate(t, _cfg()).parts["packets"] == 1297 * 68


def _allocated(run) -> float:
    total = 0
    for part in (run.net, run.buf, run.trf, run.acc):
        for x in part:
            if isinstance(x, np.ndarray):
                total += x.nbytes
    return total + run.ctl.nbytes


@pytest.mark.parametrize("spec", ["torus:8x8x8", "mesh:6x6", "torus:16x8"])
def test_estimate_matches_the_allocated_arrays(spec):
    t = cd.from_spec(spec)
    cfg = _cfg()
    pat = traffic("uniform")
    d = pat.destinations(t)
    run = iq.build(t, cfg, "dor", d, np.full(t.num_terminals, 0.1), 1, 0.1)
    est = memory_estimate(t, cfg, load=0.1)
    # the estimate also counts the build's int64 temporaries of the port order (28 bytes an input port)
    assert 0.95 < est.nbytes / _allocated(run) < 1.15, (est.nbytes, _allocated(run))
    z = iq_sizes(t, cfg, 0.1)
    assert run.buf.free.shape[0] == z["pool"] and run.trf.src_t.shape[1] == z["queue_cols"]
    assert run.buf.vcr.shape == (z["NVC"], z["vc_cols"]) and run.buf.ovr.shape == (z["NOV"], 4)


def test_refused_in_one_line_before_anything_is_allocated(monkeypatch, empty_table_cache):
    monkeypatch.setenv("TOPOSYNTH_MEMORY_LIMIT", "100M")
    t = cd.from_spec("torus:64x32x32")
    est = memory_estimate(t, _cfg(), load=0.1)
    assert 0.3e9 < est.nbytes < 0.5e9           # int32 state of 65,536 routers: no n x n part
    called = []
    monkeypatch.setattr(iq, "build", lambda *a, **k: called.append(1))
    with pytest.raises(SizeError) as exc:
        sim.simulate(t, _cfg(), "uniform", 0.1)
    msg = str(exc.value)
    assert "\n" not in msg
    assert msg.startswith("simulating torus:64x32x32 (65,536 routers) on router iq needs about ")
    assert "TOPOSYNTH_MEMORY_LIMIT" in msg
    assert not called and not sim_cache.holds(t, "tables")


def test_iq_runs_where_n_by_n_tables_would_not_fit(monkeypatch, empty_table_cache):
    # 2,048 routers: n x n tables (the table routing's) need about 170 MB, the iq state about 11 MB
    monkeypatch.setenv("TOPOSYNTH_MEMORY_LIMIT", "60M")
    t = cd.from_spec("torus:16x16x8")
    with pytest.raises(SizeError, match="n x n tables"):
        sim.simulate(t, preset("singleflit", routing="table", deadlock="auto", warmup=50, measure=50), "uniform", 0.02)
    assert memory_estimate(t, _cfg(), load=0.02).nbytes < 12e6
    r = sim.simulate(t, _cfg(warmup=100, measure=200), "uniform", 0.02, seed=3)
    assert r.stable and r.packets > 0.5 * 0.02 * 2048 * 200
    # zero-load latency of BookSim2's torus: 6 cycles a hop plus 7 in and out; 16x16x8: mean hops 4 + 4 + 2
    assert abs(r.latency_generation - (6 * 10 + 7)) < 3
    assert abs(r.hops - 10.0) < 0.3
    assert not sim_cache.holds(t, "tables")


@pytest.mark.parametrize("load, source_queue", [(0.9, 4096), (0.25, 4096), (0.9, 100)])
def test_growing_pool_and_queues_change_nothing(load, source_queue):
    # past saturation the packet pool (sized for load 0.01) and the 16-packet source queues must grow: each
    # widening doubles a row in place (a ring keeps its head), the last to a cap that is not a doubling (100
    # after 64) unwraps the rows; the numbers are those of queues and pool at their full size from the start
    t = cd.from_spec("torus:8x8")
    cfg = preset("booksim", measurement="fixed", warmup=300, measure=1000, drain=5000, source_queue=source_queue)
    d = traffic("uniform").destinations(t)
    runs, figs = [], []
    for sized in (0.01, None):
        run = iq.build(t, cfg, "dor", d, np.full(t.n, load), 7, sized)
        if sized is None:
            # the reference: every source queue at its full width from the start (never widened)
            full = np.zeros((t.num_terminals, source_queue), np.int32)
            run.trf = run.trf._replace(src_t=full, src_l=full.copy())
        figs.append(iq.measure(run, cfg))
        runs.append(run)
    assert runs[0].buf.free.shape[0] > iq_sizes(t, cfg, 0.01)["pool"]
    assert runs[0].buf.pkr.shape[0] == runs[0].buf.free.shape[0]
    assert runs[0].buf.free.shape[0] <= runs[1].buf.free.shape[0] == iq_sizes(t, cfg)["pool_max"]
    if load > 0.5:
        width = runs[0].trf.src_t.shape[1]
        assert width == 100 if source_queue == 100 else width >= 256
    a, b = figs
    for k in a:
        if k in ("seconds", "cpu_seconds", "compile_seconds"):
            continue
        if isinstance(a[k], np.ndarray):
            assert np.array_equal(a[k], b[k]), k
        else:
            assert repr(a[k]) == repr(b[k]), k


def test_cycles_beyond_int32_refused():
    t = cd.from_spec("torus:4x4")
    with pytest.raises(sim.SimError, match="int32"):
        sim.simulate(t, preset("booksim", measurement="fixed", warmup=2**31, measure=10), "uniform", 0.1)


def test_parked_heads_change_no_number():
    """Past saturation most routed heads find no idle output VC; they are
    parked until their router frees one instead of asking every cycle. The
    run parks heads and keeps the figures recorded before parking existed
    (main at 56a4d24; recorded again when the k/2 ties of the routes became
    a hash of the packet instead of the generator's next number, which
    alone changed them, and again when every terminal drew from streams of
    its own: the figures below came out the same from a copy of that
    kernel whose heads re-ask every cycle instead of parking)."""
    t = cd.from_spec("torus:8x8")
    cfg = _cfg(warmup=300, measure=600, drain=3000)
    d = traffic("uniform").destinations(t)
    run = iq.build(t, cfg, "dor", d, np.full(t.num_terminals, 0.6), 3, 0.6)
    parked = 0
    for until in range(100, 1000, 100):
        run.advance(until)
        parked = max(parked, int((run.buf.at == iq.Q.PARKED).sum()))
    assert parked > 10
    r = sim.simulate(t, cfg, "uniform", 0.6, seed=3)
    assert (r.latency_generation, r.accepted, r.packets, r.cycles, r.latency_max) == (
        660.5659647377439, 0.21375, 18093, 1900, 1717)


@pytest.mark.parametrize("routing,vcs,length", [("dor", 2, 1), ("min_adapt", 4, 4), ("valiant", 4, 3)])
def test_prefetching_changes_no_number(monkeypatch, routing, vcs, length):
    """Large networks prefetch the rows the next visits touch (a hint to the
    memory system); forced on for a small one, every figure stays."""
    t = cd.from_spec("torus:8x8")
    cfg = _cfg(routing=routing, vcs=vcs, packet_length=length)
    plain = sim.simulate(t, cfg, "uniform", 0.5, seed=5)
    assert iq.build(t, cfg, routing, traffic("uniform").destinations(t), np.full(64, 0.1), 1).net.pf == 0
    monkeypatch.setattr(iq, "PREFETCH_ABOVE", 0)
    assert iq.build(t, cfg, routing, traffic("uniform").destinations(t), np.full(64, 0.1), 1).net.pf == 1
    pf = sim.simulate(t, cfg, "uniform", 0.5, seed=5)
    assert plain.packets > 1000
    for f in dataclasses.fields(plain):
        if f.name not in ("seconds", "cpu_seconds", "compile_seconds"):
            assert repr(getattr(pf, f.name)) == repr(getattr(plain, f.name)), f.name


def test_ports_in_router_order_link_up_and_down():
    """The kernel numbers ports router by router: each router's ports are one
    block, an output port names the input port downstream (and its router),
    which names it back as its upstream, and the terminals' ports are theirs."""
    t = cd.from_spec("torus:4x3x2")
    run = iq.build(t, _cfg(), "dor", traffic("uniform").destinations(t), np.full(t.num_terminals, 0.1), 1, 0.1)
    Q, net = iq.Q, run.net
    A, T = t.num_arcs, t.num_terminals
    ipr, opr = net.ipr, net.opr
    assert np.array_equal(np.repeat(np.arange(t.n), np.diff(net.r_ip_ptr)), ipr[:, iq.L.P_ROUTER])
    assert np.array_equal(np.repeat(np.arange(t.n), np.diff(net.r_op_ptr)), opr[:A + T, Q.Q_ROUTER])
    assert np.diff(net.r_ip_ptr).tolist() == [7] * t.n      # 6 links + the injection port
    link = opr[:A + T, Q.Q_DOWN] >= 0
    assert link.sum() == A and sorted(opr[:A + T, Q.Q_ARC][link]) == list(range(A))
    down = opr[:A + T, Q.Q_DOWN][link]
    assert np.array_equal(ipr[down, Q.P_UP], np.flatnonzero(link))
    assert np.array_equal(ipr[down, iq.L.P_ROUTER], opr[:A + T, Q.Q_DROUTER][link])
    assert np.array_equal(t.arc_dst[opr[:A + T, Q.Q_ARC][link]], opr[:A + T, Q.Q_DROUTER][link])
    # terminal t: its injection port (upstream: its view A + T + t) and ejection port at its router
    assert np.array_equal(ipr[net.term_ip, Q.P_UP], A + T + np.arange(T))
    assert np.array_equal(ipr[net.term_ip, Q.P_INJ], np.ones(T)) and ipr[:, Q.P_INJ].sum() == T
    assert np.array_equal(opr[net.term_op, Q.Q_DOWN], np.full(T, -1))
    assert np.array_equal(opr[net.term_op, Q.Q_ROUTER], net.term_router)
    # every VC row knows its port, every output VC row its port
    V = int(net.V)
    assert np.array_equal(run.buf.vcr[:, Q.F_IP], np.arange(run.buf.vcr.shape[0]) // V)
    assert np.array_equal(run.buf.ovr[:, Q.O_PORT], np.arange(run.buf.ovr.shape[0]) // V)


def test_flits_without_credit_wait_off_the_lists():
    """Past saturation most front flits find no credit; they leave their
    router's ready list until the credit returns. Every such VC owns an
    output VC without credit, every parked head finds all its output VCs
    taken, the figures stay those recorded before (main at 56a4d24; again
    when every terminal drew from streams of its own: the same from a copy
    of that kernel whose VCs neither park nor wait off the lists), and
    packets carry their destination's coordinates."""
    t = cd.from_spec("torus:8x8")
    cfg = _cfg(warmup=300, measure=600, drain=3000)
    d = traffic("uniform").destinations(t)
    run = iq.build(t, cfg, "dor", d, np.full(t.num_terminals, 0.6), 3, 0.6)
    Q = iq.Q
    waiting = 0
    for until in range(100, 1000, 100):
        run.advance(until)
        buf = run.buf                   # (the packet pool grows: a new structure)
        g = np.flatnonzero(buf.at == Q.NO_CREDIT)
        waiting = max(waiting, len(g))
        o = buf.vcr[g, Q.F_OUT]
        assert np.array_equal(buf.ovr[o, Q.O_OWNER], g) and not buf.ovr[o, Q.O_CRED].any()
        assert (buf.vcr[g, Q.F_STATE] == Q.VS_ACTIVE).all() and (buf.vcr[g, Q.F_CNT] > 0).all()
        # a parked head waits for its route's output VCs, all of them taken
        for h in np.flatnonzero(buf.at == Q.PARKED):
            op, v0, v1 = buf.vcr[h, run.net.rt0:run.net.rt0 + 3]
            assert buf.vcr[h, Q.F_RTN] == 1 and (buf.ovr[op * 2 + v0:op * 2 + v1 + 1, Q.O_OWNER] >= 0).all()
            assert tuple(buf.want[h]) == (op * 2 + v0, op * 2 + v1)
        busy = buf.vcr[:, Q.F_CNT] > 0
        p = buf.vcr[busy, Q.F_FB + 3 * buf.vcr[busy, Q.F_HEAD]]
        dr = buf.pkr[p, Q.K_DR]
        assert np.array_equal(dr, run.net.term_router[buf.pkr[p, Q.K_DST]])
        assert np.array_equal(buf.pkr[p, Q.K_DC:Q.K_DC + 2], t.coords[dr])
    assert waiting > 10
    r = sim.simulate(t, cfg, "uniform", 0.6, seed=3)
    assert (r.latency_generation, r.accepted, r.packets, r.cycles, r.latency_max) == (
        660.5659647377439, 0.21375, 18093, 1900, 1717)
