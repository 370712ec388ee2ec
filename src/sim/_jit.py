"""The compile conventions of the simulator's numba kernels (every router model's).

Every function runs with ``_nrt=False``: nothing here
allocates (the driver does), and without numba's runtime the arrays of the
structures are not reference-counted on every call. A kernel's entry
points (``run``, ``run_trace``) are the only cached dispatchers
(:data:`KERNEL`); everything they call is a :data:`HELPER`, inlined by LLVM
(``forceinline``: passing the structures to a real call costs hundreds of
registers, and numba-level inlining copies and re-types the IR, which
doubled the compile time) and compiled without the Python and C entry
points only a dispatcher called from Python needs. A helper called once
whose body holds most of the kernel (the simple router's run loops) is an
:data:`INLINED` one instead: inlined by numba before typing and never
compiled on its own (every compiled function optimises and emits again
the whole body LLVM inlined into it, so each such level cost seconds on a
cold start). ``error_model="numpy"`` drops the division-by-zero checks (no
divisor can be zero here). :data:`KERNEL_PAR` is a kernel whose ``prange``
loops run on numba's threads.
"""

KERNEL = dict(cache=True, _nrt=False, error_model="numpy")
KERNEL_PAR = dict(KERNEL, parallel=True)
HELPER = dict(_nrt=False, forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True, error_model="numpy")
INLINED = dict(HELPER, inline="always")
