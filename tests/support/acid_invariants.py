"""Invariants of an ACID table's files, checked from the bytes on disk (pyorc), not through the engine.

The model-based test calls :func:`check_table` after every step. Each rule is one function taking a
:class:`TableFiles` and returning a list of violations (strings), so a failure names every broken rule at once.
Compaction rules plug in the same way: append a function to :data:`RULES` (or pass ``extra_rules``), e.g.
"table contents equal before and after ``ALTER TABLE .. COMPACT``" and "no obsolete directory read after the
cleaner ran" once compaction lands.

Rules (Hive's format, ``../shared/reference/hive-acid-format.md`` §1 and §3):

* every directory name under a table (or partition) directory parses (``acid/names.py``);
* every base/delta directory holds ``_orc_acid_version``;
* ``hive.acid.key.index`` has one entry per stripe, each the (originalTransaction, bucket, rowId) of the stripe's
  last event; ``hive.acid.stats`` counts the file's insert/update/delete events exactly;
* insert events are in strictly ascending (originalTransaction, bucket, rowId) order in a file; delete events
  in ascending (originalTransaction, bucket, rowId, currentTransaction) order without duplicates;
* the ``row__id`` of every row the current snapshot reads is unique in its partition (in the table when
  unpartitioned).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pyorc

from hiveacid_sql.acid.listing import filesystem_for, list_acid_dir
from hiveacid_sql.acid.names import is_hidden, parse_bucket_file, parse_dir_name
from hiveacid_sql.acid.state import get_acid_state
from hiveacid_sql.acid.writeids import RangeResponse, ValidWriteIdList
from hiveacid_sql.errors import AcidFormatError

ACID_VERSION_FILE = "_orc_acid_version"
INSERT, UPDATE, DELETE = 0, 1, 2


@dataclass
class OrcEvents:
    """One ACID ORC file: its stripes' event keys and its user metadata."""

    path: Path
    stripes: list[list[tuple[int, int, int, int, int]]]  # (operation, origTxn, bucket, rowId, currentTxn)
    metadata: dict[str, str]

    @property
    def events(self) -> list[tuple[int, int, int, int, int]]:
        return [e for s in self.stripes for e in s]


@dataclass
class TableFiles:
    """What the rules look at: the table directory, its partition dirs and the files the snapshot reads."""

    root: Path
    partition_dirs: list[Path]
    write_ids: ValidWriteIdList
    files: dict[Path, OrcEvents] = field(default_factory=dict)  # every bucket file under an ACID dir
    read: list[Path] = field(default_factory=list)  # the files the snapshot reads


def read_events(path: Path) -> OrcEvents:
    """The event keys of every stripe of an ACID file (the row struct is not decoded)."""
    with open(path, "rb") as f:
        reader = pyorc.Reader(f, column_names=("operation", "originalTransaction", "bucket", "rowId",
                                               "currentTransaction"))
        stripes = []
        for i in range(reader.num_of_stripes):
            stripes.append([tuple(row) for row in reader.read_stripe(i)])
        meta = {k: v.decode() for k, v in reader.user_metadata.items()}
    return OrcEvents(path, stripes, meta)


def _partition_dirs(root: Path, depth: int) -> list[Path]:
    dirs = [root]
    for _ in range(depth):
        dirs = [d / n for d in dirs for n in sorted(os.listdir(d)) if (d / n).is_dir() and not is_hidden(n)]
    return dirs


def collect(root: Path, partition_depth: int, write_ids: ValidWriteIdList) -> TableFiles:
    """Read every ACID file under ``root`` and work out which ones ``write_ids``' snapshot reads."""
    tf = TableFiles(root, _partition_dirs(root, partition_depth), write_ids)
    fs, _ = filesystem_for(str(root))
    for pdir in tf.partition_dirs:
        for name in os.listdir(pdir):
            d = pdir / name
            if not d.is_dir() or is_hidden(name):
                continue
            try:
                parsed = parse_dir_name(name)
            except AcidFormatError:
                continue  # reported by rule_dir_names
            if parsed is None:
                continue
            for fname in os.listdir(d):
                if parse_bucket_file(fname) is not None:
                    tf.files[d / fname] = read_events(d / fname)
        state = get_acid_state(list_acid_dir(fs, str(pdir)), write_ids)
        tf.read.extend(pdir / f.path for f in state.base_files)  # paths relative to the partition dir
        for files in state.delta_files.values():
            tf.read.extend(pdir / f.path for f in files)
    return tf


# -- rules --------------------------------------------------------------------------------------------


def rule_dir_names(tf: TableFiles) -> list[str]:
    """Every non-hidden directory in a table/partition dir is a base/delta/delete_delta dir."""
    bad = []
    for pdir in tf.partition_dirs:
        for name in os.listdir(pdir):
            if is_hidden(name) or not (pdir / name).is_dir():
                continue
            try:
                parsed = parse_dir_name(name)
            except AcidFormatError as exc:
                bad.append(f"{pdir / name}: {exc}")
                continue
            if parsed is None:
                bad.append(f"{pdir / name}: not an ACID directory name")
    return bad


def _acid_dirs(tf: TableFiles) -> list[Path]:
    out = []
    for pdir in tf.partition_dirs:
        for name in sorted(os.listdir(pdir)):
            if (pdir / name).is_dir() and (name.startswith("base_") or name.startswith("delta_")
                                           or name.startswith("delete_delta_")):
                out.append(pdir / name)
    return out


def _aborted(tf: TableFiles, d: Path) -> bool:
    """A delta of aborted write ids only: garbage no reader lists (a killed writer's), left to the cleaner."""
    parsed = parse_dir_name(d.name)
    return (
        parsed is not None
        and not d.name.startswith("base_")
        and tf.write_ids.is_write_id_range_aborted(parsed.min_write_id, parsed.max_write_id) is RangeResponse.ALL
    )


def rule_acid_version_file(tf: TableFiles) -> list[str]:
    """Every base/delta dir a reader may list says it holds ACID version 2 files (readers need it for
    pyorc-written files); a killed writer's aborted delta may lack it (it is written when the statement ends)."""
    return [
        f"{d}: no {ACID_VERSION_FILE}"
        for d in _acid_dirs(tf)
        if not (d / ACID_VERSION_FILE).is_file() and not _aborted(tf, d)
    ]


def _key_index(stripes: list[list[tuple[int, int, int, int, int]]]) -> str:
    return "".join(f"{s[-1][1]},{_signed(s[-1][2])},{s[-1][3]};" for s in stripes if s)


def _signed(bucket: int) -> int:
    return bucket - (1 << 32) if bucket >= 1 << 31 else bucket


def rule_key_index_and_stats(tf: TableFiles) -> list[str]:
    bad = []
    for path, ev in tf.files.items():
        want_index = _key_index(ev.stripes)
        got_index = ev.metadata.get("hive.acid.key.index")
        if got_index != want_index:
            bad.append(f"{path}: hive.acid.key.index {got_index!r}, rows say {want_index!r}")
        ops = [e[0] for e in ev.events]
        want_stats = f"{ops.count(INSERT)},{ops.count(UPDATE)},{ops.count(DELETE)}"
        got_stats = ev.metadata.get("hive.acid.stats")
        if got_stats != want_stats:
            bad.append(f"{path}: hive.acid.stats {got_stats!r}, rows say {want_stats!r}")
    return bad


def rule_event_order(tf: TableFiles) -> list[str]:
    """Insert files strictly ascending by (origTxn, bucket, rowId); delete files by (.., currentTxn), no
    duplicates."""
    bad = []
    for path, ev in tf.files.items():
        events = ev.events
        is_delete = path.parent.name.startswith("delete_delta_")
        if is_delete:
            keys = [(e[1], _signed(e[2]), e[3], e[4]) for e in events]
            if any(e[0] != DELETE for e in events):
                bad.append(f"{path}: a delete delta holds a non-delete event")
        else:
            keys = [(e[1], _signed(e[2]), e[3]) for e in events]
            if any(e[0] != INSERT for e in events):
                bad.append(f"{path}: an insert file holds a non-insert event")
        for a, b in zip(keys, keys[1:], strict=False):
            if not a < b:
                bad.append(f"{path}: events out of order or duplicated: {a} then {b}")
                break
    return bad


def rule_unique_row_ids(tf: TableFiles) -> list[str]:
    """The snapshot's live rows (insert events not deleted by a delete event it reads) have unique row ids
    within each partition (Hive numbers rows per partition: one statement writing two partitions gives both
    the same write id, bucket and row ids from 0)."""
    bad = []
    by_partition: dict[Path, list[Path]] = {}
    for path in tf.read:
        by_partition.setdefault(path.parent.parent, []).append(path)
    for pdir, paths in sorted(by_partition.items()):
        deleted: set[tuple[int, int, int]] = set()
        inserted: list[tuple[int, int, int]] = []
        for path in paths:
            ev = tf.files.get(path)
            if ev is None:
                bad.append(f"{path}: the snapshot reads a file that is not an ACID bucket file")
                continue
            is_delete = path.parent.name.startswith("delete_delta_")
            for e in ev.events:
                key = (e[1], _signed(e[2]), e[3])
                (deleted.add if is_delete else inserted.append)(key)
        live = [k for k in inserted if k not in deleted]
        dupes = len(live) - len(set(live))
        if dupes:
            bad.append(f"{pdir}: {dupes} live row__id(s) appear more than once")
    return bad


Rule = Callable[[TableFiles], list[str]]
RULES: list[Rule] = [
    rule_dir_names,
    rule_acid_version_file,
    rule_key_index_and_stats,
    rule_event_order,
    rule_unique_row_ids,
]


def check_table(
    root: Path, partition_depth: int, write_ids: ValidWriteIdList, extra_rules: list[Rule] | None = None
) -> list[str]:
    """Every violation of :data:`RULES` (and ``extra_rules``) in the table at ``root``; empty when all hold."""
    tf = collect(root, partition_depth, write_ids)
    problems: list[str] = []
    for rule in RULES + list(extra_rules or []):
        problems.extend(rule(tf))
    return problems
