"""``connect()`` starts no JVM until a statement needs Spark (issue 18).

The statements that read only the store and the catalog (SET, USE, CREATE / SHOW / DESCRIBE, BEGIN / COMMIT /
ROLLBACK, SHOW TRANSACTIONS / LOCKS / COMPACTIONS, a queued COMPACT, EXPLAIN) run in a child Python process, which then
reports whether PySpark ever launched its gateway (the JVM). A child because the test run may hold a JVM of
its own; the child starts none, so this stays a unit test (a few seconds of imports).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SCRIPT = r"""
import contextlib, io, json, sys
import hiveacid_sql
from pyspark import SparkContext

acid = hiveacid_sql.connect(warehouse=sys.argv[1])
out = {}
run = lambda text: acid.sql(text)
out["set"] = str(run("SET hive.lock.numretries=7"))
out["set_show"] = [tuple(r) for r in run("SET hive.lock.numretries").collect()]
run("CREATE DATABASE sales")
run("USE sales")
run("CREATE TABLE orders (id int, amount bigint) PARTITIONED BY (day string) STORED AS ORC "
    "TBLPROPERTIES ('transactional'='true')")
out["tables"] = [r.tab_name for r in run("SHOW TABLES").collect()]
out["databases"] = [r[0] for r in run("SHOW DATABASES").collect()]
described = run("DESCRIBE orders")
out["describe"] = [tuple(r) for r in described.take(2)]
out["describe_columns"] = described.columns
out["formatted_rows"] = run("DESCRIBE FORMATTED orders").count()
out["create"] = run("SHOW CREATE TABLE orders").first()[0].splitlines()[0]
out["props"] = dict(tuple(r) for r in run("SHOW TBLPROPERTIES orders").collect())["transactional"]
run("BEGIN")
txns = run("SHOW TRANSACTIONS")
out["txns"] = [(r["Transaction ID"], r["Transaction State"]) for r in txns.collect()]
out["txn_types"] = txns.dtypes
out["locks"] = run("SHOW LOCKS").count()
run("COMMIT")
run("BEGIN")
run("ROLLBACK")
run("CREATE TABLE events (id int) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
out["compact"] = [r.state for r in run("ALTER TABLE events COMPACT 'major'").collect()]
out["explain"] = [r[0] for r in run("EXPLAIN DELETE FROM events WHERE id = 1").collect()]
out["explain_partitioned"] = [r[0] for r in run("EXPLAIN SELECT * FROM orders").collect()]
shown = io.StringIO()
with contextlib.redirect_stdout(shown):
    run("SHOW COMPACTIONS").show()
out["compactions_shown"] = shown.getvalue()
out["pandas"] = run("SHOW TABLES").toPandas()["tab_name"].tolist()
out["jvm"] = SparkContext._gateway is not None or SparkContext._active_spark_context is not None
out["started"] = acid.running_spark() is not None
acid.close()
print(json.dumps(out))
"""


def test_statements_that_need_no_spark_start_no_jvm(tmp_path: Path) -> None:
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "warehouse")],
        capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["jvm"] is False and out["started"] is False
    assert out["set"].startswith("SET: OK")
    assert out["set_show"] == [["hive.lock.numretries=7"]]
    assert out["tables"] == ["orders"] and out["pandas"] == ["events", "orders"]
    assert out["databases"] == ["default", "sales"]
    assert out["describe"] == [["id", "int", ""], ["amount", "bigint", ""]]
    assert out["describe_columns"] == ["col_name", "data_type", "comment"]
    assert out["formatted_rows"] > 10
    assert out["create"] == "CREATE TABLE `sales`.`orders`("
    assert out["props"] == "true"
    assert len(out["txns"]) == 1 and out["txns"][0][1] == "OPEN"
    assert ["Started Time", "bigint"] in out["txn_types"]
    assert out["compact"] == ["initiated"]
    assert any(line.startswith("Read sales.events at write ids") for line in out["explain"])
    assert any(line.startswith("Write sales.events as write id 1") for line in out["explain"]), out["explain"]
    assert any(line.startswith("Read sales.orders") for line in out["explain_partitioned"])
    table = out["compactions_shown"].splitlines()
    assert table[1].startswith("|compactionid|dbname|tabname|") and "| sales| events|" in table[3]
    assert done.stderr.strip() == "", done.stderr[-2000:]  # nothing on stderr either
