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
    parser.addoption(
        "--full",
        action="store_true",
        help="every test but the release ones: the CI tier plus the tests of FULL_ONLY (tests/conftest.py); "
        "run it before a change lands",
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
    """Three tiers, each deselecting (not skipping: the run neither runs nor counts them) what the next adds.

    The default run (CI) leaves out the tests of :data:`FULL_ONLY` and those marked ``release``; ``--full``
    adds FULL_ONLY; ``--long`` runs everything, with the release budgets."""
    _longest_files_first(items)
    if config.getoption("--long"):
        return
    full = config.getoption("--full")
    for item in items:
        if item.nodeid.startswith(CI_LEAVES_OUT):
            item.add_marker(pytest.mark.release)
        elif not full and item.nodeid.startswith(FULL_ONLY):
            item.add_marker(pytest.mark.full)
    left_out = [item for item in items if item.get_closest_marker("release") or item.get_closest_marker("full")]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = [item for item in items if not (item.get_closest_marker("release") or item.get_closest_marker("full"))]


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


#: Tests the default run (CI) leaves to ``--full``: CI's budget is 25 minutes on machines that have run the
#: suite 2-4x slower than a quiet one here, so CI runs each behaviour's principal test and ``--full`` (run
#: before a change lands, and by ``--long``) the rest: variants on more types, formats or statement kinds,
#: second and third scenarios of a feature CI checks once, tests that start JVMs or processes of their own
#: (the cluster, Hive's client, kills, notebooks, CLI runs beyond the README's main job, multi-process
#: writers) and the benchmark run. Chosen from a junit run of the whole suite (2026-11-28, quiet): about 55%
#: of its test time. One list, so what CI leaves out is in one place.
FULL_ONLY: tuple[str, ...] = (
    # JVMs and processes of their own, beyond one of each kind in CI (CI keeps a Connect server's DML subset
    # and Hive's client on our tables and Hive's; the CLI's refusals, and its statements in-process)
    "tests/system/test_cluster.py::",
    "tests/system/test_multiprocess_writers.py::",
    "tests/system/test_runner.py::test_readme_main_job_runs_the_walkthrough_to_compaction",
    "tests/system/test_runner.py::test_script_with_init_file_variables_settings_csv_report_and_connection_options",
    "tests/system/test_runner.py::test_atomic_rolls_back_the_whole_script_when_a_statement_fails",
    "tests/system/test_hive_client.py::",
    "tests/system/test_hive_client_coexist.py::test_our_locations_are_the_ones_hive_writes",
    "tests/system/test_hive_client_coexist.py::test_plain_tables_are_read_by_hive_serdes_both_ways",
    "tests/system/test_hive_client_coexist.py::test_partition_names_and_columns_agree_both_ways",
    "tests/system/test_hive_client_coexist.py::test_tables_dropped_by_one_are_gone_for_the_other",
    "tests/system/test_hive_client_coexist.py::test_compaction_requests_are_shared",
    "tests/system/test_spark_connect.py::test_connect_session_is_remote",
    "tests/system/test_quiet_stderr.py::",
    # the benchmark run (a module fixture runs every scenario, ~25 s) and the checks of its results
    "tests/system/test_benchmarks.py::test_every_scenario_times_ours_and_its_peers",
    "tests/system/test_benchmarks.py::test_every_statement_of_ours_reports_its_spark_work",
    "tests/system/test_benchmarks.py::test_ours_and_every_peer_end_with_the_same_table",
    "tests/system/test_benchmarks.py::test_final_tables_hold_the_changes",
    "tests/system/test_benchmarks.py::test_restore_starts_every_run_from_the_same_files",
    "tests/system/test_benchmarks.py::test_table_lists_each_contender",
    "tests/system/test_notebooks.py::",
    "tests/system/test_kill.py::",
    "tests/system/test_stream_kill.py::",
    # second runs on other stores or object stores: CI runs the model and the stores' checks once
    "tests/system/test_model_based.py::test_model_based_on_a_database_made_by_hives_script",
    "tests/system/test_object_store.py::test_compaction_on_s3",
    "tests/system/test_store_concurrency.py::test_concurrent_processes_get_unique_ids[postgres]",
    "tests/system/test_store_concurrency.py::test_concurrent_first_open_of_a_new_store",
    "tests/system/test_store_concurrency.py::test_bootstrap_lock_of_one_mariadb_database_does_not_hold_up_another",
    "tests/system/test_store_concurrency.py::test_concurrent_ids_on_a_database_made_by_hives_script",
    "tests/system/test_store_concurrency.py::test_concurrent_threads_get_unique_ids[mariadb]",
    "tests/system/test_store_servers.py::test_definitions_create_what_hive_script_creates",
    "tests/system/test_hive_fixtures.py::test_alltypesorc_as_source_of_insert_update_delete",
    # the spark tier: each file keeps its principal tests (a feature's first scenario, its refusals, the
    # walkthrough's exact layout); its further scenarios and variants run with --full
    "tests/spark/test_point_read_twin.py::",  # random point statements, point read vs Spark scan (~25 s)
    "tests/spark/test_compaction.py::test_compaction_keeps_every_type_and_files_written_before_add_columns",
    "tests/spark/test_compaction.py::test_and_wait_takes_back_a_request_whose_worker_process_died",
    "tests/spark/test_compaction.py::test_insert_spread_over_two_writers_then_update_delete_minor_and_major_per_writer",
    "tests/spark/test_compaction.py::test_read_leases_of_queries_and_statements",
    "tests/spark/test_compaction.py::test_worker_dying_between_the_two_renames_of_a_minor_compaction",
    "tests/spark/test_compaction.py::test_major_compaction_writes_out_original_files_synthetic_row_ids",
    "tests/spark/test_compaction.py::test_writer_files_appear_only_complete_and_leave_no_partial_files",
    "tests/spark/test_compaction.py::test_worker_dying_while_building_leaves_nothing_visible_and_the_retry_tidies_up",
    "tests/spark/test_compaction.py::test_major_compaction_of_inputs_out_of_order_sorts_them",
    "tests/spark/test_compaction.py::test_compaction_stops_below_an_open_write_id_and_the_writer_commits_after",
    "tests/spark/test_compaction.py::test_open_transaction_older_than_the_compaction_blocks_the_cleaner",
    "tests/spark/test_compaction.py::test_leases_of_a_process_that_exited_end_and_show_compactions_says_what_cleaning_waits_for",
    "tests/spark/test_compaction.py::test_aborted_writers_zero_byte_files_never_stop_a_compaction",
    "tests/spark/test_compaction.py::test_compactor_command_runs_one_round",
    "tests/spark/test_compaction.py::test_bucketed_table_compacts_bucket_by_bucket",
    "tests/spark/test_insert_only.py::test_major_compaction_merges_visible_files_and_cleaner_removes_the_rest",
    "tests/spark/test_insert_only.py::test_minor_compaction_and_initiator_of_insert_only",
    "tests/spark/test_insert_only.py::test_ctas_into_each_kind",
    "tests/spark/test_insert_only.py::test_merge_insert_only_clauses",
    "tests/spark/test_insert_only.py::test_insert_overwrite_truncate_layout_and_reads[TEXTFILE]",
    "tests/spark/test_insert_only.py::test_snapshot_isolation_aborted_and_multi_statement",
    "tests/spark/test_insert_only.py::test_read_table_reads_the_same_snapshot",
    "tests/spark/test_insert_only.py::test_hive4_compacted_dirs_count_once_their_visibility_txn_commits",
    "tests/spark/test_insert_only.py::test_read_table_reads_textfile_tables_as_select",
    "tests/spark/test_dataframe_api.py::test_merge_builder_is_the_sql_merge",
    "tests/spark/test_dataframe_api.py::test_overwrite_and_static_partitions",
    "tests/spark/test_dataframe_api.py::test_create_table_and_write",
    "tests/spark/test_dataframe_api.py::test_merge_all_columns",
    "tests/spark/test_dataframe_api.py::test_docstring_examples_run[merge_builder.MergeBuilder.dry_run]",
    "tests/spark/test_dataframe_api.py::test_docstring_examples_run[table.AcidTable.merge]",
    "tests/spark/test_merge.py::test_null_keys_never_match_and_on_false",
    "tests/spark/test_merge.py::test_not_matched_by_source_default_and_star_shorthands",
    "tests/spark/test_merge.py::test_type_2_slowly_changing_dimension_with_a_union_all_source",
    "tests/spark/test_merge.py::test_same_result_as_duckdb[aggregate-source]",
    "tests/spark/test_merge.py::test_same_result_as_duckdb[by-source]",
    "tests/spark/test_merge.py::test_on_with_a_non_key_column_turns_a_change_into_an_insert",
    "tests/spark/test_merge.py::test_first_applicable_clause_wins_and_conditions[over-the-driver-limit]",
    "tests/spark/test_value_matrix.py::test_select_reads_what_was_written[m_values]",
    "tests/spark/test_key_pruning.py::test_a_merge_reads_only_the_target_stripes_its_source_keys_can_match",
    "tests/spark/test_key_pruning.py::test_partitioned_table_and_original_files",
    # test_a_point_update_and_delete_of_a_large_table_launch_no_spark_job: the twin tables, eight statements
    "tests/spark/test_key_pruning.py::test_point_statements_read_their_row_groups_on_the_driver",
    "tests/spark/test_key_pruning.py::test_the_point_read_leaves_what_it_cannot_read_exactly_to_spark",
    "tests/spark/test_key_pruning.py::test_mixed_case_names_old_dates_and_buckets",
    "tests/spark/test_history_time_travel.py::test_partitioned_versions",
    "tests/spark/test_history_time_travel.py::test_versions_survive_minor_compaction_not_major",
    "tests/spark/test_history_time_travel.py::test_adopted_write_ids_show_as_adopted",
    "tests/spark/test_history_time_travel.py::test_restore_a_version_into_another_table",
    "tests/spark/test_history_time_travel.py::test_overwrite_makes_older_versions_unavailable",
    "tests/spark/test_history_time_travel.py::test_aborted_write_is_not_history_and_not_a_version",
    "tests/spark/test_history_time_travel.py::test_describe_history_shows_a_long_statement_shortened",
    "tests/spark/test_history_time_travel.py::test_one_history_row_per_write_id_of_a_multi_statement_transaction",
    "tests/spark/test_views.py::test_views_in_joins_subqueries_insert_select_and_merge",
    "tests/spark/test_views.py::test_bad_view_statements_fail_in_one_line_and_change_nothing[CREATE VIEW bad AS SELECT nope",
    "tests/spark/test_views.py::test_bad_view_statements_fail_in_one_line_and_change_nothing[CREATE VIEW bad AS SELECT id, id",
    "tests/spark/test_views.py::test_bad_view_statements_fail_in_one_line_and_change_nothing[CREATE VIEW bad AS SELECT * FROM nothing",
    "tests/spark/test_views.py::test_bad_view_statements_fail_in_one_line_and_change_nothing[INSERT OVERWRITE",
    "tests/spark/test_views.py::test_bad_view_statements_fail_in_one_line_and_change_nothing[DELETE",
    "tests/spark/test_views.py::test_bad_view_statements_fail_in_one_line_and_change_nothing[UPDATE",
    "tests/spark/test_row_format.py::test_avro_partitioned_table_reads_hive_files_and_writes_partitions",
    "tests/spark/test_row_format.py::test_json_serde_table_reads_keys_without_case_and_writes_every_column",
    "tests/spark/test_row_format.py::test_null_defined_as_tab_delimiter_serde_properties_and_partitions",
    "tests/spark/test_row_format.py::test_collection_and_map_key_separators_of_complex_columns",
    "tests/spark/test_constraints.py::test_not_null_on_plain_and_insert_only_tables",
    "tests/spark/test_constraints.py::test_check_violation_fails_in_one_line_and_writes_nothing[MERGE",
    "tests/spark/test_constraints.py::test_check_violation_fails_in_one_line_and_writes_nothing[statement4",
    "tests/spark/test_constraints.py::test_not_null_violation_fails_in_one_line_and_writes_nothing[MERGE",
    "tests/spark/test_constraints.py::test_default_constraint_q_rows_describe_and_store",
    "tests/spark/test_datasource.py::test_write_append_and_overwrite_are_the_insert_statements",
    "tests/spark/test_locks_and_conflicts.py::test_writers_of_different_partitions_do_not_wait_and_an_unpruned_one_locks_the_table",
    "tests/spark/test_locks_and_conflicts.py::test_write_conflict_matrix_stepped_statement_by_statement[MERGE-delete-U-sqlite]",
    "tests/spark/test_locks_and_conflicts.py::test_write_conflict_matrix_stepped_statement_by_statement[D-D-sqlite]",
    "tests/spark/test_locks_and_conflicts.py::test_a_reading_transaction_holds_off_drop_table[sqlite]",
    "tests/spark/test_dry_run.py::test_dry_runs_of_the_walkthrough",
    "tests/spark/test_dry_run.py::test_merge_against_duckdb",
    "tests/spark/test_dry_run.py::test_partitioned_table",
    "tests/spark/test_statements.py::test_show_create_table_is_rerunnable",
    "tests/spark/test_plain_partitions.py::test_msck_repair_adds_drops_and_syncs_partitions",
    "tests/spark/test_plain_partitions.py::test_read_table_reads_plain_partitions_without_spark[ORC]",
    "tests/spark/test_plain_partitions.py::test_writes_clear_hive_stats_flag_of_the_partitions_they_change",
    "tests/spark/test_plain_partitions.py::test_add_partition_location_external_table_and_drop",
    "tests/spark/test_read_table.py::test_versions_and_timestamps",
    "tests/spark/test_read_table.py::test_original_files_and_adopted_location",
    "tests/spark/test_read_table.py::test_plain_tables",
    "tests/spark/test_read_table.py::test_added_columns_read_as_null_in_older_files",
    "tests/spark/test_read_table.py::test_partitioned_bucketed_and_pruning",
    "tests/spark/test_statement_metrics.py::test_a_small_update_is_one_job_and_its_partition_filter_none",
    "tests/spark/test_statement_metrics.py::test_a_merge_checks_and_counts_in_one_aggregate",
    "tests/spark/test_statement_metrics.py::test_a_scan_of_many_event_files_launches_no_listing_job",
    "tests/spark/test_calendar.py::test_pre_gregorian_values_survive_every_rewrite[tasks]",
    "tests/spark/test_calendar.py::test_values_next_to_the_orc_limits_are_kept",
    "tests/spark/test_small_files.py::test_small_deltas_read_on_the_driver_give_the_spark_scan_rows",
    "tests/spark/test_types_roundtrip.py::test_insert_select_roundtrip",
    "tests/spark/test_types_roundtrip.py::test_nested_timestamps_are_wall_clock_whatever_the_session_time_zone",
    "tests/spark/test_local_scan.py::test_update_and_delete_over_deletes_partitions_evolution_and_typed_values",
    "tests/spark/test_partitions.py::test_adopting_a_partitioned_directory_registers_partitions",
    "tests/spark/test_hive_bucket_files.py::test_insert_only_bucketed_insert_merge_prune_and_compact",
    "tests/spark/test_hive_bucket_files.py::test_plain_bucketed_table_one_hive_named_file_per_bucket[TEXTFILE]",
    "tests/spark/test_hive_bucket_files.py::test_plain_partitioned_bucketed_version_1",
    "tests/spark/test_dataframe_sources.py::test_merge_from_a_temp_view_is_the_merge_from_a_table",
    "tests/spark/test_dataframe_sources.py::test_a_temp_view_comes_before_a_table_of_the_same_name_and_a_qualified_name_is_the_table",
    "tests/spark/test_dataframe_sources.py::test_dry_run_reads_a_dataframe_argument",
    "tests/spark/test_multi_statement_txn.py::test_heartbeats_keep_an_open_transaction_alive_and_time_outs_abort_silent_ones",
    "tests/spark/test_streaming.py::test_heartbeats_keep_the_batch_open_past_the_time_out",
    "tests/spark/test_strict_casts.py::test_strict_division_by_zero_fails",
    "tests/spark/test_strict_casts.py::test_strict_statement_fails_naming_value_and_column[overflow]",
    "tests/spark/test_shared_store.py::test_two_connections_share_tables_and_transactions[mariadb]",
    "tests/spark/test_split_update.py::test_update_and_delete_across_writer_files[over-the-driver-limit]",
    "tests/spark/test_split_update.py::test_a_point_statement_over_the_driver_limit_is_computed_again_for_the_tasks",
    "tests/spark/test_datasource.py::test_write_refusals_and_task_failures_change_nothing",
    "tests/spark/test_history_time_travel.py::test_versions_of_the_walkthrough_and_its_history",
    "tests/spark/test_merge_split.py::test_partitioned_and_bucketed_targets",
    "tests/spark/test_merge_split.py::test_cardinality_check_and_first_wins",
    "tests/spark/test_merge_split.py::test_same_result_as_duckdb[null-keys]",
    "tests/spark/test_merge_split.py::test_same_result_as_duckdb[on-false]",
    # the driver write's bounds by rows and bytes (~9 s loaded); CI checks the four jobs in the first test
    "tests/spark/test_merge_split.py::test_a_small_source_merge_is_four_jobs_and_writes_on_the_driver",
    "tests/spark/test_mm_to_acid.py::",
    "tests/spark/test_compaction.py::test_partitioned_table_compacts_per_partition",
    "tests/spark/test_compaction.py::test_reader_started_before_major_and_clean_gets_its_full_result",
    "tests/spark/test_merge.py::test_bucketed_target_routes_new_rows_to_their_bucket",
    "tests/spark/test_merge.py::test_same_result_as_duckdb[delete-update-insert]",
    "tests/spark/test_merge.py::test_first_applicable_clause_wins_and_conditions[driver]",
    "tests/spark/test_insert_only.py::test_create_transactional_table_and_create_as_settings",
    "tests/spark/test_plain_partitions.py::test_insert_overwrite_replaces_only_the_partitions_written",
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
    "tests/system/test_spark_connect.py",
    "tests/system/test_hive_client.py",
    "tests/system/test_model_based.py",
    "tests/spark/test_bad_input.py",
    "tests/spark/test_value_matrix.py",
    "tests/spark/test_compaction.py",
    "tests/spark/test_locks_and_conflicts.py",
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
def acid(spark, warehouse: Path, ready_stores) -> Iterator:
    """A connection on the shared SparkSession, its SQLite store in the warehouse as ``connect`` makes it (a
    copy of the run's bootstrapped template: the bootstrap itself is tested in ``tests/unit``)."""
    import hiveacid_sql

    ready_stores.warehouse_store(warehouse)
    session = hiveacid_sql.connect(spark=spark, warehouse=warehouse)
    yield session
    session.close()
    # The SparkSession is shared by every test, and acid.sql reads the session's temp views before warehouse
    # tables: a view one test leaves behind (say `src`) would shadow the next test's table of that name.
    for name in _temp_views(spark):
        spark.catalog.dropTempView(name)


def _temp_views(spark) -> list[str]:
    """The session's temporary views: the JVM catalog's own list (~2 ms; ``spark.catalog.listTables()``
    builds a Table object per entry over py4j, ~100 ms a test)."""
    views = spark._jsparkSession.sessionState().catalog().listLocalTempViews("*")  # noqa: SLF001 - the JVM catalog's own list, see above
    return [views.apply(i).table() for i in range(views.size())]


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
