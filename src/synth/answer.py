"""The answer of a study, stated: which network, by how much, at what cost.

A ranking alone is not an answer. :func:`study_answer` turns the records of
one size class into the sentence an architect can defend: the winner, its
capacity and latency against the baseline with the certified intervals the
solvers give (capacity: the PTAS's feasible lambda and its dual upper
bound; latency: the feasible flow's latency and its certified lower
bound), the simulated saturation of both when the study simulated them,
and what each costs.

Intervals are worst and best cases of the ratio over the two brackets:
the capacity gain lies in ``[lam_w / ub_b, ub_w / lam_b]``; the latency
change in ``[bound_w / lat_b, lat_w / bound_b]`` (minus one).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from candidates import from_spec

from .records import CandidateRecord
from .ties import tied_with_above

__all__ = ["Answer", "study_answer", "study_answers", "units"]


def units(study) -> dict[str, str]:
    """What the numbers of a study are in."""
    pattern, packaged = study.traffic.pattern, study.physical.packaging != "none"
    # a rate pattern (uniform, bitreversal, ...) offers one unit per PE; a demand set (random:COUNT, a file, an
    # application) is carried as a whole
    per_pe = isinstance(pattern, str) and pattern not in ("random", "local", "file", "mixed", "app") \
        and not pattern.startswith(("random:", "local:"))
    capacity = ("phits/cycle/PE (injection rate every PE sustains)" if per_pe and not packaged
                else "x the demand set (largest multiple of every demand carried at once)")
    if packaged:
        capacity += "; flow in wires"
    latency = "ns (router and wire delay per hop)" if packaged else "hops per unit of flow"
    q = getattr(study, "queueing", None)
    if q is not None:
        latency += (f", plus each channel's queueing wait (Kleinrock's model: service {q.service:.6g} "
                    f"{'ns' if packaged else 'hops'}, variability {q.variability:g}"
                    + (", the PEs' own channels included)" if q.terminals else ")"))
    return {"capacity": capacity, "capacity_short": "phits/cycle/PE" if per_pe and not packaged else "x demands",
            "latency": latency,
            "latency_short": "ns" if packaged else "hops",
            "saturation": "phits/cycle/PE (offered load where accepted < 95%)"}


@dataclass(frozen=True)
class Answer:
    """The stated result of one size class of a study (see the module docstring)."""

    winner: str | None
    baseline: str | None
    objective: str
    pes: int | None
    #: "best" (the ranking's winner) or "at the baseline's cost" (the best candidate costing no more than the
    #: baseline in ``cost_measure``)
    label: str = "best"
    cost_measure: str = "links"
    capacity: tuple[float, float] | None = None                 # winner: (lambda, upper bound)
    baseline_capacity: tuple[float, float] | None = None
    capacity_gain: tuple[float, float, float] | None = None     # (point, low, high) ratios
    scale: float | None = None                                  # the demand scale of the latency figures
    latency: tuple[float, float] | None = None                  # winner: (latency, certified lower bound)
    baseline_latency: tuple[float, float] | None = None
    latency_change: tuple[float, float, float] | None = None    # (point, low, high) relative changes
    saturation: float | None = None                             # simulated (the mean over the seeds)
    baseline_saturation: float | None = None
    saturation_ci95: float | None = None                        # half-widths of the 95% intervals over seeds
    baseline_saturation_ci95: float | None = None
    cost: dict[str, Any] = field(default_factory=dict)
    baseline_cost: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    #: the runner-up when the certificates do not decide the order of the two (:mod:`synth.ties`)
    tied_with: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def heading(self) -> str:
        """What this answer is the answer to, as a heading: ``Best``, ``Best at the baseline's cost``, ...

        >>> Answer("ring:8", None, "capacity", 8, label="at the baseline's cost").heading()
        "Best at the baseline's cost"
        """
        if self.label == "best":
            return "Best"
        return "Best " + self.label if self.label.startswith("at ") else self.label[0].upper() + self.label[1:]

    def sentence(self, u: dict[str, str] | None = None) -> str:
        """The answer in one paragraph."""
        if self.winner is None:
            return "No candidate could be evaluated: see the ranking's notes."
        u = u or {"capacity_short": "", "latency_short": ""}
        parts = [f"{self.winner} ({self.cost.get('routers')} routers, {self.cost.get('links')} links, "
                 f"radix {self.cost.get('radix')})"]
        if self.baseline == self.winner:
            lam = (f"; it carries lambda = {self.capacity[0]:.4g} {u['capacity_short']} "
                   f"(certified <= {self.capacity[1]:.4g})") if self.capacity else ""
            return f"no candidate beats the baseline {parts[0]}{lam}."
        if self.baseline is None:
            if self.capacity:
                parts.append(f"carries lambda = {self.capacity[0]:.4g} {u['capacity_short']} "
                             f"(certified <= {self.capacity[1]:.4g})")
            return ", ".join(parts) + "."
        worse = self.worse_than_baseline()
        if worse:
            # first, so that nobody reads past it: the ranking's measure put it first, another says otherwise
            parts.append(f"ranked first by {self.objective}, but worse than the baseline {self.baseline} in "
                         + " and ".join(worse))
        if self.tied_with is not None:
            parts.append(f"tied with {self.tied_with} (their certified intervals overlap: the order of the two is "
                         "not certified)")
        if self.capacity_gain:
            assert self.capacity is not None and self.baseline_capacity is not None  # the gain is their ratio
            g, lo, hi = self.capacity_gain
            tie = "a tie within the certified gaps, " if lo <= 1 <= hi else ""
            parts.append(f"carries {_pct(g - 1)} capacity than {self.baseline} "
                         f"({self.capacity[0]:.4g} vs {self.baseline_capacity[0]:.4g} {u['capacity_short']}; "
                         + tie + _interval(lo - 1, hi - 1, "less", "more") + ")")
        if self.latency_change:
            assert self.latency is not None and self.baseline_latency is not None  # the change is their ratio
            c, lo, hi = self.latency_change
            tie = "a tie within the certified gaps, " if lo <= 0 <= hi else ""
            parts.append(f"{_pct(c, 'lower', 'higher')} latency at demand scale {self.scale:g} "
                         f"({self.latency[0]:.4g} vs {self.baseline_latency[0]:.4g} {u['latency_short']}; "
                         + tie + _interval(lo, hi, "lower", "higher") + ")")
        if self.saturation is not None and self.baseline_saturation:
            parts.append(f"simulated saturation {self.saturation:.3g}{_pm(self.saturation_ci95)} vs "
                         f"{self.baseline_saturation:.3g}{_pm(self.baseline_saturation_ci95)} phits/cycle/PE "
                         f"({_pct(self.saturation / self.baseline_saturation - 1)}"
                         + (", 95% intervals over seeds" if self.saturation_ci95 is not None else "") + ")")
        if self.baseline_cost:
            shown: tuple[tuple[str, str, str], ...] = (
                ("links", "links", ""), ("radix", "radix", ""), ("wire_length", "wire length", " m"))
            if self.cost_measure not in {k for k, _, _ in shown}:
                # the study's own cost measure (ports, routers, ...) first: the axis its Pareto front is drawn on
                shown = ((self.cost_measure, self.cost_measure.replace("_", " "), ""),) + shown
            diff = [f"{name} {self.cost[k]:.4g}{unit} vs {self.baseline_cost[k]:.4g}{unit}"
                    for k, name, unit in shown
                    if self.cost.get(k) is not None and self.baseline_cost.get(k) is not None
                    and self.cost[k] != self.baseline_cost[k]]
            parts.append("at the same cost" if not diff else "at a different cost: " + ", ".join(diff))
        return "; ".join(parts) + "."


    def worse_than_baseline(self) -> list[str]:
        """The shown measures in which the winner's figure is worse than the
        baseline's, each with by how much ("capacity (0.6% less)") and
        whether the certificates (or the seeds' 95% intervals) leave it a tie.

        >>> Answer("a", "b", "capacity", 8, capacity_gain=(0.994, 0.97, 1.01), saturation=0.46,
        ...        baseline_saturation=0.5).worse_than_baseline()
        ['capacity (0.6% less, a tie within the certified gaps)', 'simulated saturation (8.0% lower)']
        """
        out = []
        tie = ", a tie within the certified gaps"
        if self.capacity_gain and self.capacity_gain[0] < 1:
            g, _, hi = self.capacity_gain
            out.append(f"capacity ({_pct(g - 1)}{tie if hi >= 1 else ''})")
        if self.latency_change and self.latency_change[0] > 0:
            c, lo, _ = self.latency_change
            out.append(f"latency ({_pct(c, 'lower', 'higher')}{tie if lo <= 0 else ''})")
        if self.saturation is not None and self.baseline_saturation and self.saturation < self.baseline_saturation:
            ci = (self.saturation_ci95 or 0.0) + (self.baseline_saturation_ci95 or 0.0)
            within = ", within the seeds' 95% intervals" if self.baseline_saturation - self.saturation <= ci else ""
            out.append(f"simulated saturation "
                       f"({_pct(self.saturation / self.baseline_saturation - 1, 'lower', 'higher')}{within})")
        return out


def _pm(ci: float | None) -> str:
    return "" if ci is None else f" \u00b1 {ci:.2g}"


def _interval(lo: float, hi: float, down: str, up: str) -> str:
    if abs(hi - lo) < 5e-4:
        return "both certified optimal"
    return f"certified between {_pct(lo, down, up)} and {_pct(hi, down, up)}"


def _pct(x: float, down: str = "less", up: str = "more") -> str:
    """+12.3% -> '12.3% more', -4% -> '4% less' (or the words given)."""
    if up == "more":
        return f"{abs(x) * 100:.1f}% {'more' if x >= 0 else 'less'}"
    return f"{abs(x) * 100:.1f}% {down if x < 0 else up}"


def _first_latency(rec: CandidateRecord) -> tuple[float, float, float] | None:
    for x in rec.latency:
        if x.average_latency is not None:
            bound = x.latency_bound
            return x.scale, x.average_latency, bound if bound is not None else x.average_latency
    return None


def study_answers(study, ranking: list[str], records: list[CandidateRecord], simulation: list[dict[str, Any]],
                  pes: int | None, searched: tuple[str, ...] | list[str] = (),
                  exact: dict[str, float] | None = None) -> list[Answer]:
    """The answer of one size class, and -- when the winner costs more than
    the baseline in the study's cost measure -- the best candidate that
    costs no more than the baseline (performance at equal cost); with
    searched candidates (``searched``: their specs), the best of them
    against the best listed candidate: did search beat every listed family,
    by how much, at what cost. ``exact``: lambdas of the exact LP (the
    cross-check), which narrow the intervals that decide a tie."""
    best = study_answer(study, ranking, records, simulation, pes, exact=exact)
    out = [best]
    m = study.cost
    bc = best.baseline_cost.get(m) if best.baseline_cost else None
    wc = best.cost.get(m) if best.cost else None
    if bc is not None and wc is not None and wc > bc:
        by = {r.spec: r for r in records}
        cheap = [s for s in ranking
                 if (c := by[s].cost) is not None and (x := c.measure(m)) is not None and x <= bc]
        if cheap:
            out.append(study_answer(study, cheap, records, simulation, pes, label="at the baseline's cost", exact=exact))
    found = [s for s in ranking if s in set(searched)]
    listed = [s for s in ranking if s not in set(searched)]
    if found and listed:
        out.append(study_answer(study, [found[0]] + listed, records, simulation, pes,
                                label="searched against the best listed candidate", baseline=listed[0], exact=exact))
    elif searched and not found:
        why = "; ".join(f"{r.spec}: {r.status} ({r.reason})" for r in records if r.spec in set(searched))
        out.append(Answer(None, listed[0] if listed else None, study.objective, pes,
                          "searched against the best listed candidate", study.cost,
                          notes=(f"no searched candidate was ranked: {why}",)))
    return out


def study_answer(study, ranking: list[str], records: list[CandidateRecord], simulation: list[dict[str, Any]],
                 pes: int | None, label: str = "best", baseline: str | None = None,
                 exact: dict[str, float] | None = None) -> Answer:
    """The answer for the candidates ranked in ``ranking`` (one size class),
    against the study's baseline or ``baseline``; the runner-up named when
    the certificates do not order it below the winner."""
    by = {r.spec: r for r in records}
    winner = ranking[0] if ranking else None
    base = baseline if baseline is not None else study.baseline
    if base is not None:
        base = from_spec(base).spec or base
    notes = []
    brec = by.get(base) if base else None
    if base is not None and (brec is None or not brec.ok):
        why = "not in the pool" if brec is None else f"{brec.status}: {brec.reason}"
        notes.append(f"the baseline {base} has no result ({why}); gains are not stated")
        brec = None
    if winner is None:
        return Answer(None, base, study.objective, pes, label, study.cost, notes=tuple(notes))
    w = by[winner]
    assert w.capacity is not None  # a ranked candidate was evaluated
    sims = {x["spec"]: x for x in simulation if x.get("status") == "ok"}
    tied = tied_with_above(study.objective, ranking[:2], records, exact)
    kw: dict[str, Any] = dict(tied_with=ranking[1] if tied else None, capacity=(w.capacity.lam, w.capacity.upper_bound),
                              cost=w.cost.to_dict() if w.cost else {}, saturation=sims.get(winner, {}).get("saturation"),
                              saturation_ci95=sims.get(winner, {}).get("saturation_ci95"))
    if brec is not None:
        assert brec.capacity is not None  # an evaluated baseline (brec.ok)
        bl, bu = brec.capacity.lam, brec.capacity.upper_bound
        wl, wu = kw["capacity"]
        kw.update(baseline_capacity=(bl, bu), capacity_gain=(wl / bl, wl / bu, wu / bl),
                  baseline_cost=brec.cost.to_dict() if brec.cost else {},
                  baseline_saturation=sims.get(base, {}).get("saturation"),
                  baseline_saturation_ci95=sims.get(base, {}).get("saturation_ci95"))
        lw = _first_latency(w)
        # the same scale for both: the first the winner is feasible at
        lb = None
        if lw is not None:
            lb = next(((x.average_latency, x.latency_bound if x.latency_bound is not None else x.average_latency)
                       for x in brec.latency if x.scale == lw[0] and x.average_latency is not None), None)
        if lw is not None and lb is not None:
            s, lat, bound = lw
            kw.update(scale=s, latency=(lat, bound), baseline_latency=lb,
                      latency_change=(lat / lb[0] - 1, bound / lb[0] - 1, lat / lb[1] - 1))
        elif lw is not None:
            notes.append(f"the baseline carries no demand scale the winner is measured at ({lw[0]:g})")
    return Answer(winner, base, study.objective, pes, label, study.cost, notes=tuple(notes), **kw)
