"""Event frames: what a statement writes, one row per ACID event, built with Spark expressions.

Every write (INSERT, the split UPDATE, DELETE, each MERGE clause) becomes rows of one frame with the
columns of :data:`EVENT_COLUMNS` followed by the table's data columns:

* ``__op`` 0 (insert) or 2 (delete), ``__stmt`` the statement id of the leg that wrote it;
* ``__part_dir`` the partition directory (Hive's escaped ``p=v/q=w``, '' for un-partitioned tables);
* ``__bucket_id`` the bucket file (``bucket_N``) the event goes to; -1 for a fresh insert into an
  un-bucketed table, which the writer task numbers itself;
* ``__owid``, ``__bucket``, ``__rowid`` the ROW__ID of the deleted row (for an UPDATE's new version: the
  old row's id, only so the new rows are written in the old rows' order);
* the data columns, NULL for delete events.

An UPDATE turns each changed row into two events with one ``inline`` over a two-element array, so the
changed rows are computed once, not once per leg.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyarrow as pa
from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from hiveacid_sql.acid.codec import BUCKET_ID_SHIFT, MAX_BUCKET_ID
from hiveacid_sql.exec.spark_types import cast_to
from hiveacid_sql.exec.tasks import (
    BUCKET,
    BUCKET_ID,
    OP,
    OP_DELETE,
    OP_INSERT,
    OWID,
    PART_DIR,
    ROWID,
    STMT,
    UNASSIGNED_BUCKET,
)

EVENT_COLUMNS = (OP, STMT, PART_DIR, BUCKET_ID, OWID, BUCKET, ROWID)
# SQL type names: a cast to a name is one py4j call, to a DataType object five (spark_types.cast_to)
_KEY_TYPES = {OP: "int", STMT: "int", PART_DIR: "string", BUCKET_ID: "int", OWID: "bigint", BUCKET: "int", ROWID: "bigint"}


def bucket_id_of(bucket_property: Column) -> Column:
    """``BucketCodec.decodeWriterId`` as a Spark expression: ``(bucket >> 16) & 0xFFF``."""
    return F.shiftright(bucket_property, BUCKET_ID_SHIFT).bitwiseAND(MAX_BUCKET_ID)


def _event(
    op: int,
    stmt: int | Column,
    part_dir: Column,
    bucket_id: Column,
    row_id: tuple[Column, Column, Column] | None,
    data: Sequence[Column],
    data_names: Sequence[str],
) -> Column:
    owid, bucket, rowid = row_id if row_id is not None else (F.lit(None), F.lit(None), F.lit(None))
    stmt_col = stmt if isinstance(stmt, Column) else F.lit(stmt)
    keys = [F.lit(op), stmt_col, part_dir, bucket_id, owid, bucket, rowid]
    fields = [k.cast(_KEY_TYPES[name]).alias(name) for k, name in zip(keys, EVENT_COLUMNS, strict=True)]
    return F.struct(*fields, *[d.alias(n) for d, n in zip(data, data_names, strict=True)])


def _old_row_id() -> tuple[Column, Column, Column]:
    return F.col(OWID), F.col(BUCKET), F.col(ROWID)


# -- the same events as SQL text ---------------------------------------------------------------------------
# Built Column by Column, an UPDATE's two event structs cost about 175 py4j round trips (each ``F.col``,
# ``F.lit``, ``cast`` and ``alias`` is one or more, and every Spark function is looked up by reflection);
# as the text of one ``selectExpr`` they cost a few. Spark parses the text to the same expressions
# (``named_struct`` is what ``struct`` of aliased columns becomes; ``CAST(NULL AS t)`` what a cast literal is).


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def sql_type(data_type: T.DataType) -> str | None:
    """Spark SQL text of ``data_type`` (struct field names quoted), None for a user-defined type."""
    if isinstance(data_type, T.StructType):
        fields = [sql_type(f.dataType) for f in data_type.fields]
        if any(f is None for f in fields):
            return None
        return "struct<" + ",".join(f"{_quote(f.name)}:{t}" for f, t in zip(data_type.fields, fields, strict=True)) + ">"
    if isinstance(data_type, T.ArrayType):
        element = sql_type(data_type.elementType)
        return None if element is None else f"array<{element}>"
    if isinstance(data_type, T.MapType):
        key, value = sql_type(data_type.keyType), sql_type(data_type.valueType)
        return None if key is None or value is None else f"map<{key},{value}>"
    if isinstance(data_type, T.UserDefinedType):
        return None
    return data_type.simpleString()


_OLD_BUCKET_SQL = f"shiftright({_quote(BUCKET)}, {BUCKET_ID_SHIFT}) & {MAX_BUCKET_ID}"  # bucket_id_of as text


def _event_fields_sql(
    op: int, stmt: int, part_dir: str, bucket_id: str, row_id: bool, data: Sequence[str], data_names: Sequence[str]
) -> list[tuple[str, str]]:
    """(expression text, name) of an event's columns, as :func:`_event` builds them."""
    owid, bucket, rowid = (_quote(OWID), _quote(BUCKET), _quote(ROWID)) if row_id else ("NULL", "NULL", "NULL")
    keys = [str(op), str(stmt), part_dir, bucket_id, owid, bucket, rowid]
    fields = [(f"CAST({k} AS {_KEY_TYPES[name]})", name) for k, name in zip(keys, EVENT_COLUMNS, strict=True)]
    return fields + list(zip(data, data_names, strict=True))


def _null_data_sql(data_types: Sequence[T.DataType]) -> list[str] | None:
    """``CAST(NULL AS t)`` per data column (a delete event's), None when a type has no SQL text."""
    names = [sql_type(t) for t in data_types]
    if any(n is None for n in names):
        return None
    return [f"CAST(NULL AS {n})" for n in names]


def _struct_sql(fields: list[tuple[str, str]]) -> str:
    return "named_struct(" + ", ".join(f"{_string(name)}, {expr}" for expr, name in fields) + ")"


def insert_events(
    rows: DataFrame, data_names: Sequence[str], *, stmt: int, part_dir: Column, bucket_id: Column | None
) -> DataFrame:
    """Insert events for every row of ``rows`` (which has the data columns, cast to the table's types).

    ``bucket_id`` None means an un-bucketed table: the writer numbers the file itself.
    """
    bucket = bucket_id if bucket_id is not None else F.lit(UNASSIGNED_BUCKET)
    event = _event(OP_INSERT, stmt, part_dir, bucket, None, [F.col(n) for n in data_names], data_names)
    return rows.select(event.alias("e")).select("e.*")


def delete_events(changed: DataFrame, data_names: Sequence[str], *, stmt: int, data_types: Sequence[T.DataType]) -> DataFrame:
    """Delete events for the rows of ``changed`` (which has ``__part_dir`` and the row id columns)."""
    null_sql = _null_data_sql(data_types)
    if null_sql is not None:  # one selectExpr (a few py4j round trips, not one per Column)
        fields = _event_fields_sql(OP_DELETE, stmt, _quote(PART_DIR), _OLD_BUCKET_SQL, True, null_sql, data_names)
        return changed.selectExpr(*[f"{expr} AS {_quote(name)}" for expr, name in fields])
    nulls = [cast_to(F.lit(None), t) for t in data_types]
    event = _event(OP_DELETE, stmt, F.col(PART_DIR), bucket_id_of(F.col(BUCKET)), _old_row_id(), nulls, data_names)
    return changed.select(event.alias("e")).select("e.*")


#: The column of :func:`update_event_pairs`: an updated row's two events.
EVENT_PAIR = "__event_pair"


def update_event_pairs(
    changed: DataFrame,
    data_names: Sequence[str],
    *,
    stmt: int,
    data_types: Sequence[T.DataType],
    new_part_dir: Column | None,
    new_bucket_id: Column | None,
) -> DataFrame:
    """Split update: a delete event for the old row and an insert event for its new version, per row, as
    one array column ``__event_pair`` (a projection: over a local relation Spark folds it into another).

    ``changed`` has ``__part_dir``, the old row id and the new values of the data columns. The new version
    goes to ``new_part_dir`` (None: the old row's ``__part_dir``) and ``new_bucket_id`` (None: the old row's
    bucket, Hive's rule for un-bucketed tables and for bucketed tables whose bucketing columns did not change).
    The common case (the row stays where it is) is one ``selectExpr`` text: a few py4j round trips.
    """
    null_sql = _null_data_sql(data_types)
    if new_part_dir is None and new_bucket_id is None and null_sql is not None:
        delete_sql = _struct_sql(
            _event_fields_sql(OP_DELETE, stmt, _quote(PART_DIR), _OLD_BUCKET_SQL, True, null_sql, data_names)
        )
        insert_sql = _struct_sql(
            _event_fields_sql(
                OP_INSERT, stmt, _quote(PART_DIR), _OLD_BUCKET_SQL, True, [_quote(n) for n in data_names], data_names
            )
        )
        return changed.selectExpr(f"array({delete_sql}, {insert_sql}) AS {_quote(EVENT_PAIR)}")
    nulls = [cast_to(F.lit(None), t) for t in data_types]
    old_bucket = bucket_id_of(F.col(BUCKET))
    delete = _event(OP_DELETE, stmt, F.col(PART_DIR), old_bucket, _old_row_id(), nulls, data_names)
    insert = _event(
        OP_INSERT,
        stmt,
        new_part_dir if new_part_dir is not None else F.col(PART_DIR),
        new_bucket_id if new_bucket_id is not None else old_bucket,
        _old_row_id(),
        [F.col(n) for n in data_names],
        data_names,
    )
    return changed.select(F.array(delete, insert).alias(EVENT_PAIR))


def merge_events(
    classified: DataFrame,
    data_names: Sequence[str],
    *,
    data_types: Sequence[T.DataType],
    clause: Column,
    statement: Column,
    deletes: Column,
    inserts: Column,
    updates: Column,
    new_part_dir: Column,
    new_bucket_id: Column,
) -> DataFrame:
    """MERGE: per joined row, the events of the clause that applies to it (``clause``, NULL for none).

    ``deletes`` / ``inserts`` say whether the row's clause writes a delete event for the target row (UPDATE,
    DELETE) and an insert event for a new version or new row (UPDATE, INSERT); ``updates`` whether it is an
    UPDATE, whose new version keeps the old row's id as its sort key. ``statement`` is the clause's statement
    id; ``new_part_dir`` / ``new_bucket_id`` where a new row goes.
    """
    nulls = [cast_to(F.lit(None), t) for t in data_types]
    old_id = tuple(F.when(updates, c) for c in _old_row_id())
    delete = _event(OP_DELETE, statement, F.col(PART_DIR), bucket_id_of(F.col(BUCKET)), _old_row_id(), nulls, data_names)
    insert = _event(
        OP_INSERT, statement, new_part_dir, new_bucket_id, old_id, [F.col(n) for n in data_names], data_names  # type: ignore[arg-type]
    )
    both = F.array(F.when(deletes, delete), F.when(inserts, insert))
    return classified.where(clause.isNotNull()).select(F.inline(both)).where(F.col(OP).isNotNull())


# -- the same events built on the driver -------------------------------------------------------------------
def local_events(
    changed: pa.Table, data_names: Sequence[str], data_types: Sequence[T.DataType], *, stmt: int, update: bool
) -> pa.Table:
    """The events of ``changed`` (a DELETE's or a non-moving UPDATE's rows, already collected on the driver:
    ``__part_dir``, the row id and, for an UPDATE, the new data values), as the Arrow table
    :func:`delete_events` / :func:`update_event_pairs` would give once collected: a delete event per row and,
    for an UPDATE, its new version in the same directory and bucket with the old row id (the writer sorts
    them). Why: when the rows are the driver's already (a small target read on the driver), Spark's analysis
    and optimization of the event projection cost more than building the events here."""
    import pyarrow.compute as pc
    from pyspark.sql.pandas.types import to_arrow_schema

    data_schema = to_arrow_schema(
        T.StructType([T.StructField(n, t, True) for n, t in zip(data_names, data_types, strict=True)]), timezone="UTC"
    )
    n = changed.num_rows
    owid = changed.column(OWID).cast(pa.int64())
    bucket = changed.column(BUCKET).cast(pa.int32())
    rowid = changed.column(ROWID).cast(pa.int64())
    part_dir = changed.column(PART_DIR).cast(pa.string())
    bucket_id = pc.bit_wise_and(pc.shift_right(bucket, BUCKET_ID_SHIFT), MAX_BUCKET_ID).cast(pa.int32())  # bucket_id_of
    keys = pa.schema(
        [(OP, pa.int32()), (STMT, pa.int32()), (PART_DIR, pa.string()), (BUCKET_ID, pa.int32()),
         (OWID, pa.int64()), (BUCKET, pa.int32()), (ROWID, pa.int64())]
    )
    schema = pa.schema([*keys, *data_schema])

    def events(op: int, data: list[pa.ChunkedArray | pa.Array]) -> pa.Table:
        ints = [pa.array([op] * n, pa.int32()), pa.array([stmt] * n, pa.int32())]
        return pa.Table.from_arrays([*ints, part_dir, bucket_id, owid, bucket, rowid, *data], schema=schema)

    deletes = events(OP_DELETE, [pa.nulls(n, f.type) for f in data_schema])
    if not update:
        return deletes
    inserts = events(OP_INSERT, [changed.column(f.name).cast(f.type) for f in data_schema])
    return pa.concat_tables([deletes, inserts])
