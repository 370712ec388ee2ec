"""The terminals' own random streams (sim._draw): router iq draws every
packet's arrival, length, destination and intermediate router from streams
of its source terminal, so the terminals of one range of routers draw in
that range's phase, on any thread, and the same seed offers every network
the same packets."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

import candidates as cd
import sim
from sim import _draw
from sim.routers import iq
from traffic import traffic

M64 = 2**64 - 1


def splitmix64(state: int, n: int) -> list[int]:
    """Vigna's splitmix64 in plain Python (the published reference: from state 0 its first output is
    0xE220A8397B1DCDAF)."""
    out = []
    for _ in range(n):
        state = (state + 0x9E3779B97F4A7C15) & M64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
        out.append(z ^ (z >> 31))
    return out


@njit
def _draws(rng, t, n):
    """The next ``n`` words of stream ``t``, and the ``n`` uniforms drawn from a copy of the same state."""
    words = np.empty(n, np.uint64)
    uniforms = np.empty(n, np.float64)
    again = rng.copy()
    for i in range(n):
        words[i] = _draw.stream(rng, t)
        uniforms[i] = _draw.uniform(again, t)
    return words, uniforms


@njit
def _seed(seed, rng, word):
    _draw.seed_streams(seed, rng, word)


def test_a_stream_is_splitmix64():
    assert splitmix64(0, 3) == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
    rng = np.array([0, 12345, 2**63 + 7], np.uint64)
    for t in range(3):
        state = int(rng[t])
        words, uniforms = _draws(rng, t, 50)
        assert [int(w) for w in words] == splitmix64(state, 50)
        # a uniform is the word's top 53 bits over 2**53
        assert uniforms.tolist() == [(w >> 11) / 2.0**53 for w in splitmix64(state, 50)]
    # each stream advances alone
    rng2 = np.array([0, 12345, 2**63 + 7], np.uint64)
    _draws(rng2, 1, 50)
    assert rng2[0] == 0 and rng2[2] == 2**63 + 7


def test_uniforms_in_the_unit_interval_with_the_right_moments():
    """200,000 draws: mean 1/2 and variance 1/12 within 5 standard errors, the ten deciles within 5
    standard deviations of their binomial counts."""
    rng = np.zeros(1, np.uint64)
    _seed(7, rng, 1)
    _, u = _draws(rng, 0, 200_000)
    assert u.min() >= 0.0 and u.max() < 1.0
    n = u.size
    assert abs(u.mean() - 0.5) < 5 * np.sqrt(1 / 12 / n)
    assert abs(u.var() - 1 / 12) < 5 * np.sqrt(1 / 180 / n)
    counts = np.bincount((u * 10).astype(int), minlength=10)
    assert np.all(np.abs(counts - n / 10) < 5 * np.sqrt(n * 0.1 * 0.9))


def test_streams_seeded_apart():
    """Every terminal's stream starts elsewhere, another seed or another use starts them all elsewhere."""
    a, b, c = (np.zeros(4096, np.uint64) for _ in range(3))
    _seed(1, a, 1)
    _seed(2, b, 1)
    _seed(1, c, 2)
    assert len(set(a.tolist())) == 4096
    assert not set(a.tolist()) & set(b.tolist())
    assert not set(a.tolist()) & set(c.tolist())


def _arrivals(rate: np.ndarray, cycles: int, seed: int = 3, pattern: str = "uniform"):
    """Router iq's source queues after ``cycles`` cycles of a 4x4 torus offered ``rate`` packets a cycle per
    terminal: each terminal's next arrival and the packets it generated."""
    t = cd.from_spec("torus:4x4")
    cfg = sim.preset("booksim", measurement="fixed")
    run = iq.build(t, cfg, "dor", traffic(pattern).destinations(t), rate, seed, float(rate.mean()), 1)
    run.ctl[iq.Q.C_PHASE] = 1
    run.advance(cycles)
    return run.trf.next_gen.copy(), run.acc.v[iq.Q.A_GEN_PKTS]


def test_a_terminals_arrivals_do_not_depend_on_the_others():
    """Terminal 0's arrival times are its own stream's: the same whatever the other terminals offer
    (router iq drew all from one generator before, so any other terminal's traffic shifted them)."""
    quiet = np.full(16, 0.02)
    busy = np.full(16, 0.3)
    busy[0] = quiet[0]
    g_quiet, n_quiet = _arrivals(quiet, 2000)
    g_busy, n_busy = _arrivals(busy, 2000)
    assert n_busy > 5 * n_quiet                       # the others did offer more
    assert g_quiet[0] == g_busy[0]
    assert not np.array_equal(g_quiet[1:], g_busy[1:])


def test_the_same_seed_offers_every_pattern_the_same_arrivals():
    a, _ = _arrivals(np.full(16, 0.1), 1500, pattern="uniform")
    b, _ = _arrivals(np.full(16, 0.1), 1500, pattern="bitcomplement")
    assert np.array_equal(a, b)
    c, _ = _arrivals(np.full(16, 0.1), 1500, seed=4)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("rate", [0.05, 0.4])
def test_bernoulli_arrivals_at_the_offered_rate(rate):
    """16 terminals x 20,000 cycles: the packets generated within 5 standard deviations of the Bernoulli
    process's mean, ``16 x 20,000 x rate``."""
    _, n = _arrivals(np.full(16, rate), 20_000)
    mean = 16 * 20_000 * rate
    assert abs(n - mean) < 5 * np.sqrt(16 * 20_000 * rate * (1 - rate))
