"""The answer sentence says when the winner is worse than the baseline in a shown measure, and calls a
difference inside the certified intervals a tie."""

from synth.answer import Answer

COST = {"routers": 32, "links": 64, "radix": 5}


def _answer(**kw) -> Answer:
    return Answer("a:1", "b:1", "latency", 32, cost=COST, baseline_cost=COST, **kw)


def test_worse_capacity_and_saturation_are_said():
    # the case of a latency winner with 0.6% less capacity and 7.9% lower saturation than the baseline
    a = _answer(capacity=(0.994, 1.0), baseline_capacity=(1.0, 1.02), capacity_gain=(0.994, 0.994 / 1.02, 1.0),
                saturation=0.46, baseline_saturation=0.4995)
    s = a.sentence()
    assert s.startswith("a:1 (32 routers, 64 links, radix 5); ranked first by latency, but worse than the baseline "
                        "b:1 in capacity (0.6% less, a tie within the certified gaps) and simulated saturation "
                        "(7.9% lower); ")
    assert "carries 0.6% less capacity than b:1 (0.994 vs 1 ; a tie within the certified gaps, " in s


def test_certified_worse_is_not_a_tie():
    a = _answer(capacity=(0.9, 0.91), baseline_capacity=(1.0, 1.01), capacity_gain=(0.9, 0.9 / 1.01, 0.91))
    assert "; ranked first by latency, but worse than the baseline b:1 in capacity (10.0% less); " in a.sentence()
    assert "a tie" not in a.sentence()


def test_better_everywhere_says_nothing_worse():
    a = _answer(capacity=(1.2, 1.22), baseline_capacity=(1.0, 1.01), capacity_gain=(1.2, 1.2 / 1.01, 1.22),
                saturation=0.6, baseline_saturation=0.5, saturation_ci95=0.01, baseline_saturation_ci95=0.01)
    assert "worse" not in a.sentence() and "tie" not in a.sentence()


def test_saturation_inside_the_seeds_intervals():
    a = _answer(saturation=0.49, baseline_saturation=0.5, saturation_ci95=0.01, baseline_saturation_ci95=0.01)
    assert a.worse_than_baseline() == ["simulated saturation (2.0% lower, within the seeds' 95% intervals)"]


def test_runner_up_tie_named():
    a = _answer(tied_with="c:1", capacity=(1.2, 1.22), baseline_capacity=(1.0, 1.01),
                capacity_gain=(1.2, 1.2 / 1.01, 1.22))
    assert "; tied with c:1 (their certified intervals overlap: the order of the two is not certified);" in a.sentence()
