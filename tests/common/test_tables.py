"""Results as tables (common.tables): flattened rows, escaped HTML, and one clear line without pandas."""

import re
import sys

import numpy as np
import pytest

from common.tables import PANDAS_MISSING, cell_text, dataframe, flatten, html_fields, html_records, html_table
from flows import FlowResult

HOSTILE = "<script>alert('x')</script> & \"more\""


def test_flatten_spreads_nested_dicts_and_keeps_lists():
    d = {"a": 1, "b": {"c": {"d": 2.5}, "e": [1, 2]}, "f": {}, "g": None}
    assert flatten(d) == {"a": 1, "b.c.d": 2.5, "b.e": [1, 2], "f": {}, "g": None}
    assert d["b"] == {"c": {"d": 2.5}, "e": [1, 2]}          # the input is left as it was


def test_cells():
    assert [cell_text(x) for x in (1 / 3, 2, True, False, None, [0.5, None, "x"], "s")] == [
        "0.3333", "2", "yes", "no", "", "0.5, , x", "s"]


def test_every_value_header_and_headline_is_escaped():
    page = html_table([HOSTILE], [[HOSTILE]], headline=[HOSTILE, "second"], row_class=lambda k: "base")
    assert "<script>" not in page and "alert(&#x27;x&#x27;)" in page
    assert page.count("&lt;script&gt;") == 3 and "&quot;more&quot;" in page
    assert page.startswith("<div class='toposynth'><p>&lt;script&gt;") and "<p>second</p>" in page
    assert "<tr class='base'>" in page


def test_records_leave_out_the_columns_no_row_fills():
    page = html_records([{"a": 1.0, "b": None}, {"a": 2}], [("a", "a (s)"), ("b", "b"), ("c", "c")], "h")
    assert re.findall(r"<th[^>]*>([^<]*)</th>", page) == ["a (s)"]
    assert re.findall(r"<td[^>]*>([^<]*)</td>", page) == ["1", "2"]
    assert "<th" in html_records([], [("a", "a")], "none")    # no rows: the header still says what would be there
    assert re.findall(r"<td[^>]*>([^<]*)</td>", html_fields({"k": [1, 2]}, "h")) == ["k", "1, 2"]


def test_dataframe_keeps_the_order_of_first_appearance():
    df = dataframe([{"b": 1, "a": 2}, {"a": 3, "c": "x"}])
    assert list(df.columns) == ["b", "a", "c"] and df["a"].tolist() == [2, 3]


def _result():
    return FlowResult("lp", "concurrent", 0.5, 0.5, np.zeros(2), np.array([1.0, 0.25]), ("0->1", "1->0"), 0.01)


def test_without_pandas_a_dataframe_is_refused_in_one_line_and_the_table_still_shows(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)          # what an environment without pandas raises
    with pytest.raises(ImportError) as exc:
        _result().to_dataframe()
    assert str(exc.value) == PANDAS_MISSING == "to_dataframe() needs pandas: pip install 'toposynth[pandas]'"
    assert exc.value.__cause__ is None and exc.value.__suppress_context__
    assert "<table>" in _result()._repr_html_()
