"""The PTAS on packaging problems (uniform wiring: channel capacities from 2.5
to 55 wires) brackets the exact LP optimum, also past 1000 phases where the
slack halves with the step."""

import numpy as np
import pytest

import candidates as cd
from candidates.placement import block_placement
from flows import Demands, Packaging, max_concurrent_flow, physical_problem, solve_lp


def _problem(seed: int):
    t = block_placement(cd.torus((4, 4, 4)), [(1, 1, 2), (2, 2, 2), (4, 4, 4)],
                        ("compute_card", "node_card", "midplane"))
    dem = Demands.random_local(t.placement.unit, 256, [0.4, 0.5, 0.1, 0.0], seed=seed)
    return physical_problem(t, dem, packaging=Packaging.bluegene_l().with_connector_pins("node_card", 240),
                            wiring="uniform")


# exact HiGHS optima of the two instances (recorded 2026-11-24: 32/21 and 16/9)
LP = {1: 1.5238095238095242, 2: 1.777777777777775}


def test_instance_is_heterogeneous():
    p = _problem(1)
    assert np.unique(np.round(p.capacity, 6)).tolist() == [2.5, 3.0, 55.0]


@pytest.mark.parametrize("seed", [1, 2])
def test_lp_optimum(seed):
    assert solve_lp(_problem(seed)).lam == pytest.approx(LP[seed], rel=1e-7)


@pytest.mark.parametrize("seed,eps", [(1, 0.05), (2, 0.05), (2, 0.01)])
def test_ptas_brackets_lp(seed, eps):
    r = max_concurrent_flow(_problem(seed), eps=eps)
    assert r.status == "optimal"
    assert r.gap <= eps
    assert r.lam <= LP[seed] * (1 + 1e-9)
    assert r.upper_bound >= LP[seed] * (1 - 1e-9)
    # the flow is feasible at lam
    assert r.utilisation.max() <= 1 + 1e-9


def test_long_run_keeps_certificates():
    # eps 0.01 runs past 1000 phases (step and slack halvings)
    r = max_concurrent_flow(_problem(2), eps=0.01)
    assert r.iterations > 1000
    assert r.lam <= LP[2] * (1 + 1e-9) <= r.upper_bound * (1 + 2e-9)
