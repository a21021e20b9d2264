"""The shell command (dump and -e/-f) and the one-line errors users see for bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from hiveacid_sql.cli import main
from hiveacid_sql.errors import PlanError, SqlError, UnsupportedStatementError
from tests.support.acid_files import listing

CREATE = "CREATE TABLE employee (id int, name string, salary int) STORED AS ORC TBLPROPERTIES ('transactional'='true')"


def test_dump_prints_events_and_metadata_of_a_table_directory(acid, warehouse, capsys):
    acid.sql(CREATE)
    acid.sql("INSERT INTO employee VALUES (1, 'Jerry', 5000), (2, 'Tom', 8000)")
    acid.sql("DELETE FROM employee WHERE id = 2")
    assert main(["dump", str(warehouse / "employee")]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    headers = [line for line in lines if "file" in line]
    assert [h["file"].split("employee/")[1] for h in headers] == [
        "delete_delta_0000002_0000002_0000/bucket_00000",
        "delta_0000001_0000001_0000/bucket_00000",
    ]
    assert headers[1]["metadata"]["hive.acid.key.index"] == "1,536870912,1;"
    evs = [line for line in lines if "operation" in line]
    assert evs[0] == {"operation": 2, "originalTransaction": 1, "bucket": 536870912, "rowId": 1,
                      "currentTransaction": 2, "row": None}
    assert evs[1]["row"] == {"id": 1, "name": "Jerry", "salary": 5000}


def test_dump_of_a_missing_path_fails_cleanly(tmp_path, capsys):
    assert main(["dump", str(tmp_path / "nope")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("hiveacid-sql:") and len(err.strip().splitlines()) == 1


@pytest.mark.release  # CI budget: its own JVM (~30 s); tests/system/test_runner.py runs scripts in CI
def test_command_line_runs_a_script(tmp_path):
    script = tmp_path / "job.sql"
    script.write_text(
        "-- a comment; with a semicolon\n"
        f"{CREATE};\n"
        "INSERT INTO employee VALUES (1, 'a;b', 5000);\n"
        "SELECT name FROM employee;\n"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "hiveacid_sql.cli", "-f", str(script), "--warehouse", str(tmp_path / "wh"),
         "--master", "local[1]"],
        capture_output=True, text=True, timeout=240, cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "INSERT default.employee: 1 row(s) affected, txn 1, write id 1" in proc.stderr  # reports: stderr
    assert "a;b" in proc.stdout
    assert (tmp_path / "wh/employee/delta_0000001_0000001_0000/bucket_00000").exists()


def test_parse_error_names_line_and_column_and_changes_nothing(acid, warehouse):
    acid.sql(CREATE)
    with pytest.raises(SqlError) as err:
        acid.sql("INSERT INTO employee VALUES (1, 'a', 1);\nUPDTE employee SET salary = 1")
    assert str(err.value).startswith("line 2, col 1:") and "\n" not in str(err.value)
    assert listing(warehouse / "employee") == []  # the whole script is parsed before anything runs


def test_unsupported_statement_says_so(acid):
    acid.sql(CREATE)
    with pytest.raises(UnsupportedStatementError) as err:
        acid.sql("ANALYZE TABLE employee COMPUTE STATISTICS")
    assert "not supported" in str(err.value) and "\n" not in str(err.value)


def test_missing_table_and_column_errors(acid, warehouse):
    acid.sql(CREATE)
    acid.sql("INSERT INTO employee VALUES (1, 'a', 1)")
    before = listing(warehouse / "employee")
    with pytest.raises(PlanError, match=r"^line 1, col 8: Table not found 'default.nope'$"):
        acid.sql("UPDATE nope SET salary = 1")
    with pytest.raises(PlanError, match="Invalid column reference 'bonus'"):
        acid.sql("UPDATE employee SET bonus = 1")
    with pytest.raises(PlanError) as err:
        acid.sql("DELETE FROM employee WHERE bonus > 1")
    assert "bonus" in str(err.value) and "__hacid" not in str(err.value) and "\n" not in str(err.value)
    with pytest.raises(PlanError, match="has 3 columns, but query has 2 columns"):
        acid.sql("INSERT INTO employee VALUES (1, 'a')")
    acid.sql("CREATE TABLE plain (id int)")
    with pytest.raises(PlanError, match="10297"):
        acid.sql("DELETE FROM plain")
    assert listing(warehouse / "employee") == before
    assert acid.sql("SELECT count(*) AS n FROM employee").collect()[0].n == 1


def test_explain_shows_snapshot_files_and_target_directories(acid):
    acid.sql(CREATE)
    acid.sql("INSERT INTO employee VALUES (1, 'a', 1)")
    lines = [r.Explain for r in acid.sql("EXPLAIN UPDATE employee SET salary = 2 WHERE id = 1").collect()]
    text = "\n".join(lines)
    assert "Statement: UPDATE" in text
    assert "insert deltas: delta_0000001_0000001_0000" in text
    assert text.rstrip().endswith("employee/delta_0000002_0000002_0000")
    assert "delete_delta_0000002_0000002_0000" in text
    # EXPLAIN wrote nothing and took no write id
    assert acid.sql("INSERT INTO employee VALUES (2, 'b', 2)").write_id == 2
