"""Unit tests of ``hiveacid_sql.sql``: script splitting, positions, errors, node shapes, round-trips."""

from __future__ import annotations

import logging

import pytest
import sqlglot
from sqlglot import exp

from hiveacid_sql.errors import PlanError, SqlError, UnsupportedStatementError
from hiveacid_sql.sql import (
    AbortTransactions,
    Compact,
    Explain,
    ShowCompactions,
    ShowLocks,
    ShowTblProperties,
    ShowTransactions,
    Statement,
    UnsetProperties,
    parse,
    parse_one,
    position,
)
from hiveacid_sql.sql.tree import catalog_tables, table_names


def validate_identity(sql: str, write_sql: str | None = None) -> exp.Expression:
    """Parse with the hiveacid dialect and check that regenerating gives ``write_sql`` (or ``sql``)."""
    tree = parse_one(sql).tree
    assert tree.sql(dialect="hiveacid") == (write_sql or sql)
    return tree


# -- splitting and statement positions -------------------------------------------------------------


def test_parse_splits_and_records_text_and_position() -> None:
    script = "SELECT 'a;b' AS x;\n  -- c; d\n  UPDATE t SET a = 1 ;\n\n/* ; */ DELETE FROM `we;ird`"
    statements = parse(script)
    assert [type(s.tree) for s in statements] == [exp.Select, exp.Update, exp.Delete]
    assert [s.text for s in statements] == ["SELECT 'a;b' AS x", "UPDATE t SET a = 1", "DELETE FROM `we;ird`"]
    assert [(s.line, s.col) for s in statements] == [(1, 1), (3, 3), (5, 9)]


def test_parse_skips_empty_statements() -> None:
    assert parse("") == []
    assert parse(" ;; -- only a comment\n ; ") == []
    assert len(parse(";SELECT 1;;SELECT 2;")) == 2


def test_statement_is_frozen() -> None:
    st = parse_one("SELECT 1")
    assert isinstance(st, Statement)
    with pytest.raises(AttributeError):
        st.text = "x"  # type: ignore[misc]


def test_parse_one_requires_exactly_one() -> None:
    assert isinstance(parse_one("SELECT 1;").tree, exp.Select)
    with pytest.raises(SqlError, match="got none"):
        parse_one(" ; ")
    with pytest.raises(SqlError) as info:
        parse_one("SELECT 1;\nSELECT 2")
    assert (info.value.line, info.value.col) == (2, 1)


# -- errors ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "line", "col", "description"),
    [
        ("SELECT FROM WHERE", 1, 13, "Expected table name but got 'WHERE'"),
        ("SELECT (1", 1, 9, "Expecting ) near '1'"),
        ("UPDTE t SET c = 1", 1, 1, "Unknown statement 'UPDTE'"),
        (
            "SELECT 1;\nSELECT 2;\n  UPDATE t SET WHERE a = 1",
            3,
            16,
            "Expected column = value after SET near 'WHERE'",
        ),
        ("SELECT 1;\nSELECT 'abc", 2, 8, "Unterminated quoted text: missing closing '"),
        (
            "ALTER TABLE t COMPACT 'sideways'",
            1,
            23,
            "Compaction type must be 'minor' or 'major' near 'sideways'",
        ),
        (
            "ABORT TRANSACTIONS",
            1,
            7,
            "ABORT TRANSACTIONS needs at least one transaction id near 'TRANSACTIONS'",
        ),
        ("SHOW COMPACTIONZ", 1, 6, "Unknown SHOW statement near 'COMPACTIONZ'"),
    ],
)
def test_errors_carry_whole_script_position(sql: str, line: int, col: int, description: str) -> None:
    with pytest.raises(SqlError) as info:
        parse(sql)
    err = info.value
    assert not isinstance(err, UnsupportedStatementError)
    assert (err.line, err.col, err.description) == (line, col, description)
    assert str(err) == f"line {line}, col {col}: {description}"


def test_error_messages_are_one_line_without_ansi() -> None:
    with pytest.raises(SqlError) as info:
        parse("SELECT *\nFROM t\nWHERE a = = 1")
    message = str(info.value)
    assert "\n" not in message and "\x1b" not in message and "<class" not in message


def test_command_fallback_is_unsupported() -> None:
    with pytest.raises(UnsupportedStatementError) as info:
        parse("SELECT 1;\n  ADD JAR /tmp/x.jar")
    assert (info.value.line, info.value.col) == (2, 3)
    assert info.value.description == "unsupported statement: ADD JAR /tmp/x.jar"


def test_no_sqlglot_warning_reaches_the_log(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.DEBUG, logger="sqlglot"):
        with pytest.raises(UnsupportedStatementError):
            parse("ALTER TABLE t FROBNICATE 1")
        parse("SHOW COMPACTIONS; SET a.b; ALTER TABLE t COMPACT 'major'")
    assert not [r for r in caplog.records if r.name.startswith("sqlglot")]


# -- node shapes -------------------------------------------------------------------------------------


def test_compact_shape() -> None:
    tree = parse_one(
        "ALTER TABLE db.T PARTITION (p='x') COMPACT 'MAJOR' AND WAIT WITH OVERWRITE TBLPROPERTIES ('k'='v')"
    ).tree
    assert isinstance(tree, Compact)
    assert tree.args["kind"] == "major"
    assert tree.args["wait"] is True
    assert isinstance(tree.args["partition"], exp.Partition)
    assert tree.this.args.get("partition") is None
    assert [p.this.name for p in tree.args["properties"].expressions] == ["k"]
    assert table_names(tree.this, "cur") == ("db", "t")


def test_compact_defaults() -> None:
    tree = parse_one("ALTER TABLE t COMPACT 'minor'").tree
    assert isinstance(tree, Compact)
    assert (
        tree.args["kind"],
        tree.args["wait"],
        tree.args.get("partition"),
        tree.args.get("properties"),
    ) == (
        "minor",
        False,
        None,
        None,
    )


def test_abort_transactions_ids() -> None:
    tree = parse_one("ABORT TRANSACTIONS 1 22 333").tree
    assert isinstance(tree, AbortTransactions)
    assert [e.to_py() for e in tree.expressions] == [1, 22, 333]


def test_show_locks_shape() -> None:
    tree = parse_one("SHOW LOCKS db.t PARTITION (p=1) EXTENDED").tree
    assert isinstance(tree, ShowLocks)
    assert table_names(tree.this, "cur") == ("db", "t")
    assert tree.args["extended"] is True
    assert isinstance(tree.args["partition"], exp.Partition)
    bare = parse_one("SHOW LOCKS").tree
    assert isinstance(bare, ShowLocks) and bare.this is None


def test_show_metadata_uses_sqlglot_show() -> None:
    tables = parse_one("SHOW TABLES IN Sales LIKE 'e*'").tree
    assert isinstance(tables, exp.Show)
    assert (tables.name, tables.args["db"].name, tables.args["like"].name) == ("TABLES", "Sales", "e*")
    create = parse_one("SHOW CREATE TABLE db.t").tree
    assert create.name == "CREATE TABLE" and table_names(create.args["target"], "cur") == ("db", "t")
    props = parse_one("SHOW TBLPROPERTIES t ('transactional')").tree
    assert isinstance(props, ShowTblProperties) and props.expression.name == "transactional"


def test_set_keeps_raw_key_and_value() -> None:
    item = parse_one("SET mapred.job.queue.name=root.default").tree.expressions[0]
    assert (item.this.this.name, item.this.expression.name) == ("mapred.job.queue.name", "root.default")
    key_only = parse_one("SET hive.txn.timeout").tree.expressions[0]
    assert key_only.this.name == "hive.txn.timeout"
    assert parse_one("SET").tree.expressions == []


def test_transactions_reuse_sqlglot_nodes() -> None:
    kinds = [type(s.tree) for s in parse("BEGIN; START TRANSACTION; COMMIT WORK; ROLLBACK")]
    assert kinds == [exp.Transaction, exp.Transaction, exp.Commit, exp.Rollback]


def test_explain_wraps_statement() -> None:
    tree = parse_one("EXPLAIN EXTENDED UPDATE t SET a = 1").tree
    assert isinstance(tree, Explain)
    assert tree.args["kind"] == "EXTENDED"
    assert isinstance(tree.this, exp.Update)


def test_unset_tblproperties_action() -> None:
    tree = parse_one("ALTER TABLE t UNSET TBLPROPERTIES IF EXISTS ('a', 'b')").tree
    assert isinstance(tree, exp.Alter)
    action = tree.args["actions"][0]
    assert isinstance(action, UnsetProperties)
    assert action.args["exists"] is True
    assert [e.name for e in action.expressions] == ["a", "b"]


def test_show_nodes_have_no_args() -> None:
    assert isinstance(parse_one("show compactions").tree, ShowCompactions)
    assert isinstance(parse_one("SHOW TRANSACTIONS").tree, ShowTransactions)


# -- round trips -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "write_sql"),
    [
        ("ALTER TABLE t COMPACT 'minor'", None),
        ("ALTER TABLE db.t COMPACT 'major' AND WAIT", None),
        (
            "ALTER TABLE t PARTITION (p='x') COMPACT 'MAJOR'",
            "ALTER TABLE t PARTITION(p = 'x') COMPACT 'major'",
        ),
        (
            "ALTER TABLE t COMPACT 'major' WITH OVERWRITE TBLPROPERTIES ('a'='1', 'b'='2')",
            None,
        ),
        ("SHOW COMPACTIONS", None),
        ("SHOW TRANSACTIONS", None),
        ("SHOW READ LEASES", None),
        ("show read leases db.t", "SHOW READ LEASES db.t"),
        ("SHOW LOCKS", None),
        ("SHOW LOCKS db.t PARTITION (p = 1) EXTENDED", "SHOW LOCKS db.t PARTITION(p = 1) EXTENDED"),
        ("SHOW TBLPROPERTIES t", None),
        ("SHOW TBLPROPERTIES t ('transactional')", None),
        ("SHOW DATABASES", None),
        ("SHOW SCHEMAS LIKE 'a*'", None),
        ("SHOW TABLES IN db LIKE 'e*'", None),
        ("SHOW TABLES 'e*'", "SHOW TABLES LIKE 'e*'"),
        ("SHOW CREATE TABLE db.t", None),
        ("SHOW PARTITIONS t", None),
        ("SHOW COLUMNS FROM t IN db", "SHOW COLUMNS IN t IN db"),
        ("ABORT TRANSACTIONS 1 2 3", None),
        ("ALTER TABLE t UNSET TBLPROPERTIES ('a', 'b')", None),
        ("ALTER TABLE t UNSET TBLPROPERTIES IF EXISTS ('a')", None),
        ("EXPLAIN SELECT 1", None),
        ("EXPLAIN EXTENDED DELETE FROM t WHERE a = 1", None),
        ("DESCRIBE DATABASE d", None),
        ("DESCRIBE FORMATTED db.t", None),
        ("SET a.b=1", "SET a.b = 1"),
        ("SET a.b", None),
        ("SELECT * FROM t FOR SYSTEM_VERSION AS OF 3", "SELECT * FROM t VERSION AS OF 3"),
        ("UPDATE t SET a = 1 WHERE b = 2", None),
        ("START TRANSACTION", "BEGIN"),
    ],
)
def test_round_trip(sql: str, write_sql: str | None) -> None:
    validate_identity(sql, write_sql)


def test_dialect_is_registered() -> None:
    tree = sqlglot.parse_one("ALTER TABLE t COMPACT 'major'", read="hiveacid")
    assert isinstance(tree, Compact)
    assert tree.sql(dialect="hiveacid") == "ALTER TABLE t COMPACT 'major'"


def test_stock_hive_is_untouched() -> None:
    """Our tables are copies: sqlglot's own Hive dialect still falls back to Command."""
    assert isinstance(sqlglot.parse_one("SHOW COMPACTIONS", read="hive"), exp.Command)


# -- helpers -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "expected"),
    [
        ("UPDATE DB.Emp SET a = 1", [("db", "emp")]),
        ("DELETE FROM emp WHERE a IN (SELECT a FROM x.s)", [("cur", "emp"), ("x", "s")]),
        ("MERGE INTO emp AS e USING s ON e.a = s.a WHEN MATCHED THEN DELETE", [("cur", "emp"), ("cur", "s")]),
        ("WITH c AS (SELECT * FROM t) SELECT * FROM c JOIN `My Table`", [("cur", "t"), ("cur", "my table")]),
    ],
)
def test_catalog_table_names(sql: str, expected: list[tuple[str, str]]) -> None:
    """The catalog tables a statement names (not its CTEs), each with the current database filled in."""
    assert sorted(table_names(t, "cur") for t in catalog_tables(parse_one(sql).tree)) == sorted(expected)


def test_table_names_of_something_else_is_a_one_line_error() -> None:
    with pytest.raises(PlanError, match="Expected a table name, found"):
        table_names(parse_one("SELECT 1").tree, "cur")


def test_position_of_identifiers_in_script() -> None:
    statements = parse("SELECT 1;\nUPDATE t\nSET nope = 1 WHERE `we ird` = 2")
    tree = statements[1].tree
    assert position(tree) == (2, 8)
    assignment = tree.expressions[0]
    assert position(assignment.this) == (3, 5)
    assert position(tree.args["where"].this.this) == (3, 20)
    assert position(exp.column("synthetic")) is None


@pytest.mark.parametrize(
    ("text", "kind", "target"),
    [
        ("CREATE TABLE db.t (id int) STORED AS ORC", "CREATE TABLE", "db.t"),
        ("create external table if not exists `t`(id int)", "CREATE EXTERNAL TABLE", "t"),
        ("CREATE OR REPLACE VIEW v AS SELECT 1", "CREATE OR REPLACE VIEW", "v"),
        ("DROP TABLE IF EXISTS t", "DROP TABLE", "t"),
        ("ALTER TABLE t ADD COLUMNS (x int)", "ALTER TABLE", "t"),
        ("SET hive.txn.timeout=10", "SET", None),
        ("USE sales", "USE", "sales"),
        ("START TRANSACTION", "START TRANSACTION", None),
        ("COMMIT", "COMMIT", None),
    ],
)
def test_statement_kind_names_the_kind_and_object(text: str, kind: str, target: str | None) -> None:
    from hiveacid_sql.sql.tree import statement_kind

    assert statement_kind(parse(text)[0]) == (kind, target)
