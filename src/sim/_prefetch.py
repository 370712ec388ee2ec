"""A prefetch hint for the simulator's kernels (router iq's and the simple
router's VCT): at machine scale their state is many times the caches, and a
visit's rows are asked for before the visit needs them."""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["prefetch"]


@intrinsic
def prefetch(typingctx, arr, i, j):
    """Ask the memory system for the cache line of ``arr[i, j]`` (of
    ``arr[i]`` for a 1-d array, ``arr[i, j, 0]`` for a 3-d one), to be
    written soon (LLVM's ``llvm.prefetch``). A hint only: no value changes,
    and it never faults."""
    def codegen(context, builder, sig, args):
        aty = sig.args[0]
        ary = context.make_array(aty)(context, builder, args[0])
        idx = [context.cast(builder, a, t, types.intp) for a, t in zip(args[1:], sig.args[1:])][:aty.ndim]
        idx += [context.get_constant(types.intp, 0)] * (aty.ndim - len(idx))
        ptr = cgutils.get_item_pointer(context, builder, aty, ary, idx, wraparound=False)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
                                            "llvm.prefetch.p0")
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(1), i32(3), i32(1)])
        return context.get_dummy_value()
    return types.void(arr, i, j), codegen
