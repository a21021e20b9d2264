"""A streaming-connection writer to be killed (``tests/system/test_stream_kill.py``), no Spark: it resumes from
the offset committed with its last transaction (``last_committed_value``) and writes ids ``offset..offset+9`` per
transaction into table ``t`` until ``total``; says ``running`` on stdout first.

    python -m tests.support.stream_api_kill_proc <store_url> <total>
"""

from __future__ import annotations

import sys

from hiveacid_sql.engine.streaming import StreamingConnection
from hiveacid_sql.txn import TxnStore

KEY = "_meta.test.offset"


def stream(url: str, total: int) -> None:
    store = TxnStore(url)
    table = store.catalog.get_table("default", "t")
    with StreamingConnection(store, table, transaction_batch_size=4) as conn:
        offset = int(conn.last_committed_value(KEY) or 0)
        print("running", flush=True)
        while offset < total:
            conn.begin_transaction()
            conn.write([(i,) for i in range(offset, min(offset + 10, total))])
            offset = min(offset + 10, total)
            conn.commit_transaction(KEY, str(offset))
    store.close()


if __name__ == "__main__":
    stream(sys.argv[1], int(sys.argv[2]))
