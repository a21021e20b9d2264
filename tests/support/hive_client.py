"""Hive's own metastore client as a second, independent client of the store's database (issue 15).

PySpark ships Hive 2.3's metastore code: ``ObjectStore`` over DataNucleus for the catalog and the 2.3
``TxnHandler`` for transactions and locks. Pointed at the relational database hiveacid-sql's store uses, it is
the strongest witness we can run on this machine that our rows are Hive's rows: if Hive's own code lists,
describes, reads and locks what we wrote (and we see what it wrote), a Hive metastore sharing that database
would too.

The client runs in a child process of its own (a second Python interpreter with a second pyspark JVM, started
with ``spark.sql.catalogImplementation=hive``), because one JVM holds one Spark catalog and the test process's
JVM is hiveacid-sql's. The child receives operations over a pipe and answers with plain Python data; a test
module starts one :class:`HiveClient` and reuses it (starting the JVM and DataNucleus takes seconds).

The JDBC drivers are Debian packages; :func:`ensure_jdbc_drivers` installs them when missing (tests run as
root) and fails in one line if it cannot. A missing server or driver is a failure, never a skip.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import sqlalchemy as sa

#: JDBC driver jar and the Debian package that provides it, by SQLAlchemy dialect name.
JDBC_DRIVERS: dict[str, tuple[Path, str, str]] = {
    "postgresql": (Path("/usr/share/java/postgresql.jar"), "libpostgresql-jdbc-java", "org.postgresql.Driver"),
    "mysql": (Path("/usr/share/java/mariadb-java-client.jar"), "libmariadb-java", "org.mariadb.jdbc.Driver"),
}

#: how long one operation of the child may take before the test fails (a hung JVM must not hang the suite)
OPERATION_TIMEOUT = 300.0


class HiveClientError(RuntimeError):
    """An operation failed inside Hive's client: the message is the Java/Spark error's, first line first."""


def ensure_jdbc_drivers() -> None:
    """Install the JDBC drivers' Debian packages when a jar is missing (one clear error if apt fails)."""
    missing = [pkg for jar, pkg, _ in JDBC_DRIVERS.values() if not jar.is_file()]
    if not missing:
        return
    if shutil.which("apt-get") is None:
        raise RuntimeError(f"JDBC drivers missing and no apt-get to install them: install {' '.join(missing)}")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    cmd = ["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if done.returncode != 0:  # the package lists may be stale: refresh once and retry
        subprocess.run(["apt-get", "update", "-q"], env=env, capture_output=True, text=True)
        done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    still = [pkg for jar, pkg, _ in JDBC_DRIVERS.values() if not jar.is_file()]
    if done.returncode != 0 or still:
        last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise RuntimeError(f"could not install JDBC drivers {' '.join(missing)} with apt-get: {last}")


def jdo_settings(url: str) -> dict[str, str]:
    """The ``javax.jdo``/DataNucleus/Hive settings that point Hive's client at the database ``url``.

    Schema verification and DataNucleus' auto-create are off: the schema is the one Hive's 3.1 script made,
    and Hive's 2.3 code must use it as it is (as it would a newer metastore's database).
    """
    u = sa.make_url(url)
    dialect = u.get_backend_name()
    if dialect not in JDBC_DRIVERS:
        raise ValueError(f"Hive's client runs on PostgreSQL or MariaDB, not {dialect}")
    host, user, password = u.host or "127.0.0.1", u.username or "", u.password or ""
    settings = {
        "javax.jdo.option.ConnectionDriverName": JDBC_DRIVERS[dialect][2],
        "javax.jdo.option.ConnectionUserName": user,
        "javax.jdo.option.ConnectionPassword": password,
        "hive.metastore.schema.verification": "false",
        "datanucleus.schema.autoCreateAll": "false",
        "datanucleus.connectionPoolingType": "None",
        "hive.support.concurrency": "true",
        "hive.txn.manager": "org.apache.hadoop.hive.ql.lockmgr.DbTxnManager",
    }
    if dialect == "postgresql":
        settings["javax.jdo.option.ConnectionURL"] = f"jdbc:postgresql://{host}:{u.port or 5432}/{u.database}"
    else:
        settings["javax.jdo.option.ConnectionURL"] = (
            f"jdbc:mysql://{host}:{u.port or 3306}/{u.database}?permitMysqlScheme&useMysqlMetadata=true"
        )
        # MariaDB calls itself "MariaDB": without this DataNucleus takes it for a generic SQL database and
        # writes LIKE .. ESCAPE '\' , which MariaDB reads as an unterminated string
        settings["datanucleus.rdbms.datastoreAdapterClassName"] = "org.datanucleus.store.rdbms.adapter.MySQLAdapter"
    return settings


# -- the parent side -------------------------------------------------------------------------------------------


class HiveClient:
    """Hive 2.3's metastore client (Spark's Hive catalog + ``HiveMetaStoreClient``) in a child process.

    ``sql`` runs Spark SQL on the Hive catalog (SHOW TABLES, DESCRIBE FORMATTED, SHOW PARTITIONS, CREATE TABLE,
    INSERT, SELECT); the other methods are ``HiveMetaStoreClient`` calls through py4j (catalog reads as the
    Thrift objects Hive hands out, and the 2.3 ``TxnHandler``: transactions and locks).
    """

    def __init__(self, url: str, warehouse: Path) -> None:
        ensure_jdbc_drivers()
        self.url = url
        self.warehouse = Path(warehouse)
        dialect = sa.make_url(url).get_backend_name()
        ctx = multiprocessing.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(
            target=_serve,
            args=(child, jdo_settings(url), str(JDBC_DRIVERS[dialect][0]), str(self.warehouse)),
            name="hive-client",
            daemon=True,
        )
        self._proc.start()
        child.close()
        self._call("ping")

    # generic -------------------------------------------------------------------------------------------------

    def _call(self, op: str, *args: Any) -> Any:
        if not self._proc.is_alive():
            raise HiveClientError(f"Hive's client process is gone (exit code {self._proc.exitcode})")
        self._conn.send((op, args))
        if not self._conn.poll(OPERATION_TIMEOUT):
            self.close()
            raise HiveClientError(f"Hive's client did not answer {op} within {OPERATION_TIMEOUT:.0f}s")
        try:
            status, value = self._conn.recv()
        except (EOFError, OSError):
            raise HiveClientError(f"Hive's client process died during {op}") from None
        if status == "error":
            raise HiveClientError(value)
        return value

    def close(self) -> None:
        """Stop the child (its JVM with it)."""
        if self._proc.is_alive():
            try:
                self._conn.send(("stop", ()))
                self._proc.join(60)
            except (BrokenPipeError, OSError):
                pass
        if self._proc.is_alive():
            self._proc.kill()
            self._proc.join(10)
        self._conn.close()

    def __enter__(self) -> HiveClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # SQL on Spark's Hive catalog -----------------------------------------------------------------------------

    def sql(self, statement: str) -> list[tuple[Any, ...]]:
        """Run one statement through Spark's Hive catalog; its rows as tuples of Python values."""
        rows: list[tuple[Any, ...]] = self._call("sql", statement)
        return rows

    def sql_many(self, statements: Sequence[str]) -> list[list[tuple[Any, ...]]]:
        """Run statements in order in one round trip; the rows of each."""
        rows: list[list[tuple[Any, ...]]] = self._call("sql_many", list(statements))
        return rows

    def describe_formatted(self, table: str) -> dict[str, Any]:
        """``DESCRIBE FORMATTED table`` parsed: ``columns`` [(name, type, comment)], ``partition_columns``,
        and the detailed-information section as ``{label: value}`` (``Table Properties`` parsed to a dict)."""
        return _parse_describe_formatted(self.sql(f"DESCRIBE FORMATTED {table}"))

    # HiveMetaStoreClient: catalog ----------------------------------------------------------------------------

    def get_databases(self) -> list[str]:
        return list(self._call("get_databases"))

    def get_database(self, name: str) -> dict[str, Any]:
        return dict(self._call("get_database", name))

    def get_tables(self, db: str) -> list[str]:
        return list(self._call("get_tables", db))

    def get_table(self, db: str, table: str) -> dict[str, Any]:
        """The Thrift ``Table`` Hive's ObjectStore builds from the rows, as a dict (see ``_table_dict``)."""
        return dict(self._call("get_table", db, table))

    def get_partition_names(self, db: str, table: str) -> list[str]:
        return list(self._call("get_partition_names", db, table))

    def paths(self, db: str, table: str) -> dict[str, Any]:
        """Hive's own path handling (``Warehouse``, Hadoop's ``Path`` and ``FileSystem``) applied to what the
        catalog holds for ``db.table``: the stored locations next to the paths Hive would have chosen
        (``getDatabasePath``, ``getDefaultTablePath``, table path + ``makePartName``), each stored location
        qualified by ``getDnsPath`` (Hive's canonical form: a location already in it comes back unchanged),
        and what ``FileSystem.listStatus`` finds there."""
        return dict(self._call("paths", db, table))

    def get_partitions(self, db: str, table: str) -> list[dict[str, Any]]:
        return list(self._call("get_partitions", db, table))

    # HiveMetaStoreClient: the 2.3 TxnHandler ------------------------------------------------------------------

    def open_txn(self, user: str = "hive") -> int:
        return int(self._call("open_txn", user))

    def open_txns(self, count: int, user: str = "hive") -> list[int]:
        return [int(t) for t in self._call("open_txns", user, count)]

    def commit_txn(self, txn_id: int) -> None:
        self._call("commit_txn", txn_id)

    def abort_txn(self, txn_id: int) -> None:
        self._call("abort_txn", txn_id)

    def show_txns(self) -> list[dict[str, Any]]:
        """Hive's ``SHOW TRANSACTIONS``: [{id, state ('OPEN'/'ABORTED'/'COMMITTED'), user, hostname}]."""
        return list(self._call("show_txns"))

    def get_valid_txns(self) -> dict[str, Any]:
        """The snapshot Hive's client reads with: ``high_watermark``, ``invalid`` (open or aborted ids below it,
        which 2.3 does not tell apart) and ``string`` (Hive's own serialized form)."""
        return dict(self._call("get_valid_txns"))

    def lock(self, components: Sequence[Mapping[str, Any]], txn_id: int = 0, user: str = "hive") -> dict[str, Any]:
        """Request locks as Hive's DbTxnManager does: ``components`` are dicts with ``type`` ('SHARED_READ',
        'SHARED_WRITE', 'EXCLUSIVE'), ``db``, optional ``table``, ``partition``, ``operation`` (a
        DataOperationType name: SELECT, INSERT, UPDATE, DELETE, NO_TXN) and ``acid`` (bool, default true).
        Returns {lock_id, state} ('ACQUIRED' or 'WAITING': Hive's 2.3 lock call does not block)."""
        return dict(self._call("lock", [dict(c) for c in components], txn_id, user))

    def check_lock(self, lock_id: int) -> str:
        return str(self._call("check_lock", lock_id))

    def unlock(self, lock_id: int) -> None:
        self._call("unlock", lock_id)

    def show_locks(self) -> list[dict[str, Any]]:
        """Hive's ``SHOW LOCKS``: [{lock_id, db, table, partition, state, type, txn_id, user}]."""
        return list(self._call("show_locks"))

    def heartbeat(self, txn_id: int, lock_id: int = 0) -> None:
        self._call("heartbeat", txn_id, lock_id)

    # HiveMetaStoreClient: compactions --------------------------------------------------------------------------

    def compact(self, db: str, table: str, partition: str | None = None, kind: str = "MAJOR") -> dict[str, Any]:
        """Hive's ``ALTER TABLE .. COMPACT``: queue a request; {id, state, accepted}."""
        return dict(self._call("compact", db, table, partition, kind))

    def show_compactions(self) -> list[dict[str, Any]]:
        """Hive's ``SHOW COMPACTIONS``: [{id, db, table, partition, type, state}] (state as Hive 2.3 names it)."""
        return list(self._call("show_compactions"))


def _parse_describe_formatted(rows: list[tuple[Any, ...]]) -> dict[str, Any]:
    """Spark's DESCRIBE FORMATTED rows into columns, partition columns and the detailed section."""
    columns: list[tuple[str, str, str | None]] = []
    partition_columns: list[tuple[str, str, str | None]] = []
    details: dict[str, Any] = {}
    section = "columns"
    for name, data_type, comment in rows:
        name = (name or "").strip()
        if name == "# Partition Information":
            section = "partitions"
            continue
        if name == "# Detailed Table Information":
            section = "details"
            continue
        if not name or name.startswith("#"):
            continue
        if section == "columns":
            columns.append((name, data_type, comment))
        elif section == "partitions":
            partition_columns.append((name, data_type, comment))
        else:
            details[name] = data_type
    if "Partition Provider" in details or partition_columns:
        # the partition columns are also listed among the columns: keep them in their own list only
        part_names = {p[0] for p in partition_columns}
        columns = [c for c in columns if c[0] not in part_names]
    props = details.get("Table Properties")
    if isinstance(props, str):
        details["Table Properties"] = _parse_properties(props)
    return {"columns": columns, "partition_columns": partition_columns, "details": details}


def _parse_properties(text: str) -> dict[str, str]:
    """Spark's ``[k1=v1, k2=v2]`` rendering of table properties."""
    body = text.strip()
    if body.startswith("[") and body.endswith("]"):
        body = body[1:-1]
    out: dict[str, str] = {}
    for item in body.split(", "):
        if "=" in item:
            k, v = item.split("=", 1)
            out[k] = v
    return out


# -- the child side: runs in its own interpreter with its own JVM ----------------------------------------------


def _serve(conn: Any, settings: dict[str, str], jdbc_jar: str, warehouse: str) -> None:
    """Start Spark with Hive support on the database, then answer operations until told to stop."""
    os.environ.setdefault("SPARK_CONF_DIR", str(Path(__file__).resolve().parents[2] / "hiveacid_sql" / "exec"))
    try:
        ops = _Operations(settings, jdbc_jar, warehouse)
    except Exception as e:  # noqa: BLE001 - reported to the parent, which fails the test
        conn.send(("error", _one_line(e)))
        conn.close()
        return
    while True:
        try:
            op, args = conn.recv()
        except EOFError:
            break
        if op == "stop":
            break
        try:
            conn.send(("ok", getattr(ops, op)(*args)))
        except Exception as e:  # noqa: BLE001 - every failure goes back to the parent as a HiveClientError
            conn.send(("error", _one_line(e)))
    ops.stop()
    conn.close()


def _one_line(e: BaseException) -> str:
    """The error's own message without the Java stack trace (py4j appends it)."""
    text = str(e)
    java = getattr(e, "java_exception", None)
    if java is not None:
        text = f"{java.getClass().getName()}: {java.getMessage()}"
    lines = [ln for ln in text.strip().splitlines() if ln.strip() and not ln.lstrip().startswith("at ")]
    return " | ".join(lines[:3]) if lines else type(e).__name__


class _Operations:
    """What the parent can ask for; every answer is plain Python data (it crosses a pipe)."""

    def __init__(self, settings: dict[str, str], jdbc_jar: str, warehouse: str) -> None:
        from pyspark.sql import SparkSession

        builder = (
            SparkSession.builder.master("local[1]")
            .appName("hive-client")
            .config("spark.ui.enabled", "false")
            .config("spark.ui.showConsoleProgress", "false")
            .config("spark.sql.session.timeZone", "UTC")
            .config("spark.driver.extraJavaOptions", "-Duser.timezone=UTC")
            .config("spark.driver.extraClassPath", jdbc_jar)
            .config("spark.sql.shuffle.partitions", "1")
            .config("spark.sql.catalogImplementation", "hive")
            # Hive's own serdes read and write ORC and Parquet tables (OrcInputFormat/OrcSerde, ParquetHiveSerDe),
            # not Spark's built-in readers that Spark would otherwise swap in
            .config("spark.sql.hive.convertMetastoreOrc", "false")
            .config("spark.sql.hive.convertMetastoreParquet", "false")
            .config("spark.sql.hive.convertMetastoreInsertDir", "false")
            .config("spark.sql.warehouse.dir", warehouse)
        )
        for key, value in settings.items():
            builder = builder.config(f"spark.hadoop.{key}", value)
        self.spark = builder.getOrCreate()
        self.spark.sparkContext.setLogLevel("ERROR")
        jvm = self.spark._jvm  # noqa: SLF001 - py4j's gateway is how PySpark reaches Java classes
        assert jvm is not None
        self.jvm = jvm
        self.spark.sql("SHOW DATABASES").collect()  # the Hive catalog and DataNucleus start here, not in a test
        conf = jvm.org.apache.hadoop.hive.conf.HiveConf()
        for key, value in settings.items():
            conf.set(key, value)
        conf.set("hive.metastore.warehouse.dir", warehouse)
        self.conf = conf
        self.msc = jvm.org.apache.hadoop.hive.metastore.HiveMetaStoreClient(conf)

    def stop(self) -> None:
        try:
            self.msc.close()
        finally:
            self.spark.stop()

    def ping(self) -> str:
        return "pong"

    # SQL --------------------------------------------------------------------------------------------------

    def sql(self, statement: str) -> list[tuple[Any, ...]]:
        return [tuple(row) for row in self.spark.sql(statement).collect()]

    def sql_many(self, statements: list[str]) -> list[list[tuple[Any, ...]]]:
        return [self.sql(s) for s in statements]

    # catalog ------------------------------------------------------------------------------------------------

    def get_databases(self) -> list[str]:
        return [str(d) for d in self.msc.getAllDatabases()]

    def get_database(self, name: str) -> dict[str, Any]:
        d = self.msc.getDatabase(name)
        return {
            "name": d.getName(),
            "description": d.getDescription(),
            "location": d.getLocationUri(),
            "owner": d.getOwnerName(),
            "owner_type": str(d.getOwnerType()) if d.getOwnerType() is not None else None,
            "parameters": _jmap(d.getParameters()),
        }

    def get_tables(self, db: str) -> list[str]:
        return [str(t) for t in self.msc.getAllTables(db)]

    def get_table(self, db: str, table: str) -> dict[str, Any]:
        t = self.msc.getTable(db, table)
        return {
            "db": t.getDbName(),
            "name": t.getTableName(),
            "owner": t.getOwner(),
            "table_type": t.getTableType(),
            "parameters": _jmap(t.getParameters()),
            "partition_keys": [_field(f) for f in t.getPartitionKeys()],
            "view_original_text": t.getViewOriginalText(),
            "view_expanded_text": t.getViewExpandedText(),
            "temporary": bool(t.isTemporary()),
            "sd": _sd(t.getSd()),
        }

    def get_partition_names(self, db: str, table: str) -> list[str]:
        return [str(p) for p in self.msc.listPartitionNames(db, table, -1)]

    def paths(self, db: str, table: str) -> dict[str, Any]:
        jvm = self.jvm
        wh = jvm.org.apache.hadoop.hive.metastore.Warehouse(self.conf)
        database = self.msc.getDatabase(db)
        t = self.msc.getTable(db, table)
        location = t.getSd().getLocation()
        path = jvm.org.apache.hadoop.fs.Path(location)
        fs = path.getFileSystem(self.conf)
        parts = []
        for p in self.msc.listPartitions(db, table, -1):
            part_location = p.getSd().getLocation()
            name = jvm.org.apache.hadoop.hive.metastore.Warehouse.makePartName(t.getPartitionKeys(), p.getValues())
            parts.append({
                "stored": part_location,
                "hive_default": jvm.org.apache.hadoop.fs.Path(path, name).toString(),
                "qualified": wh.getDnsPath(jvm.org.apache.hadoop.fs.Path(part_location)).toString(),
            })
        return {
            "db_stored": database.getLocationUri(),
            "db_qualified": wh.getDnsPath(jvm.org.apache.hadoop.fs.Path(database.getLocationUri())).toString(),
            "hive_db_default": wh.getDefaultDatabasePath(db).toString(),
            "stored": location,
            "hive_default": wh.getDefaultTablePath(database, table).toString(),
            "qualified": wh.getDnsPath(path).toString(),
            "filesystem": fs.getUri().toString(),
            "listing": sorted(str(s.getPath().getName()) for s in fs.listStatus(path)),
            "partitions": sorted(parts, key=lambda p: p["stored"]),
        }

    def get_partitions(self, db: str, table: str) -> list[dict[str, Any]]:
        return [
            {"values": [str(v) for v in p.getValues()], "parameters": _jmap(p.getParameters()), "sd": _sd(p.getSd())}
            for p in self.msc.listPartitions(db, table, -1)
        ]

    # transactions and locks ---------------------------------------------------------------------------------

    def open_txn(self, user: str) -> int:
        return int(self.msc.openTxn(user))

    def open_txns(self, user: str, count: int) -> list[int]:
        return [int(t) for t in self.msc.openTxns(user, count).getTxn_ids()]

    def commit_txn(self, txn_id: int) -> None:
        self.msc.commitTxn(txn_id)

    def abort_txn(self, txn_id: int) -> None:
        self.msc.rollbackTxn(txn_id)

    def show_txns(self) -> list[dict[str, Any]]:
        return [
            {"id": int(t.getId()), "state": str(t.getState()), "user": t.getUser(), "hostname": t.getHostname()}
            for t in self.msc.showTxns().getOpen_txns()
        ]

    def get_valid_txns(self) -> dict[str, Any]:
        v = self.msc.getValidTxns()
        # Hive 2.3's ValidTxnList does not tell open from aborted (isTxnAborted is Hive 3's): both are invalid
        return {
            "high_watermark": int(v.getHighWatermark()),
            "invalid": sorted(int(t) for t in v.getInvalidTransactions()),
            "string": str(v.writeToString()),
        }

    def lock(self, components: list[dict[str, Any]], txn_id: int, user: str) -> dict[str, Any]:
        meta = self.jvm.org.apache.hadoop.hive.metastore
        api = meta.api
        req = meta.LockRequestBuilder("hiveacid-sql-test").setUser(user)
        if txn_id:
            req = req.setTransactionId(txn_id)
        for c in components:
            b = meta.LockComponentBuilder().setDbName(c["db"])
            kind = c["type"].upper()
            b = {"SHARED_READ": b.setShared, "SHARED_WRITE": b.setSemiShared, "EXCLUSIVE": b.setExclusive}[kind]()
            if c.get("table"):
                b = b.setTableName(c["table"])
            if c.get("partition"):
                b = b.setPartitionName(c["partition"])
            b = b.setOperationType(getattr(api.DataOperationType, c.get("operation", "NO_TXN").upper()))
            b = b.setIsAcid(bool(c.get("acid", True)))
            req = req.addLockComponent(b.build())
        resp = self.msc.lock(req.build())
        return {"lock_id": int(resp.getLockid()), "state": str(resp.getState())}

    def check_lock(self, lock_id: int) -> str:
        return str(self.msc.checkLock(lock_id).getState())

    def unlock(self, lock_id: int) -> None:
        self.msc.unlock(lock_id)

    def show_locks(self) -> list[dict[str, Any]]:
        out = []
        for e in self.msc.showLocks().getLocks():
            out.append({
                "lock_id": int(e.getLockid()),
                "db": e.getDbname(),
                "table": e.getTablename(),
                "partition": e.getPartname(),
                "state": str(e.getState()),
                "type": str(e.getType()),
                "txn_id": int(e.getTxnid()),
                "user": e.getUser(),
            })
        return out

    def heartbeat(self, txn_id: int, lock_id: int) -> None:
        self.msc.heartbeat(txn_id, lock_id)

    def compact(self, db: str, table: str, partition: str | None, kind: str) -> dict[str, Any]:
        kind_enum = getattr(self.jvm.org.apache.hadoop.hive.metastore.api.CompactionType, kind.upper())
        resp = self.msc.compact2(db, table, partition, kind_enum, None)
        return {"id": int(resp.getId()), "state": str(resp.getState()), "accepted": bool(resp.isAccepted())}

    def show_compactions(self) -> list[dict[str, Any]]:
        return [
            {
                "id": int(c.getId()) if c.isSetId() else None,
                "db": c.getDbname(),
                "table": c.getTablename(),
                "partition": c.getPartitionname(),
                "type": str(c.getType()),
                "state": str(c.getState()),
            }
            for c in self.msc.showCompactions().getCompacts()
        ]


def _jmap(m: Any) -> dict[str, str]:
    return {} if m is None else {str(k): str(v) for k, v in dict(m).items()}


def _field(f: Any) -> tuple[str, str, str | None]:
    c = f.getComment()
    return (str(f.getName()), str(f.getType()), None if c is None else str(c))


def _sd(sd: Any) -> dict[str, Any]:
    serde = sd.getSerdeInfo()
    return {
        "cols": [_field(f) for f in sd.getCols()],
        "location": sd.getLocation(),
        "input_format": sd.getInputFormat(),
        "output_format": sd.getOutputFormat(),
        "compressed": bool(sd.isCompressed()),
        "num_buckets": int(sd.getNumBuckets()),
        "bucket_cols": [str(c) for c in sd.getBucketCols()],
        "sort_cols": [(str(o.getCol()), int(o.getOrder())) for o in sd.getSortCols()],
        "serde": None if serde is None else serde.getSerializationLib(),
        "serde_parameters": {} if serde is None else _jmap(serde.getParameters()),
        "parameters": _jmap(sd.getParameters()),
    }
