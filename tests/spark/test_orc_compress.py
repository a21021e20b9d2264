"""``orc.compress``: the table property Hive uses to pick the ORC codec of a table's files.

Hive 3 and Trino read every codec written here except ZSTD, which needs ORC 1.6 (Hive 4, Trino); ZLIB stays
the default. The codec is read back from each file's ORC postscript, not from our own bookkeeping.
"""

from __future__ import annotations

import pyarrow.orc as orc
import pytest

from hiveacid_sql.errors import HiveAcidError

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true'{extra})"


def codecs(table_dir) -> dict[str, str]:
    return {
        f"{p.parent.name}/{p.name}": orc.ORCFile(str(p)).compression
        for p in sorted(table_dir.glob("*/bucket_*"))
    }


def test_new_files_use_the_tables_codec_and_read_back(acid, warehouse):
    acid.sql("CREATE TABLE t (id int, name string) " + ACID.format(extra=", 'orc.compress'='SNAPPY'"))
    acid.sql("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    acid.sql("UPDATE t SET name = 'z' WHERE id = 2")
    assert set(codecs(warehouse / "t").values()) == {"SNAPPY"}
    assert len(codecs(warehouse / "t")) == 3  # insert delta, delete delta, the update's delta
    acid.sql("ALTER TABLE t SET TBLPROPERTIES ('orc.compress'='lz4')")
    acid.sql("DELETE FROM t WHERE id = 1")
    assert codecs(warehouse / "t")["delete_delta_0000003_0000003_0000/bucket_00000"] == "LZ4"
    assert [tuple(r) for r in acid.sql("SELECT id, name FROM t").collect()] == [(2, "z")]


def test_default_is_zlib(acid, warehouse):
    acid.sql("CREATE TABLE d (id int) " + ACID.format(extra=""))
    acid.sql("INSERT INTO d VALUES (1)")
    assert set(codecs(warehouse / "d").values()) == {"ZLIB"}


@pytest.mark.parametrize("ddl", [
    "CREATE TABLE bad (id int) " + ACID.format(extra=", 'orc.compress'='LZO'"),
    "ALTER TABLE d SET TBLPROPERTIES ('ORC.COMPRESS'='brotli')",
])
def test_a_codec_we_cannot_write_is_refused_and_changes_nothing(acid, warehouse, ddl):
    acid.sql("CREATE TABLE d (id int) " + ACID.format(extra=""))
    with pytest.raises(HiveAcidError, match=r"^Unsupported orc.compress '(LZO|brotli)' for default\.(bad|d): one of"):
        acid.sql(ddl)
    assert [tuple(r) for r in acid.sql("SHOW TABLES").collect()] == [("d",)]
    assert "orc.compress" not in {r[0].lower() for r in acid.sql("SHOW TBLPROPERTIES d").collect()}
