"""The ``hiveacid-sql`` command, driven for real: subprocesses on a real warehouse, output parsed back.

Each subprocess starts its own Spark (slow), so each run checks many options at once. The pieces with no
Spark in them (splitter, variables, formats, the progress bar's text) are tested in-process below.
"""

from __future__ import annotations

import csv
import io
import json
import os
import pty
import re
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hiveacid_sql.cli.output import render
from hiveacid_sql.cli.progress import render_stages
from hiveacid_sql.cli.script import positioned, split_script, statements_of
from hiveacid_sql.cli.variables import VariableError, Variables

CLI = [sys.executable, "-m", "hiveacid_sql.cli"]
ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"


def run_cli(tmp_path: Path, *args: str, input: str | None = None, env: dict | None = None):
    return subprocess.run(
        [*CLI, *args], capture_output=True, text=True, input=input, cwd=tmp_path, timeout=300,
        env={**os.environ, **(env or {})},
    )


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("Error: ")]


def csv_results(text: str, delimiter: str = ",") -> list[list[list[str]]]:
    """Several csv2/tsv2 results printed one after another, split at their header rows (first cell 'id')."""
    results: list[list[list[str]]] = []
    for row in csv.reader(io.StringIO(text), delimiter=delimiter):
        if row and row[0] == "id":
            results.append([row])
        elif row:
            results[-1].append(row)
    return results


# -- subprocess runs -----------------------------------------------------------------------------------
def test_script_with_init_file_variables_settings_csv_report_and_connection_options(tmp_path):
    (tmp_path / "init.sql").write_text("-- init: a variable and a setting\nSET hivevar:tbl=employee;\n"
                                       "SET my.threshold=6000;\nSET hiveconf:my.floor=1;\n")
    (tmp_path / "job.sql").write_text(
        f"CREATE TABLE ${{tbl}} (id int, name string, salary int)\n  {ACID};\n"
        "/* semicolons ; in comments */ INSERT INTO ${hivevar:tbl} VALUES (1, 'Jerry', ${base}),\n"
        "  (2, 'Tom;\"x\"', 8000), (3, '${env:HIVEACID_TEST_NAME}', ${salary3}); -- and here;\n"
        "UPDATE employee SET salary = 7000 WHERE salary > ${my.threshold} AND salary < ${hiveconf:my.cap} AND id >= ${my.floor};\n"
        "SELECT id, name, salary, current_timezone() AS tz FROM employee ORDER BY id;\n"
        "SELECT id, CAST(NULL AS string) AS nothing FROM employee WHERE id = 1\n"  # last one: no ';'
    )
    store = tmp_path / "elsewhere" / "store.db"
    store.parent.mkdir()
    proc = run_cli(
        tmp_path, "-i", "init.sql", "-f", "job.sql", "--hivevar", "base=5000", "-d", "salary3=6500",
        "--define", "unused=1", "--hiveconf", "my.cap=9000", "--conf", "spark.sql.session.timeZone=America/New_York",
        "--master", "local[1]", "--warehouse", "wh", "--store-url", f"sqlite:///{store}",
        "--outputformat", "csv2", "--report", "rep.jsonl", "--verbose",
        env={"HIVEACID_TEST_NAME": "Kate"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    first, second = csv_results(proc.stdout)
    assert first == [["id", "name", "salary", "tz"], ["1", "Jerry", "5000", "America/New_York"],
                     ["2", 'Tom;"x"', "7000", "America/New_York"], ["3", "Kate", "7000", "America/New_York"]]
    assert second == [["id", "nothing"], ["1", "NULL"]]
    assert '"Tom;""x"""' in proc.stdout  # quoted only where needed, as beeline's csv2
    # reports and the connection on stderr; --verbose echoes each statement with its file line
    assert "UPDATE default.employee: 2 row(s) affected, txn 2, write id 2," in proc.stderr
    assert "master local[1]" in proc.stderr and f"store sqlite:///{store}" in proc.stderr
    assert "-- job.sql:7\nSELECT id, CAST(NULL AS string)" in proc.stderr
    assert "3 rows selected" in proc.stderr
    records = [json.loads(line) for line in (tmp_path / "rep.jsonl").read_text().splitlines()]
    assert [(r["source"], r["line"], r["kind"], r["status"]) for r in records] == [
        ("init.sql", 2, "SET", "ok"), ("init.sql", 3, "SET", "ok"), ("init.sql", 4, "SET", "ok"),
        ("job.sql", 1, "CREATE", "ok"),
        ("job.sql", 3, "INSERT", "ok"), ("job.sql", 5, "UPDATE", "ok"), ("job.sql", 6, "SELECT", "ok"),
        ("job.sql", 7, "SELECT", "ok")]
    update = records[5]
    assert update["statement"] == \
        "UPDATE employee SET salary = 7000 WHERE salary > 6000 AND salary < 9000 AND id >= 1"
    assert update["result"]["num_updated_rows"] == 2 and update["result"]["write_id"] == 2
    assert sorted(update["result"]["directories"]) == ["delete_delta_0000002_0000002_0000",
                                                       "delta_0000002_0000002_0000"]
    assert records[6]["rows"] == 3 and isinstance(records[5]["elapsed_ms"], int)
    assert (tmp_path / "wh/employee/delete_delta_0000002_0000002_0000/bucket_00000").exists()
    assert store.exists() and not (tmp_path / "wh/.hiveacid/txn.db").exists()


ERRORS_SQL = (
    f"CREATE TABLE t (id int, v string) {ACID};\n"  # 1
    "INSERT INTO t VALUES (1, 'a\\tb');\n"  # 2: a tab inside the value
    "SELECT id,\n       v FROM t;\n"  # 3-4
    "UPDTE t SET v = 'x';\n"  # 5: does not parse
    "UPDATE t SET nope = 1;\n"  # 6: unknown column
    "SELECT '${undefined_var}';\n"  # 7: undefined variable
    "SELECT * FROM missing_table;\n"  # 8: unknown table
    "INSERT INTO t VALUES (2, NULL);\n"  # 9
    "SELECT id, v FROM t ORDER BY id;\n"  # 10
)


@pytest.mark.release  # CI budget: its own JVM (~30 s); CI keeps the option-rich run and the README job
def test_force_goes_on_past_errors_with_file_positions_tsv_and_silent(tmp_path):
    (tmp_path / "errors.sql").write_text(ERRORS_SQL)
    proc = run_cli(tmp_path, "-f", "errors.sql", "--force", "--outputformat", "tsv2", "--silent",
                   "--master", "local[1]", "--warehouse", "wh")
    assert proc.returncode == 1  # a statement failed, even though --force ran the rest
    errors = error_lines(proc.stderr)
    assert len(errors) == 4, proc.stderr[-3000:]
    assert errors[0].startswith("Error: errors.sql:5:1: Unknown statement 'UPDTE' (statement: UPDTE t SET")
    assert errors[1].startswith("Error: errors.sql:6:14: ") and "nope" in errors[1]
    assert errors[2].startswith("Error: errors.sql:7: undefined variable ${undefined_var}")
    assert errors[3].startswith("Error: errors.sql:8") and "missing_table" in errors[3]
    assert "row(s) affected" not in proc.stderr and "selected" not in proc.stderr  # --silent
    first, last = csv_results(proc.stdout, "\t")
    assert first == [["id", "v"], ["1", "a\tb"]]
    assert last == [["id", "v"], ["1", "a\tb"], ["2", "NULL"]]
    assert '"a\tb"' in proc.stdout  # the tab is quoted


@pytest.mark.release  # CI budget: its own JVM (~30 s); CI keeps the option-rich run and the README job
def test_stops_at_the_first_error_with_json_output(tmp_path):
    (tmp_path / "errors.sql").write_text(ERRORS_SQL)
    proc = run_cli(tmp_path, "-f", "errors.sql", "--outputformat", "json", "--report", "r.jsonl",
                   "--master", "local[1]", "--warehouse", "wh")
    assert proc.returncode == 1
    assert [e.split(" (statement")[0] for e in error_lines(proc.stderr)] == [
        "Error: errors.sql:5:1: Unknown statement 'UPDTE'"]
    assert json.loads(proc.stdout) == {"resultset": [{"id": 1, "v": "a\tb"}]}
    records = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert [(r["line"], r["status"]) for r in records] == [(1, "ok"), (2, "ok"), (3, "ok"), (5, "error")]
    assert records[-1]["error"] == "Unknown statement 'UPDTE'"
    assert len(list((tmp_path / "wh/t").glob("delta_*"))) == 1  # the INSERT of line 9 never ran


@pytest.mark.release  # CI budget: its own JVM (~30 s); CI keeps the option-rich run and the README job
def test_statements_from_a_pipe_with_table_output(tmp_path):
    proc = run_cli(tmp_path, "--master", "local[1]", "--warehouse", "wh",
                   input="SELECT 1 AS one,\n  'x;y' AS two\n;\nSELECT NULL AS n, 'Kate' AS name;\n"
                         "SELECT nope_fn(1);\nSELECT 3 AS three;\n")
    assert proc.returncode == 1  # input from a pipe is a script: it stops at the failing statement
    assert proc.stdout == (
        "+-----+-----+\n| one | two |\n+-----+-----+\n| 1   | x;y |\n+-----+-----+\n"
        "+------+------+\n| n    | name |\n+------+------+\n| NULL | Kate |\n+------+------+\n"
    )
    assert error_lines(proc.stderr)[0].startswith("Error: <stdin>:1") and "nope_fn" in proc.stderr
    assert "log4j" not in proc.stderr and " WARN " not in proc.stderr  # Spark's own logs: errors only


def _read_until(fd: int, needle: bytes, seen: bytearray, timeout: float = 240) -> None:
    deadline = time.monotonic() + timeout
    while needle not in seen:
        if time.monotonic() > deadline:
            raise AssertionError(f"{needle!r} never came; got {bytes(seen[-2000:])!r}")
        ready, _, _ = select.select([fd], [], [], 1)
        if ready:
            try:
                seen.extend(os.read(fd, 65536))
            except OSError:
                raise AssertionError(f"terminal closed before {needle!r}; got {bytes(seen[-2000:])!r}") from None


@pytest.mark.release  # CI budget: its own JVM (~30 s); CI keeps the option-rich run and the README job
def test_terminal_prompt_history_and_progress_bar(tmp_path):
    main, child = pty.openpty()
    proc = subprocess.Popen([*CLI, "--master", "local[1]", "--warehouse", "wh"], stdin=child, stdout=child,
                            stderr=child, cwd=tmp_path, env={**os.environ, "HOME": str(tmp_path)}, close_fds=True)
    os.close(child)
    seen = bytearray()
    try:
        _read_until(main, b"hiveacid-sql> ", seen)
        # a statement over two lines; its one job sleeps 1 s a row, so the bar (after 0.5 s) shows
        os.write(main, b"SELECT reflect('java.lang.Thread', 'sleep', bigint(1000)) AS s FROM range(2)\n")
        _read_until(main, b"           > ", seen)
        os.write(main, b";\n")
        _read_until(main, b"2 rows selected", seen)
        os.write(main, b"SELECT nope;\n")  # on a terminal an error does not end the session
        _read_until(main, b"Error: <stdin>#2:1", seen)
        os.write(main, b"quit;\n")
        assert proc.wait(timeout=120) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(main)
    text = seen.decode(errors="replace")
    assert re.search(r"\r\[Stage \d+:[=> ]*\(\d+ \+ \d+\) / \d+\]", text), text  # [Stage 0:==>  (1 + 1) / 2]
    history = (tmp_path / ".hiveacid_sql_history").read_text()
    assert "SELECT reflect('java.lang.Thread'" in history and "SELECT nope;" in history


def test_bad_command_lines_exit_2_before_spark_starts(tmp_path):
    cases = [
        (["-f", "missing.sql"], "hiveacid-sql: cannot read missing.sql: No such file or directory"),
        (["-e", "SELECT 1", "--hivevar", "novalue"], "hiveacid-sql: --hivevar expects KEY=VALUE, got 'novalue'"),
        (["-e", "SELECT 1", "--atomic", "--force"], "hiveacid-sql: --atomic and --force cannot be combined"),
        (["--atomic"], "hiveacid-sql: --atomic needs -e or -f"),
        (["-e", "SELECT 1", "-f", "x.sql"], "not allowed with argument"),
        (["-e", "SELECT 1", "--outputformat", "xml"], "invalid choice: 'xml'"),
    ]
    compactor = run_cli(tmp_path, "compactor", "--help")  # dispatched to the compaction service's own options
    assert compactor.returncode == 0 and compactor.stdout.startswith("usage: hiveacid-sql compactor")
    for args, message in cases:
        proc = run_cli(tmp_path, *args)
        assert (proc.returncode, proc.stdout) == (2, ""), (args, proc.stderr)
        assert message in proc.stderr, (args, proc.stderr)
        assert "Traceback" not in proc.stderr
    assert not (tmp_path / "warehouse").exists()  # nothing was started or created


def test_atomic_rolls_back_the_whole_script_when_a_statement_fails(acid, warehouse, tmp_path):
    acid.sql(f"CREATE TABLE employee (id int, name string) {ACID}")
    acid.sql("INSERT INTO employee VALUES (1, 'Jerry')")
    proc = run_cli(tmp_path, "--atomic", "--master", "local[1]", "--warehouse", str(warehouse), "-e",
                   "INSERT INTO employee VALUES (2, 'Tom');\nUPDATE employee SET nope = 1;\n"
                   "INSERT INTO employee VALUES (3, 'Kate');")
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert error_lines(proc.stderr)[0].startswith("Error: <-e>:2:")
    assert "Rolled back" in proc.stderr
    assert [r.id for r in acid.sql("SELECT id FROM employee ORDER BY id").collect()] == [1]


@pytest.mark.release  # CI budget: its own JVM (~30 s); tests/spark/test_dry_run.py runs dry runs in CI
def test_dry_run_shows_the_change_and_commits_nothing(acid, warehouse, tmp_path):
    acid.sql(f"CREATE TABLE employee (id int, name string, salary int) {ACID}")
    acid.sql("INSERT INTO employee VALUES (1, 'Jerry', 5000), (2, 'Tom', 8000)")
    proc = run_cli(tmp_path, "--dry-run", "--outputformat", "csv2", "--master", "local[1]",
                   "--warehouse", str(warehouse), "-e", "UPDATE employee SET salary = 7000 WHERE id = 2")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "8000" in proc.stdout and "7000" in proc.stdout  # the old and the new value
    assert [r.salary for r in acid.sql("SELECT salary FROM employee ORDER BY id").collect()] == [5000, 8000]
    assert not list((warehouse / "employee").glob("delete_delta_*"))


# -- in-process pieces --------------------------------------------------------------------------------
def test_splitter_keeps_semicolons_in_strings_identifiers_and_comments():
    text = (
        "-- header; comment\n"
        "SELECT 'a;b', \"c;d\", `e;f` FROM t; /* block ; comment */\n"
        "  INSERT INTO t VALUES ('it\\'s;'); ;;\n"
        "-- only a comment;\n"
        "SELECT 1 -- trailing; comment\n"
        "  + 2"
    )
    split = split_script(text)
    assert [(s.text, s.line, s.col) for s in split.statements] == [
        ("SELECT 'a;b', \"c;d\", `e;f` FROM t", 2, 1),
        ("INSERT INTO t VALUES ('it\\'s;')", 3, 3),
    ]
    assert split.rest is not None and (split.rest.line, split.rest.col) == (5, 1)
    assert split.rest.text == "SELECT 1 -- trailing; comment\n  + 2"
    assert len(statements_of(text)) == 3
    assert split_script("SELECT 1; -- done\n").rest is None
    assert split_script("SELECT 'open;").rest.text == "SELECT 'open;"  # unterminated: the parser reports it
    st = split.statements[1]
    assert positioned(st, st.text).splitlines()[2] == "  INSERT INTO t VALUES ('it\\'s;')"


_WORD = st.text(alphabet="abcxyz019_ ,()=<>*+-.", min_size=1, max_size=8).filter(lambda w: "--" not in w)
_STRING = st.text(alphabet="ab;'\"`\n -*/", max_size=6).map(
    lambda t: "'" + t.replace("\\", "").replace("'", "\\'") + "'")
_QUOTED_ID = st.text(alphabet="ab;'\" ", max_size=5).map(lambda t: "`" + t.replace("`", "") + "`")
_COMMENT = st.sampled_from(["-- c; x\n", "/* c; 'x */", "/* multi\n; line */"])
_PIECES = st.lists(st.one_of(_WORD, _STRING, _QUOTED_ID), min_size=1, max_size=6)


@settings(max_examples=200, deadline=None)
@given(statements=st.lists(_PIECES, min_size=1, max_size=5), comments=st.lists(_COMMENT, max_size=3))
def test_splitter_round_trips_generated_scripts(statements, comments):
    """Statements made of words, quoted strings and identifiers holding ';', quotes and comment markers,
    separated by ';' with comments between them, split back into exactly themselves, at their lines."""
    texts = [("SELECT " + " ".join(pieces)).strip() for pieces in statements]  # a statement is split trimmed
    script, expected = "", []
    for i, text in enumerate(texts):
        script += comments[i % len(comments)] if comments else ""
        expected.append((text, script.count("\n") + 1))
        script += text + ";\n"
    split = split_script(script)
    assert [(s.text, s.line) for s in split.statements] == expected
    assert split.rest is None


def test_variables_follow_hive_lookup_order_and_refuse_undefined_ones(monkeypatch):
    settings = {"k": "from-setting", "only.conf": "c"}
    v = Variables({"k": "from-var", "x": "${y}", "y": "Y", "loop": "${loop}"}, settings=lambda: settings)
    monkeypatch.setenv("HIVEACID_T", "env-value")
    assert v.substitute("${k} ${hivevar:k} ${hiveconf:only.conf} ${env:HIVEACID_T} ${x}") == \
        "from-setting from-var c env-value Y"
    assert v.substitute("no references, $ and {} alone") == "no references, $ and {} alone"
    with pytest.raises(VariableError, match=r"^undefined variable \$\{nope\} \(define it with --hivevar nope=VALUE\)$"):
        v.substitute("SELECT ${nope}")
    with pytest.raises(VariableError, match="undefined variable"):
        v.substitute("${env:HIVEACID_NOT_SET_ANYWHERE}")
    with pytest.raises(VariableError, match="depth exceeded 40"):
        v.substitute("${loop}")


def test_output_formats_render_hive_values_and_parse_back():
    import datetime as dt
    from decimal import Decimal

    from pyspark.sql import Row

    columns = ["id", "name", "ok", "price", "at", "rid", "tags"]
    types = ["IntegerType", "StringType", "BooleanType", "DecimalType", "TimestampNTZType", "StructType", "ArrayType"]
    rows = [
        (1, 'say "hi", ok', True, Decimal("1.50"), dt.datetime(2020, 1, 2, 3, 4, 5),
         Row(writeid=1, bucketid=536870912, rowid=0), ["a", None]),
        (2, None, None, None, dt.datetime(2020, 1, 2, 3, 4, 5, 120000), None, []),
    ]
    parsed = list(csv.reader(io.StringIO(render("csv2", columns, types, rows))))
    assert parsed[1] == ["1", 'say "hi", ok', "true", "1.50", "2020-01-02 03:04:05",
                         '{"writeid":1,"bucketid":536870912,"rowid":0}', '["a",null]']
    assert parsed[2] == ["2", "NULL", "NULL", "NULL", "2020-01-02 03:04:05.12", "NULL", "[]"]
    assert render("tsv2", ["a"], ["StringType"], [(None,)], header=False, null="") == '""\n'
    assert json.loads(render("json", columns, types, rows))["resultset"][0] == {
        "id": 1, "name": 'say "hi", ok', "ok": True, "price": 1.5, "at": "2020-01-02 03:04:05",
        "rid": '{"writeid":1,"bucketid":536870912,"rowid":0}', "tags": '["a",null]'}
    assert [json.loads(line)["id"] for line in render("jsonfile", columns, types, rows).splitlines()] == [1, 2]
    assert render("table", ["id", "name"], types[:2], [(1, "Jerry")]) == (
        "+----+-------+\n| id | name  |\n+----+-------+\n| 1  | Jerry |\n+----+-------+\n")
    assert render("vertical", ["id", "name"], types[:2], [(1, "Jerry"), (2, None)]) == (
        "id    1\nname  Jerry\n\nid    2\nname  NULL\n")
    assert render("dsv", ["a", "b"], types[:2], [(1, "x|y")], delimiter="|") == 'a|b\n1|"x|y"\n'


def test_progress_bar_text_has_sparks_layout():
    assert render_stages([]) == ""
    bar = render_stages([(3, 10, 5, 2)])
    assert bar.startswith("[Stage 3:") and bar.endswith("(5 + 2) / 10]") and len(bar) == 80
    assert bar.count("=") == (80 - len("[Stage 3:") - len("(5 + 2) / 10]")) // 2
    two = render_stages([(1, 4, 4, 0), (2, 8, 0, 3)])
    assert "[Stage 1:" in two and "(0 + 3) / 8]" in two and len(two) == 80


def test_readme_main_job_runs_the_walkthrough_to_compaction(tmp_path):
    """The README's main job (`hiveacid-sql -f examples/walkthrough.sql` in a fresh directory) ends with the
    walkthrough's section 4 layout and rows."""
    script = Path(__file__).resolve().parents[2] / "examples" / "walkthrough.sql"
    proc = run_cli(tmp_path, "--outputformat", "csv2", "-f", str(script))
    assert proc.returncode == 0, proc.stderr[-3000:]
    table = tmp_path / "warehouse" / "employee"
    dirs = {p.name for p in table.iterdir() if not p.name.startswith((".", "_"))}
    assert {"delta_0000001_0000002", "delete_delta_0000001_0000002", "base_0000002"} <= dirs
    rows = list(csv.reader(io.StringIO(proc.stdout)))
    last = max(i for i, r in enumerate(rows) if r[:2] == ["row__id", "id"])
    block = []
    for r in rows[last + 1:]:
        if len(r) != 4 or not r[1].isdigit():
            break
        block.append((json.loads(r[0]), *r[1:]))
    assert block == [  # after major compaction: the walkthrough's rows with their row ids, read from base_0000002
        ({"writeid": 1, "bucketid": 536870912, "rowid": 0}, "1", "Jerry", "5000"),
        ({"writeid": 2, "bucketid": 536870913, "rowid": 0}, "2", "Tom", "7000"),
        ({"writeid": 1, "bucketid": 536870912, "rowid": 2}, "3", "Kate", "6000"),
        ({"writeid": 2, "bucketid": 536870912, "rowid": 0}, "4", "Mary", "9000"),
    ]
