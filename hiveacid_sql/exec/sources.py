"""DataFrames as sources of our statements: the Spark session's temporary views, and ``{name}`` arguments.

Why here: a PySpark user holds DataFrames. ``df.createOrReplaceTempView("src")`` followed by
``acid.sql("MERGE INTO t USING src s ...")`` must read the view, as ``spark.sql`` would; and
``acid.sql("... USING {src} s ...", src=df)`` is PySpark's own ``spark.sql(text, **kwargs)`` convention
(a DataFrame becomes a temporary view for the statement, a string a SQL literal, a Column its name).
Both need the SparkSession, so they live in ``exec``; the planner only asks "is this name a view?".
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql.sql_formatter import SQLStringFormatter


def view_lookup(spark: Callable[[], SparkSession | None]) -> Callable[[str], bool]:
    """``is_view(name)``: whether an unqualified name is a temporary view of the session ``spark()`` returns
    (None: no Spark runs, so there is no view, and none is started to find that out).

    ``Catalog.tableExists`` looks a temporary view up before the current database's tables (Spark's order);
    a name it finds is a view only if ``getTable`` says so (a table of Spark's own catalog is not ours).
    """

    def is_view(name: str) -> bool:
        session = spark()
        if session is None:
            return False
        catalog = session.catalog
        return bool(catalog.tableExists(name)) and bool(catalog.getTable(name).isTemporary)

    return is_view


@contextmanager
def formatted_sources(
    spark: Callable[[], SparkSession], text: str, kwargs: Mapping[str, Any]
) -> Iterator[tuple[str, dict[str, DataFrame]]]:
    """``text`` with its ``{name}`` fields filled as ``spark.sql(text, **kwargs)`` fills them: a DataFrame
    becomes a temporary view (named ``_pyspark_<uuid>``) that lives until the block ends, a ``str`` a SQL
    string literal, a ``Column`` its column name, anything else its ``str``. No kwargs: the text as it is
    (braces included), and ``spark()`` is not called (a text without fields starts no Spark).

    Also yields ``{view name: DataFrame}`` of those views: the binder passes the DataFrames themselves to
    Spark (:class:`~hiveacid_sql.exec.binder.Binder`), so a query's result does not depend on a view that is
    dropped when the block ends (over Spark Connect it would be resolved again at every action)."""
    if not kwargs:
        yield text, {}
        return
    formatter = SQLStringFormatter(spark())
    try:
        formatted = formatter.format(text, **kwargs)
        yield formatted, {name.lower(): df for df, name in formatter._temp_views}  # noqa: SLF001
    finally:
        formatter.clear()
