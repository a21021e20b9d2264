"""Partitioned ACID tables end to end: layout on disk, static/dynamic inserts, partition-local UPDATE and
DELETE, rows moved by updating a partition column, pruning, and the partition statements."""

from __future__ import annotations

import shutil

import pytest
import sqlalchemy as sa

from hiveacid_sql.errors import HiveAcidError
from tests.support.acid_files import events, listing

ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"


def _rows(acid, query: str) -> list[tuple]:
    return [tuple(r) for r in acid.sql(query).collect()]


def _explain(acid, statement: str) -> str:
    return "\n".join(r[0] for r in acid.sql(f"EXPLAIN {statement}").collect())


def _components(acid, table: str) -> list[tuple]:
    """(write id, partition, update/delete flag) rows of COMPLETED_TXN_COMPONENTS for a table."""
    with acid.store.engine.connect() as conn:
        rows = conn.execute(
            sa.text(
                'SELECT "CTC_WRITEID", "CTC_PARTITION", "CTC_UPDATE_DELETE" FROM "COMPLETED_TXN_COMPONENTS" '
                'WHERE "CTC_TABLE" = :t ORDER BY 1, 2'
            ),
            {"t": table},
        ).all()
    return [tuple(r) for r in rows]


def _layout(table_dir) -> list[str]:
    """The ACID directories of a table; each must hold ``_orc_acid_version`` and exactly one bucket file."""
    dirs: dict[str, list[str]] = {}
    for path in listing(table_dir):
        directory, name = path.rsplit("/", 1)
        dirs.setdefault(directory, []).append(name)
    for directory, names in dirs.items():
        assert sorted(names)[0] == "_orc_acid_version", directory
        assert len([n for n in names if n.startswith("bucket_")]) == 1, (directory, names)
    return sorted(dirs)


@pytest.fixture()
def sales(acid, warehouse):
    acid.sql(f"CREATE TABLE sales (id int, amount int) PARTITIONED BY (region string, year int) {ACID}")
    return warehouse / "sales"


def test_static_and_dynamic_inserts_lay_out_hive_partitions(acid, sales):
    acid.sql("INSERT INTO sales PARTITION (region='eu', year=2020) VALUES (1, 10), (2, 20)")
    acid.sql("INSERT INTO sales PARTITION (region='us', year) VALUES (3, 30, 2021)")
    acid.sql("INSERT INTO sales VALUES (4, 40, 'eu', 2021), (5, 50, NULL, 2021), (6, 60, 'a/b=c:d', 2022)")
    acid.sql("CREATE TABLE src (id int, amount int, region string, year int)")
    acid.sql("INSERT INTO src VALUES (7, 70, 'us', 2021), (8, 80, '', 2023)")
    acid.sql("INSERT INTO sales PARTITION (region, year) SELECT id, amount, region, year FROM src")
    acid.sql("INSERT INTO TABLE sales PARTITION (region='eu', year=2020) SELECT id + 100, amount FROM src WHERE id = 7")
    # INSERT ... SELECT names un-bucketed files after the writer task (bucket_<task id>), as Hive does.
    assert _layout(sales) == [
        "region=__HIVE_DEFAULT_PARTITION__/year=2021/delta_0000003_0000003_0000",
        "region=__HIVE_DEFAULT_PARTITION__/year=2023/delta_0000004_0000004_0000",
        "region=a%2Fb%3Dc%3Ad/year=2022/delta_0000003_0000003_0000",
        "region=eu/year=2020/delta_0000001_0000001_0000",
        "region=eu/year=2020/delta_0000005_0000005_0000",
        "region=eu/year=2021/delta_0000003_0000003_0000",
        "region=us/year=2021/delta_0000002_0000002_0000",
        "region=us/year=2021/delta_0000004_0000004_0000",
    ]
    # Partition values are not stored in the files (the row struct holds the data columns only).
    first = events(sales / "region=eu/year=2020/delta_0000001_0000001_0000/bucket_00000")
    assert [e["row"] for e in first] == [{"id": 1, "amount": 10}, {"id": 2, "amount": 20}]
    assert _rows(acid, "SELECT id, amount, region, year FROM sales ORDER BY id") == [
        (1, 10, "eu", 2020),
        (2, 20, "eu", 2020),
        (3, 30, "us", 2021),
        (4, 40, "eu", 2021),
        (5, 50, None, 2021),
        (6, 60, "a/b=c:d", 2022),
        (7, 70, "us", 2021),
        (8, 80, None, 2023),
        (107, 70, "eu", 2020),
    ]
    assert _rows(acid, "SHOW PARTITIONS sales") == [
        ("region=__HIVE_DEFAULT_PARTITION__/year=2021",),
        ("region=__HIVE_DEFAULT_PARTITION__/year=2023",),
        ("region=a%2Fb%3Dc%3Ad/year=2022",),
        ("region=eu/year=2020",),
        ("region=eu/year=2021",),
        ("region=us/year=2021",),
    ]
    assert _rows(acid, "SHOW PARTITIONS sales PARTITION (region='eu')") == [
        ("region=eu/year=2020",),
        ("region=eu/year=2021",),
    ]
    # One component per written partition, as Hive's add_dynamic_partitions records them.
    assert _components(acid, "sales")[:4] == [
        (1, "region=eu/year=2020", "N"),
        (2, "region=us/year=2021", "N"),
        (3, "region=__HIVE_DEFAULT_PARTITION__/year=2021", "N"),
        (3, "region=a%2Fb%3Dc%3Ad/year=2022", "N"),
    ]


def test_update_and_delete_touch_only_matching_partitions(acid, sales):
    acid.sql("INSERT INTO sales VALUES (1, 10, 'eu', 2020), (2, 20, 'eu', 2021), (3, 30, 'us', 2020)")
    before = set(listing(sales))
    result = acid.sql("UPDATE sales SET amount = amount * 2 WHERE year = 2020")
    assert result.num_updated_rows == 2
    added = sorted(set(listing(sales)) - before)
    assert added == [
        "region=eu/year=2020/delete_delta_0000002_0000002_0000/_orc_acid_version",
        "region=eu/year=2020/delete_delta_0000002_0000002_0000/bucket_00000",
        "region=eu/year=2020/delta_0000002_0000002_0000/_orc_acid_version",
        "region=eu/year=2020/delta_0000002_0000002_0000/bucket_00000",
        "region=us/year=2020/delete_delta_0000002_0000002_0000/_orc_acid_version",
        "region=us/year=2020/delete_delta_0000002_0000002_0000/bucket_00000",
        "region=us/year=2020/delta_0000002_0000002_0000/_orc_acid_version",
        "region=us/year=2020/delta_0000002_0000002_0000/bucket_00000",
    ]
    deleted = events(sales / "region=us/year=2020/delete_delta_0000002_0000002_0000/bucket_00000")
    assert [(e["operation"], e["originalTransaction"], e["bucket"], e["rowId"]) for e in deleted] == [
        (2, 1, 536870912, 0)
    ]
    before = set(listing(sales))
    acid.sql("DELETE FROM sales WHERE region = 'eu' AND amount > 15")
    assert sorted(set(listing(sales)) - before) == [
        "region=eu/year=2020/delete_delta_0000003_0000003_0000/_orc_acid_version",
        "region=eu/year=2020/delete_delta_0000003_0000003_0000/bucket_00000",
        "region=eu/year=2021/delete_delta_0000003_0000003_0000/_orc_acid_version",
        "region=eu/year=2021/delete_delta_0000003_0000003_0000/bucket_00000",
    ]
    assert _rows(acid, "SELECT id, amount, region, year FROM sales ORDER BY id") == [(3, 60, "us", 2020)]
    assert [c for c in _components(acid, "sales") if c[0] >= 2] == [
        (2, "region=eu/year=2020", "Y"),
        (2, "region=us/year=2020", "Y"),
        (3, "region=eu/year=2020", "Y"),
        (3, "region=eu/year=2021", "Y"),
    ]


def test_updating_a_partition_column_moves_the_row(acid, sales):
    """Beyond Hive (error 10292): the old version is deleted in its partition, the new one inserted in the
    new partition, in one transaction."""
    acid.sql("INSERT INTO sales VALUES (1, 10, 'eu', 2020), (2, 20, 'eu', 2020)")
    result = acid.sql("UPDATE sales SET region = 'apac', amount = 11 WHERE id = 1")
    assert result.num_updated_rows == 1
    assert result.write_id == 2
    assert sorted(result.directories) == [
        "region=apac/year=2020/delta_0000002_0000002_0000",
        "region=eu/year=2020/delete_delta_0000002_0000002_0000",
    ]
    assert _rows(acid, "SELECT id, amount, region FROM sales ORDER BY id") == [(1, 11, "apac"), (2, 20, "eu")]
    moved = events(sales / "region=apac/year=2020/delta_0000002_0000002_0000/bucket_00000")
    assert [(e["originalTransaction"], e["bucket"], e["rowId"], e["row"]) for e in moved] == [
        (2, 536870912, 0, {"id": 1, "amount": 11})
    ]
    assert "region=apac/year=2020" in [r[0] for r in _rows(acid, "SHOW PARTITIONS sales")]


def test_partition_pruning_is_visible_and_reads_fewer_files(acid, sales):
    acid.sql("INSERT INTO sales VALUES (1, 10, 'eu', 2020), (2, 20, 'eu', 2021), (3, 30, 'us', 2020)")
    acid.sql("DELETE FROM sales WHERE id = 2")
    everything = _explain(acid, "SELECT * FROM sales")
    assert "  partitions read: 3 of 3" in everything
    assert "  files read: 3 data, 1 delete" in everything
    pruned = _explain(acid, "SELECT s.id FROM sales s WHERE s.region = 'eu' AND s.year = 2021 AND s.amount > 0")
    assert "  partitions read: 1 of 3 (pruned by region = 'eu' AND year = 2021)" in pruned
    assert "  files read: 1 data, 1 delete" in pruned
    # A predicate on a data column prunes nothing; an OR across data and partition columns neither.
    assert "  partitions read: 3 of 3" in _explain(acid, "SELECT * FROM sales WHERE amount = 1 OR region = 'eu'")
    # Functions and casts of partition columns are evaluated by Spark on the partition values.
    assert "  partitions read: 2 of 3" in _explain(acid, "SELECT * FROM sales WHERE upper(region) = 'EU'")
    assert "  partitions read: 1 of 3" in _explain(acid, "DELETE FROM sales WHERE year > 2020")
    assert _rows(acid, "SELECT id FROM sales WHERE region = 'eu' ORDER BY id") == [(1,)]
    # The same table twice: only partitions no reference needs are skipped.
    joined = _explain(acid, "SELECT a.id FROM sales a JOIN sales b ON a.id = b.id WHERE a.year = 2020 AND b.region = 'us'")
    assert "  partitions read: 2 of 3 (pruned by year = 2020 OR region = 'us')" in joined


def test_add_drop_and_show_partitions(acid, sales):
    acid.sql("ALTER TABLE sales ADD PARTITION (region='eu', year=2020) PARTITION (region='us', year=2021)")
    assert (sales / "region=eu" / "year=2020").is_dir()
    acid.sql("ALTER TABLE sales ADD IF NOT EXISTS PARTITION (region='eu', year=2020)")
    with pytest.raises(HiveAcidError, match="already exists"):
        acid.sql("ALTER TABLE sales ADD PARTITION (region='eu', year=2020)")
    acid.sql("INSERT INTO sales PARTITION (region='eu', year=2021) VALUES (1, 1)")
    assert _rows(acid, "SHOW PARTITIONS sales") == [
        ("region=eu/year=2020",),
        ("region=eu/year=2021",),
        ("region=us/year=2021",),
    ]
    assert _rows(acid, "SELECT count(*) FROM sales") == [(1,)]
    acid.sql("ALTER TABLE sales DROP PARTITION (year > 2020)")
    assert _rows(acid, "SHOW PARTITIONS sales") == [("region=eu/year=2020",)]
    assert not (sales / "region=eu" / "year=2021").exists()
    assert _rows(acid, "SELECT count(*) FROM sales") == [(0,)]
    acid.sql("ALTER TABLE sales DROP IF EXISTS PARTITION (region='nowhere')")
    with pytest.raises(HiveAcidError, match="No partition matches"):
        acid.sql("ALTER TABLE sales DROP PARTITION (region='nowhere')")
    with pytest.raises(HiveAcidError, match="not a partition column"):
        acid.sql("ALTER TABLE sales ADD PARTITION (amount=1, year=1)")


@pytest.mark.parametrize(
    ("statement", "message"),
    [
        ("INSERT INTO sales PARTITION (region='eu') VALUES (1, 1)", "'year' is missing"),
        ("INSERT INTO sales PARTITION (region, year='2020') SELECT 1, 1, 'x'", "cannot be the parent of a static"),
        ("INSERT INTO sales PARTITION (nope='x', year=1) VALUES (1, 1)", "not a partition column"),
        ("INSERT INTO sales VALUES (1, 1)", "has 4 columns, but query has 2 columns"),
        ("INSERT INTO sales PARTITION (region='eu', year=1) VALUES (1, 1, 1)", "has 2 columns, but query has 3"),
        ("SHOW PARTITIONS plain", "is not a partitioned table"),
        ("INSERT INTO plain PARTITION (x=1) VALUES (1)", "is not partitioned"),
    ],
)
def test_partition_errors_are_one_line_and_change_nothing(acid, sales, statement, message):
    acid.sql("CREATE TABLE plain (x int)")
    acid.sql("INSERT INTO sales PARTITION (region='eu', year=2020) VALUES (1, 1)")
    before = listing(sales)
    with pytest.raises(HiveAcidError) as info:
        acid.sql(statement)
    assert message in str(info.value)
    assert "\n" not in str(info.value)
    assert listing(sales) == before


def test_partitioned_table_rules(acid):
    with pytest.raises(HiveAcidError, match="Column repeated in partitioning columns"):
        acid.sql(f"CREATE TABLE bad (id int, p string) PARTITIONED BY (p string) {ACID}")
    acid.sql("CREATE TABLE plainpart (id int) PARTITIONED BY (p string) STORED AS ORC")  # plain: Hive's layout too
    assert [k.name for k in acid.store.catalog.get_table("default", "plainpart").partition_keys] == ["p"]
    acid.sql(f"CREATE TABLE ok (id int) PARTITIONED BY (p date) {ACID}")
    text = _rows(acid, "SHOW CREATE TABLE ok")[0][0]
    assert "PARTITIONED BY (\n  `p` date)" in text
    assert ("# Partition Information", "", "") in _rows(acid, "DESCRIBE FORMATTED ok")


def test_typed_partition_values_follow_hive_rendering(acid, warehouse):
    acid.sql(f"CREATE TABLE typed (id int) PARTITIONED BY (d date, amount decimal(6,2), ok boolean) {ACID}")
    acid.sql("INSERT INTO typed VALUES (1, '2024-02-29', 1.50, true), (2, DATE '2024-03-01', 10, false)")
    assert _rows(acid, "SHOW PARTITIONS typed") == [
        ("d=2024-02-29/amount=1.5/ok=true",),
        ("d=2024-03-01/amount=10/ok=false",),
    ]
    got = _rows(acid, "SELECT id, CAST(d AS string), CAST(amount AS string), ok FROM typed ORDER BY id")
    assert got == [(1, "2024-02-29", "1.50", True), (2, "2024-03-01", "10.00", False)]
    assert _rows(acid, "SELECT id FROM typed WHERE amount = 1.5") == [(1,)]


def test_adopting_a_partitioned_directory_registers_partitions(acid, warehouse, tmp_path):
    acid.sql(f"CREATE TABLE src (id int, amount int) PARTITIONED BY (region string) {ACID}")
    acid.sql("INSERT INTO src VALUES (1, 10, 'eu'), (2, 20, 'us')")
    acid.sql("UPDATE src SET amount = 21 WHERE id = 2")
    copy = tmp_path / "copied"
    shutil.copytree(warehouse / "src", copy)
    acid.sql(f"CREATE TABLE adopted (id int, amount int) PARTITIONED BY (region string) {ACID} ".replace(
        "STORED AS ORC", f"STORED AS ORC LOCATION '{copy}'"
    ))
    assert _rows(acid, "SHOW PARTITIONS adopted") == [("region=eu",), ("region=us",)]
    assert _rows(acid, "SELECT id, amount, region FROM adopted ORDER BY id") == [(1, 10, "eu"), (2, 21, "us")]
    result = acid.sql("INSERT INTO adopted VALUES (3, 30, 'eu')")
    assert result.write_id == 3  # continues after the highest write id on disk
