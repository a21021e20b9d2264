"""A streaming driver to be killed (``tests/system/test_stream_kill.py``): a Structured Streaming query reading
JSON files one per micro-batch into table ``t`` through ``acid.stream_writer``; says ``running`` on stdout
once the query started.

    python -m tests.support.stream_kill_proc <warehouse> <store_url> <source dir> <checkpoint dir>
"""

from __future__ import annotations

import sys

import hiveacid_sql

if __name__ == "__main__":
    warehouse, url, source, checkpoint = sys.argv[1:5]
    acid = hiveacid_sql.connect(
        warehouse=warehouse,
        store_url=url,
        master="local[1]",
        **{"spark.sql.shuffle.partitions": "1", "spark.ui.enabled": "false"},
    )
    frame = acid.spark.readStream.schema("id int, f int").option("maxFilesPerTrigger", 1).json(source)
    query = (
        frame.writeStream.foreachBatch(acid.stream_writer("t"))
        .option("checkpointLocation", checkpoint)
        .start()
    )
    print("running", flush=True)
    query.awaitTermination()
