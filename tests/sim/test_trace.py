"""Trace-driven workloads: closed-form timings, causality, NAS skeletons."""

from __future__ import annotations

import json

import numpy as np
import pytest

import candidates as cd
import sim
from sim import SimConfig, SimError, Trace, TraceBuilder, nas, run_trace
from sim.cli import main


def one_way(H, rd, ll, phits):
    """Zero-load arrival of a message of `phits` phits over H hops (packets pipelined)."""
    return (H + 1) * rd + H * ll + phits


# ------------------------------------------------------------- closed forms
@pytest.mark.parametrize("rd,ll,L,nbytes", [(1, 1, 16, 64), (1, 1, 16, 1000), (0, 1, 8, 4),
                                            (3, 2, 32, 4096), (2, 4, 5, 77)])
def test_ping_pong_equals_zero_load_latency_plus_serialisation(rd, ll, L, nbytes):
    t = cd.torus((8, 8))
    a, b = t.node_index((1, 2)), t.node_index((6, 3))  # 3 + 1 hops
    H = 4
    tb = TraceBuilder(t.n)
    tb.send(a, b, nbytes)
    tb.recv(a, b)
    tb.recv(b, a)
    tb.send(b, a, nbytes)
    cfg = SimConfig(routing="dor", router_delay=rd, link_latency=ll, packet_length=L, phit_bytes=4)
    r = run_trace(t, cfg, tb.build(), seed=1)
    F = -(-nbytes // 4)
    w = one_way(H, rd, ll, F)
    assert r.completed and not r.deadlock and r.conservation
    assert r.cycles == 2 * w
    assert r.finish[a] == 2 * w and r.finish[b] == w
    assert r.messages == 2 and r.packets == 2 * -(-F // L) and r.phits == 2 * F
    assert r.hops == H and r.message_latency == w


def test_messages_of_one_process_serialise_at_its_injection_port():
    t = cd.ring(8)
    tb = TraceBuilder(8)
    tb.send(0, 1, 400)   # 100 phits, 1 hop
    tb.send(0, 7, 40)    # 10 phits, 1 hop the other way, behind the first
    tb.recv(1, 0)
    tb.recv(7, 0)
    r = run_trace(t, SimConfig(routing="dor", packet_length=16), tb.build())
    assert r.finish[1] == one_way(1, 1, 1, 100)
    assert r.finish[7] == 100 + one_way(1, 1, 1, 10)  # it starts when the first message's last phit left


# ---------------------------------------------------------------- causality
def test_a_wait_blocks_until_its_message_arrives():
    """0 computes 1000 cycles then sends to 1; 1 waits, then forwards to 2;
    2 computes 50 and waits. Every finish time is the arrival it waited for."""
    t = cd.ring(8)
    tb = TraceBuilder(3)
    tb.compute(0, 1000)
    tb.send(0, 1, 64)
    tb.compute(1, 5)
    tb.recv(1, 0)
    tb.send(1, 2, 64)
    tb.compute(2, 50)
    tb.recv(2, 1)
    r = run_trace(t, SimConfig(routing="dor", packet_length=16), tb.build())
    hop1 = one_way(1, 1, 1, 16)
    assert r.finish == [1000, 1000 + hop1, 1000 + 2 * hop1]
    assert r.cycles == 1000 + 2 * hop1
    assert r.idle_cycles_skipped > 900  # the compute stretch was fast-forwarded


def test_tags_match_in_program_order_not_arrival_order():
    """1 receives tag 2 first although 0 sent tag 1 first (and it arrives
    first); then the tag-1 message, already there, satisfies the second wait."""
    t = cd.ring(4)
    tb = TraceBuilder(2)
    tb.send(0, 1, 4, tag=1)
    tb.compute(0, 300)
    tb.send(0, 1, 4, tag=2)
    tb.recv(1, 0, tag=2)
    tb.recv(1, 0, tag=1)
    r = run_trace(t, SimConfig(routing="dor", packet_length=16), tb.build())
    assert r.finish[1] == 300 + one_way(1, 1, 1, 1)


def test_causal_cycle_is_reported_as_trace_deadlock():
    tr = Trace.from_text("0 recv 1\n0 send 1 8\n1 recv 0\n1 send 0 8\n")
    r = run_trace(cd.ring(4), SimConfig(routing="dor"), tr)
    assert r.deadlock and r.deadlock_kind == "trace" and not r.completed
    assert r.finish == [-1, -1]


def test_mapping_places_processes():
    t = cd.ring(8)
    tr = Trace.from_text("0 send 1 4\n1 recv 0\n")
    near = run_trace(t, SimConfig(routing="dor"), tr)
    far = run_trace(t, SimConfig(routing="dor"), tr, mapping=[0, 4])
    assert near.hops == 1 and far.hops == 4
    assert far.cycles - near.cycles == 3 * 2  # 3 more hops, 2 cycles each
    with pytest.raises(SimError, match="two processes on one terminal"):
        run_trace(t, None, tr, mapping=[3, 3])
    with pytest.raises(SimError, match="only 8 processing elements"):
        run_trace(t, None, Trace.from_text("processes 9\n0 send 8 4\n8 recv 0\n"))


# ---------------------------------------------------------------- text I/O
def test_text_round_trip_and_errors(tmp_path):
    b = TraceBuilder(3, name="x")
    b.compute(0, 7)
    b.send(0, 2, 100, tag=5)
    b.recv(2, 0, tag=5)
    b.send(1, 0, 0)
    b.recv(0, 1)
    tr = b.build()
    p = tmp_path / "w.trace"
    tr.write(p)
    back = sim.read_trace(p)
    assert back.processes == 3 and back.name == "w"
    for r in range(3):
        assert back.events(r) == tr.events(r)
    assert back.to_text() == tr.to_text()
    with pytest.raises(SimError, match="trace line 2"):
        Trace.from_text("0 send 1 4\n0 fly 1\n")
    with pytest.raises(SimError, match="declares 2 processes"):
        Trace.from_text("processes 2\n0 send 2 4\n")
    with pytest.raises(SimError, match="no matching send"):
        run_trace(cd.ring(4), None, Trace.from_text("0 send 1 4\n1 recv 0\n1 recv 0\n"))
    with pytest.raises(SimError, match="cannot read trace"):
        sim.read_trace(tmp_path / "missing.trace")


def test_match_pairs_kth_recv_with_kth_send():
    tr = Trace.from_text("0 send 1 4\n0 send 1 8\n0 send 1 12 3\n1 recv 0 3\n1 recv 0\n1 recv 0\n")
    s, r = tr.match()
    assert s.tolist() == [0, 1, 2, -1, -1, -1]
    assert r.tolist() == [-1, -1, -1, 2, 0, 1]


# ----------------------------------------------------------- NAS skeletons
NAS_CASES = [("cg", 16), ("mg", 16), ("ft", 16), ("is", 16), ("lu", 16), ("bt", 16), ("sp", 16)]


@pytest.mark.parametrize("kernel,P", NAS_CASES)
def test_nas_skeletons_complete_without_deadlock_on_a_small_torus(kernel, P):
    tr = nas(kernel, P, "S", iterations=1)
    t = cd.torus((4, 4))
    r = run_trace(t, "tpds2010", tr, seed=3)
    assert r.completed and not r.deadlock and r.conservation
    assert r.messages == tr.num_messages
    # every message arrived, cut into 16-phit packets
    sizes = np.maximum(1, -(-tr.nbytes[tr.kind == 1] // 4))
    assert r.packets == int((-(-sizes // 16)).sum()) and r.phits == int(sizes.sum())
    assert max(r.finish) <= r.cycles
    # no faster than the biggest single message's transfer
    assert r.cycles >= int(sizes.max())
    # same seed, same cycles
    r2 = run_trace(t, "tpds2010", tr, seed=3)
    assert (r2.cycles, r2.finish) == (r.cycles, r.finish)


def test_nas_message_counts_follow_the_documented_skeletons():
    P = 16
    # FT: an all-to-all per iteration plus the initial one, a binomial reduce per iteration
    ft = nas("ft", P, "S", iterations=2)
    assert ft.num_messages == 3 * P * (P - 1) + 2 * (P - 1)
    assert ft.nbytes[0] == 64 ** 3 // P ** 2 * 16
    # CG on a 4x4 grid: 25 steps x (2 reduce exchanges + 12 transposes + 2 allreduces of 8 msgs per row) + 1
    cg = nas("cg", P, "S", iterations=1)
    assert cg.info["grid"] == "4x4"
    assert cg.num_messages == 25 * (2 * P + 12 + 2 * 4 * 8) + 4 * 8
    # BT/SP: 6 face messages + 3 solves x 2 sweeps x (q - 1) per process, and the final allreduce
    q = 4
    bt = nas("bt", P, "S", iterations=3)
    assert bt.num_messages == 3 * P * (6 + 3 * 2 * (q - 1)) + 4 * P
    # LU: the sweeps' 2 x (nz - 2) planes, each edge between neighbours carrying one message
    lu = nas("lu", P, "S", iterations=1)
    edges = 2 * 4 * 3  # 4x4 process grid
    assert lu.num_messages == 2 * edges + 2 * (12 - 2) * edges + 4 * P
    # IS: the seed changes the key distribution, not the message count
    a, b = nas("is", P, "S", iterations=1, seed=1), nas("is", P, "S", iterations=1, seed=2)
    assert a.num_messages == b.num_messages
    keys_sent = 65536 * 4 * (P - 1) / P  # the keys a process keeps never travel
    assert abs(a.total_bytes - P * 1024 * 4 * 4 - P * (P - 1) * 4 - (P - 1) * 4 - keys_sent) < 0.01 * keys_sent
    assert not np.array_equal(a.nbytes, b.nbytes)
    assert nas("is", P, "S", iterations=1, seed=1).nbytes.tolist() == a.nbytes.tolist()


def test_nas_compute_adds_time_and_errors():
    t = cd.torus((4, 4))
    cfg = sim.preset("tpds2010")
    tr = nas("lu", 16, "S", iterations=1, compute=1.0)
    # per process: the rhs (3 x 3 x 12 points) and 2 sweeps x 10 planes x 3 x 3 points
    assert tr.to_dict()["compute_cycles"] == 16 * (3 * 3 * 12 + 2 * 10 * 9)
    base = run_trace(t, cfg, nas("lu", 16, "S", iterations=1))
    slow = run_trace(t, cfg, tr)
    assert slow.cycles > base.cycles
    with pytest.raises(SimError, match="square"):
        nas("bt", 8)
    with pytest.raises(SimError, match="power-of-2"):
        nas("cg", 12)
    with pytest.raises(SimError, match="unknown NAS kernel"):
        nas("ep", 4)
    with pytest.raises(SimError, match="unknown NAS class"):
        nas("cg", 4, "Z")


def test_nas_on_twisted_and_concentrated_networks():
    """The 32-process runs of 'rtt-mapping-concentration' (RT(4) vs RTT(4));
    the RTT is never much slower and FT (all-to-all) gains."""
    cfg = sim.preset("tpds2010", phit_bytes=16)  # 4x fewer phits: the same pattern, a quicker test
    ft = nas("ft", 32, "S", iterations=1)
    rt = run_trace(cd.rt(4), cfg, ft)
    rtt = run_trace(cd.rtt(4), cfg, ft)
    assert rt.completed and rtt.completed
    assert rtt.cycles < rt.cycles
    r = run_trace(cd.from_spec("torus:4x4:c=2"), cfg, nas("mg", 32, "S", iterations=1))
    assert r.completed and not r.deadlock


# --------------------------------------------------------------------- CLI
def test_cli_trace_file_and_nas(capsys, tmp_path):
    p = tmp_path / "pp.trace"
    p.write_text("# ping-pong\nprocesses 2\n0 send 1 64\n0 recv 1\n1 recv 0\n1 send 0 64\n")
    code = main(["simulate", "ring:4", "--trace", str(p), "--routing", "dor", "--packet", "16", "--json"])
    d = json.loads(capsys.readouterr().out)
    assert code == 0 and d["cycles"] == 2 * one_way(1, 1, 1, 16) and d["completed"] is True
    assert d["trace_info"]["messages"] == 2
    out = tmp_path / "cg.trace"
    code = main(["simulate", "torus:4x4", "--trace", "nas:cg:16:S:1", "--write-trace", str(out)])
    text = capsys.readouterr().out
    assert code == 0 and "completed" in text and "True in" in text
    assert sim.read_trace(out).num_messages == nas("cg", 16, "S", iterations=1).num_messages
    code = main(["simulate", "ring:4", "--trace", "nas:cg"])
    err = capsys.readouterr().err
    assert code == 2 and "nas:KERNEL:PROCS" in err


def test_byte_matrix_sums_the_sends_between_processes():
    from sim.trace import TraceBuilder

    b = TraceBuilder(3)
    b.send(0, 1, 100)
    b.send(0, 1, 50)
    b.send(2, 0, 7)
    b.recv(1, 0)
    b.recv(1, 0)
    b.recv(0, 2)
    M = b.build().byte_matrix()
    expect = np.zeros((3, 3))
    expect[0, 1], expect[2, 0] = 150, 7
    assert np.array_equal(M, expect)
