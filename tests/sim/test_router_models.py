"""The invariants every router model keeps (``vct``, ``wormhole``, ``iq``), and the router-model registry.

Each test runs once per model of :data:`sim.routers.ROUTER_REGISTRY`: the
same closed form at zero load (the model's own pipeline), the same seed
giving the same numbers, packets conserved, offered = accepted below
saturation, no deadlock at low load. The registry's refusals are one line
each, from the entry's capabilities.
"""

from __future__ import annotations

import numpy as np
import pytest

import candidates as cd
import sim
from sim import SimConfig, SimError, simulate
from sim.engine import resolve
from sim.routers import ROUTER_REGISTRY, RouterModel, model_of, register_router_model, router_entry
from sim.routing.registry import ROUTER_MODELS, ROUTING_REGISTRY

#: one configuration per model: DOR on 2 VCs, 4-phit packets, 1-cycle links
CONFIGS = {
    "vct": dict(routing="dor", vcs=2, packet_length=4, link_latency=1),
    "wormhole": dict(routing="dor", vcs=2, packet_length=4, link_latency=1, switching="wormhole"),
    "iq": dict(routing="dor", vcs=2, packet_length=4, link_latency=1, router="iq", buffer_flits=8),
}


def zero_load(model: str, hops: int, length: int) -> int:
    """A packet's latency with no contention, from generation to its tail consumed.

    The simple router (both switching modes): ``(H + 1) * router_delay + H *
    link_latency + L`` with 1-cycle delays. BookSim2's router: per hop
    routing, VC allocation, switch allocation and crossbar (a cycle each)
    and a 1-cycle channel that delivers into the next cycle (5 cycles); 7 more
    for the injection and ejection channels and the source router; L - 1
    for the body flits."""
    if model == "iq":
        return 5 * hops + 7 + length - 1
    return 2 * hops + 1 + length


def config(model: str, **kw) -> SimConfig:
    return SimConfig(**{**CONFIGS[model], **kw})


MODELS = sorted(CONFIGS)


def one_pair(T: int, s: int, d: int) -> sim.TrafficPattern:
    m = np.zeros((T, T))
    m[s, d] = 1.0
    return sim.demand(m)


def test_every_model_has_a_configuration_here():
    assert sorted(ROUTER_REGISTRY) == MODELS
    assert {model_of(config(m)).name for m in MODELS} == set(MODELS)


@pytest.mark.parametrize("model", MODELS)
def test_zero_load_latency_is_the_models_closed_form(model):
    t = cd.torus((8, 8))
    s, d = t.node_index((1, 2)), t.node_index((6, 3))
    H = 4  # x: 1 -> 6 is 3 hops the negative way; y: 1 hop
    r = simulate(t, config(model, warmup=0, measure=20000), one_pair(t.n, s, d), 0.008 / t.n, seed=4)
    assert r.packets > 20 and r.hops == H and r.min_hops == H
    expected = zero_load(model, H, 4)
    # a packet generated while its predecessor still leaves waits behind it: the typical one has the exact value
    assert r.latency_generation_percentiles["p50"] == expected
    assert expected <= r.latency_generation < expected + 0.2


@pytest.mark.parametrize("model", MODELS)
def test_same_seed_same_numbers_other_seed_other_numbers(model):
    t = cd.torus((4, 4))
    cfg = config(model, packet_length=(1, 8), warmup=300, measure=2000)
    runs = [simulate(t, cfg, "uniform", 0.3, seed=s).to_dict(channels=True) for s in (11, 11, 12)]
    for d in runs:
        for k in ("seconds", "router_cycles_per_second", "cpu_seconds", "compile_seconds"):
            d.pop(k)
    assert runs[0] == runs[1]
    assert runs[0]["latency"] != runs[2]["latency"]


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("spec,load", [("torus:4x4", 0.2), ("mesh:4x4", 0.15), ("ring:8", 0.1)])
def test_below_saturation_packets_arrive_and_accepted_is_offered(model, spec, load):
    t = cd.from_spec(spec)
    r = simulate(t, config(model, warmup=500, measure=8000, check=True), "uniform", load, seed=5)
    assert not r.deadlock and r.deadlock_kind == "none"
    assert r.drained and r.stable and r.conservation
    assert r.packets > 1000 and r.in_flight == r.injected - r.delivered
    assert abs(r.offered - load) < 0.04 * load + 0.01
    assert abs(r.accepted - r.offered) < 0.02 * load + 0.003
    assert r.hops == pytest.approx(r.min_hops)       # dimension order is minimal
    # every phit crosses `hops` channels
    total = r.channel_utilisation.sum()
    assert total == pytest.approx(r.accepted * t.num_terminals * r.hops, rel=0.03)


@pytest.mark.parametrize("model", MODELS)
def test_past_saturation_conserves_packets_without_deadlock(model):
    t = cd.torus((4, 4))
    r = simulate(t, config(model, warmup=300, measure=2000, drain=500, check=True), "uniform", 0.9, seed=3)
    assert not r.deadlock and r.conservation
    assert r.accepted < 0.8 * r.offered            # saturated ...
    assert r.in_flight > 0 and r.injected == r.delivered + r.in_flight   # ... with packets left in the network


# ------------------------------------------------------------- the registry
def test_models_select_by_router_and_switching():
    assert model_of(SimConfig()).name == "vct"
    assert model_of(SimConfig(switching="wormhole")).name == "wormhole"
    assert model_of(SimConfig(router="iq")).name == "iq"
    assert model_of(SimConfig(router="iq", switching="wormhole")).name == "iq"   # switching does not apply
    assert sorted({m.router for m in ROUTER_REGISTRY.values()}) == sorted(ROUTER_MODELS)
    assert router_entry("IQ") is ROUTER_REGISTRY["iq"]
    with pytest.raises(SimError, match="unknown router model 'nope'; valid: iq, vct, wormhole"):
        router_entry("nope")


def test_capabilities():
    vct, wormhole, iq = (ROUTER_REGISTRY[m] for m in ("vct", "wormhole", "iq"))
    assert vct.pair_latency and wormhole.pair_latency and not iq.pair_latency
    assert vct.traces and wormhole.traces and not iq.traces
    assert iq.routings == ("auto", "dor", "min_adapt", "valiant")
    assert "adaptive" in vct.routings and "tsdor-adaptive" in vct.routings and "min_adapt" not in vct.routings
    assert set(vct.routings) - set(wormhole.routings) == {"adaptive", "tsdor-adaptive"}
    # every routing runs on some model, and the registry's iq routings are the ones with BookSim2's code
    assert set(ROUTING_REGISTRY) == set(vct.routings) | set(iq.routings)
    assert {r.name for r in ROUTING_REGISTRY.values() if r.iq_code >= 0} == set(iq.routings) - {"auto"}
    assert iq.fixed_deadlock == "dateline" and vct.fixed_deadlock is None


def test_duplicate_models_are_errors():
    def run(*a):
        raise AssertionError("not run")

    with pytest.raises(ValueError, match="router model 'vct' is already registered"):
        register_router_model(RouterModel("vct", "again", "simple", "vct", True, True, run))
    with pytest.raises(ValueError, match="router=simple switching=wormhole is already model 'wormhole'"):
        register_router_model(RouterModel("wh2", "again", "simple", "wormhole", True, True, run))
    with pytest.raises(ValueError, match="router=iq has a model for every switching"):
        register_router_model(RouterModel("iq2", "again", "iq", "vct", False, False, run))
    with pytest.raises(ValueError, match="router must be one of simple, iq"):
        RouterModel("x", "bad", "other", None, False, False, run)
    assert sorted(ROUTER_REGISTRY) == MODELS


@pytest.mark.parametrize("cfg,ask,match", [
    (dict(router="iq", routing="dor"), dict(pair_latency=True), "pair_latency is not recorded by router=iq"),
    (dict(switching="wormhole", routing="adaptive"), {}, "bubble flow control needs virtual cut-through"),
    (dict(switching="wormhole", routing="tsdor-adaptive", vcs=8), {},
     "routing tsdor-adaptive models EXTOLL's virtual cut-through router"),
    (dict(router="iq", routing="table"), {}, "router iq supports routings dor, min_adapt, valiant"),
    (dict(routing="min_adapt"), {}, "routing min_adapt is BookSim2's and runs on its router model"),
])
def test_refusals_are_one_line(cfg, ask, match):
    spec = "ndt:4x2x2" if "tsdor" in cfg["routing"] else "torus:4x4"
    with pytest.raises(SimError, match=match) as e:
        simulate(cd.from_spec(spec), SimConfig(**cfg), "uniform", 0.1, **ask)
    assert "\n" not in str(e.value)


def test_traces_only_where_the_model_runs_them():
    b = sim.TraceBuilder(2)
    b.send(0, 1, 64)
    b.recv(1, 0)
    t = cd.torus((4, 4))
    with pytest.raises(SimError, match="router=iq does not run trace-driven workloads; use router=simple"):
        sim.run_trace(t, SimConfig(router="iq", routing="dor"), b.build())
    for model in ("vct", "wormhole"):
        r = sim.run_trace(t, config(model, packet_length=16), b.build())
        assert r.completed and r.packets == 1 and r.cycles == zero_load(model, 1, 16)


def test_resolve_asks_the_model():
    t = cd.torus((4, 4))
    assert resolve(t, SimConfig(router="iq", routing="dor")) == ("dor", "dateline")
    assert resolve(t, SimConfig(routing="dor", vcs=1)) == ("dor", "bubble")
    assert resolve(t, SimConfig(routing="dor", vcs=2)) == ("dor", "dateline")
