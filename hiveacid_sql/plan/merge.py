"""MERGE -> plan: one join of the target snapshot with the source, one pass choosing a clause per row.

The plan is a single query (run by Spark over snapshot views) whose rows are the joined rows that some
WHEN clause applies to::

    SELECT CASE WHEN <clause 1 applies> THEN 1 WHEN <clause 2 applies> THEN 2 ... END AS __clause,
           t.__part_dir, t.__owid, t.__bucket, t.__rowid,
           CASE __clause WHEN <k> THEN <new value of c in clause k> ... ELSE t.c END AS c, ...
    FROM <target> t <join> (SELECT *, monotonically_increasing_id() AS __src_id FROM <source>) s ON <on>

A clause *applies* to a row when its kind matches (target and source row both present: MATCHED; only the
source row: NOT MATCHED [BY TARGET]; only the target row: NOT MATCHED BY SOURCE) and its condition is true;
the first applicable clause in SQL order wins, as in Hive, Delta and the SQL standard. The join type follows
the clauses: inner for MATCHED only, right outer with NOT MATCHED, left outer with BY SOURCE, full outer
with both. A right outer join also comes as an inner join plus the source rows left unmatched
(:class:`~hiveacid_sql.plan.model.MergeSplit`), which the executor runs when the source is small. Statement ids: insert clauses first in clause order, then the others in clause order (the
walkthrough's rule, Hive's multi-insert leg order).
"""

from __future__ import annotations

import dataclasses
from typing import Literal

from sqlglot import exp

from hiveacid_sql.errors import PlanError
from hiveacid_sql.plan.columns import (
    BUCKET,
    CLAUSE,
    NUMBERED_SOURCE,
    OWID,
    PART_DIR,
    ROWID,
    SOURCE_ID,
    UNMATCHED_SOURCE,
)
from hiveacid_sql.plan.model import BoundTables, MergeClause, MergePlan, MergeSplit
from hiveacid_sql.plan.pruning import TablePruning, partition_conjuncts
from hiveacid_sql.plan.target import column_value, default_value, enforced, set_assignments, target_table
from hiveacid_sql.plan.types import hive_cast
from hiveacid_sql.sql.tree import where_is
from hiveacid_sql.txn import TableDef

JoinKind = Literal["inner", "right", "left", "full"]


def _clause_kind(when: exp.When) -> Literal["matched", "not_matched", "not_matched_by_source"]:
    if when.args.get("matched"):
        return "matched"
    return "not_matched_by_source" if when.args.get("source") else "not_matched"


def _update_values(then: exp.Update, target: TableDef, source_alias: str) -> tuple[tuple[str, exp.Expr], ...]:
    return tuple((name, value) for name, _, value in set_assignments(then.expressions, target, star_source=source_alias))


def _insert_values(
    then: exp.Insert, target: TableDef, source_alias: str, types: dict[str, str]
) -> tuple[tuple[str, exp.Expr], ...]:
    names = [c.name for c in target.all_columns]
    if isinstance(then.this, exp.Star):  # INSERT *: every target column from the source column of that name
        return tuple(
            (c.name, enforced(hive_cast(exp.column(c.name, table=source_alias, quoted=True), c.type, column=f"{target.qualified_name}.{c.name}"), target, c.name))
            for c in target.all_columns
        )
    columns = [c.name.lower() for c in then.this.expressions] if isinstance(then.this, exp.Tuple) else names
    values = then.expression.expressions if isinstance(then.expression, exp.Tuple) else None
    if values is None:
        raise PlanError(f"{where_is(then)}INSERT in MERGE needs VALUES (...)")
    for col, node in zip(columns, then.this.expressions if isinstance(then.this, exp.Tuple) else [], strict=False):
        if col not in types:
            raise PlanError(f"{where_is(node)}Invalid column reference '{col}' in table {target.qualified_name}")
    if len(set(columns)) != len(columns):
        raise PlanError(f"{where_is(then)}Duplicate column in MERGE INSERT column list")
    if len(values) != len(columns):
        raise PlanError(
            f"{where_is(then)}MERGE INSERT has {len(columns)} target columns but {len(values)} values"
        )
    given = dict(zip(columns, values, strict=True))
    return tuple(
        (n, enforced(column_value(given[n], target, n) if n in given else default_value(target, n), target, n))
        for n in names
    )


def _join_kind(clauses: tuple[MergeClause, ...]) -> JoinKind:
    inserts = any(c.match == "not_matched" for c in clauses)
    by_source = any(c.match == "not_matched_by_source" for c in clauses)
    if inserts and by_source:
        return "full"
    if inserts:
        return "right"
    if by_source:
        return "left"
    return "inner"


def _statement_offsets(clauses: list[MergeClause]) -> list[MergeClause]:
    """Insert clauses take the lowest statement ids in clause order, then the others in clause order."""
    order = [c for c in clauses if c.action == "insert"] + [c for c in clauses if c.action != "insert"]
    offset = {c.index: i for i, c in enumerate(order)}
    return [dataclasses.replace(c, statement_offset=offset[c.index]) for c in clauses]


def _applies(clause: MergeClause, t: str, s: str) -> exp.Expr:
    target_present = exp.column(OWID, table=t).is_(exp.null()).not_()
    source_present = exp.column(SOURCE_ID, table=s).is_(exp.null()).not_()
    kind = {
        "matched": exp.and_(target_present, source_present),
        "not_matched": exp.and_(source_present, exp.not_(target_present)),
        "not_matched_by_source": exp.and_(target_present, exp.not_(source_present)),
    }[clause.match]
    return exp.and_(kind, exp.paren(clause.condition.copy())) if clause.condition is not None else kind


def _target_pruning(target: TableDef, on: exp.Expr, clauses: tuple[MergeClause, ...], t: str) -> TablePruning:
    """Partitions of the target that some clause could touch (see module notes in :func:`build_merge`).

    With an INSERT clause every target row that could match (ON's partition conjuncts) must be read, or a
    source row could wrongly look unmatched; a MATCHED clause needs ON's and its own conjuncts; a BY SOURCE
    clause only its own (its rows match nothing). The union of the needs is read; a need with no partition
    conjunct means every partition.
    """
    if not target.is_partitioned:
        return TablePruning()
    keys = {k.name for k in target.partition_keys}
    on_part = partition_conjuncts(on, t, keys)

    needs: list[list[exp.Expr]] = []  # each need: a conjunction of partition predicates
    if any(c.match == "not_matched" for c in clauses):
        needs.append(on_part)
    for c in clauses:
        own = partition_conjuncts(c.condition, t, keys) if c.condition is not None else []
        if c.match == "matched":
            needs.append(on_part + own)
        elif c.match == "not_matched_by_source":
            needs.append(own)
    if not needs or any(not n for n in needs):
        return TablePruning()
    # A need whose conjuncts include another need's is already covered by it: keep the weakest ones.
    sets = [frozenset(p.sql() for p in n) for n in needs]
    kept = [n for i, n in enumerate(needs) if not any(sets[j] < sets[i] or (sets[j] == sets[i] and j < i) for j in range(len(needs)))]
    disjuncts = [exp.and_(*n) for n in kept]
    return TablePruning(partition_filter=exp.or_(*disjuncts) if len(disjuncts) > 1 else disjuncts[0])


def _source_only(node: exp.Expr, s: str) -> bool:
    """An expression over source columns only (qualified by the source alias), safe to evaluate alone."""
    cols = list(node.find_all(exp.Column))
    return (
        bool(cols)
        and all(c.table and c.table.lower() == s.lower() and not c.args.get("db") for c in cols)
        and not any(isinstance(n, (exp.Subquery, exp.Select, exp.AggFunc, exp.Window, exp.Rand, exp.Exists)) for n in node.walk())
    )


def _source_keys(
    on: exp.Expr, target: TableDef, clauses: list[MergeClause], t: str, s: str
) -> list[tuple[str, exp.Expr]]:
    """(target data column, source expression) of each ON conjunct ``t.c = <source expression>``: a target row
    can match only if its ``c`` lies within the source expression's range. None with a NOT MATCHED BY SOURCE
    clause, which must see every target row."""
    if any(c.match == "not_matched_by_source" for c in clauses):
        return []
    names = {c.name.lower() for c in target.columns}
    conjuncts = list(on.flatten()) if isinstance(on, exp.And) else [on]
    out = []
    for conjunct in conjuncts:
        if not isinstance(conjunct, exp.EQ):
            continue
        for col, other in ((conjunct.this, conjunct.expression), (conjunct.expression, conjunct.this)):
            if (
                isinstance(col, exp.Column)
                and col.table.lower() == t.lower()
                and not col.args.get("db")
                and col.name.lower() in names
                and _source_only(other, s)
            ):
                out.append((col.name.lower(), other))
                break
    return out


def _aliased(name: str, alias: str) -> exp.Table:
    table = exp.Table(this=exp.to_identifier(name))
    table.set("alias", exp.TableAlias(this=exp.to_identifier(alias)))
    return table


def _split(
    columns: list[exp.Expr], target: TableDef, target_ref: exp.Table, source: exp.Expr, on: exp.Expr, t: str, s: str
) -> MergeSplit:
    """The right outer join of a MERGE as an inner join plus the unmatched source rows (:class:`MergeSplit`)."""
    matched = exp.select(*[c.copy() for c in columns]).from_(target_ref.copy())
    matched.set("joins", [exp.Join(this=_aliased(NUMBERED_SOURCE, s), on=on.copy())])
    # no target row: Spark's optimizer turns the filtered target into an empty relation and the right outer
    # join over it into a projection of the source rows with NULL target columns (nothing read)
    own = [PART_DIR, OWID, BUCKET, ROWID, *[c.name for c in target.all_columns]]
    nothing = exp.select(*[exp.column(c, table=t, quoted=True) for c in own]).from_(target_ref.copy()).where(exp.false())
    unmatched = exp.select(*[c.copy() for c in columns]).from_(exp.Subquery(this=nothing, alias=exp.TableAlias(this=exp.to_identifier(t))))
    unmatched.set("joins", [exp.Join(this=_aliased(UNMATCHED_SOURCE, s), on=on.copy(), side="RIGHT", kind="OUTER")])
    return MergeSplit(
        source_rows=exp.select(exp.Star()).from_(source.copy()),
        matched=matched,
        unmatched=unmatched,
    )


def build_merge(tree: exp.Merge, target: TableDef, target_node: exp.Table, bind) -> MergePlan:
    """The plan of a MERGE statement; ``bind`` is the planner's table binder."""
    t = target_node.alias_or_name
    source = tree.args.get("using")
    if source is None or not isinstance(source, exp.Table | exp.Subquery):
        raise PlanError(f"{where_is(tree)}MERGE needs USING <table or (subquery)> [AS alias]")
    s = source.alias_or_name
    if s.lower() == t.lower():
        raise PlanError(f"{where_is(source)}MERGE source and target need different aliases (both are '{t}')")
    on = tree.args.get("on")
    if on is None:
        raise PlanError(f"{where_is(tree)}MERGE needs an ON condition")
    whens = tree.args.get("whens")
    if whens is None or not whens.expressions:
        raise PlanError(f"{where_is(tree)}MERGE needs at least one WHEN clause")
    types = {c.name: c.type for c in target.all_columns}
    clauses = []
    for index, when in enumerate(whens.expressions, start=1):
        match = _clause_kind(when)
        then = when.args.get("then")
        if isinstance(then, exp.Update):
            action, values = "update", _update_values(then, target, s)
        elif isinstance(then, exp.Insert):
            action, values = "insert", _insert_values(then, target, s, types)
        elif isinstance(then, exp.Var) and then.name.upper() == "DELETE":
            action, values = "delete", ()
        else:
            raise PlanError(f"{where_is(when)}WHEN clause {index} needs THEN UPDATE, DELETE or INSERT")
        if (action == "insert") != (match == "not_matched"):
            what = "WHEN NOT MATCHED [BY TARGET] takes only INSERT" if match == "not_matched" else (
                "INSERT is allowed only in WHEN NOT MATCHED [BY TARGET]"
            )
            raise PlanError(f"{where_is(when)}{what} (clause {index})")
        clauses.append(MergeClause(index, match, action, when.args.get("condition"), values, 0))  # type: ignore[arg-type]  # action is one of the three
    clauses = _statement_offsets(clauses)

    target_ref = target_table(target, t)
    source_rows = exp.Subquery(
        this=exp.select(exp.Star(), exp.alias_(exp.func("monotonically_increasing_id"), SOURCE_ID)).from_(source.copy()),
        alias=exp.TableAlias(this=exp.to_identifier(s)),
    )
    kind = _join_kind(tuple(clauses))
    choose = exp.Case(ifs=[exp.If(this=_applies(c, t, s), true=exp.Literal.number(c.index)) for c in clauses])
    columns: list[exp.Expr] = [exp.alias_(choose, CLAUSE)]
    columns += [exp.alias_(exp.column(c, table=t), c) for c in (PART_DIR, OWID, BUCKET, ROWID)]
    columns.append(exp.alias_(exp.column(SOURCE_ID, table=s), SOURCE_ID))
    for col in target.all_columns:
        ifs = []
        for c in clauses:
            value = dict(c.values).get(col.name)
            if value is not None:
                ifs.append(exp.If(this=exp.column(CLAUSE).eq(exp.Literal.number(c.index)), true=value.copy()))
        new = exp.Case(ifs=ifs, default=exp.column(col.name, table=t)) if ifs else exp.column(col.name, table=t)
        columns.append(exp.alias_(new, col.name, quoted=True))
    join_side = {"inner": None, "right": "RIGHT", "left": "LEFT", "full": "FULL"}[kind]
    join = exp.Join(this=source_rows, on=on.copy(), side=join_side, kind="OUTER" if join_side else None)
    query = exp.select(*columns).from_(target_ref)
    query.set("joins", [join])
    reads: BoundTables = bind(query)
    reads = dataclasses.replace(reads, target_pruning=_target_pruning(target, on, tuple(clauses), t))
    keys = {k.name for k in target.partition_keys}
    source_keys = _source_keys(on, target, clauses, t, s)
    split = (
        _split(columns, target, target_ref, source, on, t, s)
        if kind == "right" and target.qualified_name not in reads.row_id_tables
        else None
    )
    key_query = (
        exp.select(*[exp.alias_(e.copy(), f"__key{i}") for i, (_, e) in enumerate(source_keys)]).from_(source.copy())
        if source_keys
        else None
    )
    return MergePlan(
        target=target,
        source=query,
        reads=reads,
        clauses=tuple(clauses),
        join=kind,
        moves_partitions=frozenset(c.index for c in clauses if c.action == "update" and keys & {n for n, _ in c.values}),
        moves_buckets=frozenset(
            c.index for c in clauses if c.action == "update" and set(target.bucket_cols) & {n for n, _ in c.values}
        ),
        source_keys=tuple(c for c, _ in source_keys),
        source_key_query=key_query,
        split=split,
    )
