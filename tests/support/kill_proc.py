"""A driver process to be killed (``tests/system/test_kill.py``): it connects to the shared warehouse and store,
says ``running`` on stdout, then runs its statements through Spark tasks (no driver-side shortcut); several
statements (a transaction: BEGIN .. COMMIT) are separated by lines holding only ``;``.

    python -m tests.support.kill_proc <warehouse> <store_url> <statement>
"""

from __future__ import annotations

import sys

import hiveacid_sql

if __name__ == "__main__":
    warehouse, url, statement = sys.argv[1:4]
    acid = hiveacid_sql.connect(
        warehouse=warehouse, store_url=url, master="local[1]",
        **{"spark.sql.shuffle.partitions": "2", "spark.ui.enabled": "false"},
    )
    acid.sql("SET hiveacid.driver.write.max.rows=0")
    print("running", flush=True)
    for one in statement.split("\n;\n"):
        acid.sql(one)
    print("done", flush=True)
    acid.close()
