"""Word-level helpers of the search kernels: population count and the
search's own random generator.

The generator is xoshiro256** (Blackman and Vigna, 2018) on a 4-word state
array the caller owns: a search's state can then be saved mid-run and
continued exactly (numba's global generator cannot be read back), and the
same seed gives the same words on every machine. Floats are the top 53 bits
of a word, so they are exact and identical everywhere.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit
from numba.core import cgutils, types
from numba.extending import intrinsic

HELPER = dict(_nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True, error_model="numpy")

_U5 = np.uint64(5)
_U9 = np.uint64(9)
_S7 = np.uint64(7)
_S17 = np.uint64(17)
_S45 = np.uint64(45)
_S11 = np.uint64(11)
_S64 = np.uint64(64)
_INV53 = 1.0 / 9007199254740992.0  # 2**-53


@intrinsic
def popcount(typingctx, x):
    """Set bits of a 64-bit word (LLVM's ctpop: one instruction where the CPU has it)."""
    if not isinstance(x, types.Integer) or x.bitwidth != 64:
        return None
    sig = types.int64(x)

    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.IntType(64), [ir.IntType(64)]),
                                            "llvm.ctpop.i64")
        return builder.call(fn, [args[0]])

    return sig, codegen


@njit(**HELPER)
def _rotl(x, k):
    return (x << k) | (x >> (_S64 - k))


@njit(**HELPER)
def rng_next(s):
    """The next 64-bit word of the xoshiro256** state ``s`` (uint64[4])."""
    result = _rotl(s[1] * _U5, _S7) * _U9
    t = s[1] << _S17
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], _S45)
    return result


@njit(**HELPER)
def rng_float(s):
    """A float in [0, 1) from the top 53 bits of the next word."""
    return float(rng_next(s) >> _S11) * _INV53


@njit(**HELPER)
def rng_int(s, k):
    """An integer in [0, k) (``k >= 1``)."""
    i = int(rng_float(s) * k)
    return i if i < k else k - 1


def seed_state(seed: int, stream: int = 0) -> np.ndarray:
    """The generator state of (``seed``, ``stream``): four words from numpy's
    SeedSequence, so every restart of a search has an independent stream.

    >>> seed_state(1, 0).tolist() == seed_state(1, 0).tolist(), seed_state(1, 0).tolist() == seed_state(1, 1).tolist()
    (True, False)
    """
    ss = np.random.SeedSequence(int(seed), spawn_key=(int(stream),))
    st = ss.generate_state(4, dtype=np.uint64)
    if not st.any():  # the one state xoshiro cannot leave
        st[0] = np.uint64(1)
    return st
