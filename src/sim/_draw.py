"""Counter-based random draws of the simulator's kernels (every router model's).

A choice made while the routers of a cycle are visited (a routing tie, an
equally good candidate kept) must not depend on the order they are visited
in, or the numbers would change with the thread count. Such a draw is not
the next number of a generator but a hash of the run's seed, a key naming
the packet and a word naming the draw (its hop, its index within the
decision): splitmix64's finaliser spreads every input bit over the 64
output bits, so distinct inputs give independent-looking uniform words.
Draws made in a serial part of a cycle (generation, destinations, the
choices made at injection) stay on numba's generator.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._jit import HELPER

__all__ = ["mix", "below"]


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
