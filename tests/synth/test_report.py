"""The study report: the answer first and consistent with the records, units
in the headers, unranked candidates apart, the study as TOML that reads
back, drawings that count and mark what they leave out."""

import html as htmllib
import json
import re
import tomllib

import numpy as np
import pytest

from candidates import from_spec
from synth.drawing import draw_topology
from synth.runner import run
from synth.study import BUILTIN_STUDIES, study_from_dict
from synth.toml_out import dumps, prune

STUDY = {
    "name": "report",
    "seed": 2,
    "candidates": {"specs": ["mesh:4x4", "torus:4x4", "twisted:4x4:t1=2", "ring:16", "complete:16"], "max_degree": 6},
    "traffic": {"pattern": "random", "count": 40, "scales": [0.1, 0.3]},
    "ranking": {"objective": "both", "baseline": "mesh:4x4"},
    "cross_check": {"top": 1},
}


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    res = run(study_from_dict(STUDY), out, jobs=1)
    page = (out / "report.html").read_text(encoding="utf-8")
    return res, json.loads((out / "results.json").read_text()), page


def _section(page: str, start: str, stop: str = "<h2") -> str:
    i = page.index(start)
    j = page.find(stop, i + len(start))
    return page[i: j if j >= 0 else len(page)]


def _text(fragment: str) -> str:
    return htmllib.unescape(re.sub(r"<[^>]+>", " ", fragment))


def test_answer_comes_first_and_states_the_gains_of_the_records(report):
    res, d, page = report
    order = [page.index(h) for h in ("<h2 id='answer'>Answer", "<h2>Performance against cost", "<h2>Ranking",
                                     "<h2>Capacity", "<h2>Winners", "<h2>The study")]
    assert order == sorted(order)
    assert page.index("<h2") == order[0]                  # nothing before the answer but the title
    by = {r["spec"]: r for r in d["records"]}
    winner = res.ranking[0]
    assert winner != "mesh:4x4"          # wrap-around links beat the mesh
    w, b = by[winner]["capacity"], by["mesh:4x4"]["capacity"]
    gain = w["lambda"] / b["lambda"] - 1
    low, high = w["lambda"] / b["upper_bound"] - 1, w["upper_bound"] / b["lambda"] - 1
    answer = _text(_section(page, "<h2 id='answer'>"))
    c = by[winner]["cost"]
    assert f"{winner} ({c['routers']} routers, {c['links']} links, radix {c['radix']})" in answer
    assert f"carries {abs(gain) * 100:.1f}% {'more' if gain >= 0 else 'less'} capacity than mesh:4x4" in answer
    # the table: the gain with its certified interval, the capacities with their units
    assert f"{gain * 100:+.1f}% (certified {low * 100:+.1f}% \u2026 {high * 100:+.1f}%)" in answer
    assert f"{w['lambda']:.4g} (certified \u2264 {w['upper_bound']:.4g})" in answer
    assert "capacity \u03bb (x demands)" in answer
    lw, lb = by[winner]["latency"][0]["average_latency"], by["mesh:4x4"]["latency"][0]["average_latency"]
    change = lw / lb - 1
    assert f"{abs(change) * 100:.1f}% {'lower' if change < 0 else 'higher'} latency at demand scale 0.1" in answer
    assert "min average latency (hops) at demand scale 0.1" in answer


def test_ranking_headers_carry_units_and_unranked_candidates_stay_out(report):
    res, d, page = report
    ranking = _section(page, "<h2>Ranking", "<h3>Not ranked")
    heads = re.findall(r"<th[^>]*>([^<]*)</th>", ranking)
    for h in ("capacity \u03bb (x demands)", "certified \u2264 (x demands)", "latency @ 0.1 (hops)",
              "latency @ 0.3 (hops)", "diameter between PEs (hops)", "avg distance between PEs (hops)", "radix (ports/router)"):
        assert htmllib.escape(h) in heads or h in heads
    rows = re.findall(r"<tr[^>]*><td[^>]*>(\d+)</td><td[^>]*>([^<]*)</td>", ranking)
    assert [spec.removesuffix(" (baseline)") for _, spec in rows] == res.ranking
    assert [int(k) for k, _ in rows] == list(range(1, len(res.ranking) + 1))
    # complete:16 (degree 15 > max_degree 6) is pruned: listed apart, not a row of the ranking
    assert "complete:16" not in ranking
    apart = _section(page, "<h3>Not ranked")
    assert "Pruned before the PTAS: 1 x router degree 15" in apart and "complete:16" in apart


def test_figures_have_legends_for_the_baseline(report):
    from synth.answer import units
    from synth.report_figures import capacity_figure, pareto_figure

    res, d, _ = report
    u = units(res.study)
    fig = capacity_figure(d["records"], d["ranking"], "mesh:4x4", u)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert "baseline (mesh:4x4)" in labels and "certified upper bound (dual)" in labels
    assert fig.axes[0].get_xlabel() == "capacity \u03bb (x demands)"
    fig = pareto_figure(d["records"], d["pareto"], "mesh:4x4", [d["ranking"][0]], 0.1, u, "links")
    assert len(fig.axes) == 2                            # capacity and latency against links
    for ax in fig.axes:
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert {"Pareto front", "baseline (mesh:4x4)", "winner"} <= set(labels)


def test_the_reports_study_reads_back_as_the_same_study(report):
    res, d, page = report
    toml = htmllib.unescape(re.search(r"<pre id='study'>(.*?)</pre>", page, re.S).group(1))
    again = study_from_dict(tomllib.loads(toml))
    assert again.fingerprint() == d["fingerprint"] == res.study.fingerprint()


@pytest.mark.parametrize("name", sorted(BUILTIN_STUDIES))
def test_toml_round_trip_of_every_builtin_study(name):
    d = BUILTIN_STUDIES[name]
    assert tomllib.loads(dumps(d)) == d
    s = study_from_dict(d)
    assert study_from_dict(tomllib.loads(dumps(prune(s.to_dict())))) == s


def test_toml_strings_keys_and_floats():
    d = {"a": 'say "hi"\\\n\tok', "x": {"torus:8x4": "uniform", "y": {"z": [1.5e-07, 1e16, -0.0, True]}},
         "t": [{"k": [[1, 2], []]}]}
    assert tomllib.loads(dumps(d)) == d
    with pytest.raises(TypeError):
        dumps({"a": None})


def _panel_links(topo):
    """Independently: links that are unit steps in x or y inside one z slice, wrap-arounds in x or y, z links."""
    C, L = topo.coords, topo.links
    dl = np.abs(C[L[:, 1]] - C[L[:, 0]])
    same_z = dl[:, 2] == 0
    unit = same_z & (dl[:, :2].sum(axis=1) == 1)
    return int(unit.sum()), int((same_z & ~unit).sum()), int((~same_z).sum())


def test_a_3d_torus_is_drawn_as_slices_with_its_wraparounds_marked():
    t = from_spec("torus:4x4x3")
    dr = draw_topology(t)
    lines, wraps, between = _panel_links(t)
    assert dr.kind == "small multiples" and dr.nodes == t.n == 48
    assert (dr.links, dr.stubs, dr.hidden) == (lines, wraps, between) == (72, 24, 48)
    assert len(dr.figure.axes) >= 3                       # one panel per z slice
    assert "(3,y,z) \u2014 (0,y,z)" in dr.caption and "(x,y,2) \u2014 (x,y,0)" in dr.caption
    assert "48 links between slices are not drawn" in dr.caption


def test_twisted_wraparounds_are_stated():
    # PDTT(4): the Y and the Z wrap-around each shift x by a = 4 (DESIGN.md)
    dr = draw_topology(from_spec("pdtt:a=4"))
    assert "(x,3,z) \u2014 (x+4,0,z) (twisted)" in dr.caption and "(x,y,3) \u2014 (x+4,y,0) (twisted)" in dr.caption
    assert "(7,y,z) \u2014 (0,y,z);" in dr.caption       # the x wrap is plain
    # RTT(4): vertical wrap (x, 0)-((x + a) mod 2a, a - 1)
    dr = draw_topology(from_spec("rtt:a=4"))
    assert dr.kind == "grid" and "(x,3) \u2014 (x+4,0) (twisted)" in dr.caption and dr.hidden == 0


def test_a_hypercube_is_not_drawn_as_a_grid():
    t = from_spec("hypercube:5")
    dr = draw_topology(t)
    assert (dr.kind, dr.nodes, dr.links, dr.hidden) == ("hypercube", 32, 80, 0)
    pts = dr.figure.axes[0].collections[-1].get_offsets()
    assert len({(round(x, 6), round(y, 6)) for x, y in pts}) == 32      # no two routers drawn on one spot


def test_a_product_with_an_irregular_factor_is_drawn_as_its_factors():
    import networkx as nx

    t = from_spec("bgl:g6:GiCG_C*ring:4*ring:4*ring:4")
    dr = draw_topology(t)
    row = nx.from_graph6_bytes(b"GiCG_C")
    assert dr.kind == "factors" and dr.nodes == 4 + 4 + 4 + 8
    assert dr.links == 4 + 4 + 4 + row.number_of_edges() and dr.hidden == t.num_links
    assert "512 routers = 4 x 4 x 4 x 8" in dr.caption


def test_rings_and_dense_graphs_on_a_circle():
    dr = draw_topology(from_spec("ring:12"))
    assert (dr.kind, dr.nodes, dr.links) == ("ring", 12, 12)
    dr = draw_topology(from_spec("complete:6"))
    assert dr.kind == "graph" and dr.links == 15 and "circle" in dr.caption


def test_a_fat_tree_is_drawn_in_layers_from_its_pe_routers():
    # fattree:k=4: 8 edge switches (2 PEs each), 8 aggregation, 4 core; each row one hop above the last
    dr = draw_topology(from_spec("fattree:k=4"))
    assert (dr.kind, dr.nodes, dr.links, dr.hidden) == ("graph", 20, 32, 0)
    assert "in layers" in dr.caption and "the 8 routers with PEs at the bottom" in dr.caption
    ys = sorted({round(p[1], 6) for line in dr.figure.axes[0].collections[:1] for seg in line.get_segments()
                 for p in seg})
    assert len(ys) == 3                      # edge, aggregation and core rows


def test_a_large_fat_tree_draws_one_pod_to_the_core_and_says_what_it_leaves_out():
    # fattree:k=16 (families-1024): 16 pods of 8 edge and 8 aggregation switches, 64 core switches; 1,024 links
    # inside the pods, 1,024 from the pods to the core -- drawn one by one they make a solid band
    t = from_spec("fattree:k=16")
    dr = draw_topology(t)
    segments = sum(len(c.get_segments()) for c in dr.figure.axes[0].collections if hasattr(c, "get_segments"))
    assert dr.kind == "layers" and dr.nodes == 320
    assert segments == dr.links == 1024 + 64 < t.num_links == 2048
    assert dr.hidden == t.num_links - dr.links == 960
    assert "16 groups" in dr.caption and "Not drawn: 960 links" in dr.caption
    assert "the 960 from the other 15 groups to the top row" in dr.caption
    # each other pod's 64 links to the core as one line
    bundles = [ln for ln in dr.figure.axes[0].get_lines() if len(ln.get_xdata()) == 2]
    assert len(bundles) == 15
    # a small one stays drawn link by link
    dr = draw_topology(from_spec("fattree:k=8"))
    assert (dr.kind, dr.links, dr.hidden) == ("graph", 256, 0)


def test_a_dragonfly_is_drawn_as_its_groups():
    # dragonfly:a=4:p=2:h=2: 9 groups of 4 routers, 6 local links per group, 18 global links
    dr = draw_topology(from_spec("dragonfly:a=4:p=2:h=2"))
    assert (dr.kind, dr.nodes, dr.links, dr.hidden) == ("graph", 36, 90, 0)
    assert "in 9 groups" in dr.caption and "Every router serves 2 PEs" in dr.caption
    between, inside = dr.figure.axes[0].collections[:2]
    assert (len(inside.get_segments()), len(between.get_segments())) == (9 * 6, 9 * 4 * 2 // 2)


def test_plotting_leaves_the_callers_backend_and_figures_alone(report, tmp_path):
    """A notebook's inline backend must survive the report's figures, the drawings and the simulator's
    plot: every figure is made through matplotlib's object API, none through pyplot."""
    import matplotlib

    before = matplotlib.get_backend()
    matplotlib.use("svg")          # a stand-in for a notebook's backend (not the Agg a script defaults to)
    import matplotlib.pyplot as plt

    import candidates as cd
    import sim
    from sim.plot import plot_sweeps
    from synth.answer import units
    from synth.drawing import draw_topology
    from synth.report_figures import capacity_figure, png

    try:
        res, d, _ = report
        fig = capacity_figure(d["records"], d["ranking"], "mesh:4x4", units(res.study))
        assert png(fig)[:8] == b"\x89PNG\r\n\x1a\n"
        drawing = draw_topology(cd.from_spec("torus:4x4"))
        assert png(drawing.figure)[:4] == b"\x89PNG"
        s = sim.sweep(cd.ring(6), "singleflit", "uniform", loads=[0.1, 0.2], seed=1)
        out = plot_sweeps({"ring": s}, str(tmp_path / "s.png"))
        assert (tmp_path / "s.png").read_bytes()[:4] == b"\x89PNG" and out.endswith("s.png")
        assert matplotlib.get_backend() == "svg" and plt.get_fignums() == []
    finally:
        matplotlib.use(before)


def _sim_record(spec, accepted, latency):
    """A simulation record of the loads 0.1, 0.2, ... with these accepted loads and latencies."""
    pts = [{"offered": round(0.1 * (i + 1), 1), "accepted": a, "latency": lat, "hops": 2.0, "deadlock": False,
            "load": round(0.1 * (i + 1), 1)} for i, (a, lat) in enumerate(zip(accepted, latency))]
    return {"spec": spec, "status": "ok", "saturation": max(accepted), "routing": "adaptive", "points": pts,
            "seconds": 1.0}


def test_simulation_figure_marks_the_points_past_saturation_and_labels_latency_plainly():
    from common.figures import PAST_SATURATION
    from synth.report_figures import simulation_figure

    # torus:4x4 saturates past 0.3 (0.33 accepted of 0.4 offered), the baseline past 0.2; latencies 25-320 cycles
    sims = [_sim_record("torus:4x4", [0.1, 0.2, 0.3, 0.33, 0.34], [25, 28, 40, 150, 320]),
            _sim_record("mesh:4x4", [0.1, 0.2, 0.26, 0.27], [27, 31, 200, 300])]
    fig = simulation_figure(sims, "mesh:4x4")
    fig.draw_without_rendering()
    accepted, latency = fig.axes
    for ax in (accepted, latency):
        for color, stable_x, past_x in (("tab:blue", [0.1, 0.2, 0.3], [0.4, 0.5]), ("tab:red", [0.1, 0.2], [0.3, 0.4])):
            mine = [ln for ln in ax.get_lines() if ln.get_color() == color and ln.get_marker() in ("o", "s")]
            stable = [ln for ln in mine if ln.get_markerfacecolor() != "none"]
            hollow = [ln for ln in mine if ln.get_markerfacecolor() == "none"]
            assert len(stable) == len(hollow) == 1
            assert list(stable[0].get_xdata()) == stable_x and hollow[0].get_linestyle() == ":"
            # dotted from the last stable point on; hollow markers only on the points past saturation
            assert list(hollow[0].get_xdata()) == stable_x[-1:] + past_x
            assert list(hollow[0].get_markevery()) == list(range(1, len(past_x) + 1))
    assert [t.get_text() for leg in fig.legends for t in leg.get_texts()] == [PAST_SATURATION]
    labels = [t.get_text() for t in latency.get_yticklabels() + latency.get_yticklabels(minor=True) if t.get_text()]
    assert {"30", "100", "200"} <= set(labels) and not any("times" in t or "^" in t for t in labels)
    # a run that stays stable draws no hollow marks and no legend entry for them
    fig = simulation_figure([_sim_record("torus:4x4", [0.1, 0.2], [25, 28])], None)
    assert not fig.legends and all(ln.get_markerfacecolor() != "none" for ln in fig.axes[0].get_lines())


def _check_pareto_labels(fig, apart: bool = True) -> int:
    """Every label of a Pareto figure names a point, sits within a few font sizes of it and inside its axes (so
    inside the figure); with ``apart``, no two labels overlap. Returns the number of labels."""
    count = 0
    for ax in fig.axes:
        frame = ax.get_window_extent()
        boxes = []
        for ann in ax.texts:
            box = ann.get_window_extent()
            assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1, \
                ann.get_text()
            assert fig.bbox.contains(box.x0, box.y0) and fig.bbox.contains(box.x1, box.y1)
            px, py = ax.transData.transform(ann.xy)
            text = ann.get_window_extent() if ann.arrow_patch is None else \
                type(ann).__mro__[1].get_window_extent(ann)            # the text alone, without its leader line
            gap = np.hypot(max(text.x0 - px, 0, px - text.x1), max(text.y0 - py, 0, py - text.y1))
            assert gap <= 50 * fig.dpi / 72, ann.get_text()          # the outermost spot: 7 x (5, 5) pt, 49.5 pt
            boxes.append((ann.get_text(), text))
        if apart:
            for i, (a, ba) in enumerate(boxes):
                for b, bb in boxes[:i]:
                    assert not ba.overlaps(bb), (a, b)
        count += len(boxes)
    return count


def test_pareto_labels_sit_by_their_points_inside_the_axes_and_apart(report):
    from synth.answer import units
    from synth.report_figures import pareto_figure

    res, d, _ = report
    fig = pareto_figure(d["records"], d["pareto"], "mesh:4x4", [d["ranking"][0]], 0.1, units(res.study), "links")
    assert _check_pareto_labels(fig) >= 4
    # many close points: eight designs of one cost within 3% of each other, a long name in the top right corner
    # and another at the left edge, every one labelled
    specs = [f"twisted:8x4:t1={t}" for t in range(4)] + ["torus:8x4", "rtt:a=4", "ndt:4x2x2", "pdtt:a=2"]
    recs = [{"spec": s, "status": "ok", "cost": {"links": 64}, "capacity": {"lambda": 0.30 + 0.001 * i},
             "latency": [{"average_latency": 2.6 + 0.01 * i}]} for i, s in enumerate(specs)]
    recs += [{"spec": "graph:/runs/chip/searched/a-searched-design-with-a-long-name.json", "status": "ok",
              "cost": {"links": 96}, "capacity": {"lambda": 0.42}, "latency": [{"average_latency": 2.2}]},
             {"spec": "dragonfly:a=4:p=1:h=2:g=8", "status": "ok", "cost": {"links": 40},
              "capacity": {"lambda": 0.1}, "latency": [{"average_latency": 3.5}]}]
    pareto = {"cost": "links", "capacity": [r["spec"] for r in recs[-2:]] + specs[-1:],
              "latency": [r["spec"] for r in recs[-2:]]}
    u = {"capacity_short": "x demands", "latency_short": "hops"}
    fig = pareto_figure(recs, pareto, "torus:8x4", [recs[-2]["spec"]], 0.1, u, "links")
    assert _check_pareto_labels(fig) == 2 * len(recs)
