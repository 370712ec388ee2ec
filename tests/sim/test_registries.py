"""The routing and traffic-pattern registries: entries declare what they need, families declare their own
routes and their ``auto``; duplicates are errors."""

from __future__ import annotations

import pytest

import candidates as cd
import sim
from sim import SimConfig, simulate
from sim.errors import SimError
from sim.memory import memory_estimate
from sim.routing import resolve_routing, table_kind
from sim.routing.registry import ROUTING_REGISTRY, Routing, register_routing
from traffic import PATTERNS, Pattern, register_pattern


def test_duplicates_are_errors():
    with pytest.raises(ValueError, match="routing 'dor' is already registered"):
        register_routing(Routing("dor", "again", 0))
    with pytest.raises(ValueError, match="'uniform' is already registered"):
        register_pattern(Pattern("uniform", "again", PATTERNS["uniform"].build))
    with pytest.raises(ValueError, match="'hr' is already registered"):
        register_pattern(Pattern("hotter", "an alias taken", PATTERNS["hotregion"].build, aliases=("hr",)))
    assert "hotter" not in PATTERNS
    assert list(sim.ROUTINGS) == list(ROUTING_REGISTRY)


@pytest.mark.parametrize("spec,auto", [("fattree:k=4", "minimal"), ("ktree:k=2:n=3", "minimal"),
                                       ("dragonfly:a=4:p=2:h=2", "ugal"), ("hyperx:4x4", "table"),
                                       ("slimfly:q=5", "table"), ("torus:4x4", "adaptive"), ("complete:6", "table")])
def test_auto_is_what_the_family_declares(spec, auto):
    assert resolve_routing(cd.from_spec(spec), "auto") == auto


def test_router_models_and_needs():
    t = cd.from_spec("torus:4x4")
    with pytest.raises(SimError, match="routing min_adapt is BookSim2's .* add --router iq"):
        resolve_routing(t, "min_adapt")
    with pytest.raises(SimError, match="router iq supports routings dor, min_adapt, valiant .* got 'ugal'"):
        resolve_routing(t, "ugal", "iq")
    with pytest.raises(SimError, match=r"routing 'dor' needs routing records \(.*; on the simple router also "
                                       r"hyperx, flatfly\); .* family 'dragonfly'"):
        resolve_routing(cd.from_spec("dragonfly:a=4:p=2:h=2"), "dor")
    with pytest.raises(SimError, match="routing 'dor' needs routing records"):
        resolve_routing(cd.from_spec("hyperx:4x4"), "dor", "iq")     # BookSim2's DOR steps +-1 on lattices
    with pytest.raises(SimError, match="is for nDT twin tori"):
        resolve_routing(t, "tsdor")
    assert table_kind(t, "dor") == "records" and table_kind(cd.from_spec("ndt:4x4x2x2x2"), "tsdor") == "twin"


def test_hyperx_dor_runs_on_one_vc_past_saturation():
    # dimension order on cliques: one hop per differing coordinate, acyclic (tests/candidates/
    # test_family_routes.py), so one VC and no escape; deterministic and minimal
    t = cd.from_spec("hyperx:4x4x4:t=2")
    cfg = SimConfig(routing="dor", vcs=1, packet_length=1, warmup=300, measure=1500, drain=1500)
    r = simulate(t, cfg, "uniform", 1.0, seed=2)
    assert r.routing == "dor" and not r.deadlock and r.conservation
    assert r.hops == pytest.approx(r.min_hops, abs=1e-12)
    # (n, n) next-hop tables, not records: the memory estimate counts them
    assert table_kind(t, "dor") == "masks" and memory_estimate(t, cfg).per_pair > 0
    with pytest.raises(SimError, match="applies to routing dor on routing records only"):
        simulate(t, cfg.replace(deadlock="dateline"), "uniform", 0.1)


