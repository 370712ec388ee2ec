"""What the figures share (common.figures): log axes labelled with plain numbers whose labels never run into
each other, and the rule that marks a sweep's points past saturation."""

import pytest

from common.figures import log_labels, past_saturation, plain_log_axis


def _labelled_ticks(ax):
    """The tick labels matplotlib draws on the y axis (major and minor, non-empty, in view), after a drawing."""
    ax.figure.draw_without_rendering()
    lo, hi = sorted(ax.get_ylim())
    ticks = list(ax.yaxis.get_major_ticks()) + list(ax.yaxis.get_minor_ticks())
    return [t.label1 for t in ticks if t.label1.get_visible() and t.label1.get_text()
            and lo <= t.get_loc() <= hi]


@pytest.mark.parametrize("lo,hi", [(25, 320), (6, 20), (100, 130), (1, 1000), (0.5, 5e4), (2.2, 2.9)])
def test_log_ticks_read_as_plain_numbers_and_do_not_overlap(lo, hi):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5, 3.8))
    ax = fig.subplots()
    ax.plot([0, 1], [lo, hi])
    ax.set_yscale("log")
    plain_log_axis(ax.yaxis)
    labels = _labelled_ticks(ax)
    texts = [t.get_text() for t in labels]
    assert len(texts) >= 2, (lo, hi, texts)
    for t in texts:           # matplotlib's own: '$\mathdefault{3\times10^{1}}$'
        assert not any(c in t for c in ("times", "^", "$", "\\")), texts
        assert float(t) > 0
    boxes = sorted((b.get_window_extent() for b in labels), key=lambda b: b.y0)
    for a, b in zip(boxes, boxes[1:]):
        assert a.y1 <= b.y0, texts                  # no label runs into the next one up


def test_fewer_leading_digits_are_labelled_as_the_decades_crowd_in():
    spans = [log_labels(d) for d in (0.2, 0.5, 1.2, 2.5, 5)]
    assert spans[0] is None and spans[1] == tuple(range(1, 10))
    assert len(spans[1]) > len(spans[2]) > len(spans[3]) > len(spans[4]) == 1


def test_points_from_the_first_saturated_one_on_are_past_saturation():
    offered = [0.1, 0.3, 0.5, 0.6, 0.7]
    # 0.5 -> 0.47 is below 95%; 0.7 -> 0.69 is back above the line, still past the saturation
    assert past_saturation(offered, [0.1, 0.3, 0.47, 0.5, 0.69], [False] * 5) == [False, False, True, True, True]
    assert past_saturation(offered, offered, [False, True, False, False, False]) == [False, True, True, True, True]
    assert past_saturation(offered, offered, [False] * 5) == [False] * 5
