"""Several drivers, one warehouse: the engine on a PostgreSQL or MariaDB store, two connections sharing it."""

from __future__ import annotations

import pytest

import hiveacid_sql
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
