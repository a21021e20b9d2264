"""``acid.table("t").merge(df, on=..)``: a MERGE built clause by clause, in the names of Delta's Python API
(``whenMatchedUpdate`` -> ``when_matched_update``), run as the SQL MERGE it spells.

Why a builder and not a second MERGE: :meth:`MergeBuilder.sql` is the statement (with the source DataFrame as
a ``{src}`` argument), and :meth:`execute` runs it through ``acid.sql`` — the same planner, the same statement
ids per clause, the same :class:`~hiveacid_sql.results.DmlResult` with per-clause counts; :meth:`dry_run` is
``acid.sql(.., dry_run=True)``. Clauses are tried in the order they were added; the first that applies wins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from hiveacid_sql.errors import PlanError
from hiveacid_sql.exec.expressions import table_frame
from hiveacid_sql.results import DmlResult

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

    from hiveacid_sql.engine.context import StatementContext
    from hiveacid_sql.txn import TableDef


class _Connection(Protocol):
    ctx: StatementContext

    def sql(self, text: str, *, dry_run: bool = False, **kwargs: Any) -> Any: ...


class _Handle(Protocol):
    """What the builder needs of :class:`~hiveacid_sql.engine.table.AcidTable`."""

    @property
    def name(self) -> str: ...

    @property
    def definition(self) -> TableDef: ...

    @property
    def connection(self) -> _Connection: ...

    def expression_sql(self, value: Any, frames: Sequence[DataFrame] | None = None, *, literal: bool) -> str: ...

    def set_sql(self, assignments: Mapping[str, Any], frames: Sequence[DataFrame] | None = None) -> str: ...


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


class MergeBuilder:
    """A MERGE of a source DataFrame into an ACID table. Conditions and values are SQL text (naming the
    target and source by their aliases, ``t`` and ``s`` by default) or PySpark Columns
    (``F.col("s.salary")``); other Python values are literals.

    >>> (acid.table("employee").merge(updates, on="t.id = s.id")
    ...     .when_matched_update(set={"salary": "s.salary"})
    ...     .when_not_matched_insert_all()
    ...     .execute().num_affected_rows)
    2
    """

    def __init__(self, table: _Handle, source: DataFrame, *, on: str | Column, source_alias: str, target_alias: str) -> None:
        if source_alias.lower() == target_alias.lower():
            raise PlanError(f"MERGE source and target need different aliases (both are '{target_alias}')")
        self._table = table
        self._source = source
        self._s = source_alias
        self._t = target_alias
        self._on = table.expression_sql(on, self._frames(), literal=False)
        self._clauses: list[str] = []

    def _frames(self) -> list[DataFrame]:
        spark = self._table.connection.ctx.spark
        return [table_frame(spark, self._table.definition, self._t), self._source.alias(self._s)]

    def _when(self, kind: str, condition: str | Column | None, action: str) -> MergeBuilder:
        cond = "" if condition is None else f" AND {self._table.expression_sql(condition, self._frames(), literal=False)}"
        self._clauses.append(f"WHEN {kind}{cond} THEN {action}")
        return self

    # -- WHEN MATCHED ------------------------------------------------------------------------------
    def when_matched_update(self, *, set: Mapping[str, Any], condition: str | Column | None = None) -> MergeBuilder:  # noqa: A002 - Delta's name
        """``WHEN MATCHED [AND condition] THEN UPDATE SET c = v, ..`` (Delta: ``whenMatchedUpdate``).

        >>> acid.table("employee").merge(updates, on="t.id = s.id").when_matched_update(set={"salary": "s.salary"}).sql()[:5]
        'MERGE'
        """
        return self._when("MATCHED", condition, f"UPDATE SET {self._table.set_sql(set, self._frames())}")

    def when_matched_update_all(self, *, condition: str | Column | None = None) -> MergeBuilder:
        """``WHEN MATCHED .. THEN UPDATE SET *``: every column from the source column of its name.

        >>> "UPDATE SET *" in acid.table("employee").merge(updates, on="t.id = s.id").when_matched_update_all().sql()
        True
        """
        return self._when("MATCHED", condition, "UPDATE SET *")

    def when_matched_delete(self, *, condition: str | Column | None = None) -> MergeBuilder:
        """``WHEN MATCHED [AND condition] THEN DELETE``.

        >>> "THEN DELETE" in acid.table("employee").merge(updates, on="t.id = s.id").when_matched_delete().sql()
        True
        """
        return self._when("MATCHED", condition, "DELETE")

    # -- WHEN NOT MATCHED [BY TARGET] --------------------------------------------------------------
    def when_not_matched_insert(self, *, values: Mapping[str, Any], condition: str | Column | None = None) -> MergeBuilder:
        """``WHEN NOT MATCHED [AND condition] THEN INSERT (c, ..) VALUES (v, ..)``; columns not named are NULL.

        >>> "INSERT (`id`)" in acid.table("employee").merge(updates, on="t.id = s.id").when_not_matched_insert(values={"id": "s.id"}).sql()
        True
        """
        if not values:
            raise PlanError("values= needs at least one column")
        frames = self._frames()
        columns = ", ".join(_quote(c) for c in values)
        exprs = ", ".join(self._table.expression_sql(v, frames, literal=True) for v in values.values())
        return self._when("NOT MATCHED", condition, f"INSERT ({columns}) VALUES ({exprs})")

    def when_not_matched_insert_all(self, *, condition: str | Column | None = None) -> MergeBuilder:
        """``WHEN NOT MATCHED .. THEN INSERT *``: every column from the source column of its name.

        >>> "INSERT *" in acid.table("employee").merge(updates, on="t.id = s.id").when_not_matched_insert_all().sql()
        True
        """
        return self._when("NOT MATCHED", condition, "INSERT *")

    # -- WHEN NOT MATCHED BY SOURCE ----------------------------------------------------------------
    def when_not_matched_by_source_update(
        self, *, set: Mapping[str, Any], condition: str | Column | None = None  # noqa: A002 - Delta's name
    ) -> MergeBuilder:
        """``WHEN NOT MATCHED BY SOURCE [AND condition] THEN UPDATE SET ..``: target rows no source row matches.

        >>> "BY SOURCE" in acid.table("employee").merge(updates, on="t.id = s.id").when_not_matched_by_source_update(set={"salary": 0}).sql()
        True
        """
        return self._when("NOT MATCHED BY SOURCE", condition, f"UPDATE SET {self._table.set_sql(set, self._frames())}")

    def when_not_matched_by_source_delete(self, *, condition: str | Column | None = None) -> MergeBuilder:
        """``WHEN NOT MATCHED BY SOURCE [AND condition] THEN DELETE``.

        >>> "BY SOURCE THEN DELETE" in acid.table("employee").merge(updates, on="t.id = s.id").when_not_matched_by_source_delete().sql()
        True
        """
        return self._when("NOT MATCHED BY SOURCE", condition, "DELETE")

    # -- running -----------------------------------------------------------------------------------
    def sql(self) -> str:
        """The MERGE statement, with ``{src}`` where the source DataFrame goes (``acid.sql(text, src=df)``).

        >>> acid.table("employee").merge(updates, on="t.id = s.id").when_matched_delete().sql()
        'MERGE INTO default.employee AS t USING {src} AS s ON t.id = s.id WHEN MATCHED THEN DELETE'
        """
        if not self._clauses:
            raise PlanError("MERGE needs at least one WHEN clause (when_matched_update, when_not_matched_insert, ..)")
        return f"MERGE INTO {self._table.name} AS {self._t} USING {{src}} AS {self._s} ON {self._on} " + " ".join(
            self._clauses
        )

    def execute(self) -> DmlResult:
        """Run the MERGE (one transaction; each clause its own statement id) and return its DmlResult.

        >>> acid.table("employee").merge(updates, on="t.id = s.id").when_matched_delete().execute().num_deleted_rows
        1
        """
        result = self._table.connection.sql(self.sql(), src=self._source)
        if not isinstance(result, DmlResult):
            raise PlanError("MERGE returned no result")
        return result

    def dry_run(self) -> DataFrame:
        """The rows the MERGE would change (``action``, ``clause``, old and new values); nothing is written.

        >>> sorted(r["action"] for r in acid.table("employee").merge(updates, on="t.id = s.id").when_matched_delete().dry_run().collect())
        ['delete']
        """
        return self._table.connection.sql(self.sql(), dry_run=True, src=self._source)
