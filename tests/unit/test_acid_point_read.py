"""The driver's point read of an event file (:mod:`hiveacid_sql.acid.point_read`): ORC C++'s search argument,
through pyorc, keeps exactly the row groups whose statistics allow a match, on the nested ``row`` field, and
the events come back filtered as the scan filters them (insert events of valid write ids)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.fs as pafs
import pyorc

from hiveacid_sql.acid.hive_types import parse_hive_type
from hiveacid_sql.acid.orc_footer import read_footer
from hiveacid_sql.acid.point_read import IntCondition, estimated_rows, point_events, search_argument
from hiveacid_sql.acid.writeids import ValidWriteIdList

B0 = 1 << 29
STRIDE = 1_000
ROWS = 10_000
COLUMNS = [("id", parse_hive_type("int")), ("name", parse_hive_type("string")), ("salary", parse_hive_type("bigint"))]


def _file(path: Path, names: tuple[str, str, str] = ("id", "name", "salary")) -> Path:
    """ids 0..ROWS-1 in groups of STRIDE rows; ids 3000..3999 are NULL; row 7001 is a delete event; rows
    8000.. were written by write id 5 (the rest by 1)."""
    schema = (
        "struct<operation:int,originalTransaction:bigint,bucket:int,rowId:bigint,currentTransaction:bigint,"
        f"row:struct<{names[0]}:int,{names[1]}:string,{names[2]}:bigint>>"
    )
    with path.open("wb") as f:
        w = pyorc.Writer(f, schema, row_index_stride=STRIDE, struct_repr=pyorc.StructRepr.TUPLE)
        for i in range(ROWS):
            wid = 5 if i >= 8000 else 1
            if i == 7001:
                w.write((2, 1, B0, i, 1, None))
            else:
                w.write((0, wid, B0, i, wid, (None if 3000 <= i < 4000 else i, f"n{i}", i * 2)))
        w.close()
    return path


def _read(path: Path, conditions: list[IntCondition], write_ids=None, max_rows: int = ROWS, columns=COLUMNS):
    footer = read_footer(pafs.LocalFileSystem(), str(path))
    predicate = search_argument(footer, columns, conditions)
    if predicate is None:
        return None
    return point_events(pafs.LocalFileSystem(), footer, columns, predicate, write_ids, max_rows)


def test_the_row_groups_a_condition_allows_are_read_with_their_events_filtered(tmp_path):
    path = _file(tmp_path / "bucket_00000")
    table, decoded = _read(path, [IntCondition(0, "=", (5500,))])
    assert decoded == STRIDE and table.column("__rowid").to_pylist() == list(range(5000, 6000))
    assert table.column_names == ["__owid", "__bucket", "__rowid", "id", "name", "salary"]
    assert table.slice(500, 1).to_pylist() == [
        {"__owid": 1, "__bucket": B0, "__rowid": 5500, "id": 5500, "name": "n5500", "salary": 11000}
    ]
    # IN and a range: the groups of 10 and 9999, then of 2990..3010 (the NULL group 3000.. allows none of them)
    _, decoded = _read(path, [IntCondition(0, "in", (10, 9999))])
    assert decoded == 2 * STRIDE
    table, decoded = _read(path, [IntCondition(0, ">=", (2990,)), IntCondition(0, "<=", (3010,))])
    assert decoded == STRIDE and table.column("__rowid").to_pylist() == list(range(2000, 3000))
    # a group holding a delete event: the delete event is not an insert event
    table, decoded = _read(path, [IntCondition(0, "=", (7001,))])
    assert decoded == STRIDE and table.num_rows == STRIDE - 1 and 7001 not in table.column("__rowid").to_pylist()
    # write id 5 is not valid in a snapshot at high watermark 4: the group of 8500 reads, none of it is live
    table, decoded = _read(path, [IntCondition(0, "=", (8500,))], ValidWriteIdList("db.t", 4))
    assert decoded == STRIDE and table.num_rows == 0
    # nothing matches: nothing read; over the bound: None
    assert _read(path, [IntCondition(0, "<", (0,))])[1] == 0
    assert _read(path, [IntCondition(0, "in", (10, 9999))], max_rows=STRIDE) is None
    # a condition on a bigint column, and one on a column not of the table's integral type: ignored
    _, decoded = _read(path, [IntCondition(2, "=", (4000,))])
    assert decoded == STRIDE
    assert _read(path, [IntCondition(1, "=", (4,))]) is None


def test_a_name_orc_would_resolve_elsewhere_gets_no_search_argument(tmp_path):
    # ORC C++ looks a name up depth first over the whole schema: "bucket" is the event's own bucket column
    path = _file(tmp_path / "bucket_00000", names=("bucket", "name", "salary"))
    columns = [("bucket", parse_hive_type("int")), *COLUMNS[1:]]
    assert _read(path, [IntCondition(0, "=", (5500,))], columns=columns) is None
    # ... and a value outside bigint's range cannot be a literal
    assert _read(_file(tmp_path / "b2"), [IntCondition(0, "=", (1 << 64,))]) is None


def test_the_estimate_spreads_a_file_s_rows_over_its_footer_range(tmp_path):
    footer = read_footer(pafs.LocalFileSystem(), str(_file(tmp_path / "bucket_00000")))
    assert dict(footer.int_ranges)[0] == (0, ROWS - 1)
    assert estimated_rows(footer, [IntCondition(0, "in", (5, 6, 6, ROWS + 5))]) == 2
    assert estimated_rows(footer, [IntCondition(0, ">=", (ROWS // 2,))]) == ROWS // 2
    assert estimated_rows(footer, [IntCondition(0, ">", (0,)), IntCondition(0, "<", (10,))]) == 10  # the narrowest
    assert estimated_rows(footer, [IntCondition(1, "=", (5,))]) == ROWS  # no range for a string field


def test_rows_failing_a_key_filter_do_not_reach_spark(tmp_path):
    from hiveacid_sql.acid.point_read import satisfying

    table, decoded = _read(_file(tmp_path / "bucket_00000"), [IntCondition(0, "=", (5500,))])
    assert decoded == STRIDE
    kept = satisfying(table, COLUMNS, [IntCondition(0, "in", (5500, 5600)), IntCondition(2, ">", (11000,))])
    assert kept.column("id").to_pylist() == [5600]
    # NULLs satisfy nothing; a literal beyond bigint and a non-integral column filter nothing
    nulls = pa.table({"id": pa.array([None, 1, None, 7], pa.int32()), "name": ["a", "b", "c", "d"], "salary": [1, 2, 3, 4]})
    assert satisfying(nulls, COLUMNS, [IntCondition(0, "<", (5,))]).column("id").to_pylist() == [1]
    assert satisfying(nulls, COLUMNS, [IntCondition(0, "in", (1, 7))]).column("id").to_pylist() == [1, 7]
    assert satisfying(table, COLUMNS, [IntCondition(0, "=", (1 << 64,)), IntCondition(1, "=", (1,))]) == table
