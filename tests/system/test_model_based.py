"""Model-based test: random statement sequences on hiveacid-sql and on DuckDB must leave equal tables.

DuckDB is the model: an independent engine that shares none of our code. A hypothesis state machine
creates 2-3 tables of mixed types (some partitioned and/or bucketed), then runs INSERT VALUES, INSERT SELECT,
INSERT OVERWRITE, UPDATE, DELETE, MERGE and TRUNCATE, each on both engines (``tests/support/model_sql.py`` renders
the two dialects). After every step the full contents of every table must be equal (sorted, with NULLs), read
both by the Spark reader and by ``hiveacid_sql.read_table`` (pyarrow, no Spark), and the ACID files must satisfy
``tests/support/acid_invariants.py``. Every sequence starts with 3-6 rows in each table, a point
UPDATE/DELETE on each and a MERGE with an INSERT clause, and half (CI's among them) run with ``hiveacid.driver.scan.max.rows``
2: the tables then count as large, so point statements take the point read (``exec/local_scan.point_frame``)
and MERGEs the split's driver path (``exec/merge_split.py``; the statements read files of over 2 rows by
Spark's reader); ``test_model_based`` asserts both were taken (before,
CI's sequence, hypothesis's simplest, was refused DELETEs on plain tables only). A failure shrinks to a short sequence of SQL
statements printed by hypothesis; minimised cases become regular tests in ``tests/test_regressions.py``.

Budget: the default run is derandomized (a fixed seed) and small enough for CI. The ``long`` profile
(``pytest tests/test_model_based.py --hypothesis-profile=long``) runs thousands of steps.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import shutil
import tempfile
from contextlib import ExitStack
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

import hiveacid_sql
import hiveacid_sql.exec.binder as binder_module
import hiveacid_sql.exec.merge_split as merge_split
import tests.support.model_sql as m
from hiveacid_sql.errors import HiveAcidError
from hiveacid_sql.exec.small_files import SMALL_FILE_MAX_ROWS_CONF
from tests.support.acid_invariants import check_table
from tests.support.stores import hive_store_url

#: The ``--full`` budget: a fixed seed, four short sequences (about 40 s on two cores). No shrinking here: a
#: shrink replays hundreds of Spark statements; the failing sequence is printed as is (the long profile shrinks).
FULL_SETTINGS = settings(
    derandomize=True,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    max_examples=4,
    stateful_step_count=12,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    print_blob=True,
)
#: CI's budget: the first of those sequences (the same seed).
CI_SETTINGS = settings(FULL_SETTINGS, max_examples=1)


def _sort_key(row: tuple) -> tuple:
    return tuple((0,) if v is None else (1, v) for v in row)


def normalise(rows: list[tuple]) -> list[tuple]:
    """Rows as comparable tuples: Decimals at their value, floats as floats, sorted with NULLs first."""
    out = []
    for row in rows:
        vals = []
        for v in row:
            if isinstance(v, Decimal):
                v = v.normalize() if v != 0 else Decimal(0)
            elif isinstance(v, float) and v == 0:
                v = 0.0
            elif isinstance(v, dt.datetime):
                v = v.replace(tzinfo=None)
            vals.append(v)
        out.append(tuple(vals))
    return sorted(out, key=_sort_key)


class ModelMachine(RuleBasedStateMachine):
    """hiveacid-sql (Spark, ORC files, SQLite store) against DuckDB, statement by statement."""

    spark = None  # set by the test before the machine runs
    #: None: the embedded SQLite store; 'postgres' / 'mariadb': each sequence on a new database that Apache
    #: Hive's own 3.1 script made (the store used as it is, as on a real metastore's database)
    hive_backend: str | None = None

    def __init__(self) -> None:
        super().__init__()
        self.dir = Path(tempfile.mkdtemp(prefix="hiveacid-model-"))
        self.stack = ExitStack()
        self.url = self.stack.enter_context(hive_store_url(self.hive_backend)) if self.hive_backend else None
        self.acid = hiveacid_sql.connect(spark=self.spark, warehouse=self.dir / "warehouse", store_url=self.url)
        self.duck = duckdb.connect()
        self.tables: dict[str, m.Table] = {}
        self.views: dict[str, str] = {}  # view -> the table it reads
        self.log: list[str] = []
        self.small_file_rows: str | None = None  # spark.hiveacid.read.small.file.max.rows for the statements

    def teardown(self) -> None:
        log = os.environ.get("HIVEACID_MODEL_LOG")  # a long run's progress: one line per finished sequence
        if log:
            with open(log, "a", encoding="utf-8") as f:
                kinds = {n: t.insert_only or "acid" for n, t in sorted(self.tables.items())}
                f.write(f"{len(self.log)} statements, tables {kinds}\n")
        self.acid.close()
        self.duck.close()
        self.stack.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    # -- running -----------------------------------------------------------------------------------
    def _run(self, statement: m.Statement) -> None:
        self.log.append(statement.hive)
        try:
            self._sql(statement.hive)
        except Exception as exc:
            raise AssertionError(f"hiveacid-sql failed on {statement.hive}\n  {type(exc).__name__}: {exc}") from exc
        for text in statement.duck:
            self.duck.execute(text)

    def _sql(self, text: str) -> None:
        """One statement on hiveacid-sql, with :attr:`small_file_rows` set for it."""
        if self.small_file_rows is None:
            self.acid.sql(text)
            return
        self.spark.conf.set(SMALL_FILE_MAX_ROWS_CONF, self.small_file_rows)
        try:
            self.acid.sql(text)
        finally:
            self.spark.conf.unset(SMALL_FILE_MAX_ROWS_CONF)

    def _create(self, table: m.Table) -> None:
        self._run(m.Statement("create", table.hive_ddl(), [table.duck_ddl()]))
        self.tables[table.name] = table

    @property
    def table_list(self) -> list[m.Table]:
        return list(self.tables.values())

    # -- rules -------------------------------------------------------------------------------------
    @initialize(data=st.data(), n=st.integers(2, 3), driver_rows=st.sampled_from([2, 5000]))
    def create_tables(self, data: st.DataObject, n: int, driver_rows: int) -> None:
        # A DML target over this many rows is not read whole on the driver: 2 makes the model's tables (a few
        # rows each) large, so point statements take the point read (exec/local_scan.point_frame) and MERGEs
        # the split's driver path (exec/merge_split.py), which the default (5000) never reaches here.
        self.acid.sql(f"SET hiveacid.driver.scan.max.rows={driver_rows}")
        # and the statements read files of more rows by Spark's ORC reader, not on the driver (exec/small_files.py):
        # else their targets are local relations anyway and a MERGE never splits (the checks' reads keep it)
        self.small_file_rows = "2" if driver_rows == 2 else None
        for i in range(n):
            self._create(data.draw(m.table_schema(f"t{i}"), label=f"t{i}"))
        for table in self.table_list:  # rows to begin with: more than 2, so that point statements find some
            self._run(data.draw(m.insert_values(table, min_rows=3, max_rows=6), label="statement"))
        for table in self.table_list:  # one point statement each (the later ones: rule point_change)
            self._change(data.draw(m.point_change(table), label="statement"), table)
        target = self.table_list[0]  # a MERGE with an INSERT clause (the later ones: rule merge)
        self._change(data.draw(m.merge(target, self.table_list[1:], inserting=True), label="statement"), target)

    def _target(self, data: st.DataObject) -> m.Table:
        return self.tables[data.draw(st.sampled_from(sorted(self.tables)), label="target")]

    @rule(data=st.data())
    def insert_values(self, data: st.DataObject) -> None:
        self._run(data.draw(m.insert_values(self._target(data)), label="statement"))

    @rule(data=st.data())
    def insert_select(self, data: st.DataObject) -> None:
        self._run(data.draw(m.insert_select(self._target(data), self.table_list), label="statement"))

    @rule(data=st.data())
    def insert_overwrite(self, data: st.DataObject) -> None:
        self._run(data.draw(m.insert_overwrite(self._target(data), self.table_list), label="statement"))

    def _refused_on_insert_only(self, statement: m.Statement, message: str = "that is insert-only transactional") -> None:
        """UPDATE / DELETE / MERGE on an insert-only table: Hive's error 10414 (on a plain table: 10297),
        nothing changes (DuckDB is left alone, so ``same_contents`` proves it)."""
        self.log.append(f"(refused) {statement.hive}")
        try:
            self._sql(statement.hive)
        except HiveAcidError as exc:
            assert message in str(exc), str(exc)
            return
        if statement.kind != "merge":  # a MERGE drawn with only INSERT clauses is allowed there
            raise AssertionError(f"hiveacid-sql accepted {statement.hive} on an insert-only table")
        for text in statement.duck:
            self.duck.execute(text)

    def _change(self, statement: m.Statement, target: m.Table) -> None:
        if target.plain:
            self._refused_on_insert_only(statement, "that is not transactional")
        elif target.insert_only:
            self._refused_on_insert_only(statement)
        else:
            self._run(statement)

    @rule(data=st.data())
    def update(self, data: st.DataObject) -> None:
        target = self._target(data)
        self._change(data.draw(m.update(target, self.table_list), label="statement"), target)

    @rule(data=st.data())
    def delete(self, data: st.DataObject) -> None:
        target = self._target(data)
        self._change(data.draw(m.delete(target, self.table_list), label="statement"), target)

    @rule(data=st.data())
    def point_change(self, data: st.DataObject) -> None:
        """UPDATE / DELETE with key conditions on ``k`` (model_sql.key_where): the point read's statements."""
        target = self._target(data)
        self._change(data.draw(m.point_change(target), label="statement"), target)

    @rule(data=st.data())
    def merge(self, data: st.DataObject) -> None:
        target = self._target(data)
        self._change(data.draw(m.merge(target, self.table_list), label="statement"), target)

    @rule(data=st.data())
    def truncate(self, data: st.DataObject) -> None:
        self._run(m.truncate(self._target(data)))

    @precondition(lambda self: len(self.tables) > 0)
    @rule(data=st.data())
    def recreate(self, data: st.DataObject) -> None:
        """DROP a table and CREATE it again with another schema (a new directory, new write ids)."""
        name = data.draw(st.sampled_from(sorted(self.tables)), label="recreate")
        for view in [v for v, t in self.views.items() if t == name]:  # its columns change: views over it go
            self._run(m.Statement("drop-view", f"DROP VIEW {view}", [f"DROP VIEW {view}"]))
            del self.views[view]
        self._run(m.Statement("drop", f"DROP TABLE {name}", [f"DROP TABLE {name}"]))
        del self.tables[name]
        self._create(data.draw(m.table_schema(name), label=name))

    @rule(data=st.data(), n=st.integers(0, 1))
    def create_view(self, data: st.DataObject, n: int) -> None:
        """A view over one table (with a WHERE), compared like a table after every step."""
        table = self._target(data)
        self._run(data.draw(m.create_view(f"v{n}", table), label="statement"))
        self.views[f"v{n}"] = table.name

    # Compaction hook: when ALTER TABLE .. COMPACT lands, add a rule that runs it (and the cleaner) on
    # hiveacid-sql only, leaving DuckDB alone; ``same_contents`` then proves compaction changes no result,
    # and compaction-specific file rules go to ``acid_invariants.RULES`` (or ``extra_rules`` below).

    # -- checks after every step -------------------------------------------------------------------
    @invariant()
    def same_contents(self) -> None:
        for name in sorted(self.tables) + sorted(self.views):
            ours = normalise([tuple(r) for r in self.acid.sql(f"SELECT * FROM {name}").collect()])
            # The Arrow reader (no Spark) reads the same snapshot as the Spark reader after every step
            # (views: not read by read_table).
            table = self.tables.get(name)
            skip_arrow = table is None
            arrow = None if skip_arrow else hiveacid_sql.read_table(
                name, warehouse=self.dir / "warehouse", store_url=self.url
            )
            arrow_rows = normalise([tuple(r.values()) for r in arrow.to_pylist()]) if arrow is not None else ours
            assert arrow_rows == ours, (
                f"read_table({name}) differs from the Spark reader after {self.log[-1] if self.log else '(start)'}\n"
                f"  only in read_table: {[r for r in arrow_rows if r not in ours][:5]}\n"
                f"  only in Spark:      {[r for r in ours if r not in arrow_rows][:5]}"
            )
            theirs = normalise(self.duck.execute(f"SELECT * FROM {name}").fetchall())
            if ours != theirs:
                only_ours = [r for r in ours if r not in theirs]
                only_theirs = [r for r in theirs if r not in ours]
                raise AssertionError(
                    f"table or view {name} differs after {self.log[-1] if self.log else '(start)'}\n"
                    f"  only in hiveacid-sql: {only_ours[:5]}\n  only in DuckDB:       {only_theirs[:5]}"
                )

    @invariant()
    def acid_files_sound(self) -> None:
        snapshot = self.acid.store.snapshot([("default", n) for n in self.tables])
        for name, table in sorted(self.tables.items()):
            root = self.dir / "warehouse" / name
            if table.plain:
                continue  # plain data files: no ACID rules
            if table.insert_only:
                problems = _insert_only_problems(root)
                assert not problems, f"table {name} after {self.log[-1]}:\n" + "\n".join(problems)
                continue
            problems = check_table(root, 1 if table.partition else 0, snapshot.write_ids("default", name))
            assert not problems, f"table {name} after {self.log[-1] if self.log else '(start)'}:\n" + "\n".join(
                problems
            )


def _insert_only_problems(root: Path) -> list[str]:
    """An insert-only table's directories hold only Hive-named plain files (``000000_0``..), no ACID marker."""
    problems = []
    for directory in root.rglob("*"):
        if not directory.is_dir() or not directory.name.startswith(("base_", "delta_")):
            continue
        for f in directory.iterdir():
            if f.name == "_orc_acid_version" or f.name.startswith("bucket_"):
                problems.append(f"{f.relative_to(root)}: full-ACID file in an insert-only table")
            elif not f.name.startswith(("_", ".")) and not re.fullmatch(r"\d{6}_\d+", f.name):
                problems.append(f"{f.relative_to(root)}: not a Hive file name")
    return problems


def _settings(full: bool) -> settings:
    """CI's budget (``--full``'s with ``full``), unless a profile other than the default was chosen
    (``--long``, ``--hypothesis-profile=long``)."""
    if settings.get_current_profile_name() == "default":
        return FULL_SETTINGS if full else CI_SETTINGS
    return settings(settings.default, deadline=None, suppress_health_check=list(HealthCheck))


class _Taken:
    """How often the run took the driver paths the model is meant to reach (counted by wrapping them)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.point_reads = 0  # point statements read by local_scan.point_frame (not left to the Spark scan)
        self.split_driver = 0  # MERGE splits whose matched rows were held on the driver
        point_frame, collect_matched = binder_module.point_frame, merge_split._collect_matched  # noqa: SLF001

        def counted_point_frame(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - a pass-through
            frame = point_frame(*args, **kwargs)
            self.point_reads += frame is not None
            return frame

        def counted_collect_matched(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - a pass-through
            held = collect_matched(*args, **kwargs)
            self.split_driver += held is not None
            return held

        monkeypatch.setattr(binder_module, "point_frame", counted_point_frame)
        monkeypatch.setattr(merge_split, "_collect_matched", counted_collect_matched)


@pytest.mark.slow
def test_model_based(spark, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    taken = _Taken(monkeypatch)
    ModelMachine.spark = spark
    run_state_machine_as_test(ModelMachine, settings=_settings(bool(request.config.getoption("--full"))))
    # the simplest sequence (CI's) already has point statements on full ACID tables larger than
    # hiveacid.driver.scan.max.rows (2) and a MERGE with an INSERT clause on one whose files Spark reads:
    # the point read and the split's driver path must have been taken, not only reachable
    assert taken.point_reads >= 1, "no statement of the model run took the point read"
    print(f"point reads {taken.point_reads}, MERGE splits held on the driver {taken.split_driver}")
    assert taken.split_driver >= 1, "no MERGE of the model run took the split's driver path"


#: The model on a Hive-script database with ``--full``: one short sequence (the store's part of a step is
#: milliseconds; the budget is Spark's). ``--long`` runs the ``--full`` budget on PostgreSQL and MariaDB.
HIVE_DB_CI_SETTINGS = settings(CI_SETTINGS, max_examples=1, stateful_step_count=10)


def _run_on_hives_database(spark, backend: str, budget: settings) -> None:
    machine = type("HiveDbModelMachine", (ModelMachine,), {"hive_backend": backend})
    machine.spark = spark
    run_state_machine_as_test(machine, settings=budget)


@pytest.mark.slow
@pytest.mark.postgres
def test_model_based_on_a_database_made_by_hives_script(spark) -> None:
    _run_on_hives_database(spark, "postgres", HIVE_DB_CI_SETTINGS)


@pytest.mark.slow
@pytest.mark.parametrize(
    "backend",
    [
        pytest.param("postgres", marks=[pytest.mark.postgres, pytest.mark.release]),
        pytest.param("mariadb", marks=[pytest.mark.mariadb, pytest.mark.release]),
    ],
)
def test_model_based_on_a_database_made_by_hives_script_long(spark, backend: str) -> None:
    _run_on_hives_database(spark, backend, FULL_SETTINGS)
