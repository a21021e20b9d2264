"""Rows the engine made itself (SHOW, DESCRIBE, SET, EXPLAIN ..) as a DataFrame that needs no Spark to be read.

Why: these statements read the store and the catalog, not tables, yet their results were Spark DataFrames,
so ``SHOW TRANSACTIONS`` after ``connect()`` waited for a JVM to start only to hold a few rows (issue 18).
A :class:`LocalFrame` holds the rows in Python and answers what a caller reads of a small result —
``collect``, ``show``, ``toPandas``, ``columns``, ``schema``, ``count``, ``first`` / ``head`` / ``take``,
``limit`` — without Spark. Anything else a DataFrame offers (``filter``, ``join``, ``createOrReplaceTempView``
...) builds the Spark DataFrame (:meth:`LocalFrame.to_spark`, starting the connection's Spark if it is not
running yet) and is answered by it, so code written for the DataFrame keeps working.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from pyspark.sql import Row
from pyspark.sql.types import (
    BooleanType,
    DataType,
    DoubleType,
    IntegerType,
    LongType,
    StringType,
    StructField,
    StructType,
)

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

_TYPES: dict[str, DataType] = {
    "string": StringType(),
    "bigint": LongType(),
    "int": IntegerType(),
    "boolean": BooleanType(),
    "double": DoubleType(),
}

#: what Spark's ``show`` writes for these characters inside a value (``SchemaUtils.escapeMetaCharacters``)
_ESCAPES = str.maketrans({"\n": "\\n", "\r": "\\r", "\t": "\\t", "\f": "\\f", "\b": "\\b", "\v": "\\v", "\a": "\\a"})


def ddl_schema(ddl: str) -> StructType:
    """``"`Transaction ID` bigint, user string"`` as a StructType, in Python (Spark's parser needs the JVM).
    Only the flat types of the engine's own results (string, bigint, int, boolean, double)."""
    fields = []
    for item in _split_top(ddl):
        item = item.strip()
        if item.startswith("`"):
            end = item.index("`", 1)
            name, type_name = item[1:end], item[end + 1 :].strip()
        else:
            name, _, type_name = item.partition(" ")
        fields.append(StructField(name, _TYPES[type_name.strip().lower()], nullable=True))
    return StructType(fields)


def _split_top(ddl: str) -> list[str]:
    parts, current, quoted = [], "", False
    for ch in ddl:
        if ch == "`":
            quoted = not quoted
        if ch == "," and not quoted:
            parts.append(current)
            current = ""
        else:
            current += ch
    return [*parts, current] if current.strip() else parts


class LocalFrame:
    """A small result held in Python, read like a DataFrame; other DataFrame methods go to :meth:`to_spark`."""

    def __init__(self, rows: Sequence[Sequence[Any]], schema: str | StructType, spark: Callable[[], SparkSession]):
        self.schema = schema if isinstance(schema, StructType) else ddl_schema(schema)
        self._rows = [tuple(r) for r in rows]
        self._spark = spark
        self._frame: DataFrame | None = None

    # -- read without Spark -----------------------------------------------------------------------
    @property
    def columns(self) -> list[str]:
        return [f.name for f in self.schema.fields]

    @property
    def dtypes(self) -> list[tuple[str, str]]:
        return [(f.name, f.dataType.simpleString()) for f in self.schema.fields]

    def collect(self) -> list[Row]:
        """The rows as PySpark ``Row`` s, as ``DataFrame.collect`` returns them."""
        make = Row(*self.columns)
        return [make(*r) for r in self._rows]

    def count(self) -> int:
        return len(self._rows)

    def isEmpty(self) -> bool:  # noqa: N802 - DataFrame's name
        return not self._rows

    def limit(self, num: int) -> LocalFrame:
        return LocalFrame(self._rows[: max(num, 0)], self.schema, self._spark)

    def take(self, num: int) -> list[Row]:
        return self.limit(num).collect()

    def head(self, n: int | None = None) -> Row | None | list[Row]:
        if n is None:
            rows = self.take(1)
            return rows[0] if rows else None
        return self.take(n)

    def first(self) -> Row | None:
        rows = self.take(1)
        return rows[0] if rows else None

    def toLocalIterator(self, prefetchPartitions: bool = False) -> Iterator[Row]:  # noqa: N802, N803
        return iter(self.collect())

    def toArrow(self) -> pa.Table:  # noqa: N802 - DataFrame's name
        import pyarrow as pa

        arrow = {"string": pa.string(), "bigint": pa.int64(), "int": pa.int32(), "boolean": pa.bool_(), "double": pa.float64()}
        schema = pa.schema([(f.name, arrow[f.dataType.simpleString()]) for f in self.schema.fields])
        columns = list(zip(*self._rows, strict=True)) if self._rows else [() for _ in schema]
        return pa.table([pa.array(list(c), type=t.type) for c, t in zip(columns, schema, strict=True)], schema=schema)

    def toPandas(self) -> Any:  # noqa: N802 - DataFrame's name
        """The rows as a ``pandas.DataFrame``, typed as Spark's Arrow conversion types them."""
        return self.toArrow().to_pandas()

    def show(self, n: int = 20, truncate: bool | int = True, vertical: bool = False) -> None:
        """Print the rows as ``DataFrame.show`` prints them (vertical: through Spark)."""
        if vertical:
            self.to_spark().show(n, truncate, vertical)
            return
        print(self._show_string(n, 20 if truncate is True else int(truncate)))

    def _show_string(self, n: int, truncate: int) -> str:
        def cell(value: Any) -> str:
            if value is None:
                text = "NULL"
            elif isinstance(value, bool):
                text = "true" if value else "false"
            else:
                text = str(value).translate(_ESCAPES)
            if 0 < truncate < len(text):
                return text[:truncate] if truncate < 4 else text[: truncate - 3] + "..."
            return text

        shown = self._rows[: max(n, 0)]
        header = [c.translate(_ESCAPES) for c in self.columns]  # Spark escapes the names but does not truncate them
        table = [header] + [[cell(v) for v in row] for row in shown]
        widths = [max(3, *(len(r[i]) for r in table)) for i in range(len(self.columns))]
        pad = (lambda s, w: s.rjust(w)) if truncate > 0 else (lambda s, w: s.ljust(w))
        sep = "+" + "+".join("-" * w for w in widths) + "+\n"
        lines = ["|" + "|".join(pad(c, w) for c, w in zip(r, widths, strict=True)) + "|\n" for r in table]
        out = sep + lines[0] + sep + "".join(lines[1:]) + sep
        if len(self._rows) > len(shown):
            out += f"only showing top {len(shown)} row{'s' if len(shown) != 1 else ''}"
        return out

    # -- everything else: the Spark DataFrame ------------------------------------------------------
    def to_spark(self) -> DataFrame:
        """The rows as a Spark DataFrame (made once; starts the connection's Spark if it is not running)."""
        if self._frame is None:
            self._frame = self._spark().createDataFrame(self._rows, self.schema)
        return self._frame

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.to_spark(), name)

    def __getitem__(self, item: Any) -> Any:
        return self.to_spark()[item]

    def __repr__(self) -> str:
        return "LocalFrame[" + ", ".join(f"{n}: {t}" for n, t in self.dtypes) + "]"
