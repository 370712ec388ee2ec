"""The ``simulate`` subcommand (registered by sim.cli.add_subcommand)."""

from __future__ import annotations

import json

import pytest

from sim.cli import main


def run(capsys, *argv):
    code = main(["simulate", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_single_run_json(capsys):
    code, out, _ = run(capsys, "torus:4x4", "--traffic", "uniform", "--load", "0.2", "--routing", "dor",
                       "--seed", "3", "--json", "--measure", "3000")
    assert code == 0
    d = json.loads(out)
    for key in ("offered", "accepted", "latency", "hops", "deadlock", "cycles", "seconds"):
        assert key in d
    assert d["deadlock"] is False and abs(d["accepted"] - 0.2) < 0.03
    assert d["routing"] == "dor/dateline" and d["config"]["measure"] == 3000
    code2, out2, _ = run(capsys, "torus:4x4", "--load", "0.2", "--routing", "dor", "--seed", "3", "--json",
                         "--measure", "3000")
    d2 = json.loads(out2)
    assert d2["accepted"] == d["accepted"] and d2["latency"] == d["latency"]  # same seed, same numbers


def test_sweep_json_and_plot(capsys, tmp_path):
    png = tmp_path / "curves.png"
    code, out, _ = run(capsys, "ring:8", "--sweep", "--loads", "0.1,0.4,0.8", "--preset", "singleflit",
                       "--json", "--plot", str(png))
    assert code == 0
    d = json.loads(out)
    assert [round(p["load"], 2) for p in d["points"]] == [0.1, 0.4, 0.8]
    assert d["saturation"] == max(p["accepted"] for p in d["points"])
    assert png.stat().st_size > 1000 and png.read_bytes()[:4] == b"\x89PNG"


def test_sweep_plot_marks_the_points_past_saturation_and_labels_latency_plainly():
    import candidates as cd
    import sim
    from common.figures import PAST_SATURATION
    from sim.plot import sweeps_figure

    # ring:8 under uniform traffic saturates near 0.55 phits/cycle/PE: 0.7 and 0.8 lie past it
    s = sim.sweep(cd.from_spec("ring:8"), "singleflit", "uniform", [0.2, 0.4, 0.7, 0.8], seed=1)
    past = [p.accepted < 0.95 * p.offered for p in s.points]
    assert past == [False, False, True, True]
    fig = sweeps_figure({"ring:8": s})
    fig.draw_without_rendering()
    accepted, latency = fig.axes[:2]
    for ax in (accepted, latency):
        curves = [ln for ln in ax.get_lines() if ln.get_marker() == "o"]
        stable = [ln for ln in curves if ln.get_markerfacecolor() != "none"]
        hollow = [ln for ln in curves if ln.get_markerfacecolor() == "none"]
        assert len(stable) == len(hollow) == 1 and hollow[0].get_linestyle() == ":"
        assert list(stable[0].get_xdata()) == [p.offered for p in s.points[:2]]
        # the dotted part starts at the last stable point, its markers on the points past saturation only
        assert list(hollow[0].get_xdata()) == [p.offered for p in s.points[1:]]
        assert list(hollow[0].get_markevery()) == [1, 2]
        assert stable[0].get_color() == hollow[0].get_color()
    assert [t.get_text() for leg in fig.legends for t in leg.get_texts()] == [PAST_SATURATION]
    labels = [t.get_text() for t in latency.get_yticklabels() + latency.get_yticklabels(minor=True) if t.get_text()]
    assert labels and not any("times" in t or "^" in t for t in labels)


def test_text_output_and_saturation(capsys, tmp_path):
    code, out, _ = run(capsys, "rtt:a=4", "--load", "0.3", "--packet", "1-8")
    assert code == 0 and "accepted" in out and "deadlock" in out
    svg = tmp_path / "s.svg"
    code, out, _ = run(capsys, "ring:8", "--saturation", "--step", "0.2", "--preset", "singleflit", "--plot", str(svg))
    assert code == 0 and "saturation throughput" in out and svg.read_text().lstrip().startswith("<?xml")


@pytest.mark.parametrize("argv,msg", [
    (["ring:8", "--routing", "dor", "--vcs", "1", "--deadlock", "dateline"], "2 virtual channels"),
    (["ring:8", "--traffic", "nope"], "unknown traffic"),
    (["ring:8", "--plot", "x.png"], "--plot needs"),
    (["ring:8", "--packet", "a-b"], "--packet"),
    (["nope:3"], "unknown topology family"),
    (["ndt:4x4x2x2x2", "--routing", "adaptive"], "routing records"),
    (["ring:6", "--traffic", "bitcomplement"], "power of 2"),
    (["torus:4x4", "--selection", "random", "--switching", "wormhole", "--routing", "dor"],
     "needs the simple router's virtual cut-through"),
])
def test_errors_one_line_exit_2(capsys, argv, msg):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("toposynth: error: ") and msg in err and err.count("\n") == 1


def test_selection_option_reaches_the_config(capsys):
    """--selection takes SimConfig.selection's rules and the run reports it; the default is the preset's."""
    import sim
    from sim.cli import build_parser

    action = next(a for a in build_parser()._subparsers._group_actions[0].choices["simulate"]._actions
                  if "--selection" in a.option_strings)
    assert tuple(action.choices) == tuple(sim.SELECTIONS)
    code, out, _ = run(capsys, "rtt:a=4", "--traffic", "bitreversal", "--load", "0.3", "--selection", "random",
                       "--json", "--measure", "2000")
    d = json.loads(out)
    assert code == 0 and d["config"]["selection"] == "random"
    code, out, _ = run(capsys, "rtt:a=4", "--traffic", "bitreversal", "--load", "0.3", "--json", "--measure", "2000")
    assert json.loads(out)["config"]["selection"] == "credits"


def test_sweep_names_its_unstable_points(capsys):
    """The text table's last line lists the loads whose run was unstable (the JSON's ``stable: false``): past
    saturation the mean latency passes the 500-cycle threshold; below it every run drains."""
    args = ("torus:4x4", "--sweep", "--loads", "0.2,0.6,1.0", "--preset", "singleflit", "--warmup", "500",
            "--measure", "2000", "--seed", "2")
    _, out, _ = run(capsys, *args, "--json")
    points = json.loads(out)["points"]
    unstable = [f"{p['offered']:.4g}" for p in points if not p["stable"]]
    assert points[0]["stable"] and unstable and unstable[-1] == f"{points[-1]['offered']:.4g}"
    _, text, _ = run(capsys, *args)
    assert text.splitlines()[-1] == (f"unstable at offered {', '.join(unstable)}: latency of the packets that "
                                     "arrived before the drain stopped")
    _, text, _ = run(capsys, *args, "--latency-threshold", "inf", "--drain", "100000")
    assert "unstable" not in text


def test_progress_line_shows_router_cycles_per_second(capsys):
    """Each line gives the speed since the previous one: routers x cycles / seconds."""
    from sim.cli import _RunProgress
    from sim.results import SimProgress

    hook = _RunProgress(1.0, routers=512)
    hook(SimProgress(0.1, 400, 5000, "warm-up", None, 0.5))          # before the first second: no line
    hook(SimProgress(0.1, 2000, 5000, "measurement", 0.1, 2.0))
    hook(SimProgress(0.1, 4000, 5000, "measurement", 0.1, 4.4))
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2
    assert lines[0].endswith(f", 2 s, {2000 * 512 / 2.0 / 1e6:.3g} M router-cycles/s")
    assert lines[1].endswith(f", 4 s, {2000 * 512 / 2.4 / 1e6:.3g} M router-cycles/s")
