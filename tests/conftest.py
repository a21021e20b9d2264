"""Shared fixtures: one real local SparkSession per test run, a fresh warehouse + SQLite store per test."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from hiveacid_sql.exec.session import DRIVER_JVM_OPTIONS
from tests.support.fixtures import HIVE_WRITTEN
from tests.support.stores import BACKENDS

# `pytest --long` (or `--hypothesis-profile=long`): the model-based run before a release (200 sequences of
# up to 40 statements, about 8000 steps; hours on two cores). The default profile keeps each test's own
# small, derandomized budget.
settings.register_profile(
    "long",
    max_examples=200,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    print_blob=True,
)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--long",
        action="store_true",
        help="the runs before a release: the model-based test with the 'long' hypothesis profile (hours), "
        "5000 fuzzed statements, ten kills per statement kind and the tests marked 'release'; "
        "the default suite keeps the CI budget",
    )


#: JVM options for every JVM the tests start through Spark's launcher (each worker's Spark and the JVMs of CLI
#: runs, notebook kernels, Hive's client, Connect servers, writer processes: they inherit the environment):
#: the options the sessions we launch take (C1 only, the serial collector; ``exec/session.py`` says why),
#: for the JVMs the package does not launch itself too. SPARK_SUBMIT_OPTS, unlike JAVA_TOOL_OPTIONS, prints
#: nothing on stderr.
TEST_JVM_OPTIONS = DRIVER_JVM_OPTIONS


def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault("SPARK_SUBMIT_OPTS", TEST_JVM_OPTIONS)
    # Collection has not started yet, so the fuzz module reads the larger budget when it is imported.
    if config.getoption("--long"):
        settings.load_profile("long")
        os.environ.setdefault("HIVEACID_FUZZ_MUTANTS", "5000")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``release`` (more backends or more kills of a test CI already runs once) run with
    ``--long`` only: deselected, not skipped, so the default run neither runs nor counts them."""
    _longest_files_first(items)
    if config.getoption("--long"):
        return
    for item in items:
        if item.nodeid.startswith(CI_LEAVES_OUT):
            item.add_marker(pytest.mark.release)
    release = [item for item in items if item.get_closest_marker("release")]
    if release:
        config.hook.pytest_deselected(items=release)
        items[:] = [item for item in items if not item.get_closest_marker("release")]


#: Tests the default run (CI) leaves to ``--long``: each repeats, for another format, backend or statement
#: kind, a check that a test CI keeps makes (named after ``#``), or starts JVMs of its own for a promise
#: that in-process tests keep. Measured in one junit run of the whole suite (2026-11-28, loaded machine):
#: together about 10% of the suite's test time. Marked ``release`` here rather than in each file so that
#: what CI leaves out is one list; ``pytest --long`` runs them all.
CI_LEAVES_OUT: tuple[str, ...] = (
    # a CLI subprocess (~60 s): test_runner's runs, test_quiet_stderr's connect check
    "tests/system/test_quiet_stderr.py::test_cli_runtime_error_is_exactly_one_line",
    # the walkthrough over Connect (~65 s): test_update_delete_merge_lazy_results_and_compaction
    "tests/system/test_spark_connect.py::test_walkthrough",
    # Hive's SerDes on our Parquet and text files: the ORC cases and test_hive_client_coexist's
    "tests/system/test_hive_client.py::test_hive_serdes_read_the_plain_files_we_write[postgres-PARQUET]",
    "tests/system/test_hive_client.py::test_hive_serdes_read_the_plain_files_we_write[postgres-TEXTFILE]",
    "tests/system/test_hive_client.py::test_hive_serdes_read_the_timestamps_we_write[postgres-PARQUET]",
    "tests/system/test_hive_client.py::test_hive_serdes_read_the_timestamps_we_write[postgres-TEXTFILE]",
    "tests/system/test_hive_client_coexist.py::test_plain_tables_are_read_by_hive_serdes_both_ways[postgres-PARQUET]",
    # a Hive-script database used as our store: every test_hive_client_coexist test does that
    "tests/system/test_store_servers.py::test_a_database_made_by_hives_script_is_used_as_it_is",
    # MariaDB's concurrent ids and bootstrap: PostgreSQL's and SQLite's here, MariaDB's store in tests/unit
    "tests/system/test_store_concurrency.py::test_concurrent_first_open_of_a_new_store[mariadb]",
    "tests/system/test_store_concurrency.py::test_concurrent_processes_get_unique_ids[mariadb]",
    # scenario 5 alone: test_benchmarks.py runs every scenario, compaction included
    "tests/system/test_benchmark_compaction.py::",
    # random histories through compaction: test_model_based compacts in its histories
    "tests/spark/test_compaction.py::test_random_histories_keep_rows_and_row_ids",
    # Parquet and text variants: the ORC case, and test_textfile / test_row_format for text
    "tests/spark/test_plain_partitions.py::test_static_dynamic_and_mixed_inserts_write_hive_partition_directories[PARQUET]",
    "tests/spark/test_plain_partitions.py::test_static_dynamic_and_mixed_inserts_write_hive_partition_directories[TEXTFILE]",
    "tests/spark/test_plain_partitions.py::test_read_table_reads_plain_partitions_without_spark[PARQUET]",
    "tests/spark/test_statements.py::test_plain_tables[PARQUET]",
    "tests/spark/test_statements.py::test_plain_tables[TEXTFILE]",
    "tests/spark/test_insert_only.py::test_insert_overwrite_truncate_layout_and_reads[PARQUET]",
    "tests/spark/test_insert_only.py::test_partitioned_static_dynamic_and_overwrite[TEXTFILE]",
    "tests/spark/test_insert_only.py::test_major_compaction_merges_visible_files_and_cleaner_removes_the_rest[PARQUET]",
    # the Spark-file count after many statements: test_benchmarks' many-deltas scenario asserts the same
    "tests/spark/test_small_files.py::test_scan_after_many_small_statements_opens_only_the_large_files",
    # the driver scan's twin on originals and buckets: its twin on deletes/partitions/types, test_small_files'
    "tests/spark/test_local_scan.py::test_original_files_and_a_bucketed_table",
    # two connections on PostgreSQL: the same on SQLite here, PostgreSQL's locks at store level
    "tests/spark/test_locks_and_conflicts.py::test_interleaved_updates_lose_to_the_first_committer[postgres]",
    "tests/spark/test_locks_and_conflicts.py::test_a_writer_waits_for_a_transactions_lock_then_fails_naming_it[postgres]",
    "tests/spark/test_locks_and_conflicts.py::test_a_reading_transaction_holds_off_drop_table[postgres]",
    # more strict-cast statement kinds: values and merge stay
    "tests/spark/test_strict_casts.py::test_strict_statement_fails_naming_value_and_column[select]",
    "tests/spark/test_strict_casts.py::test_strict_statement_fails_naming_value_and_column[decimal]",
    "tests/spark/test_strict_casts.py::test_strict_statement_fails_naming_value_and_column[timestamp]",
    # ON FALSE against DuckDB: test_null_keys_never_match_and_on_false
    "tests/spark/test_merge.py::test_same_result_as_duckdb[on-false]",
)

#: The test files that take longest (a few minutes each on two workers, from a junit run of the whole suite),
#: longest first. With ``--no-loadscope-reorder`` (pyproject) xdist's ``--dist loadfile`` hands files to its
#: workers in collection order, so these go first and the many short files then fill both workers to the
#: end. (xdist's default order, most tests first, put the one-test files that run for minutes last, alone on
#: one worker while the other idled.) Order only; every test still runs.
LONGEST_FILES = (
    "tests/system/test_cluster.py",
    "tests/system/test_multiprocess_writers.py",
    "tests/system/test_hive_client_coexist.py",
    "tests/system/test_runner.py",
    "tests/system/test_hive_client.py",
    "tests/spark/test_bad_input.py",
    "tests/spark/test_compaction.py",
    "tests/spark/test_locks_and_conflicts.py",
    "tests/system/test_spark_connect.py",
    "tests/system/test_quiet_stderr.py",
    "tests/system/test_benchmarks.py",
)


def _longest_files_first(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONGEST_FILES)}

    def key(item: pytest.Item) -> int:
        return rank.get(item.nodeid.split("::", 1)[0], len(rank))

    items.sort(key=key)  # stable: the rest keep their order, and each file its tests' order


@pytest.fixture(scope="session")
def spark():
    from hiveacid_sql.exec.session import local_session

    session = local_session(
        {"spark.sql.shuffle.partitions": "2", "spark.default.parallelism": "2"}, master="local[2]"
    )
    yield session
    session.stop()


@pytest.fixture()
def warehouse(tmp_path: Path) -> Path:
    return tmp_path / "warehouse"


@pytest.fixture()
def acid(spark, warehouse: Path) -> Iterator:
    import hiveacid_sql

    session = hiveacid_sql.connect(spark=spark, warehouse=warehouse)
    yield session
    session.close()
    # The SparkSession is shared by every test, and acid.sql reads the session's temp views before warehouse
    # tables: a view one test leaves behind (say `src`) would shadow the next test's table of that name.
    for table in spark.catalog.listTables():
        if table.isTemporary:
            spark.catalog.dropTempView(table.name)


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    if not HIVE_WRITTEN.is_dir():
        raise RuntimeError(f"Hive fixtures not found at {HIVE_WRITTEN}")
    return HIVE_WRITTEN


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A brand-new, empty database on each backend (the servers must be up: no skip): for the tests of what
    opening a store creates. Creating Hive's 74 tables takes seconds on MariaDB; a test that only uses a store
    takes ``ready_url`` or ``store``."""
    from tests.support.stores import store_url

    with store_url(request.param, tmp_path) as u:
        yield u


_READY_STORES: list = []  # the run's ReadyStores, made when collection ends (at most one)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start bootstrapping the server templates the collected tests will use, while the first tests run."""
    if session.config.option.collectonly:
        return
    backends = {
        item.callspec.params["ready_url"]
        for item in session.items
        if hasattr(item, "callspec") and "ready_url" in item.callspec.params
    }
    if backends - {"sqlite"}:
        from tests.support.stores import ReadyStores

        _READY_STORES.append(ReadyStores())
        _READY_STORES[0].prepare(sorted(backends))


def pytest_sessionfinish(session: pytest.Session) -> None:
    while _READY_STORES:
        _READY_STORES.pop().close()


@pytest.fixture(scope="session")
def ready_stores() -> Iterator:
    """One bootstrapped template store per backend for the whole run (``tests/support/stores.py``)."""
    from tests.support.stores import ReadyStores

    if not _READY_STORES:
        _READY_STORES.append(ReadyStores())
    yield _READY_STORES[0]


@pytest.fixture(params=BACKENDS)
def ready_url(request: pytest.FixtureRequest, tmp_path: Path, ready_stores) -> str:
    """A store's URL on each backend, in exactly the state a new store has after its bootstrap."""
    return ready_stores.url(request.param, tmp_path)


@pytest.fixture
def store(ready_url: str) -> Iterator:
    """An open store on each backend, in the state of a new store (the bootstrap itself is tested on ``url``)."""
    from hiveacid_sql.txn import TxnStore

    st = TxnStore(ready_url)
    yield st
    st.close()
