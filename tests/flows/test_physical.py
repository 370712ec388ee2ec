"""The physical model: cross-sections, connectors, router pins, latencies, wiring modes."""


import numpy as np
import pytest

import candidates as cd
from candidates import Placement
from candidates.placement import block_placement
from flows import Demands, FlowError, max_concurrent_flow, min_latency, solve_lp
from flows.physical import Board, Packaging, RouterDelay, Technology, physical_model, physical_problem


def two_cards():
    """path 0-1-2-3: cards {0,1} and {2,3} side by side on one board."""
    t = cd.path(4)
    unit = np.array([[0, 0], [0, 0], [1, 0], [1, 0]])
    slots = np.array([[[0, 0], [0, 0]], [[0, 1], [0, 0]], [[0, 0], [0, 1]], [[0, 1], [0, 1]]])
    return t.replace(placement=Placement(("card", "board"), unit, slots[:, 0], slots))


def pack(card_pins=40, layers=3, pitch=0.002):
    return Packaging((Board("card", 0.1, 0.05, layers, pitch, 2, card_pins // 2),
                      Board("board", 0.4, 0.3, 1, 0.001)), pins_per_wire=2)


def test_resources_by_hand():
    t = two_cards()
    m = physical_model(t, Technology(), pack())
    names = list(m.resource_names)
    # card 0 and card 1 each have one column gap; the board one; two connector sets
    assert sorted(names) == sorted([
        "card 0 cross-section at column gap 0|1", "card 1 cross-section at column gap 0|1",
        "board 0 cross-section at column gap 0|1", "card 0 connector pins", "card 1 connector pins"])
    cap = dict(zip(names, m.capacity))
    assert cap["card 0 cross-section at column gap 0|1"] == pytest.approx(0.05 * 3)   # cut length x layers
    assert cap["board 0 cross-section at column gap 0|1"] == pytest.approx(0.3 * 1)
    assert cap["card 0 connector pins"] == 40
    # link 1 (1-2) crosses cards: both arcs use 2 pins on each card and 1 mm of the board cut
    R = m.R.toarray()
    r = names.index("card 1 connector pins")
    assert R[r].tolist() == [0, 0, 2, 2, 0, 0]
    assert R[names.index("board 0 cross-section at column gap 0|1")].tolist() == [0, 0, 0.001, 0.001, 0, 0]
    # wire lengths: on a card one slot = 0.1/2 m; between cards one board slot (0.2 m) + half a card height each side
    assert m.length.tolist() == pytest.approx([0.05, 0.05, 0.2 + 0.05, 0.2 + 0.05, 0.05, 0.05])
    rd = RouterDelay()
    assert m.latency[0] == pytest.approx(rd(1 + 1) + 7.1 * 0.05)      # router 0: 1 link + 1 terminal
    assert m.latency[2] == pytest.approx(rd(2 + 1) + 7.1 * 0.25)


@pytest.mark.parametrize("pins,layers,expect", [(40, 3, 20.0), (400, 3, 75.0), (1000, 30, 300.0)])
def test_capacity_is_the_tightest_resource(pins, layers, expect):
    # one demand 0 -> 3 crosses card 0's gap (0.05 m x layers / 2 mm), both connector sets
    # (pins / 2 per wire) and the board gap (0.3 m / 1 mm = 300 wires)
    t = two_cards()
    p = physical_problem(t, Demands([0], [3], [1.0]), Technology(), pack(pins, layers))
    want = min(pins / 2, 0.05 * layers / 0.002, 300.0)
    assert want == pytest.approx(expect)
    assert solve_lp(p).lam == pytest.approx(want)
    r = max_concurrent_flow(p, eps=0.02)
    assert r.lam <= want * (1 + 1e-9) <= r.upper_bound * (1 + 1e-9)


def test_uniform_wiring_splits_each_resource_equally():
    t = two_cards()
    m = physical_model(t, Technology(), pack(40, 3))
    cap = m.uniform_capacity()
    # card gap: 0.15 m / 2 mm = 75 wires over 2 arcs; connectors: 40 pins over the 2 crossing arcs at 2 pins;
    # board gap: 300 wires over 2 arcs
    assert cap.tolist() == pytest.approx([37.5, 37.5, 10.0, 10.0, 37.5, 37.5])
    p = physical_problem(t, Demands([0, 3], [3, 0], [1.0, 1.0]), Technology(), pack(40, 3), wiring="uniform")
    # each direction limited by its own 10-wire share (flexible would also give 20 / 2 per direction)
    assert solve_lp(p).lam == pytest.approx(10.0)


def test_router_pins_limit_every_wire():
    t = cd.ring(4)
    t = block_placement(t, [(4,)], ("board",))
    pk = Packaging((Board("board", 0.2, 0.2, 1, 0.001),), pins_per_wire=2, router_pins=8)
    p = physical_problem(t, Demands([0], [2], [1.0]), Technology(), pk)
    # router 0: 8 pins = 4 wires in + out; the demand leaves 0 on two arcs
    assert solve_lp(p).lam == pytest.approx(4.0)


def test_bluegene_torus_is_limited_by_connector_pins():
    t = block_placement(cd.torus((8, 8, 8)), [(1, 1, 2), (4, 4, 2), (8, 8, 8)],
                        ("compute_card", "node_card", "midplane"))
    dem = Demands.random_local(t.placement.unit[:, :2], 128, (0.4, 0.5, 0.1), seed=3)
    p = physical_problem(t, dem)
    r = max_concurrent_flow(p, eps=0.05)
    worst = p.resource_names[int(np.argmax(r.utilisation))]
    assert "connector pins" in worst
    # more node-card pins never hurt: lambda*(p2) >= lambda*(p) >= r.lam
    p2 = physical_problem(t, dem, packaging=Packaging.bluegene_l().with_connector_pins("node_card", 320))
    assert max_concurrent_flow(p2, eps=0.05).upper_bound >= r.lam


def test_min_latency_under_packaging_matches_lp():
    t = two_cards()
    p = physical_problem(t, Demands([0, 1, 3], [3, 2, 0], [1.0, 2.0, 1.0]), Technology(), pack(40, 3))
    lam = solve_lp(p).lam
    q = p.scaled(0.5 * lam)
    exact = solve_lp(q, objective="latency")
    r = min_latency(q, eps=0.02)
    total = float(q.demands.amount.sum())
    assert r.average_latency * (1 - 0.02) <= exact.average_latency + 1e-9
    assert exact.average_latency <= r.average_latency * (1 + 1e-9)
    # on a path every route is forced: latency = sum over demands of their channel latencies
    lat = p.latency
    want = (1 * (lat[0] + lat[2] + lat[4]) + 2 * lat[2] + 1 * (lat[5] + lat[3] + lat[1])) * 0.5 * lam
    assert exact.average_latency * total == pytest.approx(want)


def test_errors():
    with pytest.raises(FlowError, match="no placement"):
        physical_problem(cd.ring(4), Demands([0], [1], [1.0]), Technology(), pack())
    with pytest.raises(FlowError, match="wiring mode"):
        physical_problem(two_cards(), Demands([0], [1], [1.0]), Technology(), pack(), wiring="wide")
    with pytest.raises(FlowError, match="no board for packaging level 'board'"):
        physical_model(two_cards(), Technology(), Packaging((Board("card", 0.1, 0.1, 1, 0.001),)))
    with pytest.raises(FlowError, match="width_m must be a positive number"):
        Board("card", -1.0, 0.1, 1, 0.001)
    with pytest.raises(FlowError, match="wire delay"):
        Technology(wire_delay_ns_per_m=float("nan"))
    # a channel no resource limits: routers in one slot-less unit with no pins
    t = cd.path(2).replace(placement=Placement(("card",), np.array([[0], [0]]), np.zeros((2, 2)),
                                               np.zeros((2, 1, 2), dtype=int)))
    with pytest.raises(FlowError, match="uses no board cross-section"):
        physical_model(t, Technology(), Packaging((Board("card", 0.1, 0.1, 1, 0.001),)))


def test_router_delay_grows_with_radix():
    d = RouterDelay()
    r = np.arange(2, 65)
    assert np.all(np.diff(d(r)) > 0)
    assert d(4) == pytest.approx(0.032 * (40 + 23 * 1 + 9 * 2))
