"""Arrays laid out for the cache: data on a 64-byte line, and per-range arrays whose ranges never share one.

Private to the router models' builders (:mod:`sim.routers.iq`, :mod:`sim.routers.simple`).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["lined", "per_range"]


def lined(shape: tuple[int, ...], dtype) -> np.ndarray:
    """Zeros whose data starts on a 64-byte cache line (numpy's large
    arrays start 16 bytes past one), so a record row of 32 or 64 bytes
    never straddles two lines (each one a separate miss at scale)."""
    nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
    raw = np.zeros(nbytes + 64, np.uint8)
    off = -raw.ctypes.data % 64
    return raw[off:off + nbytes].view(dtype).reshape(shape)


def per_range(shape: tuple[int, ...], dtype, axis: int = 1, fill: int = 0) -> np.ndarray:
    """An array of ``fill`` whose data starts on a 64-byte line and whose
    ``axis`` is lengthened (by unused entries) until each sub-array along
    the axes before it fills whole lines: two threads writing their own
    ranges' entries never write the same line (it would bounce between
    their cores on every write). The leading axes index the ranges (and
    the cycle's parity, a sender); ``axis`` must be one whose length the
    kernels do not read."""
    padded = list(shape)
    inner = np.dtype(dtype).itemsize * int(np.prod(shape[axis + 1:], dtype=np.int64))
    step = 64 // math.gcd(inner, 64)
    padded[axis] = -(-shape[axis] // step) * step
    out = lined(tuple(padded), dtype)
    if fill:
        out[...] = fill
    return out
