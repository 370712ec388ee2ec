"""Counter-based random draws of the simulator's kernels (every router model's).

A choice made while the routers of a cycle are visited (a routing tie, an
equally good candidate kept) must not depend on the order they are visited
in, or the numbers would change with the thread count. Such a draw is not
the next number of a generator but a hash of the run's seed, a key naming
the packet and a word naming the draw (its hop, its index within the
decision): splitmix64's finaliser spreads every input bit over the 64
output bits, so distinct inputs give independent-looking uniform words.

A terminal's own draws (its arrivals, packet lengths, destinations) come
from streams of its own where a router model gives it them (:func:`stream`:
a splitmix64 generator per terminal, its state a ``uint64`` seeded by
:func:`mix` of the run's seed, the terminal and the stream's use), so the
terminals of one range of routers can draw in that range's phase, in any
order and on any thread, and still draw the same numbers. A model without
streams draws them from numba's generator in a serial part of the cycle.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._jit import HELPER

__all__ = ["mix", "below", "seed_streams", "stream", "uniform"]


@njit(**HELPER)
def mix(seed, key, word):
    """A uniform 64-bit word (``uint64``) for draw ``word`` of ``key`` in the run seeded ``seed``."""
    z = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15)
    z ^= np.uint64(key)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z ^= np.uint64(word) * np.uint64(0x94D049BB133111EB)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return z


@njit(**HELPER)
def below(seed, key, word, k):
    """A uniform integer in ``0 .. k - 1`` from :func:`mix` (the high 32 bits scaled: no division, and a bias
    below ``k / 2**32``, far under what any run can see)."""
    return np.int64(((mix(seed, key, word) >> np.uint64(32)) * np.uint64(k)) >> np.uint64(32))


#: splitmix64's increment (the golden ratio in 64 bits)
GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(**HELPER)
def seed_streams(seed, rng, use):
    """Seed one stream per entry of ``rng`` (``uint64``): entry ``t`` from :func:`mix` of ``seed``, ``t`` and
    ``use`` (a word naming what the streams draw). The streams are stretches of one 2**64-long sequence at
    random starts; runs draw far too few numbers for two of them to meet."""
    for t in range(rng.shape[0]):
        rng[t] = mix(seed, t, use)


@njit(**HELPER)
def stream(rng, t):
    """The next uniform 64-bit word of stream ``t`` (splitmix64: its state advanced by :data:`GOLDEN`,
    then finalised)."""
    z = rng[t] + GOLDEN
    rng[t] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(**HELPER)
def uniform(rng, t):
    """A uniform double in ``[0, 1)`` from stream ``t``: the word's top 53 bits."""
    return np.float64(stream(rng, t) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
