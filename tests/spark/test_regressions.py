"""Minimal reproductions of real bugs found by the proof tests (model-based, fuzzing, bad input), one test each.

Each test names the bug it pins down; the fix is in the engine, the test keeps it fixed.
"""

from __future__ import annotations

import os

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"


def test_partition_key_that_needs_escaping_reads_back(acid, warehouse):
    """A partition column whose name Hive escapes in paths (``p/q`` -> ``p%2Fq=``) read back as '' for every
    row: the scan looked for the unescaped key in file paths. Found by the bad-input catalogue."""
    acid.sql(f"CREATE TABLE pt (id int) PARTITIONED BY (`p/q` string, `a b` int) {ACID}")
    acid.sql("INSERT INTO pt VALUES (1, 'x', 5), (2, NULL, NULL)")
    assert sorted(os.listdir(warehouse / "pt")) == ["p%2Fq=__HIVE_DEFAULT_PARTITION__", "p%2Fq=x"]
    rows = sorted((tuple(r) for r in acid.sql("SELECT * FROM pt").collect()), key=lambda r: r[0])
    assert rows == [(1, "x", 5), (2, None, None)]
    acid.sql("DELETE FROM pt WHERE `p/q` = 'x'")
    assert [tuple(r) for r in acid.sql("SELECT * FROM pt").collect()] == [(2, None, None)]


def test_dot_table_name_cannot_own_the_warehouse(acid, warehouse):
    """``CREATE TABLE `.``` made a managed table whose location was the warehouse itself (and `..` its
    parent); DROP TABLE would then have removed it. Names are now Hive's letters, digits and _."""
    import pytest

    from hiveacid_sql.errors import CatalogError

    for name in (".", ".."):
        with pytest.raises(CatalogError, match="is not a valid table name"):
            acid.sql(f"CREATE TABLE `{name}` (id int) {ACID}")
    assert acid.catalog.list_tables("default") == []
    assert warehouse.is_dir()


def test_set_with_an_empty_value(acid):
    """``SET k =`` raised sqlglot's ValueError instead of setting k to '' (Hive allows it). Found by fuzzing."""
    acid.sql("SET hive.some.key =")
    assert [tuple(r) for r in acid.sql("SET hive.some.key").collect()] == [("hive.some.key=",)]
    acid.sql("SET hive.some.key = x")
    assert [tuple(r) for r in acid.sql("SET hive.some.key").collect()] == [("hive.some.key=x",)]


def test_statements_with_a_non_table_where_a_table_belongs(acid):
    """``DESCRIBE UPDATE t``, ``TRUNCATE VALUES t`` and ``STORED AS ,`` raised AttributeError. Found by fuzzing."""
    import pytest

    from hiveacid_sql.errors import PlanError

    acid.sql(f"CREATE TABLE employee (id int) {ACID}")
    for sql, fragment in [
        ("DESCRIBE UPDATE employee", "Expected a table name, found UPDATE"),
        ("TRUNCATE VALUES db . t", "Expected a table name, found VALUES"),
        ("CREATE TABLE e2 (id int) STORED AS , TBLPROPERTIES ('transactional'='true')", "STORED AS needs a format"),
    ]:
        with pytest.raises(PlanError, match=fragment):
            acid.sql(sql)
    assert acid.catalog.list_tables("default") == ["employee"]
