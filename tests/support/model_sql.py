"""SQL generation for the model-based test: one statement, rendered for hiveacid-sql (Hive SQL) and DuckDB.

The state machine in ``test_model_based.py`` runs every generated statement on both engines and compares the
tables. Everything here is chosen so that the two engines *must* agree, which is why the generator is
narrower than Hive SQL:

* integers stay far from overflow (small values, ``c + small`` only, never ``c * c``); Hive wraps, DuckDB
  raises, neither is what a user wants to compare;
* decimals keep their scale (``+``/``-`` of 2-place literals into ``decimal(10,2)``), doubles are dyadic
  fractions (exact in binary), so no rounding rule is exercised;
* strings come from a small pool compared byte-wise (Spark's and DuckDB's default collation); ``varchar(10)``
  only ever receives values of at most 10 characters (Hive truncates, DuckDB does not); ``concat`` is
  rendered as ``concat`` for Spark and ``||`` for DuckDB (DuckDB's ``concat`` skips NULLs, Spark's does not);
* no division; dates only move by whole days, from 1970 .. 2079 and from the value matrix's extremes
  (tests/spark/test_value_matrix.py: 0001, 1582-10-04/15, 1899-12-31, 9999; 30 days inside the range so that
  ``date_add(d, +-30)`` stays in it); strings include trailing and leading blanks and non-BMP unicode, doubles
  -0.0 and 1e300;
* MERGE sources are grouped by the join key, so no target row meets two source rows (the cardinality rule is
  a bad-input test, not a model step);
* string partition values are never '' (Hive stores '' and NULL alike in ``__HIVE_DEFAULT_PARTITION__``).

An expression is an :class:`E`: its Hive text and its DuckDB text, built together.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal

from hypothesis import strategies as st

TYPES = ["int", "bigint", "string", "varchar(10)", "decimal(10,2)", "double", "date", "boolean"]
DUCK_TYPES = {
    "int": "INTEGER",
    "bigint": "BIGINT",
    "string": "VARCHAR",
    "varchar(10)": "VARCHAR",
    "decimal(10,2)": "DECIMAL(10,2)",
    "double": "DOUBLE",
    "date": "DATE",
    "boolean": "BOOLEAN",
}
ORDERED = {"int", "bigint", "string", "varchar(10)", "decimal(10,2)", "double", "date"}
STRINGS = ["", "a", "b", "ab", "B", "abc", "x y", "é", "a/b", "a=b", "Zz:9", "trail  ", " lead", "✓𝄞"]
#: the value matrix's date extremes (tests/spark/test_value_matrix.py), 30 days inside 0001..9999
EXTREME_DATES = [dt.date(1, 2, 1), dt.date(1582, 10, 4), dt.date(1582, 10, 15), dt.date(1899, 12, 31), dt.date(9999, 11, 30)]
PART_STRINGS = ["a", "b", "x y", "a/b", "a=b", "Zz:9", "é"]  # no '' (it reads back as NULL)


@dataclass(frozen=True)
class E:
    """One expression in both dialects."""

    hive: str
    duck: str


def same(text: str) -> E:
    return E(text, text)


@dataclass(frozen=True)
class Column:
    name: str
    type: str


@dataclass(frozen=True)
class Table:
    """A generated table: ``k int`` first, then data columns, then at most one partition column."""

    name: str
    columns: tuple[Column, ...]
    partition: Column | None = None
    buckets: int | None = None
    bucket_column: str = "k"
    insert_only: str | None = None  # an insert-only table's format (ORC, PARQUET); None: full ACID ORC
    plain: bool = False  # a plain (non-ACID) Parquet table: INSERT / INSERT OVERWRITE / TRUNCATE; DML refused

    @property
    def all_columns(self) -> tuple[Column, ...]:
        return self.columns + ((self.partition,) if self.partition else ())

    def hive_ddl(self) -> str:
        cols = ", ".join(f"{c.name} {c.type}" for c in self.columns)
        text = f"CREATE TABLE {self.name} ({cols})"
        if self.partition:
            text += f" PARTITIONED BY ({self.partition.name} {self.partition.type})"
        if self.buckets:
            text += f" CLUSTERED BY ({self.bucket_column}) INTO {self.buckets} BUCKETS"
        if self.plain:
            return text + " STORED AS PARQUET"
        if self.insert_only:
            return (
                text + f" STORED AS {self.insert_only} TBLPROPERTIES ('transactional'='true', "
                "'transactional_properties'='insert_only')"
            )
        return text + " STORED AS ORC TBLPROPERTIES ('transactional'='true')"

    def duck_ddl(self) -> str:
        cols = ", ".join(f"{c.name} {DUCK_TYPES[c.type]}" for c in self.all_columns)
        return f"CREATE TABLE {self.name} ({cols})"


@dataclass
class Statement:
    """A generated statement: Hive text (one statement) and the DuckDB statements that do the same."""

    kind: str
    hive: str
    duck: list[str] = field(default_factory=list)

    def __repr__(self) -> str:  # hypothesis prints steps with repr: show the SQL a human would rerun
        return f"<{self.kind}: {self.hive}>"


# -- values ------------------------------------------------------------------------------------------


def values_of(type_: str, *, partition: bool = False) -> st.SearchStrategy:
    """Python values of a column type (no None)."""
    if type_ == "int":
        return st.integers(-3, 8) if partition else st.integers(-1000, 1000)
    if type_ == "bigint":
        return st.sampled_from([-(10**12), -7, 0, 1, 42, 2**40, 10**12 + 3])
    if type_ == "string":
        return st.sampled_from(PART_STRINGS if partition else STRINGS)
    if type_ == "varchar(10)":
        return st.sampled_from(STRINGS)
    if type_ == "decimal(10,2)":
        return st.integers(-99999, 99999).map(lambda n: Decimal(n).scaleb(-2))
    if type_ == "double":
        return st.one_of(st.integers(-400, 400).map(lambda n: n / 4), st.sampled_from([-0.0, 1e300, -1e300]))
    if type_ == "date":
        return st.one_of(
            st.integers(0, 40000).map(lambda n: dt.date(1970, 1, 1) + dt.timedelta(days=n)),
            st.sampled_from(EXTREME_DATES),
        )
    if type_ == "boolean":
        return st.booleans()
    raise ValueError(type_)


def key_values() -> st.SearchStrategy:
    """The join key ``k``: a small domain so MERGE and IN find matches; NULL sometimes (not the simplest
    draw: the simplest sequence's point statements then find rows)."""
    return st.one_of(st.integers(0, 6), st.none(), st.integers(0, 6))


def literal(type_: str, value: object) -> E:
    """A typed literal both engines read as the same value of ``type_``."""
    if value is None:
        return E(f"CAST(NULL AS {type_})", f"CAST(NULL AS {DUCK_TYPES[type_]})")
    if type_ in ("int", "bigint"):
        return same(str(value))
    if type_ in ("string", "varchar(10)"):
        return same("'" + str(value).replace("'", "''") + "'")
    if type_ == "decimal(10,2)":
        return E(f"CAST({value} AS decimal(10,2))", f"CAST({value} AS DECIMAL(10,2))")
    if type_ == "double":
        return E(f"CAST({value!r} AS double)", f"CAST({value!r} AS DOUBLE)")
    if type_ == "date":
        return same(f"DATE '{value.isoformat()}'")  # type: ignore[union-attr]
    if type_ == "boolean":
        return same("TRUE" if value else "FALSE")
    raise ValueError(type_)


def column_value(col: Column, *, partition: bool = False, nulls: bool = True) -> st.SearchStrategy:
    if col.name == "k":
        return key_values()
    base = values_of(col.type, partition=partition)
    return st.one_of(st.none(), base, base) if nulls else base


def literal_of(col: Column, *, partition: bool = False) -> st.SearchStrategy[E]:
    return column_value(col, partition=partition).map(lambda v: literal(col.type, v))


def row_literals(table: Table) -> st.SearchStrategy[list[E]]:
    parts = [literal_of(c) for c in table.columns]
    if table.partition:
        parts.append(literal_of(table.partition, partition=True))
    return st.tuples(*parts).map(list)


# -- expressions ---------------------------------------------------------------------------------------


def _ref(col: Column, qualifier: str | None) -> E:
    return same(f"{qualifier}.{col.name}" if qualifier else col.name)


def value_expr(
    draw: st.DrawFn, target: Column, sources: list[tuple[Column, str | None]], *, partition: bool = False
) -> E:
    """An expression of ``target``'s type over ``sources`` (columns with their qualifier)."""
    same_type = [(c, q) for c, q in sources if c.type == target.type and (not partition or c.name == "p")]
    choice = draw(st.integers(0, 5)) if same_type else 0
    if choice == 0 or not same_type:
        return draw(literal_of(target, partition=partition))
    col, q = draw(st.sampled_from(same_type))
    ref = _ref(col, q)
    if choice == 1 or partition:
        return ref
    if choice == 5:
        fallback = draw(literal_of(target).filter(lambda e: "NULL" not in e.hive))
        return E(f"coalesce({ref.hive}, {fallback.hive})", f"coalesce({ref.duck}, {fallback.duck})")
    t = target.type
    if t in ("int", "bigint"):
        n = draw(st.integers(-5, 5))
        return draw(st.sampled_from([E(f"({ref.hive} + {n})", f"({ref.duck} + {n})"), E(f"(-{ref.hive})", f"(-{ref.duck})")]))
    if t == "string":
        s = draw(st.sampled_from(["x", "", "é"]))
        return draw(
            st.sampled_from(
                [
                    E(f"concat({ref.hive}, '{s}')", f"({ref.duck} || '{s}')"),
                    same(f"upper({ref.hive})"),
                    same(f"substr({ref.hive}, 1, 2)"),
                ]
            )
        )
    if t == "varchar(10)":
        return draw(st.sampled_from([same(f"lower({ref.hive})"), same(f"substr({ref.hive}, 2, 3)")]))
    if t == "decimal(10,2)":
        d = Decimal(draw(st.integers(-500, 500))).scaleb(-2)
        return E(f"({ref.hive} + CAST({d} AS decimal(10,2)))", f"({ref.duck} + CAST({d} AS DECIMAL(10,2)))")
    if t == "double":
        d = draw(st.integers(-20, 20)) / 4
        return E(f"({ref.hive} - CAST({d!r} AS double))", f"({ref.duck} - CAST({d!r} AS DOUBLE))")
    if t == "date":
        n = draw(st.integers(-30, 30))
        return E(f"date_add({ref.hive}, {n})", f"({ref.duck} + {n})")
    if t == "boolean":
        return same(f"(NOT {ref.hive})")
    return ref


@st.composite
def predicate(draw: st.DrawFn, sources: list[tuple[Column, str | None]], depth: int = 0) -> E:
    """A boolean condition over ``sources``; three-valued logic is the same in both engines."""
    kind = draw(st.integers(0, 9 if depth < 2 else 6))
    col, q = draw(st.sampled_from(sources))
    ref = _ref(col, q)
    if kind == 0:
        return same(f"{ref.hive} IS NULL")
    if kind == 1:
        return same(f"{ref.hive} IS NOT NULL")
    if kind in (2, 3, 4, 5):
        lit = draw(literal_of(col).filter(lambda e: "NULL" not in e.hive))
        ops = ["=", "<>"] + (["<", ">=", "<="] if col.type in ORDERED else [])
        op = draw(st.sampled_from(ops))
        return E(f"{ref.hive} {op} {lit.hive}", f"{ref.duck} {op} {lit.duck}")
    if kind == 6:
        lits = draw(st.lists(literal_of(col).filter(lambda e: "NULL" not in e.hive), min_size=1, max_size=3))
        return E(
            f"{ref.hive} IN ({', '.join(e.hive for e in lits)})", f"{ref.duck} IN ({', '.join(e.duck for e in lits)})"
        )
    if kind == 7:
        inner = draw(predicate(sources, depth + 1))
        return E(f"NOT ({inner.hive})", f"NOT ({inner.duck})")
    a = draw(predicate(sources, depth + 1))
    b = draw(predicate(sources, depth + 1))
    op = "AND" if kind == 8 else "OR"
    return E(f"({a.hive} {op} {b.hive})", f"({a.duck} {op} {b.duck})")


def cols(table: Table, qualifier: str | None = None) -> list[tuple[Column, str | None]]:
    return [(c, qualifier) for c in table.all_columns]


def where_clause(draw: st.DrawFn, table: Table, others: list[Table], qualifier: str | None = None) -> E:
    """``WHERE ..`` (or nothing) for a statement over ``table``; sometimes with an IN-subquery on ``k``."""
    kind = draw(st.integers(0, 6))
    if kind == 0:
        return same("")
    pred = draw(predicate(cols(table, qualifier)))
    if kind == 6 and others:
        other = draw(st.sampled_from(others))
        inner = draw(predicate(cols(other)))
        k = f"{qualifier}.k" if qualifier else "k"
        sub = E(
            f"{k} IN (SELECT k FROM {other.name} WHERE {inner.hive})",
            f"{k} IN (SELECT k FROM {other.name} WHERE {inner.duck})",
        )
        pred = E(f"({pred.hive} OR {sub.hive})", f"({pred.duck} OR {sub.duck})")
    return E(f" WHERE {pred.hive}", f" WHERE {pred.duck}")


# -- statements ----------------------------------------------------------------------------------------


@st.composite
def table_schema(draw: st.DrawFn, name: str) -> Table:
    """A random table: ``k int`` plus 1-4 columns of mixed types, maybe partitioned and/or bucketed."""
    types = draw(st.lists(st.sampled_from(TYPES), min_size=1, max_size=4))
    columns = (Column("k", "int"),) + tuple(Column(f"c{i}_{t.split('(')[0]}", t) for i, t in enumerate(types))
    partition = None
    if draw(st.integers(0, 2)) == 0:
        partition = Column("p", draw(st.sampled_from(["int", "string"])))
    # a plain Parquet table, partitioned or not, bucketed or not (not the simplest draw: hypothesis's first
    # sequence, CI's, is the one of simplest draws, and a plain table refuses UPDATE / DELETE / MERGE)
    plain = draw(st.integers(0, 4)) == 4
    buckets = draw(st.sampled_from([None, None, 2, 3]))
    bucket_column = "k"
    if buckets:
        bucket_column = draw(st.sampled_from([c.name for c in columns if c.type in ("int", "string", "bigint")]))
    if plain:
        return Table(name, columns, partition, buckets, bucket_column, plain=True)
    insert_only = draw(st.sampled_from([None, None, "ORC", "PARQUET"]))
    return Table(name, columns, partition, buckets, bucket_column, insert_only)


@st.composite
def create_view(draw: st.DrawFn, name: str, table: Table) -> Statement:
    """``CREATE OR REPLACE VIEW name AS SELECT * FROM table [WHERE ..]`` (a view read like a table)."""
    where = where_clause(draw, table, [])
    return Statement(
        "create-view",
        f"CREATE OR REPLACE VIEW {name} AS SELECT * FROM {table.name}{where.hive}",
        [f"CREATE OR REPLACE VIEW {name} AS SELECT * FROM {table.name}{where.duck}"],
    )


@st.composite
def insert_values(draw: st.DrawFn, table: Table, min_rows: int = 1, max_rows: int = 4) -> Statement:
    rows = draw(st.lists(row_literals(table), min_size=min_rows, max_size=max_rows))
    hive_rows = ", ".join("(" + ", ".join(e.hive for e in r) + ")" for r in rows)
    duck_rows = ", ".join("(" + ", ".join(e.duck for e in r) + ")" for r in rows)
    return Statement("insert-values", f"INSERT INTO {table.name} VALUES {hive_rows}",
                     [f"INSERT INTO {table.name} VALUES {duck_rows}"])


def _select_for(draw: st.DrawFn, target: Table, source: Table, tables: list[Table]) -> E:
    """``SELECT <one value per target column> FROM source [WHERE ..]``."""
    exprs = [value_expr(draw, c, cols(source)) for c in target.columns]
    if target.partition:
        exprs.append(value_expr(draw, target.partition, cols(source), partition=True))
    names = [c.name for c in target.all_columns]
    where = where_clause(draw, source, [t for t in tables if t.name != source.name])
    return E(
        f"SELECT {', '.join(f'{e.hive} AS {n}' for e, n in zip(exprs, names, strict=True))} FROM {source.name}{where.hive}",
        f"SELECT {', '.join(f'{e.duck} AS {n}' for e, n in zip(exprs, names, strict=True))} FROM {source.name}{where.duck}",
    )


@st.composite
def insert_select(draw: st.DrawFn, target: Table, tables: list[Table]) -> Statement:
    source = draw(st.sampled_from(tables))
    sel = _select_for(draw, target, source, tables)
    return Statement("insert-select", f"INSERT INTO {target.name} {sel.hive}",
                     [f"INSERT INTO {target.name} {sel.duck}"])


@st.composite
def insert_overwrite(draw: st.DrawFn, target: Table, tables: list[Table]) -> Statement:
    """``INSERT OVERWRITE``: the whole table, or (partitioned) only the partitions the rows go to."""
    source = draw(st.sampled_from(tables))
    sel = _select_for(draw, target, source, tables)
    if target.partition:
        p = target.partition.name
        delete = (f"DELETE FROM {target.name} WHERE EXISTS (SELECT 1 FROM __iow n "
                  f"WHERE n.{p} IS NOT DISTINCT FROM {target.name}.{p})")
    else:
        delete = f"DELETE FROM {target.name}"
    return Statement(
        "insert-overwrite",
        f"INSERT OVERWRITE TABLE {target.name} {sel.hive}",
        [
            f"CREATE TEMP TABLE __iow AS {sel.duck}",
            delete,
            f"INSERT INTO {target.name} SELECT * FROM __iow",
            "DROP TABLE __iow",
        ],
    )


def _assignments(draw: st.DrawFn, table: Table, sources: list[tuple[Column, str | None]]) -> E:
    chosen = draw(st.lists(st.sampled_from(list(table.all_columns)), min_size=1, max_size=3, unique=True))
    parts = [(c.name, value_expr(draw, c, sources, partition=c is table.partition)) for c in chosen]
    return E(", ".join(f"{n} = {e.hive}" for n, e in parts), ", ".join(f"{n} = {e.duck}" for n, e in parts))


@st.composite
def update(draw: st.DrawFn, table: Table, tables: list[Table]) -> Statement:
    sets = _assignments(draw, table, cols(table))
    where = where_clause(draw, table, [t for t in tables if t.name != table.name])
    return Statement("update", f"UPDATE {table.name} SET {sets.hive}{where.hive}",
                     [f"UPDATE {table.name} SET {sets.duck}{where.duck}"])


@st.composite
def delete(draw: st.DrawFn, table: Table, tables: list[Table]) -> Statement:
    where = where_clause(draw, table, [t for t in tables if t.name != table.name])
    return Statement("delete", f"DELETE FROM {table.name}{where.hive}", [f"DELETE FROM {table.name}{where.duck}"])


@st.composite
def key_where(draw: st.DrawFn, table: Table) -> E:
    """`` WHERE ..`` of a point statement: conditions on the integer key ``k`` that the planner turns into key
    filters (``=``, ``IN``, ``BETWEEN``, a range, each maybe with another conjunct), or an OR of one with
    another condition (no key filter: the Spark scan). Such a statement on a full ACID table larger than
    ``hiveacid.driver.scan.max.rows`` is read by the point read (``exec/local_scan.point_frame``)."""
    k = Column("k", "int")
    v = draw(st.integers(-1, 7))
    kind = draw(st.integers(0, 4))
    if kind == 0:
        key = same(f"k = {v}")
    elif kind == 1:
        values = draw(st.lists(st.integers(-1, 7), min_size=1, max_size=3))
        key = same(f"k IN ({', '.join(map(str, values))})")
    elif kind == 2:
        key = same(f"k BETWEEN {v} AND {v + draw(st.integers(0, 3))}")
    elif kind == 3:
        key = same(f"k {draw(st.sampled_from(['<', '<=', '>', '>=']))} {v}")
    else:
        key = same(f"{v} >= k")  # the literal on the left
    shape = draw(st.integers(0, 2))
    if shape == 0:
        return E(f" WHERE {key.hive}", f" WHERE {key.duck}")
    other = draw(predicate([(c, None) for c in table.all_columns if c != k]))
    op = "AND" if shape == 1 else "OR"
    return E(f" WHERE {key.hive} {op} ({other.hive})", f" WHERE {key.duck} {op} ({other.duck})")


@st.composite
def point_change(draw: st.DrawFn, table: Table) -> Statement:
    """An UPDATE or DELETE whose WHERE is :func:`key_where`'s."""
    where = draw(key_where(table))
    if draw(st.booleans()):
        return Statement("delete", f"DELETE FROM {table.name}{where.hive}", [f"DELETE FROM {table.name}{where.duck}"])
    sets = _assignments(draw, table, cols(table))
    return Statement("update", f"UPDATE {table.name} SET {sets.hive}{where.hive}",
                     [f"UPDATE {table.name} SET {sets.duck}{where.duck}"])


def truncate(table: Table) -> Statement:
    return Statement("truncate", f"TRUNCATE TABLE {table.name}", [f"DELETE FROM {table.name}"])


@st.composite
def merge(draw: st.DrawFn, target: Table, tables: list[Table], *, inserting: bool = False) -> Statement:
    """MERGE with 1-5 WHEN clauses over a source grouped by ``k`` (so each target row meets <= 1 source row).

    Within each kind (MATCHED, NOT MATCHED, NOT MATCHED BY SOURCE) only the last clause may be unconditional.
    ``inserting``: a NOT MATCHED clause and no NOT MATCHED BY SOURCE one (a right outer join: the MERGE split
    of a small source, exec/merge_split.py).
    """
    source = draw(st.sampled_from(tables))
    aggs = [f"max({c.name}) AS {c.name}" for c in source.all_columns if c.name != "k"]
    swhere = where_clause(draw, source, [])
    src_hive = f"(SELECT k, {', '.join(aggs)} FROM {source.name}{swhere.hive} GROUP BY k)"
    src_duck = f"(SELECT k, {', '.join(aggs)} FROM {source.name}{swhere.duck} GROUP BY k)"
    s_cols = cols(source, "s")
    t_cols = cols(target, "t")
    on = E("t.k = s.k", "t.k = s.k")
    if draw(st.booleans()):
        extra = draw(predicate(t_cols))
        on = E(f"t.k = s.k AND {extra.hive}", f"t.k = s.k AND {extra.duck}")
    if inserting:
        kinds = [*draw(st.lists(st.just("matched"), min_size=1, max_size=2)), "not_matched"]
    else:
        kinds = draw(st.lists(st.sampled_from(["matched", "not_matched", "by_source"]), min_size=1, max_size=5))
    clauses_h: list[str] = []
    clauses_d: list[str] = []
    for i, kind in enumerate(kinds):
        last_of_kind = kind not in kinds[i + 1:]
        conditional = not last_of_kind or draw(st.booleans())
        if kind == "matched":
            head, scope = "WHEN MATCHED", t_cols + s_cols
        elif kind == "not_matched":
            head, scope = "WHEN NOT MATCHED", s_cols
        else:
            head, scope = "WHEN NOT MATCHED BY SOURCE", t_cols
        cond = draw(predicate(scope)) if conditional else None
        h = head + (f" AND {cond.hive}" if cond else "")
        d = head + (f" AND {cond.duck}" if cond else "")
        if kind == "not_matched":
            vals = [value_expr(draw, c, s_cols) for c in target.columns]
            if target.partition:
                vals.append(value_expr(draw, target.partition, s_cols, partition=True))
            h += f" THEN INSERT VALUES ({', '.join(v.hive for v in vals)})"
            d += f" THEN INSERT VALUES ({', '.join(v.duck for v in vals)})"
        elif draw(st.booleans()):
            h += " THEN DELETE"
            d += " THEN DELETE"
        else:
            sets = _assignments(draw, target, scope)
            h += f" THEN UPDATE SET {sets.hive}"
            d += f" THEN UPDATE SET {sets.duck}"
        clauses_h.append(h)
        clauses_d.append(d)
    return Statement(
        "merge",
        f"MERGE INTO {target.name} AS t USING {src_hive} AS s ON {on.hive} {' '.join(clauses_h)}",
        [f"MERGE INTO {target.name} AS t USING {src_duck} AS s ON {on.duck} {' '.join(clauses_d)}"],
    )
