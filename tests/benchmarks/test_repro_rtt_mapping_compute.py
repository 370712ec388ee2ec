"""benchmarks/repro_rtt_mapping.py: the compute model of its NAS runs (fast: about 10 s).

The model turns NPB's operation counts into simulator cycles per unit of skeleton work; these tests
check the units it divides by against closed forms of the NPB decompositions, the table against its
derivation, and what computation does to a simulated run: it lengthens it by at least the work on the
critical path and dilutes the RTT's saving where the network was the bottleneck.
"""

import sys
from pathlib import Path

import pytest

import patience  # tests/patience.py: limits in CPU seconds, not wall-clock timeouts

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

import repro_rtt_mapping as R  # noqa: E402


def _quiet(*_a) -> None:
    pass


def test_skeleton_units_are_the_npb_decompositions():
    # class A, 64 ranks, NPB's own iteration counts
    n = 64
    assert R.skeleton_units("lu", 64) == 250 * (n ** 3 + 2 * (n - 2) * n ** 2) // 64  # rhs + two sweeps
    assert R.skeleton_units("bt", 64) == 200 * 7 * n ** 3 // 64                       # copy_faces + 6 sweeps
    assert R.skeleton_units("sp", 64) == 400 * 7 * n ** 3 // 64
    assert R.skeleton_units("ft", 64) == (6 + 1) * 256 * 256 * 128 // 64              # initial FFT + 6
    assert R.skeleton_units("is", 64) == 10 * (1 << 23) // 64
    assert R.skeleton_units("cg", 64) == 15 * 25 * round(13 * 14000 / 64)


def test_compute_model_is_npb_op_counts_at_the_stated_rate():
    for k, v in R.COMPUTE_MODEL.items():
        # the table keeps two significant digits of the derivation
        assert v == pytest.approx(R.npb_cycles_per_unit(k), rel=0.05), k
    # one by hand: BT class A, 3478.8 n^3 - 17655.7 n^2 + 28023.7 n flops per iteration over 7 n^3 / P
    # points per rank, 16 flops per 32 ns cycle at 500 Mflop/s
    n = 64
    per_point = (3478.8 * n ** 3 - 17655.7 * n ** 2 + 28023.7 * n) / (7 * n ** 3)
    assert R.npb_cycles_per_unit("bt") == pytest.approx(per_point / 16, rel=1e-9)


def test_lu_with_computation_is_at_least_its_wavefront():
    # LU class W, 32 ranks (8 x 4), 2 iterations, on RT(4) with the identity mapping. Per iteration a
    # rank computes the rhs (lx ly nz points), then the lower sweep's wavefront reaches the south-east
    # corner after xdim + ydim - 2 + nz - 2 plane steps, and the upper sweep goes back as far.
    (x0,) = R.nas_runs("W", cases=[(32, 1, ("rt", "id"), [("rtt", "id")], ["lu"])], scale=0.0, log=_quiet)
    (x1,) = R.nas_runs("W", cases=[(32, 1, ("rt", "id"), [("rtt", "id")], ["lu"])], scale=1.0, log=_quiet)
    c = R.COMPUTE_MODEL["lu"]
    n, xdim, ydim, it = 33, 8, 4, x1["iterations"]
    lx, ly = n // xdim, n // ydim
    plane = round(c * lx * ly)
    rhs = round(c * lx * ly * n)
    assert x1["work"] == it * (rhs + 2 * (n - 2) * plane)
    bound = it * (rhs + 2 * (xdim + ydim + n - 4) * plane)
    assert bound > x1["work"]
    for name, cycles in x1["cycles"].items():
        assert cycles >= bound, name
        assert cycles > x0["cycles"][name]


@pytest.mark.parametrize("kernel", ["ft", "mg"])
def test_computation_dilutes_a_network_bound_saving(kernel):
    # FT (all-to-all) and MG (3D faces on a 2D grid) at 32 ranks are network bound without computation;
    # the RTT's saving stays positive but shrinks as the work grows
    case = [(32, 1, ("rt", "id"), [("rtt", "id")], [kernel])]
    s = {sc: R.nas_runs("W", cases=case, scale=sc, log=_quiet)[0]["saving"]["rtt id"] for sc in (0.0, 4.0)}
    assert s[0.0] > 5.0
    assert 0.0 < s[4.0] < 0.6 * s[0.0]


@pytest.mark.parametrize("value", ["lots", "-1", "nan"])
def test_bad_compute_value_is_one_line_exit_2(value):
    p = patience.run([sys.executable, "repro_rtt_mapping.py", "--compute", value, "--no-synthetic", "--no-nas"],
                     cpu=300, cwd=BENCH, capture_output=True, text=True)
    assert p.returncode == 2
    assert p.stdout == ""
    last = p.stderr.strip().splitlines()[-1]
    assert "--compute" in last and repr(value) in last


def test_compute_scale_accepts_model_and_multiples():
    assert R.compute_scale("model") == 1.0
    assert R.compute_scale("0") == 0.0
    assert R.compute_scale("0.25") == 0.25
