"""benchmarks/repro_machine_scale.py, part permutations: the PEs numbered x fastest without an n x n matrix."""

import sys
from pathlib import Path

import numpy as np
import pytest

import candidates as cd

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import bound_tpds2010_permutations as B  # noqa: E402
import repro_machine_scale as M  # noqa: E402


@pytest.mark.parametrize("spec", ["pt:a=4", "pdtt:a=4"])
def test_bit_reversal_numbered_x_fastest_in_3d(spec):
    """PE x + 8 y + 32 z of an 8x4x4 network sends to the PE whose 7-bit index is its own reversed."""
    t = cd.from_spec(spec)
    perm = M.x_fastest(t, "bitreversal").options["perm"]
    x, y, z = t.coords.T
    idx = x + 8 * y + 32 * z
    want = np.array([int(format(int(i), "07b")[::-1], 2) for i in idx])
    got = idx[perm]
    sends = perm != np.arange(t.n)
    assert np.array_equal(got[sends], want[sends]) and np.array_equal(idx[~sends], want[~sends])


@pytest.mark.parametrize("pattern", ["bitreversal", "shuffle", "bitcomplement"])
def test_x_fastest_agrees_with_the_32x16_scripts_numbering(pattern):
    # the same pairs as bound_tpds2010_permutations.py builds from the demand matrix
    t = cd.from_spec("rtt:a=8")
    p = M.x_fastest(t, pattern).options["perm"]
    s, d, _ = B._pairs(t, pattern, "x-fastest")
    assert set(zip(s.tolist(), d.tolist())) == {(i, int(j)) for i, j in enumerate(p) if j != i}
