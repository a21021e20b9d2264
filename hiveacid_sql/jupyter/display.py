"""How results look in a notebook: rows as an HTML table (with a row limit), DML as its report.

The rows are collected once, at most ``limit + 1`` of them (the extra row only says "there is more"),
so showing a query over a big table costs what showing ``limit`` rows costs.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

from hiveacid_sql.cli.output import hive_string, render
from hiveacid_sql.results import DmlResult


class QueryResult:
    """The first rows of a query, shown as an HTML table in Jupyter and as a text table elsewhere."""

    def __init__(self, columns: Sequence[str], rows: Sequence[Sequence[Any]], *, limit: int | None,
                 truncated: bool, dataframe: Any = None) -> None:
        self.columns = list(columns)
        self.rows = [tuple(r) for r in rows]
        self.limit = limit
        self.truncated = truncated
        self.dataframe = dataframe  # the whole result, as a lazy Spark DataFrame

    @classmethod
    def collect(cls, dataframe: Any, limit: int | None) -> QueryResult:
        """Run the query for at most ``limit`` rows (all of them when ``limit`` is None or 0)."""
        if limit:
            rows = dataframe.limit(limit + 1).collect()
            truncated = len(rows) > limit
            rows = rows[:limit]
        else:
            rows, truncated = dataframe.collect(), False
        return cls(dataframe.columns, rows, limit=limit or None, truncated=truncated, dataframe=dataframe)

    def __len__(self) -> int:
        return len(self.rows)

    def _footer(self) -> str:
        if self.truncated:
            return f"Showing the first {len(self.rows)} rows (more exist; raise the limit with -l N)"
        return f"{len(self.rows)} row{'s' if len(self.rows) != 1 else ''}"

    def __repr__(self) -> str:
        types = ["StringType"] * len(self.columns)
        return render("table", self.columns, types, self.rows) + self._footer()

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(c)}</th>" for c in self.columns)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(hive_string(v))}</td>" for v in row) + "</tr>" for row in self.rows
        )
        return (f'<table class="hiveacid-result"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'
                f"<p><small>{html.escape(self._footer())}</small></p>")


class DmlReport:
    """A DML statement's report: its one line as text, and its fields as a small HTML table."""

    def __init__(self, result: DmlResult) -> None:
        self.result = result

    def __repr__(self) -> str:
        return str(self.result)

    def _repr_html_(self) -> str:
        fields = {k: v for k, v in self.result.to_dict().items() if v not in (None, [], ())}
        rows = "".join(
            f"<tr><th style='text-align:left'>{html.escape(k)}</th><td>{html.escape(hive_string(v))}</td></tr>"
            for k, v in fields.items()
        )
        return f"<p>{html.escape(str(self.result))}</p><details><summary>details</summary><table>{rows}</table></details>"
