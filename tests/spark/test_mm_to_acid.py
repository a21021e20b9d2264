"""Hive 4's ``ALTER TABLE t SET TBLPROPERTIES ('transactional_properties'='default')``: an insert-only ORC table
becomes full ACID without rewriting a file. Its plain files in ``delta_W_W_S`` / ``base_W`` are then read as
Hive reads "raw" ACID directories (``OrcRawRecordMerger.TransactionMetaData.findWriteIDForSynthetcRowIDs``,
``VectorizedOrcAcidRowBatchReader.computeOffsetAndBucket``): originalTransaction = the delta's minimum write id
(a base's write id), the bucket property of the file name's bucket id and the delta's statement id, row ids
counted per bucket id through the directory's files. A non-ORC table is refused in one line
(``TransactionalValidationListener``: "The table must be stored using an ACID compliant format")."""

from __future__ import annotations

from pathlib import Path

import pytest

from hiveacid_sql.errors import HiveAcidError
from hiveacid_sql.reader import read_table


def _rows(acid, sql: str) -> list[tuple]:
    return [tuple(r) for r in acid.sql(sql).collect()]


def test_insert_only_orc_converted_to_full_acid(acid, warehouse: Path) -> None:
    acid.sql(
        "CREATE TABLE mm (id INT, s STRING) STORED AS ORC "
        "TBLPROPERTIES ('transactional'='true', 'transactional_properties'='insert_only')"
    )
    acid.sql("INSERT INTO mm VALUES (1, 'a'), (2, 'b')")
    acid.sql("INSERT INTO mm VALUES (3, 'c')")
    acid.sql("ALTER TABLE mm SET TBLPROPERTIES ('transactional_properties'='default')")
    assert _rows(acid, "SHOW TBLPROPERTIES mm ('transactional_properties')") == [
        ("transactional_properties", "default")
    ]
    ids = _rows(acid, "SELECT row__id.writeid, row__id.bucketid, row__id.rowid, id FROM mm ORDER BY id")
    # the files were not touched: delta_0000001_0000001_0000/000000_0 and delta_0000002_0000002_0000/000000_0
    assert ids == [(1, 536870912, 0, 1), (1, 536870912, 1, 2), (2, 536870912, 0, 3)]
    acid.sql("UPDATE mm SET s = 'B' WHERE id = 2")
    acid.sql("DELETE FROM mm WHERE id = 3")
    acid.sql("INSERT INTO mm VALUES (4, 'd')")
    expected = [(1, "a"), (2, "B"), (4, "d")]
    assert _rows(acid, "SELECT * FROM mm ORDER BY id") == expected
    assert sorted(read_table("default.mm", warehouse=warehouse).to_pylist(), key=lambda r: r["id"]) == [
        {"id": i, "s": s} for i, s in expected
    ]
    minor = _rows(acid, "ALTER TABLE mm COMPACT 'minor' AND WAIT")  # fails, saying why; the table is intact
    assert "failed" in str(minor) and "Minor compaction cannot merge plain" in str(minor)
    acid.sql("ALTER TABLE mm COMPACT 'major' AND WAIT")
    assert _rows(acid, "SELECT * FROM mm ORDER BY id") == expected
    kept = _rows(acid, "SELECT row__id.writeid, row__id.rowid, id FROM mm WHERE id = 1")
    assert kept == [(1, 0, 1)]  # the synthetic row id became the row's real one in the base


def test_conversion_refused_for_non_orc(acid) -> None:
    acid.sql(
        "CREATE TABLE mp (id INT) STORED AS PARQUET "
        "TBLPROPERTIES ('transactional'='true', 'transactional_properties'='insert_only')"
    )
    with pytest.raises(HiveAcidError) as err:
        acid.sql("ALTER TABLE mp SET TBLPROPERTIES ('transactional_properties'='default')")
    assert str(err.value).endswith(
        "The table must be stored using an ACID compliant format (such as ORC): default.mp"
    )
    assert _rows(acid, "SHOW TBLPROPERTIES mp ('transactional_properties')") == [
        ("transactional_properties", "insert_only")
    ]
