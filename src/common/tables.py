"""Results as tables: a pandas DataFrame (the optional ``pandas`` extra) and
the small HTML table a notebook shows (no pandas needed).

A result that people tabulate gives its rows as plain dicts, nested dicts
flattened into dotted columns (:func:`flatten`); :func:`dataframe` makes
them a DataFrame and :func:`html_records` / :func:`html_fields` a table
under a headline, every value escaped. The report's tables are
:func:`html_table`'s too.

>>> flatten({"spec": "ring:4", "capacity": {"lambda": 1.5, "gap": 0.0}})
{'spec': 'ring:4', 'capacity.lambda': 1.5, 'capacity.gap': 0.0}
>>> page = html_records([{"spec": "<b>", "lambda": 1.0 / 3}], [("spec", "spec"), ("lambda", "lambda (x demands)")],
...                     "best & worst")
>>> print(page)
<div class='toposynth'><p>best &amp; worst</p><table>...<td class='l'>&lt;b&gt;</td><td>0.3333</td>...</div>
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

__all__ = ["PANDAS_MISSING", "flatten", "dataframe", "cell_text", "html_table", "html_records", "html_fields"]

#: the one line of the ImportError a DataFrame without pandas raises
PANDAS_MISSING = "to_dataframe() needs pandas: pip install 'toposynth[pandas]'"


def flatten(d: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``d`` with its nested dicts spread into columns named ``outer.inner``;
    lists, tuples and scalars stay as they are (one cell each)."""
    out: dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping) and v:
            out.update(flatten(v, key + "."))
        else:
            out[key] = v
    return out


def dataframe(rows: Iterable[Mapping[str, Any]]) -> Any:
    """A pandas DataFrame of ``rows`` (dicts), one column per key in the
    order the keys first appear; ImportError (one line) without pandas."""
    try:
        import pandas  # optional extra (toposynth[pandas]): only a DataFrame needs it
    except ImportError:
        raise ImportError(PANDAS_MISSING) from None
    rows = [dict(r) for r in rows]
    columns = list(dict.fromkeys(k for r in rows for k in r))
    return pandas.DataFrame(rows, columns=columns)


def cell_text(x: Any) -> str:
    """How a table shows a value: floats to 4 significant digits, booleans
    as yes/no, None as nothing, a list or tuple as its values joined by commas."""
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float):
        return f"{x:.4g}"
    if isinstance(x, (list, tuple)):
        return ", ".join(cell_text(v) for v in x)
    return "" if x is None else str(x)


def html_table(head: Sequence[str], rows: Iterable[Sequence[Any]], *, left: Iterable[int] = (0,),
               row_class: Callable[[int], str | None] | None = None,
               headline: str | Sequence[str] | None = None) -> str:
    """An HTML table: the ``left`` columns aligned left (the class ``l``),
    ``row_class(k)`` the class of the k-th row; with a ``headline`` (a
    paragraph, or a list of them) above it, both in one ``<div
    class='toposynth'>``. Every header, value and paragraph is escaped."""
    left = set(left)

    def cls(i: int) -> str:
        return " class='l'" if i in left else ""

    h = "".join(f"<th{cls(i)}>{html.escape(str(x))}</th>" for i, x in enumerate(head))
    body = []
    for k, r in enumerate(rows):
        rc = row_class(k) if row_class else None
        body.append((f"<tr class='{html.escape(rc)}'>" if rc else "<tr>")
                    + "".join(f"<td{cls(i)}>{html.escape(cell_text(x))}</td>" for i, x in enumerate(r)) + "</tr>")
    table = f"<table><thead><tr>{h}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    if headline is None:
        return table
    paragraphs = [headline] if isinstance(headline, str) else headline
    return f"<div class='toposynth'>{''.join(f'<p>{html.escape(p)}</p>' for p in paragraphs)}{table}</div>"


def html_records(rows: Iterable[Mapping[str, Any]], columns: Sequence[tuple[str, str]],
                 headline: str | Sequence[str]) -> str:
    """One row per dict of ``rows``, the ``columns`` as (key, header) pairs
    (a header says the unit); a key a row lacks is an empty cell, and a
    column no row has a value for is left out."""
    rows = list(rows)
    if rows:
        columns = [(k, h) for k, h in columns if any(r.get(k) is not None for r in rows)]
    return html_table([h for _, h in columns], [[r.get(k) for k, _ in columns] for r in rows], headline=headline)


def html_fields(fields: Mapping[str, Any], headline: str) -> str:
    """One result as a two-column table: a row per field of ``fields`` (a flattened dict)."""
    return html_table(["field", "value"], [[k, v] for k, v in fields.items()], headline=headline)
