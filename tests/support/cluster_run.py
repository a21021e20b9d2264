"""Run the DML subset, or only ``connect()``, on a ``local-cluster`` Spark in this process (a child of the test).

Why a child process: one Python process holds one SparkContext, and the test run's shared one is
``local[2]``; a ``local-cluster[N,cores,MB]`` master starts a standalone master and N workers whose executors
are JVMs (and Python workers) of their own, as on a real cluster. The executors' Python is
``$PYSPARK_PYTHON`` as the test sets it.

    python -m tests.support.cluster_run dml WAREHOUSE        # prints {"ok": true} or fails
    python -m tests.support.cluster_run connect WAREHOUSE    # prints {"error": "<message>"} or {"ok": true}
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

MASTER = "local-cluster[2,1,1024]"
CONF = {
    "spark.executor.memory": "512m",
    "spark.driver.memory": "768m",
    "spark.sql.shuffle.partitions": "2",
    "spark.default.parallelism": "2",
    "spark.task.maxFailures": "1",
    # the executors' JVMs take the test run's JVM options too (tests/conftest.py TEST_JVM_OPTIONS; the driver's
    # come through SPARK_SUBMIT_OPTS)
    "spark.executor.extraJavaOptions": f"-Duser.timezone=UTC {os.environ.get('SPARK_SUBMIT_OPTS', '')}".strip(),
}


def main(mode: str, warehouse: Path) -> int:
    import hiveacid_sql
    from hiveacid_sql.errors import HiveAcidError
    from tests.support import dml_subset

    try:
        acid = hiveacid_sql.connect(warehouse=warehouse, master=MASTER, **CONF)
    except HiveAcidError as exc:
        print(json.dumps({"error": str(exc)}))
        return 0
    with acid:
        if mode == "dml":
            executors = acid.spark.sparkContext._jsc.sc().getExecutorMemoryStatus().size() - 1  # noqa: SLF001
            if executors < 1:
                raise AssertionError("no executor registered")
            # the subset's tables are small: without these the statements read and write them on the driver,
            # and the executors' Python (with hiveacid_sql, pyorc, pyarrow) would never run our tasks
            acid.sql("SET hiveacid.driver.write.max.rows=0")
            acid.sql("SET hiveacid.driver.scan.max.rows=0")
            acid.sql("SET spark.hiveacid.read.small.file.max.rows=0")
            dml_subset.walkthrough(acid, warehouse)
            dml_subset.update_delete_merge(acid, acid.spark)
            dml_subset.compaction(acid, warehouse)
            dml_subset.transaction(acid)
    print(json.dumps({"ok": True}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], Path(sys.argv[2])))
