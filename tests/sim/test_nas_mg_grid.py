"""sim.nas MG's process grid: the skeleton's x-first grid and NPB's own (mg.f's setup), which puts the most
processes in z (128 ranks: 4 x 4 x 8 against 8 x 4 x 4)."""

import numpy as np
import pytest

from sim import SimError, nas
from sim.nas import mg_grid
from sim.trace import SEND


def _pairs(tr, tag: int) -> set[tuple[int, int]]:
    send = tr.kind == SEND
    src, dst, tg = tr.rank_of_event()[send], tr.a[send], tr.tag[send]
    return set(zip(src[tg == tag].tolist(), dst[tg == tag].tolist()))


@pytest.mark.parametrize("P,npb", [(2, (1, 1, 2)), (8, (2, 2, 2)), (32, (2, 4, 4)), (64, (4, 4, 4)),
                                   (128, (4, 4, 8)), (256, (4, 8, 8)), (512, (8, 8, 8))])
def test_npb_grid_is_mg_f_setup(P, npb):
    # mg.f: dx = log_p / 3, pi(1) = 2**dx, dy = (log_p - dx) / 2, pi(2) = 2**dy, pi(3) = nprocs / (pi(1) pi(2))
    assert mg_grid(P, "npb") == npb
    assert np.prod(mg_grid(P)) == P and sorted(mg_grid(P)) == sorted(npb)   # the same sizes, other axes


def test_the_face_exchanges_follow_the_grid():
    # NPB's 4 x 4 x 8 at 128 ranks, rank = x + 4 y + 16 z: x-neighbours 1 apart within groups of 4, y-neighbours
    # 4 apart within groups of 16, z-neighbours 16 apart around all 128
    tr = nas("mg", 128, "S", iterations=1, mg_order="npb")
    assert tr.info["grid"] == "4x4x8"
    r = np.arange(128)
    x, y, z = r % 4, (r // 4) % 4, r // 16
    for tag, (dx, dy, dz) in ((10, (1, 0, 0)), (11, (0, 1, 0)), (12, (0, 0, 1))):
        want = set()
        for s in (1, -1):
            nb = (x + s * dx) % 4 + 4 * ((y + s * dy) % 4) + 16 * ((z + s * dz) % 8)
            want |= set(zip(r.tolist(), nb.tolist()))
        assert _pairs(tr, tag) == want
    # the default is unchanged: 8 x 4 x 4, x-neighbours 1 apart within groups of 8
    assert nas("mg", 128, "S", iterations=1).info["grid"] == "8x4x4"
    x8 = _pairs(nas("mg", 128, "S", iterations=1), 10)
    assert (0, 7) in x8 and (7, 8) not in x8 and (0, 4) not in x8


def test_mg_order_is_checked():
    with pytest.raises(SimError, match="unknown MG grid order"):
        nas("mg", 16, "S", iterations=1, mg_order="z-first")
    with pytest.raises(SimError, match="MG only"):
        nas("cg", 16, "S", iterations=1, mg_order="npb")
