"""Several drivers, one warehouse: the engine on a PostgreSQL or MariaDB store, two connections sharing it."""

from __future__ import annotations

import pytest

import hiveacid_sql
from hiveacid_sql.errors import CommitOutcomeUnknownError
from tests.support.stores import store_url


@pytest.mark.parametrize("backend", ["postgres", "mariadb", "sqlite"])
def test_two_connections_share_tables_and_transactions(spark, tmp_path, backend):
    with store_url(backend, tmp_path) as url:
        warehouse = tmp_path / "wh"
        first = hiveacid_sql.connect(spark=spark, warehouse=warehouse, store_url=url)
        second = hiveacid_sql.connect(spark=spark, warehouse=warehouse, store_url=url)
        try:
            first.sql("CREATE TABLE employee (id int, name string, salary int) STORED AS ORC "
                      "TBLPROPERTIES ('transactional'='true')")
            r1 = first.sql("INSERT INTO employee VALUES (1, 'Jerry', 5000), (2, 'Tom', 8000)")
            r2 = second.sql("UPDATE employee SET salary = 7000 WHERE id = 2")
            assert (r1.write_id, r2.write_id) == (1, 2)
            assert r2.txn_id > r1.txn_id
            rows = first.sql("SELECT id, salary FROM employee ORDER BY id").collect()
            assert [(r.id, r.salary) for r in rows] == [(1, 5000), (2, 7000)]
            assert [r.tab_name for r in second.sql("SHOW TABLES").collect()] == ["employee"]
        finally:
            first.close()
            second.close()


@pytest.mark.parametrize("ready_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True)
def test_an_update_whose_commit_reply_is_lost_succeeds_once(spark, tmp_path, ready_url):
    """The store's COMMIT of an UPDATE's transaction reaches PostgreSQL, its reply is lost (a proxy drops it and
    the connection): the statement asks the store again, finds it committed and returns its result; the table
    holds the update once, the files stay. Nothing for a user to retry, so nothing applied twice. Then a lost reply
    with the store unreachable afterwards: an unknown outcome in one line, and the committed update kept."""
    from tests.support.tcp_proxy import PG_COMMIT, losing_proxy

    with losing_proxy(ready_url) as proxy:
        acid = hiveacid_sql.connect(spark=spark, warehouse=tmp_path / "wh", store_url=proxy.url(ready_url))
        try:
            acid.sql("CREATE TABLE t (id int, v int) STORED AS ORC TBLPROPERTIES ('transactional'='true')")
            acid.sql("INSERT INTO t VALUES (1, 10), (2, 20)")
            proxy.lose_reply_to(PG_COMMIT, after=b"COMPLETED_TXN_COMPONENTS")  # a transaction's commit
            result = acid.sql("UPDATE t SET v = v + 100 WHERE id = 2")
            assert proxy.lost == 1
            assert (result.num_updated_rows, result.write_id) == (1, 2)
            assert acid.store.txn_state(result.txn_id) == "committed"
            assert [(r.id, r.v) for r in acid.sql("SELECT id, v FROM t ORDER BY id").collect()] == [(1, 10), (2, 120)]
            history = acid.sql("DESCRIBE HISTORY t").collect()
            assert [(h.write_id, h.operation) for h in history] == [(2, "UPDATE"), (1, "INSERT")]
            # lost again, and the store unreachable to ask: the outcome is unknown, said in one line; the files
            # stay, and once the store is back the table shows the update, which had committed
            proxy.lose_reply_to(PG_COMMIT, after=b"COMPLETED_TXN_COMPONENTS")
            proxy.refuse_after_loss = True
            with pytest.raises(CommitOutcomeUnknownError, match=r"^transaction store .*; whether txnid:\d+ committed "
                               r"is unknown \(the store did not answer after the commit: .*\); SHOW TRANSACTIONS"):
                acid.sql("UPDATE t SET v = v + 1000 WHERE id = 1")
            proxy.refuse_after_loss = False
            assert [(r.id, r.v) for r in acid.sql("SELECT id, v FROM t ORDER BY id").collect()] == [(1, 1010), (2, 120)]
        finally:
            acid.close()
