"""PuLP models of the flow problems, for export (.lp / .mps) and other solvers.

PuLP builds one Python object per variable, so this is for small instances
(the exact solves of large ones go through :func:`flows.solve_lp`, which
builds HiGHS's arrays directly). The model is built from the same arrays as
the HiGHS LP (:func:`flows.lp.build_lp_arrays`), so both solve one problem.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .lp import build_lp_arrays
from .problem import FlowError, FlowProblem

if TYPE_CHECKING:
    import pulp

__all__ = ["to_pulp", "write_model", "row_names", "MAX_PULP_COLUMNS"]

#: Larger models are refused: PuLP would need minutes and gigabytes.
MAX_PULP_COLUMNS = 200_000


def row_names(problem: FlowProblem, meta: dict) -> list[str]:
    """Names of the LP's rows (:func:`flows.lp.build_lp_arrays`): ``flow_sS_vV``
    (the conservation of the flow of the demands from router S -- to S when
    the groups are by destination, ``flow_dS_vV`` -- at router V), then one per
    resource: ``cap_`` and its name, spaces and signs written ``_``.

    >>> import candidates as cd
    >>> from flows.problem import Demands
    >>> from flows.lp import build_lp_arrays
    >>> p = FlowProblem.from_topology(cd.ring(4), Demands.uniform(4))
    >>> names = row_names(p, build_lp_arrays(p)[5])
    >>> names[:2], names[-1], len(names)      # 4 groups x 4 routers, 8 channels (the last 0->3)
    (['flow_s0_v0', 'flow_s0_v1'], 'cap_0_3', 24)
    """
    side = "d" if meta["reverse"] else "s"
    out = [f"flow_{side}{int(g)}_v{v}" for g in meta["group_routers"] for v in range(problem.n)]
    seen: set[str] = set()
    for r in range(problem.num_resources):
        raw = problem.resource_names[r] if r < len(problem.resource_names) else f"resource {r}"
        name = "cap_" + re.sub(r"[^A-Za-z0-9]+", "_", str(raw)).strip("_")
        if name in seen:      # names must be unique in a model file
            name = f"{name}_{r}"
        seen.add(name)
        out.append(name)
    return out


def to_pulp(problem: FlowProblem, objective: str = "concurrent") -> pulp.LpProblem:
    """The problem as a PuLP model (variables ``x_<col>``; ``lambda`` last;
    rows named by :func:`row_names`).

    >>> import candidates as cd
    >>> from flows.problem import Demands
    >>> import pulp
    >>> m = to_pulp(FlowProblem.from_topology(cd.ring(4), Demands.uniform(4)))
    >>> len(m.variables()), m.sense == pulp.LpMaximize
    (33, True)
    """
    # imported here: pulp (10 ms) is for export only, not every `toposynth flow`
    import pulp

    c, A, row_lo, row_hi, _, meta = build_lp_arrays(problem, objective)
    rows = row_names(problem, meta)
    ncol = A.shape[1]
    if ncol > MAX_PULP_COLUMNS:
        raise FlowError(
            f"the PuLP model would have {ncol} variables (limit {MAX_PULP_COLUMNS}); "
            "solve large instances with flows.solve_lp (HiGHS) instead"
        )
    sense = pulp.LpMaximize if objective == "concurrent" else pulp.LpMinimize
    model = pulp.LpProblem(f"toposynth_{objective}", sense)
    names = [f"x_{j}" for j in range(ncol)]
    if objective == "concurrent":
        names[-1] = "lambda"
    if hasattr(model, "add_variable"):  # PuLP >= 3.3
        xs = [model.add_variable(nm, lowBound=0) for nm in names]
    else:
        xs = [pulp.LpVariable(nm, lowBound=0) for nm in names]
    model += pulp.lpSum(float(c[j]) * xs[j] for j in np.flatnonzero(c))
    Ar = A.tocsr()
    for i in range(A.shape[0]):
        cols = Ar.indices[Ar.indptr[i]:Ar.indptr[i + 1]]
        vals = Ar.data[Ar.indptr[i]:Ar.indptr[i + 1]]
        expr = pulp.lpSum(float(v) * xs[j] for j, v in zip(cols.tolist(), vals.tolist()))
        lo, hi = row_lo[i], row_hi[i]
        if lo == hi:
            model += (expr == float(lo)), rows[i]
        elif np.isfinite(hi):
            model += (expr <= float(hi)), rows[i]
        else:
            model += (expr >= float(lo)), rows[i]
    return model


def write_model(problem: FlowProblem, path: str | os.PathLike, objective: str = "concurrent") -> None:
    """Write the model as ``.lp`` or ``.mps`` (by the file ending).

    >>> import tempfile
    >>> import candidates as cd
    >>> from flows.problem import Demands
    >>> p = FlowProblem.from_topology(cd.ring(4), Demands.uniform(4))
    >>> path = Path(tempfile.mkdtemp()) / "ring4.lp"
    >>> write_model(p, path)
    >>> path.read_text().splitlines()[1:4]
    ['Maximize', 'OBJ: lambda', 'Subject To']
    >>> write_model(p, path.with_suffix(".txt"))
    Traceback (most recent call last):
    ...
    flows.problem.FlowError: .../ring4.txt: model files end in .lp or .mps
    """
    p = Path(path)
    model = to_pulp(problem, objective)
    if p.suffix.lower() == ".lp":
        model.writeLP(str(p))
    elif p.suffix.lower() == ".mps":
        model.writeMPS(str(p), with_objsense=True)  # OBJSENSE, not just a comment
    else:
        raise FlowError(f"{p}: model files end in .lp or .mps")
