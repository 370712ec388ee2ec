"""The simulator keeps a topology's routing tables by its fingerprint: a pickled copy (what a sweep's
worker receives with every point) finds them; another topology does not."""

import pickle

import candidates as cd
from sim import cache as sim_cache
from sim.routing import tables as routing


def test_a_pickled_copy_finds_the_tables(monkeypatch):
    sim_cache.clear()
    built = []
    real = routing._build_tables
    monkeypatch.setattr(routing, "_build_tables", lambda *a: built.append(a[1]) or real(*a))
    t = cd.from_spec("torus:6x4")
    a = routing.build_tables(t, "table")
    b = routing.build_tables(pickle.loads(pickle.dumps(t)), "table")
    assert a is b and built == ["table"]
    assert sim_cache.holds(t, "tables") and not sim_cache.holds(cd.from_spec("torus:4x6"), "tables")
    routing.build_tables(t, "updown")
    assert built == ["table", "updown"]


def test_fingerprint_sees_what_the_tables_depend_on():
    t = cd.from_spec("torus:4x4")
    assert t.fingerprint == pickle.loads(pickle.dumps(t)).fingerprint
    assert t.fingerprint != t.with_concentration(2).fingerprint
    assert t.fingerprint != cd.from_spec("mesh:4x4").fingerprint
