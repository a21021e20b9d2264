"""``%load_ext hiveacid_sql``, ``%acid`` and ``%%acid`` in a real IPython shell, on the shared SparkSession."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from hiveacid_sql.jupyter.display import DmlReport, QueryResult
from hiveacid_sql.jupyter.magic import AcidMagic, split_options
from hiveacid_sql.jupyter.params import ParameterError, literal, substitute
from tests.support.acid_files import listing

CREATE = ("CREATE TABLE employee (id int, name string, salary int) "
          "STORED AS ORC TBLPROPERTIES ('transactional'='true')")


@pytest.fixture()
def shell(spark, warehouse):
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "hiveacid_sql")
    ip.user_ns["wh"] = str(warehouse)
    yield ip
    magic = ip.magics_manager.registry["AcidMagic"]
    magic.close()
    magic.limit, magic.warehouse = 100, None
    assert not spark.sparkContext._jsc.sc().isStopped()  # the kernel's own Spark is never stopped


def cell(ip: InteractiveShell, text: str):
    """Run a cell; return its displayed value, re-raising what the cell raised."""
    result = ip.run_cell(text)
    if result.error_before_exec or result.error_in_exec:
        raise result.error_before_exec or result.error_in_exec
    return result.result


def test_cell_and_line_magic_show_reports_rows_and_keep_results(shell, warehouse, capsys):
    shell.run_line_magic("acid", f"--warehouse {warehouse}")
    assert cell(shell, f"%%acid\n{CREATE}") is None
    report = cell(shell, "%%acid\nINSERT INTO employee VALUES (1, 'Jerry', 5000), (2, 'Tom', 8000), (3, 'Kate', 6000)")
    assert isinstance(report, DmlReport)
    assert repr(report).startswith("INSERT default.employee: 3 row(s) affected, txn 1, write id 1, ")
    assert "<th style='text-align:left'>write_id</th><td>1</td>" in report._repr_html_()
    assert listing(warehouse / "employee") == ["delta_0000001_0000001_0000/_orc_acid_version",
                                              "delta_0000001_0000001_0000/bucket_00000"]
    # several statements: earlier DML reports are printed, the last query's rows are shown
    rows = cell(shell, "%%acid -l 2 -o everyone\nUPDATE employee SET salary = 7000 WHERE id = 2;\n"
                       "SELECT row__id, id, name FROM employee ORDER BY id")
    assert "UPDATE default.employee: 1 row(s) affected, txn 2, write id 2" in capsys.readouterr().out
    assert isinstance(rows, QueryResult) and rows.truncated and len(rows) == 2
    assert [r[1] for r in rows.rows] == [1, 2]
    page = rows._repr_html_()
    assert "<th>row__id</th>" in page and "Showing the first 2 rows" in page
    assert "<td>{&quot;writeid&quot;:1,&quot;bucketid&quot;:536870912,&quot;rowid&quot;:0}</td>" in page
    assert shell.user_ns["everyone"].count() == 3  # -o keeps the whole result, not the shown rows
    one = cell(shell, "%acid SELECT salary FROM employee WHERE id = 2")
    assert one.rows == [(7000,)] and not one.truncated and repr(one).endswith("1 row")


def test_notebook_variables_in_sql(shell, warehouse):
    shell.run_line_magic("acid", f"--warehouse {warehouse}")
    shell.run_line_magic("acid", CREATE)
    shell.user_ns.update(tbl="employee", emp_id=2, new_name="O'Brien \\ Jr", ids=[1, 2], cap=Decimal("7500.5"))
    cell(shell, "%acid INSERT INTO {{tbl}} VALUES (1, 'a', 1), (2, 'b', 2), (3, 'c', 3)")
    cell(shell, "%%acid\nUPDATE {{ tbl }} SET name = :new_name WHERE id = :emp_id -- :emp_id in a comment")
    got = cell(shell, "%acid SELECT id, name, ':ids' AS lit FROM employee WHERE id IN :ids AND salary < :cap ORDER BY id")
    assert got.rows == [(1, "a", ":ids"), (2, "O'Brien \\ Jr", ":ids")]
    # IPython's own {var} / $var expansion is off: braces reach the SQL untouched
    assert cell(shell, "%acid SELECT '{tbl}' AS a, '$tbl' AS b").rows == [("{tbl}", "$tbl")]
    with pytest.raises(UsageError, match=r"\{\{nope\}\} is not defined in the notebook"):
        cell(shell, "%acid SELECT * FROM {{nope}}")


def test_errors_are_one_line_and_a_cell_runs_only_if_it_all_parses(shell, warehouse):
    shell.run_line_magic("acid", f"--warehouse {warehouse}")
    shell.run_line_magic("acid", CREATE)
    with pytest.raises(UsageError, match=r"^SqlError: line 2, col 1: Unknown statement 'UPDTE'$"):
        cell(shell, "%%acid\nINSERT INTO employee VALUES (1, 'a', 1);\nUPDTE employee SET salary = 2")
    assert listing(warehouse / "employee") == []
    with pytest.raises(UsageError, match=r"^PlanError: line 1, col 15: Table not found 'default.nope'$"):
        cell(shell, "%acid SELECT * FROM nope")
    with pytest.raises(UsageError, match=r"^PlanError: \[UNRESOLVED_ROUTINE\] Cannot resolve routine `NO_SUCH_FUNCTION`"):
        cell(shell, "%acid SELECT no_such_function(1)")
    with pytest.raises(UsageError, match="--limit expects a number of rows, got 'x'"):
        cell(shell, "%acid --limit x SELECT 1")
    with pytest.raises(UsageError, match="--connection nothing: no hiveacid_sql connection"):
        cell(shell, "%acid --connection nothing SELECT 1")


def test_config_limit_existing_connection_and_close(shell, acid, warehouse):
    shell.user_ns["my_acid"] = acid
    shell.run_line_magic("config", "AcidMagic.limit = 1")
    cell(shell, f"%acid --connection my_acid {CREATE}")
    acid.sql("INSERT INTO employee VALUES (1, 'a', 1), (2, 'b', 2)")  # the same connection, seen by both
    shown = cell(shell, "%acid SELECT id FROM employee ORDER BY id")
    assert shown.rows == [(1,)] and shown.truncated
    assert cell(shell, "%acid -l 0 SELECT id FROM employee ORDER BY id").rows == [(1,), (2,)]
    magic: AcidMagic = shell.magics_manager.registry["AcidMagic"]
    assert magic.connection is acid
    shell.run_line_magic("acid", "--close")
    assert magic.connection is None and acid.sql("SELECT 1 AS x").collect()[0].x == 1  # not closed: not ours


def test_transactions_and_dry_runs_in_cells(shell, warehouse):
    shell.run_line_magic("acid", f"--warehouse {warehouse}")
    cell(shell, f"%%acid\n{CREATE};\nINSERT INTO employee VALUES (1, 'Jerry', 5000), (2, 'Tom', 8000)")
    cell(shell, "%%acid\nBEGIN;\nDELETE FROM employee;\nROLLBACK")
    preview = cell(shell, "%acid --dry-run UPDATE employee SET salary = 7000 WHERE id = 2")
    assert isinstance(preview, QueryResult)
    change = dict(zip(preview.columns, preview.rows[0], strict=True))
    assert (change["action"], change["old_salary"], change["new_salary"]) == ("update", 8000, 7000)
    assert cell(shell, "%acid SELECT id, salary FROM employee ORDER BY id").rows == [(1, 5000), (2, 8000)]
    assert not list((warehouse / "employee").glob("delete_delta_0000003*"))


def test_config_gives_the_connection_its_options(shell, tmp_path):
    target = tmp_path / "configured"
    shell.run_line_magic("config", f"AcidMagic.warehouse = {str(target)!r}")
    cell(shell, f"%acid {CREATE}")
    assert shell.magics_manager.registry["AcidMagic"].connection.warehouse == str(target)
    assert (target / ".hiveacid/txn.db").exists() and (target / "employee").is_dir()


def test_options_and_literals_in_process():
    opts, sql = split_options("-l 5 --out=res --warehouse '/tmp/a b' --conf spark.x=1 SELECT '-l 3' AS x")
    assert opts == {"limit": 5, "out": "res", "warehouse": "/tmp/a b", "conf": {"spark.x": "1"}}
    assert sql == "SELECT '-l 3' AS x"
    assert split_options("-- a comment\nSELECT 1") == ({"conf": {}}, "-- a comment\nSELECT 1")
    assert literal(None) == "NULL" and literal(True) == "TRUE" and literal(3) == "3" and literal(1.5) == "1.5"
    assert literal(Decimal("2.50")) == "2.50BD" and literal("it's \\") == "'it\\'s \\\\'"
    assert literal(dt.date(2020, 1, 2)) == "DATE '2020-01-02'"
    assert literal(dt.datetime(2020, 1, 2, 3, 4, 5)) == "TIMESTAMP '2020-01-02 03:04:05'"
    assert literal((1, "a")) == "(1, 'a')"
    with pytest.raises(ParameterError, match="no SQL literal"):
        literal(object())
    ns = {"x": 1, "int": 5}
    assert substitute("SELECT :x, ${hivevar:x}, map('k', 1), CAST(a AS struct<int:int>), ':x', a::int", ns) == \
        "SELECT 1, ${hivevar:x}, map('k', 1), CAST(a AS struct<int:int>), ':x', a::int"
    assert substitute("SELECT :undefined_name", ns) == "SELECT :undefined_name"
