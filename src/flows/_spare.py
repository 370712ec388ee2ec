"""Spare widths made to fit the resources left over by a flow (shared by the queueing solvers)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__ = ["fit_spare"]


def fit_spare(R: sp.csr_matrix, Rc: sp.csc_matrix, u: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Spare widths ``u`` made to fit ``R u <= s`` (``Rc``: ``R`` in CSC form):
    each channel scaled by the tightest ratio ``s_r / (R u)_r`` among the
    resources it uses. Every channel of a resource shrinks by that
    resource's ratio or more, so each resource holds; one ratio for all
    would shrink every channel by the worst resource's (measured: a latency
    of 454 against 304 on a BG/L midplane flow)."""
    with np.errstate(invalid="ignore"):
        ru = R @ u
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(ru > s, s / ru, 1.0)
    per = np.ones_like(u)
    has = np.diff(Rc.indptr) > 0
    if has.any():
        per[has] = np.minimum.reduceat(ratio[Rc.indices], Rc.indptr[:-1][has])
    return u * np.minimum(per, 1.0)
