"""The DataFrame API: ``acid.table("db.t")`` handles, ``acid.create_table(..)`` and ``acid.write(df, ..)``.

Why: a PySpark user holds DataFrames, not SQL strings (Delta's ``DeltaTable`` is what they know). Every
method here builds the SQL statement it stands for and runs it through ``acid.sql`` — the same parser,
planner, locks, transaction and result objects as the statement typed by hand, never a second
implementation — with DataFrames passed as ``{src}`` arguments and PySpark Columns turned into SQL text by
:mod:`hiveacid_sql.exec.expressions`. Values given to ``set=`` / ``values=`` follow Delta's Python API: a
``str`` is a SQL expression (``"salary + 1"``, ``"'Tom'"`` for a string), a ``Column`` an expression, and any
other Python value (int, float, bool, None, Decimal, date, datetime) a literal.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal

from sqlglot import exp

from hiveacid_sql.engine.merge_builder import MergeBuilder
from hiveacid_sql.engine.streaming import StreamingApi
from hiveacid_sql.errors import HiveAcidError, PlanError
from hiveacid_sql.exec.binder import acid_files
from hiveacid_sql.exec.expressions import (
    column_sql,
    frame_columns,
    frame_schema,
    is_column,
    schema_columns,
    table_frame,
)
from hiveacid_sql.results import DmlResult
from hiveacid_sql.sql.parse import parse_one
from hiveacid_sql.sql.tree import table_names
from hiveacid_sql.txn import TableDef

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame
    from pyspark.sql.types import StructType

    from hiveacid_sql.engine.context import StatementContext

WriteMode = Literal["append", "overwrite", "error", "errorifexists", "ignore"]


def sql_literal(value: Any) -> str:
    """A Python value as a Hive SQL literal (strings quoted and escaped)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | Decimal):
        return repr(value) if isinstance(value, float) else str(value)
    if isinstance(value, dt.datetime):
        return f"TIMESTAMP '{value.isoformat(sep=' ')}'"
    if isinstance(value, dt.date):
        return f"DATE '{value.isoformat()}'"
    if isinstance(value, str):
        return exp.Literal.string(value).sql(dialect="hive")
    raise PlanError(f"cannot use a {type(value).__name__} as a SQL value")


def quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


class _Api:
    """What the handle needs of a connection (the Session provides it)."""

    ctx: StatementContext

    def sql(self, text: str, *, dry_run: bool = False, **kwargs: Any) -> Any:
        raise NotImplementedError


class AcidTable:
    """A handle on one table of the warehouse; see :meth:`TableApi.table`.

    >>> t = acid.table("employee")
    >>> t.update(set={"salary": "salary + 100"}, where="id = 2").num_updated_rows
    1
    """

    def __init__(self, connection: _Api, table: TableDef) -> None:
        self._connection = connection
        self._table = table

    @property
    def name(self) -> str:
        """``db.table``."""
        return self._table.qualified_name

    @property
    def connection(self) -> _Api:
        """The connection the handle runs its statements on."""
        return self._connection

    @property
    def definition(self) -> TableDef:
        """The table's catalog entry as it was when the handle was made."""
        return self._table

    def __repr__(self) -> str:
        return f"AcidTable({self.name!r})"

    # -- SQL text of conditions and values ---------------------------------------------------------
    def expression_sql(self, value: Any, frames: Sequence[DataFrame] | None = None, *, literal: bool) -> str:
        """SQL text of a condition or value: ``str`` as written, a Column resolved against ``frames`` (the
        table's columns by default), else (``literal`` only) a Python literal."""
        if isinstance(value, str):
            return value
        if is_column(value):
            spark = self._connection.ctx.spark
            return column_sql(value, frames or [table_frame(spark, self._table)])
        if literal:
            return sql_literal(value)
        raise PlanError(f"a condition must be SQL text or a Column, not {type(value).__name__}")

    def set_sql(self, assignments: Mapping[str, Any], frames: Sequence[DataFrame] | None = None) -> str:
        if not assignments:
            raise PlanError("set= needs at least one column")
        return ", ".join(f"{quote(c)} = {self.expression_sql(v, frames, literal=True)}" for c, v in assignments.items())

    # -- reading -----------------------------------------------------------------------------------
    def to_df(self, *, version: int | None = None, timestamp: str | dt.datetime | None = None) -> DataFrame:
        """The table's rows at the current snapshot, or ``VERSION AS OF version`` / ``TIMESTAMP AS OF
        timestamp`` (a lazy DataFrame, read under a lease, as a SELECT).

        >>> acid.table("employee").to_df(version=1).count()
        3
        """
        if version is not None and timestamp is not None:
            raise PlanError("give version= or timestamp=, not both")
        travel = ""
        if version is not None:
            travel = f" VERSION AS OF {int(version)}"
        elif timestamp is not None:
            text = timestamp.isoformat(sep=" ") if isinstance(timestamp, dt.datetime) else str(timestamp)
            travel = f" TIMESTAMP AS OF {sql_literal(text)}"
        return self._connection.sql(f"SELECT * FROM {self.name}{travel}")

    def history(self) -> DataFrame:
        """``DESCRIBE HISTORY``: one row per committed write id, newest first.

        >>> acid.table("employee").history().first()["operation"]
        'INSERT'
        """
        return self._connection.sql(f"DESCRIBE HISTORY {self.name}")

    def files(self) -> list[str]:
        """The files a read of the current snapshot reads (data, delete deltas, originals), as paths.

        >>> [f.rsplit("/", 2)[-2] for f in acid.table("employee").files()][:1]
        ['delta_0000001_0000001_0000']
        """
        ctx = self._connection.ctx
        table = ctx.catalog.get_table(self._table.db, self._table.name)
        if not table.is_transactional:
            raise PlanError(f"files() lists an ACID table's snapshot; {table.qualified_name} is not transactional")
        files = acid_files(ctx.spark, table, ctx.snapshot_for([table]), ctx.catalog.list_partitions)
        return sorted(files.data_files + files.delete_files + files.original_files)

    # -- writing -----------------------------------------------------------------------------------
    def insert(self, df: DataFrame, *, overwrite: bool = False, partition: Mapping[str, Any] | None = None) -> DmlResult:
        """``INSERT INTO`` (or ``INSERT OVERWRITE TABLE``) the DataFrame's rows, columns matched by name.

        ``partition``: static partition values (``{"year": 2024}``); the other partition columns come from
        the DataFrame (dynamic). Overwrite replaces the partitions written (Hive's rule), the whole table
        when it is not partitioned.

        >>> acid.table("employee").insert(spark.createDataFrame([(9, "Ann", 1)], "id int, name string, salary int")).num_inserted_rows
        1
        """
        static = {k.lower(): v for k, v in (partition or {}).items()}
        keys = [k.name for k in self._table.partition_keys]
        unknown = sorted(set(static) - set(keys))
        if unknown:
            raise PlanError(f"'{unknown[0]}' is not a partition column of {self.name}")
        wanted = [c.name for c in self._table.columns] + [k for k in keys if k not in static]
        given = {c.lower(): c for c in frame_columns(df)}
        missing = [c for c in wanted if c not in given]
        extra = [given[c] for c in given if c not in wanted]
        if missing or extra:
            what = (f"has no column {', '.join(missing)}" if missing else "") + ("; " if missing and extra else "")
            what += f"has columns the table lacks: {', '.join(extra)}" if extra else ""
            raise PlanError(f"The DataFrame {what} (table {self.name}: {', '.join(wanted)})")
        spec = ""
        if static:
            spec = " PARTITION (" + ", ".join(f"{k} = {sql_literal(static[k])}" if k in static else k for k in keys) + ")"
        verb = "INSERT OVERWRITE TABLE" if overwrite else "INSERT INTO"
        select = ", ".join(quote(given[c]) for c in wanted)
        return self._dml(f"{verb} {self.name}{spec} SELECT {select} FROM {{src}}", src=df)

    def update(self, *, set: Mapping[str, Any], where: str | Column | None = None) -> DmlResult:  # noqa: A002 - Delta's name
        """``UPDATE t SET c = v, .. [WHERE ..]``.

        >>> acid.table("employee").update(set={"salary": F.col("salary") * 2}, where=F.col("id") == 1).num_updated_rows
        1
        """
        text = f"UPDATE {self.name} SET {self.set_sql(set)}"
        if where is not None:
            text += f" WHERE {self.expression_sql(where, literal=False)}"
        return self._dml(text)

    def delete(self, *, where: str | Column | None = None) -> DmlResult:
        """``DELETE FROM t [WHERE ..]`` (no condition: every row).

        >>> acid.table("employee").delete(where="id = 3").num_deleted_rows
        1
        """
        text = f"DELETE FROM {self.name}"
        if where is not None:
            text += f" WHERE {self.expression_sql(where, literal=False)}"
        return self._dml(text)

    def compact(
        self, kind: Literal["major", "minor"] = "major", *, wait: bool = True, partition: Mapping[str, Any] | None = None
    ) -> DataFrame:
        """``ALTER TABLE t [PARTITION (..)] COMPACT 'kind' [AND WAIT]``: the request(s), with their state.

        >>> acid.table("employee").compact("major").first()["state"]
        'ready for cleaning'
        """
        if kind not in ("major", "minor"):
            raise PlanError(f"compaction kind must be 'major' or 'minor', not {kind!r}")
        spec = ""
        if partition:
            spec = " PARTITION (" + ", ".join(f"{k} = {sql_literal(v)}" for k, v in partition.items()) + ")"
        text = f"ALTER TABLE {self.name}{spec} COMPACT '{kind}'" + (" AND WAIT" if wait else "")
        return self._connection.sql(text)

    def merge(
        self, source: DataFrame, *, on: str | Column, source_alias: str = "s", target_alias: str = "t"
    ) -> MergeBuilder:
        """A MERGE of ``source`` into this table, built clause by clause (see :class:`MergeBuilder`).

        >>> acid.table("employee").merge(updates, on="t.id = s.id").when_matched_update_all().execute().num_updated_rows
        1
        """
        return MergeBuilder(self, source, on=on, source_alias=source_alias, target_alias=target_alias)

    def _dml(self, text: str, **sources: Any) -> DmlResult:
        result = self._connection.sql(text, **sources)
        if not isinstance(result, DmlResult):  # a plain table's write reports too; anything else is a bug
            raise HiveAcidError(f"{text.split()[0]} returned no result")
        return result


class TableApi(_Api, StreamingApi):
    """The Session's DataFrame methods, and the streaming ones (:class:`StreamingApi`): mixins, so the Session
    module stays the dispatch."""

    def _table_def(self, name: str) -> TableDef | None:
        db, table = self._split(name)
        try:
            return self.ctx.catalog.get_table(db, table)
        except HiveAcidError:
            return None

    def _split(self, name: str) -> tuple[str, str]:
        node = exp.to_table(name, dialect="hive")
        if not node.name or node.catalog:
            raise PlanError(f"a table name is [db.]table, not {name!r}")
        return table_names(node, self.ctx.current_db)

    def table(self, name: str) -> AcidTable:
        """A handle on a table (``db.table`` or a name in the current database); a missing table is an error.

        >>> acid.table("employee").to_df().count()
        3
        """
        found = self._table_def(name)
        if found is None:
            db, table = self._split(name)
            raise PlanError(f"Table not found '{db}.{table}'")
        return AcidTable(self, found)

    def create_table(
        self,
        name: str,
        *,
        schema: StructType | str,
        partitioned_by: Sequence[str] = (),
        clustered_by: tuple[Sequence[str], int] | None = None,
        properties: Mapping[str, str] | None = None,
        if_not_exists: bool = False,
    ) -> AcidTable:
        """``CREATE TABLE`` an ACID ORC table (``'transactional'='true'`` unless ``properties`` say otherwise).

        ``schema``: a Spark StructType (``df.schema``) or a DDL string of Hive types (``"id int, name string"``);
        the ``partitioned_by`` columns are taken out of it into ``PARTITIONED BY`` (as ``saveAsTable`` with
        ``partitionBy`` does); ``clustered_by=(["id"], 4)`` is ``CLUSTERED BY (id) INTO 4 BUCKETS``.

        >>> acid.create_table("people", schema="id int, name string, country string", partitioned_by=["country"]).name
        'default.people'
        """
        columns = self._schema_columns(schema)
        by_name = {c.lower(): (c, t) for c, t in columns}
        parts = [p.lower() for p in partitioned_by]
        for p in parts:
            if p not in by_name:
                raise PlanError(f"partition column '{p}' is not in the schema")
        data = [(c, t) for c, t in columns if c.lower() not in parts]
        text = "CREATE TABLE " + ("IF NOT EXISTS " if if_not_exists else "") + name
        text += " (" + ", ".join(f"{quote(c)} {t}" for c, t in data) + ")"
        if parts:
            text += " PARTITIONED BY (" + ", ".join(f"{quote(by_name[p][0])} {by_name[p][1]}" for p in parts) + ")"
        if clustered_by is not None:
            cols, buckets = clustered_by
            text += f" CLUSTERED BY ({', '.join(quote(c) for c in cols)}) INTO {int(buckets)} BUCKETS"
        props = {"transactional": "true", **dict(properties or {})}
        text += " STORED AS ORC TBLPROPERTIES (" + ", ".join(
            f"{sql_literal(str(k))} = {sql_literal(str(v))}" for k, v in props.items()
        ) + ")"
        self.sql(text)
        return self.table(name)

    def _schema_columns(self, schema: Any) -> list[tuple[str, str]]:
        if not isinstance(schema, str):
            return schema_columns(schema)
        tree = parse_one(f"CREATE TABLE __schema ({schema})").tree
        defs = list(tree.this.expressions) if isinstance(tree.this, exp.Schema) else []
        out = [(d.name, d.args["kind"].sql(dialect="hive").lower()) for d in defs if isinstance(d, exp.ColumnDef)]
        if not out or len(out) != len(defs):
            raise PlanError(f"schema must be 'name type, ..', not {schema!r}")
        return out

    def write(
        self,
        df: DataFrame,
        name: str,
        *,
        mode: WriteMode = "append",
        partitioned_by: Sequence[str] = (),
        clustered_by: tuple[Sequence[str], int] | None = None,
        properties: Mapping[str, str] | None = None,
    ) -> DmlResult | None:
        """Write a DataFrame to a table, creating it (ACID, from ``df.schema``) when missing, as
        ``df.write.saveAsTable`` does: ``append`` inserts, ``overwrite`` is INSERT OVERWRITE, ``error``
        refuses an existing table, ``ignore`` leaves it alone (returns None).

        >>> acid.write(spark.createDataFrame([(1, "x")], "id int, name string"), "letters", mode="append").num_inserted_rows
        1
        """
        if mode not in ("append", "overwrite", "error", "errorifexists", "ignore"):
            raise PlanError(f"mode must be append, overwrite, error or ignore, not {mode!r}")
        exists = self._table_def(name) is not None
        if exists and mode in ("error", "errorifexists"):
            db, table = self._split(name)
            raise PlanError(f"Table {db}.{table} already exists")
        if exists and mode == "ignore":
            return None
        if not exists:
            self.create_table(
                name, schema=frame_schema(df), partitioned_by=partitioned_by, clustered_by=clustered_by,
                properties=properties,
            )
        return self.table(name).insert(df, overwrite=mode == "overwrite")
