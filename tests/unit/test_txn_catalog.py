"""Catalog CRUD and Hive's table rules against SQLite, PostgreSQL and MariaDB."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from hiveacid_sql.errors import CatalogError, NoSuchDatabaseError, NoSuchTableError
from hiveacid_sql.txn import Catalog, Column, TableDef, TxnStore
from hiveacid_sql.txn import schema as s
from hiveacid_sql.txn.catalog import hive_pattern


@pytest.fixture
def catalog(store: TxnStore) -> Catalog:
    return store.catalog


def acid(name: str = "t", db: str = "default", **kw: object) -> TableDef:
    defaults: dict = {
        "columns": (Column("id", "int"), Column("amount", "decimal(10,2)", "money")),
        "location": f"file:/warehouse/{db}.db/{name}",
        "storage_format": "orc",
        "table_type": "MANAGED_TABLE",
        "params": {"transactional": "true"},
    }
    defaults.update(kw)
    return TableDef(db=db, name=name, **defaults)


# ---------------------------------------------------------------------- databases
def test_default_database_exists(catalog: Catalog) -> None:
    assert catalog.list_databases() == ["default"]
    assert catalog.database_exists("DEFAULT")
    assert catalog.get_database("default")["comment"] == "Default Hive database"


def test_database_crud(catalog: Catalog) -> None:
    assert catalog.create_database(
        "Sales", location="file:/w/sales.db", comment="desc is reserved", owner="ann"
    )
    assert catalog.get_database("sales") == {
        "name": "sales",
        "comment": "desc is reserved",
        "location": "/w/sales.db",  # the engine's form of a local location
        "owner": "ann",
    }
    assert catalog.create_database("sales", location="x", if_not_exists=True) is False
    with pytest.raises(CatalogError, match="Database already exists: sales"):
        catalog.create_database("SALES", location="x")
    catalog.create_database("staging", location="file:/w/staging.db")
    assert catalog.list_databases() == ["default", "sales", "staging"]
    assert catalog.list_databases("s*") == ["sales", "staging"]
    assert catalog.list_databases("def*|STAG*") == ["default", "staging"]
    catalog.drop_database("staging")
    assert not catalog.database_exists("staging")
    assert catalog.drop_database("staging", if_exists=True) == []
    with pytest.raises(NoSuchDatabaseError, match="Database does not exist: staging"):
        catalog.drop_database("staging")
    with pytest.raises(NoSuchDatabaseError):
        catalog.get_database("staging")
    with pytest.raises(CatalogError, match="Can not drop default database"):
        catalog.drop_database("default", cascade=True)


def test_drop_database_with_tables(store: TxnStore, catalog: Catalog) -> None:
    catalog.create_database("sales", location="file:/w/sales.db")
    catalog.create_table(acid("orders", db="sales"))
    with pytest.raises(CatalogError, match="Database sales is not empty"):
        catalog.drop_database("sales")
    dropped = catalog.drop_database("sales", cascade=True)
    assert [t.qualified_name for t in dropped] == ["sales.orders"]
    assert not catalog.database_exists("sales")
    with store.engine.connect() as conn:
        assert conn.execute(sa.select(sa.func.count()).select_from(s.TBLS)).scalar() == 0
        assert conn.execute(sa.select(sa.func.count()).select_from(s.COLUMNS_V2)).scalar() == 0


# ---------------------------------------------------------------------- tables
def test_create_and_get_table_round_trip(catalog: Catalog) -> None:
    td = TableDef(
        db="Default",
        name="Events",
        columns=(Column("ID", "BIGINT"), Column("payload", "struct<a:int,b:string>", "raw")),
        location="file:/w/events",
        storage_format="ORC",
        table_type="MANAGED_TABLE",
        params={"Transactional": "TRUE", "owner_team": "Data"},
        partition_keys=(Column("dt", "string", "day"),),
        bucket_cols=("id",),
        num_buckets=4,
        comment="events table",
        owner="ann",
        create_time=1_700_000_000,
    )
    assert catalog.create_table(td) is True
    got = catalog.get_table("default", "EVENTS")
    assert got.qualified_name == "default.events"
    assert got.columns == (Column("id", "bigint"), Column("payload", "struct<a:int,b:string>", "raw"))
    assert got.partition_keys == (Column("dt", "string", "day"),)
    assert (got.bucket_cols, got.num_buckets) == (("id",), 4)
    assert (got.location, got.storage_format, got.table_type) == ("/w/events", "orc", "MANAGED_TABLE")
    assert (got.comment, got.owner, got.create_time) == ("events table", "ann", 1_700_000_000)
    assert got.is_transactional
    assert got.params == {
        "transactional": "true",
        "transactional_properties": "default",
        "bucketing_version": "2",
        "owner_team": "Data",
        "transient_lastDdlTime": "1700000000",
    }


def test_plain_tables(catalog: Catalog) -> None:
    catalog.create_table(acid("p", storage_format="parquet", params={}))
    catalog.create_table(acid("e", storage_format="textfile", table_type="EXTERNAL_TABLE", params={}))
    p, e = catalog.get_table("default", "p"), catalog.get_table("default", "e")
    assert not p.is_transactional and not e.is_transactional
    assert p.params["bucketing_version"] == "2" and "transactional_properties" not in p.params
    assert p.create_time > 0 and p.num_buckets == -1
    assert e.table_type == "EXTERNAL_TABLE"


def test_duplicate_and_missing_tables(catalog: Catalog) -> None:
    assert catalog.create_table(acid()) is True
    assert catalog.create_table(acid(), if_not_exists=True) is False
    with pytest.raises(CatalogError, match=r"Table already exists: default\.t"):
        catalog.create_table(acid(name="T"))
    with pytest.raises(NoSuchTableError, match=r"Table not found: default\.nope"):
        catalog.get_table("default", "nope")
    with pytest.raises(NoSuchDatabaseError, match="Database does not exist: nodb"):
        catalog.create_table(acid(db="nodb"))
    with pytest.raises(NoSuchDatabaseError):
        catalog.list_tables("nodb")
    assert catalog.table_exists("DEFAULT", "T") and not catalog.table_exists("default", "nope")


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        (
            {"storage_format": "parquet"},
            r"must be stored using an ACID compliant format \(such as ORC\): default\.t",
        ),
        (
            {"table_type": "EXTERNAL_TABLE"},
            "default.t cannot be declared transactional because it's an external table",
        ),
        (
            {"table_type": "EXTERNAL_TABLE", "params": {"transactional": "true", "transactional_properties": "insert_only"}},
            "because it's an external table",
        ),
        ({"params": {"transactional": "true", "transactional_properties": "x"}}, "unknown value x for transactional_properties"),
        ({"params": {"transactional": "yes"}}, "may only have value 'true'"),
        ({"columns": ()}, "At least one column"),
        ({"columns": (Column("a", "int"), Column("A", "string"))}, "Duplicate column name: a"),
        ({"partition_keys": (Column("id", "int"),)}, "Duplicate column name: id"),
        ({"columns": (Column("x.y", "int"),)}, "Invalid column name 'x.y' in the table definition"),
        ({"partition_keys": (Column("p:q", "int"),)}, "Invalid column name 'p:q' in the table definition"),
        ({"bucket_cols": ("nope",), "num_buckets": 2}, "Bucket column nope"),
        ({"bucket_cols": ("id",)}, "positive number of buckets"),
        ({"storage_format": "sequencefile", "params": {}}, "Unsupported storage format"),
    ],
)
def test_create_table_rules(catalog: Catalog, kw: dict, message: str) -> None:
    with pytest.raises(CatalogError, match=message):
        catalog.create_table(acid(**kw))
    assert not catalog.table_exists("default", "t")


@pytest.mark.parametrize("fmt", ["orc", "parquet", "textfile"])
def test_insert_only_tables_in_every_format(catalog: Catalog, fmt: str) -> None:
    """Hive: "INSERT_ONLY tables don't have to conform to ACID requirement like ORC"."""
    catalog.create_table(acid(storage_format=fmt, params={"Transactional": "TRUE", "transactional_properties": "INSERT_ONLY"}))
    td = catalog.get_table("default", "t")
    assert td.is_insert_only and not td.is_full_acid and td.params["transactional_properties"] == "insert_only"
    with pytest.raises(CatalogError, match="cannot be unset"):
        catalog.set_table_params("default", "t", {"transactional": "false"})


def test_list_tables(catalog: Catalog) -> None:
    for name in ("orders", "order_items", "customers"):
        catalog.create_table(acid(name))
    assert catalog.list_tables("default") == ["customers", "order_items", "orders"]
    assert catalog.list_tables("default", "order*") == ["order_items", "orders"]
    assert catalog.list_tables("default", "cust*|orders") == ["customers", "orders"]
    assert catalog.list_tables("default", "order.items") == []  # '.' is literal


def test_drop_table_removes_rows_and_write_ids(store: TxnStore, catalog: Catalog) -> None:
    catalog.create_table(acid(partition_keys=(Column("dt", "string"),), bucket_cols=("id",), num_buckets=2))
    txn = store.open_txn("u", "h")
    assert store.allocate_write_id(txn, "default", "t") == 1
    store.commit_txn(txn)
    dropped = catalog.drop_table("default", "T")
    assert dropped is not None and dropped.qualified_name == "default.t" and dropped.num_buckets == 2
    assert catalog.drop_table("default", "t", if_exists=True) is None
    with pytest.raises(NoSuchTableError):
        catalog.drop_table("default", "t")
    with store.engine.connect() as conn:
        for table in (s.TBLS, s.COLUMNS_V2, s.PARTITION_KEYS, s.BUCKETING_COLS, s.TABLE_PARAMS,
                      s.TXN_TO_WRITE_ID, s.NEXT_WRITE_ID, s.COMPLETED_TXN_COMPONENTS):  # fmt: skip
            assert conn.execute(sa.select(sa.func.count()).select_from(table)).scalar() == 0, table.name
    catalog.create_table(acid())  # a new table of the same name starts from write id 1 again
    assert store.allocate_write_id(store.open_txn("u", "h"), "default", "t") == 1


def test_rename_table_moves_write_ids(store: TxnStore, catalog: Catalog) -> None:
    catalog.create_database("sales", location="file:/w/sales.db")
    catalog.create_table(acid("old"))
    for _ in range(2):
        txn = store.open_txn("u", "h")
        w = store.allocate_write_id(txn, "default", "old")
        store.add_components(txn, "default", "old", w, "i")
        store.commit_txn(txn)
    renamed = catalog.rename_table("default", "old", "Sales", "New", "file:/w/sales.db/new")
    assert renamed.qualified_name == "sales.new" and renamed.location == "/w/sales.db/new"
    assert not catalog.table_exists("default", "old")
    assert catalog.get_table("sales", "new").columns == renamed.columns
    assert store.snapshot([("sales", "new")]).tables["sales.new"].high_watermark == 2
    assert store.snapshot([("default", "old")]).tables["default.old"].high_watermark == 0
    assert [h["write_id"] for h in store.write_id_history("sales", "new")] == [1, 2]
    assert store.allocate_write_id(store.open_txn("u", "h"), "sales", "new") == 3
    catalog.create_table(acid("other"))
    with pytest.raises(CatalogError, match=r"Table already exists: default\.other"):
        catalog.rename_table("sales", "new", "default", "other")
    with pytest.raises(NoSuchTableError):
        catalog.rename_table("default", "missing", "default", "x")
    kept = catalog.rename_table("sales", "new", "sales", "newer")  # location kept when not given
    assert kept.location == "/w/sales.db/new"


def test_add_columns(catalog: Catalog) -> None:
    catalog.create_table(acid(partition_keys=(Column("dt", "string"),)))
    td = catalog.add_columns("default", "t", [Column("Note", "STRING", "free text")])
    assert [c.name for c in td.columns] == ["id", "amount", "note"]
    assert td.columns[-1] == Column("note", "string", "free text")
    assert catalog.get_table("default", "t").columns == td.columns
    with pytest.raises(CatalogError, match="Duplicate column name: id"):
        catalog.add_columns("default", "t", [Column("id", "int")])
    with pytest.raises(CatalogError, match="Duplicate column name: dt"):
        catalog.add_columns("default", "t", [Column("dt", "int")])
    with pytest.raises(CatalogError, match="Invalid column name 'a.b'"):
        catalog.add_columns("default", "t", [Column("a b", "int"), Column("a.b", "int")])
    assert [c.name for c in catalog.get_table("default", "t").columns] == ["id", "amount", "note"]
    with pytest.raises(NoSuchTableError):
        catalog.add_columns("default", "nope", [Column("x", "int")])


def test_set_and_unset_table_params(catalog: Catalog) -> None:
    catalog.create_table(acid())
    td = catalog.set_table_params("default", "t", {"comment_x": "1", "Transactional": "TRUE"})
    assert td.params["comment_x"] == "1" and td.params["transactional"] == "true"
    for value in ("false", "FALSE"):
        with pytest.raises(CatalogError, match="TBLPROPERTIES with 'transactional'='true' cannot be unset"):
            catalog.set_table_params("default", "t", {"transactional": value})
    with pytest.raises(CatalogError, match="cannot be unset"):
        catalog.unset_table_params("default", "t", ["transactional"])
    with pytest.raises(CatalogError, match="transactional_properties"):
        catalog.set_table_params("default", "t", {"transactional_properties": "insert_only"})
    td = catalog.unset_table_params("default", "t", ["comment_x", "not_there"])
    assert "comment_x" not in td.params and td.is_transactional
    with pytest.raises(CatalogError, match="does not exist"):
        catalog.unset_table_params("default", "t", ["not_there"], if_exists=False)
    assert catalog.get_table("default", "t").params == td.params


def test_converting_a_plain_table_to_acid(catalog: Catalog) -> None:
    catalog.create_table(acid("plain_orc", params={}))
    catalog.create_table(acid("plain_parquet", storage_format="parquet", params={}))
    td = catalog.set_table_params("default", "plain_orc", {"transactional": "true"})
    assert td.is_transactional and td.params["transactional_properties"] == "default"
    with pytest.raises(CatalogError, match="ACID compliant format"):
        catalog.set_table_params("default", "plain_parquet", {"transactional": "true"})
    assert not catalog.get_table("default", "plain_parquet").is_transactional


def test_catalog_survives_reopen(ready_url: str) -> None:
    with TxnStore(ready_url) as st:
        st.catalog.create_database("sales", location="file:/w/sales.db")
        st.catalog.create_table(acid("orders", db="sales"))
    with TxnStore(ready_url) as st:
        assert st.catalog.list_databases() == ["default", "sales"]
        assert st.catalog.get_table("sales", "orders").is_transactional


def test_table_def_helpers() -> None:
    td = acid(params={"TRANSACTIONAL": "True"})
    assert td.is_transactional and td.qualified_name == "default.t"
    assert not acid(params={"transactional": "false"}).is_transactional
    assert hive_pattern(None)("anything")
    assert hive_pattern("a*")("ABC") and not hive_pattern("a*")("bac")


# ---------------------------------------------------------------------- locations
def _stored(store: TxnStore) -> tuple[dict[str, str], dict[int, str]]:
    with store.engine.connect() as conn:
        dbs = dict(conn.execute(sa.select(s.DBS.c.NAME, s.DBS.c.DB_LOCATION_URI)).all())
        sds = dict(conn.execute(sa.select(s.SDS.c.SD_ID, s.SDS.c.LOCATION)).all())
    return dbs, sds


def test_locations_are_stored_as_hive_stores_them(store: TxnStore, catalog: Catalog) -> None:
    """Hive's metastore keeps a Hadoop Path's string, scheme included (``file:/p`` for a local path); the engine
    gets the plain local path back; other schemes pass through unchanged."""
    catalog.create_database("sales", location="/w/sales.db/")
    catalog.create_database("lake", location="s3a://bucket/lake.db")
    catalog.create_table(acid("t", db="sales", location="/w/sales.db/t", partition_keys=(Column("d", "string"),)))
    catalog.create_table(acid("u", db="lake", location="s3a://bucket/lake.db/u"))
    catalog.create_table(acid("v", location="file:///w/v"))
    catalog.add_partitions("sales", "t", ["d=a%2Fb"])
    catalog.add_partitions("sales", "t", ["d=x"], locations={"d=x": "/elsewhere/x"})
    dbs, sds = _stored(store)
    assert (dbs["sales"], dbs["lake"]) == ("file:/w/sales.db", "s3a://bucket/lake.db")
    assert sorted(loc for loc in sds.values() if loc) == [
        "file:/elsewhere/x", "file:/w/sales.db/t", "file:/w/sales.db/t/d=a%2Fb", "file:/w/v",
        "s3a://bucket/lake.db/u",
    ]
    assert catalog.get_database("sales")["location"] == "/w/sales.db"
    assert catalog.get_table("sales", "t").location == "/w/sales.db/t"
    assert catalog.get_table("lake", "u").location == "s3a://bucket/lake.db/u"
    assert catalog.get_table("default", "v").location == "/w/v"
    assert [(p.name, p.location) for p in catalog.list_partitions("sales", "t")] == [
        ("d=a%2Fb", "/w/sales.db/t/d=a%2Fb"), ("d=x", "/elsewhere/x")]
    catalog.rename_table("sales", "t", "sales", "t2", "/w/sales.db/t2")
    _, sds = _stored(store)
    assert sorted(loc for loc in sds.values() if loc and "sales.db" in loc) == [
        "file:/w/sales.db/t2", "file:/w/sales.db/t2/d=a%2Fb"]


def test_bare_locations_of_older_stores_still_read(store: TxnStore, catalog: Catalog) -> None:
    """Stores written before locations carried a scheme hold bare paths: read as they are, and a rename or a new
    partition of such a table writes Hive's form."""
    catalog.create_table(acid("old", location="/w/old", partition_keys=(Column("d", "string"),)))
    with store.engine.begin() as conn:
        conn.execute(sa.update(s.SDS).values(LOCATION="/w/old"))
        conn.execute(sa.update(s.DBS).where(s.DBS.c.NAME == "default").values(DB_LOCATION_URI="/w"))
    assert catalog.get_table("default", "old").location == "/w/old"
    assert catalog.get_database("default")["location"] == "/w"
    catalog.add_partitions("default", "old", ["d=1"])
    assert [p.location for p in catalog.list_partitions("default", "old")] == ["/w/old/d=1"]
    catalog.rename_table("default", "old", "default", "new", "/w/new")
    _, sds = _stored(store)
    assert sorted(loc for loc in sds.values() if loc) == ["file:/w/new", "file:/w/new/d=1"]


# ---------------------------------------------------------------------- Hive's statistics flag
def _stats_flags(store: TxnStore, name: str) -> dict[str | None, str]:
    """COLUMN_STATS_ACCURATE of table ``name`` (key None) and of each of its partitions (key: name)."""
    p, pp = s.PARTITIONS.c, s.PARTITION_PARAMS.c
    with store.engine.connect() as conn:
        tbl_id = conn.execute(sa.select(s.TBLS.c.TBL_ID).filter_by(TBL_NAME=name)).scalar_one()
        flags: dict[str | None, str] = {}
        for value in conn.execute(
            sa.select(s.TABLE_PARAMS.c.PARAM_VALUE).filter_by(TBL_ID=tbl_id, PARAM_KEY="COLUMN_STATS_ACCURATE")
        ).scalars():
            flags[None] = value
        for part, value in conn.execute(
            sa.select(p.PART_NAME, pp.PARAM_VALUE)
            .join(s.PARTITION_PARAMS, pp.PART_ID == p.PART_ID)
            .where(p.TBL_ID.in_([tbl_id]), pp.PARAM_KEY == "COLUMN_STATS_ACCURATE")
        ):
            flags[part] = value
    return flags


def _hive_marks_stats_accurate(store: TxnStore, name: str) -> None:
    """What Hive's stats-gathering INSERT or ANALYZE leaves: the flag on the table and on every partition."""
    flag = '{"BASIC_STATS":"true","COLUMN_STATS":{"id":"true"}}'
    with store.engine.begin() as conn:
        tbl_id = conn.execute(sa.select(s.TBLS.c.TBL_ID).filter_by(TBL_NAME=name)).scalar_one()
        conn.execute(sa.insert(s.TABLE_PARAMS).values(TBL_ID=tbl_id, PARAM_KEY="COLUMN_STATS_ACCURATE", PARAM_VALUE=flag))
        for part_id in conn.execute(sa.select(s.PARTITIONS.c.PART_ID).filter_by(TBL_ID=tbl_id)).scalars():
            conn.execute(
                sa.insert(s.PARTITION_PARAMS).values(PART_ID=part_id, PARAM_KEY="COLUMN_STATS_ACCURATE", PARAM_VALUE=flag)
            )


def test_a_commit_clears_hive_stats_flag_of_what_it_wrote_only(store: TxnStore) -> None:
    """Hive answers count(*)/min/max from statistics flagged accurate; a commit that changed a partition must
    drop that partition's flag (and the table's) in the same database transaction, and leave the others."""
    from hiveacid_sql.txn.store import TableCommit

    catalog = store.catalog
    catalog.create_table(acid("sales", partition_keys=(Column("day", "string"),)))
    catalog.create_table(acid("other"))
    catalog.add_partitions("default", "sales", ["day=1", "day=2"])
    _hive_marks_stats_accurate(store, "sales")
    _hive_marks_stats_accurate(store, "other")
    assert set(_stats_flags(store, "sales")) == {None, "day=1", "day=2"}

    txn = store.open_txn("u", "h")
    write_id = store.allocate_write_id(txn, "default", "sales")
    store.commit_txn(txn, writes=[TableCommit("default", "sales", write_id, {"day=1": "u", "day=3": "i"}, ["day=3"])])

    assert set(_stats_flags(store, "sales")) == {"day=2"}  # day=1 written, day=3 new (never had one)
    assert set(_stats_flags(store, "other")) == {None}

    aborted = store.open_txn("u", "h")
    write_id = store.allocate_write_id(aborted, "default", "other")
    store.add_components(aborted, "default", "other", write_id, "i")
    store.abort_txn(aborted)
    assert set(_stats_flags(store, "other")) == {None}  # an aborted write changed nothing Hive can see

    txn = store.open_txn("u", "h")
    write_id = store.allocate_write_id(txn, "default", "other")
    store.commit_txn(txn, writes=[TableCommit("default", "other", write_id, {None: "d"})])
    assert _stats_flags(store, "other") == {}


def test_plain_write_clears_hive_stats_flag(store: TxnStore) -> None:
    """Plain tables are written outside a transaction: the catalog call the engine makes after the write."""
    catalog = store.catalog
    catalog.create_table(
        acid("plain", params={}, table_type="EXTERNAL_TABLE", partition_keys=(Column("day", "string"),))
    )
    catalog.add_partitions("default", "plain", ["day=1", "day=2", "day=3"])
    _hive_marks_stats_accurate(store, "plain")
    catalog.mark_stats_stale("default", "plain", ["day=2"])
    assert set(_stats_flags(store, "plain")) == {"day=1", "day=3"}
    catalog.mark_stats_stale("default", "plain", None)  # TRUNCATE: every partition
    assert _stats_flags(store, "plain") == {}


def test_plain_insert_registers_partitions_and_clears_stats_in_one_call(store: TxnStore) -> None:
    """A plain INSERT's one catalog call: the new partition is registered (without a flag), the written
    existing partition and the table lose theirs, the untouched partition keeps it."""
    catalog = store.catalog
    catalog.create_table(
        acid("plain", params={}, table_type="EXTERNAL_TABLE", partition_keys=(Column("day", "string"),))
    )
    catalog.add_partitions("default", "plain", ["day=1", "day=2"])
    _hive_marks_stats_accurate(store, "plain")
    catalog.record_plain_write("default", "plain", ["day=2", "day=3"], whole_table=False)
    assert [p.name for p in catalog.list_partitions("default", "plain")] == ["day=1", "day=2", "day=3"]
    assert set(_stats_flags(store, "plain")) == {"day=1"}
    catalog.record_plain_write("default", "plain", [], whole_table=True)
    assert _stats_flags(store, "plain") == {}


def test_sort_columns_stored_in_sort_cols_and_copied_to_partitions(store: TxnStore, catalog: Catalog) -> None:
    """SORTED BY of a bucketed table: ``SORT_COLS`` rows (column, Hive's Order 1 ASC / 0 DESC) under the
    table's storage descriptor and, as Hive copies them, each partition's."""
    catalog.create_table(
        acid("sb", params={}, storage_format="textfile", partition_keys=(Column("d", "string"),),
             bucket_cols=("ID",), num_buckets=4, sort_cols=(("AMOUNT", 0), ("id", 1)))
    )
    assert catalog.get_table("default", "sb").sort_cols == (("amount", 0), ("id", 1))
    catalog.add_partitions("default", "sb", ["d=1"])
    with store.engine.connect() as conn:
        sc = s.SORT_COLS.c
        rows = conn.execute(sa.select(sc.SD_ID, sc.COLUMN_NAME, sc.ORDER).order_by(sc.SD_ID, sc.INTEGER_IDX)).all()
    assert [(c, o) for _sd, c, o in rows] == [("amount", 0), ("id", 1)] * 2 and len({r[0] for r in rows}) == 2
    with pytest.raises(CatalogError, match="Sort column nope is not a column of default.bad"):
        catalog.create_table(acid("bad", params={}, bucket_cols=("id",), num_buckets=2, sort_cols=(("nope", 1),)))


def test_avro_table_listing_no_columns_takes_its_schema_literals_fields(catalog: Catalog, store: TxnStore) -> None:
    """A Hive-made Avro table whose metastore row lists no column (its schema lives in avro.schema.literal)
    reads with the schema's fields as its columns, as Hive's AvroSerDe gives them."""
    literal = '{"type":"record","name":"r","fields":[{"name":"Id","type":["null","long"]},{"name":"tags","type":{"type":"array","items":"string"}}]}'
    catalog.create_table(acid(storage_format="avro", params={"avro.schema.literal": literal}, table_type="EXTERNAL_TABLE"))
    with store.engine.begin() as conn:
        conn.execute(sa.delete(s.COLUMNS_V2))
    assert [(c.name, c.type) for c in catalog.get_table("default", "t").columns] == [("id", "bigint"), ("tags", "array<string>")]
