"""ORC search arguments for the key filters of a statement: ORC itself skips the stripes and row groups
whose statistics exclude them.

Why ORC's own search argument, and why Spark's must be kept out of the way. Spark's ORC reader does push
a statement's filters to ORC, but for an ACID file ORC resolves search-argument column names *inside*
``row`` (``SchemaEvolution.getReaderBaseSchema`` is the ``row`` struct), so Spark's leaves (``row.id``,
``operation``) match nothing and no stripe or row group of an ACID file is ever skipped. A leaf named
``id`` does match ``row.id``. The read's options reach the Hadoop configuration of its tasks, where
``OrcInputFormat.buildOptions`` takes a search argument from ``orc.kryo.sarg`` / ``orc.sarg.column.names``;
Spark then replaces it with its own whenever it pushed a filter it could convert, which it always does for
our scans (``operation = 0``, the write-id bounds). So while a statement's Spark work runs,
:func:`own_search_arguments` turns Spark's ORC filter pushdown off for the session (it never skipped
anything in an ACID file; plain ORC tables read by the same statement lose theirs for its duration).

Safe by construction: a key filter is a conjunct of the WHERE next to the table (:mod:`hiveacid_sql.plan.pruning`),
and Spark still applies the full WHERE to every row read, so skipping only ever drops rows the statement
would drop. Only integral columns stored with the table's own type get a leaf (ORC compares them as
longs, exactly as Spark compares integers); other filters are left to Spark.

Needs the driver's JVM (classic PySpark); over Spark Connect nothing is pushed and everything is read.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import SimpleNamespace
from typing import Any

from pyspark.sql import SparkSession
from pyspark.sql import types as T

from hiveacid_sql.acid.hive_types import HiveType
from hiveacid_sql.acid.orc_footer import OrcFooter
from hiveacid_sql.acid.scan_files import row_fields
from hiveacid_sql.plan.pruning import KeyFilter

_INTEGRAL = {"tinyint": T.ByteType(), "smallint": T.ShortType(), "int": T.IntegerType(), "bigint": T.LongType()}
_PUSHDOWN = "spark.sql.orc.filterPushdown"
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_COMPARISONS = {"=": "EqualTo", "<": "LessThan", "<=": "LessThanOrEqual", ">": "GreaterThan", ">=": "GreaterThanOrEqual"}


def _leaves(
    physical: Sequence[tuple[str, HiveType]], table_columns: Sequence[tuple[str, HiveType]], filters: Sequence[KeyFilter]
) -> list[tuple[int, str, HiveType, KeyFilter]]:
    """(position, physical name, type, filter) of each filter on a column stored with the table's integral type
    (schema evolution is by position: table column i is physical field i)."""
    position = {name.lower(): i for i, (name, _) in enumerate(table_columns)}
    out = []
    for f in filters:
        i = position.get(f.column)
        if i is None or i >= len(physical):
            continue
        name, ptype = physical[i]
        if ptype.name in _INTEGRAL and ptype.name == table_columns[i][1].name:
            out.append((i, name, ptype, f))
    return out


def _excludes(f: KeyFilter, low: int, high: int) -> bool:
    """Whether no value in [low, high] satisfies ``f``."""
    if f.op in ("=", "in"):
        return all(v < low or v > high for v in f.values)
    v = f.values[0]
    return {"<": low >= v, "<=": low > v, ">": high <= v, ">=": high < v}[f.op]


def excluded_by(
    footer: OrcFooter, table_columns: Sequence[tuple[str, HiveType]], filters: Sequence[KeyFilter]
) -> bool:
    """Whether an insert-event file holds no row satisfying all ``filters``, by its footer's statistics
    (:attr:`~hiveacid_sql.acid.orc_footer.OrcFooter.int_ranges`): the scan need not read it at all."""
    if not filters or not footer.int_ranges:
        return False
    ranges = dict(footer.int_ranges)
    physical = row_fields(footer)
    for position, _, _, f in _leaves(physical, table_columns, filters):
        if position not in ranges:
            continue
        span = ranges[position]
        if span is None or _excludes(f, *span):
            return True  # no value (a NULL satisfies no comparison), or none in range
    return False


def search_argument_options(
    spark: SparkSession,
    physical: Sequence[tuple[str, HiveType]],
    table_columns: Sequence[tuple[str, HiveType]],
    filters: Sequence[KeyFilter],
) -> dict[str, str]:
    """Reader options carrying ORC's search argument for ``filters`` over files whose ``row`` struct has the
    fields ``physical`` (empty when no filter applies, or without a driver JVM)."""
    from hiveacid_sql.exec.session import is_connect

    # a name ORC would have to parse (quoted dots, spaces, backticks) gets no leaf: Spark's reading is the rule
    leaves = [leaf for leaf in _leaves(physical, table_columns, filters) if _PLAIN_NAME.fullmatch(leaf[1])]
    if not leaves or is_connect(spark):
        return {}
    jvm: Any = spark._jvm  # noqa: SLF001 - the search argument is built by Spark's own converter, in the JVM
    gateway: Any = spark.sparkContext._gateway  # noqa: SLF001
    java = _java_classes(jvm)
    names = sorted({name for _, name, _, _ in leaves})
    types = {name: _INTEGRAL[t.name] for _, name, t, _ in leaves}
    schema = java.DataType.fromJson(T.StructType([T.StructField(n, types[n]) for n in names]).json())
    java_filters = java.ArrayList()
    for _, name, _, f in leaves:
        if f.op == "in":
            values = gateway.new_array(java.Object, len(f.values))
            for i, v in enumerate(f.values):
                values[i] = v
            java_filters.add(java.In(name, values))
        else:
            java_filters.add(getattr(java, _COMPARISONS[f.op])(name, f.values[0]))
    seq = java.CollectionConverters.asScala(java_filters).toList()
    sarg = java.OrcFilters.createFilter(schema, seq, java.Option.empty())
    if not sarg.isDefined():
        return {}
    conf = java.Configuration(False)
    java.OrcInputFormat.setSearchArgument(conf, sarg.get(), schema.fieldNames())
    return {"orc.kryo.sarg": conf.get("orc.kryo.sarg"), "orc.sarg.column.names": conf.get("orc.sarg.column.names")}


_JAVA_CLASSES = {
    "DataType": "org.apache.spark.sql.types.DataType",
    "ArrayList": "java.util.ArrayList",
    "Object": "java.lang.Object",
    "CollectionConverters": "scala.jdk.javaapi.CollectionConverters",
    "OrcFilters": "org.apache.spark.sql.execution.datasources.orc.OrcFilters",
    "Option": "scala.Option",
    "Configuration": "org.apache.hadoop.conf.Configuration",
    "OrcInputFormat": "org.apache.orc.mapred.OrcInputFormat",
    **{name: f"org.apache.spark.sql.sources.{name}" for name in ("In", *_COMPARISONS.values())},
}
# the JVM view they were looked up in, and the classes: each ``jvm.a.b.C`` lookup is a py4j round trip per
# name segment (about 30 a statement), the classes do not change while the gateway lives
_classes: tuple[Any, SimpleNamespace] | None = None


def _java_classes(jvm: Any) -> SimpleNamespace:
    global _classes
    cached = _classes
    if cached is not None and cached[0] is jvm:
        return cached[1]
    found = SimpleNamespace()
    for short, name in _JAVA_CLASSES.items():
        target: Any = jvm
        for part in name.split("."):
            target = getattr(target, part)
        setattr(found, short, target)
    _classes = (jvm, found)
    return found


_lock = threading.Lock()
_active: dict[int, tuple[int, str | None]] = {}  # id(spark) -> (nesting depth, the setting before the first)


@contextmanager
def own_search_arguments(spark: SparkSession) -> Iterator[None]:
    """Spark's ORC filter pushdown off for the session while the block runs (see the module docstring),
    so the search arguments of :func:`search_argument_options` reach ORC; nested and concurrent blocks
    on one session restore the user's setting when the last ends."""
    from hiveacid_sql.exec.session import is_connect

    if is_connect(spark):
        yield
        return
    key = id(spark)
    with _lock:
        depth, before = _active.get(key, (0, None))
        if depth == 0:
            before = spark.conf.get(_PUSHDOWN, None)
            spark.conf.set(_PUSHDOWN, "false")
        _active[key] = (depth + 1, before)
    try:
        yield
    finally:
        with _lock:
            depth, before = _active[key]
            if depth == 1:
                del _active[key]
                if before is None:
                    spark.conf.unset(_PUSHDOWN)
                else:
                    spark.conf.set(_PUSHDOWN, before)
            else:
                _active[key] = (depth - 1, before)
