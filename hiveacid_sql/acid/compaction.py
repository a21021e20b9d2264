"""What a compaction reads and writes, what the cleaner may delete, and when to compact: storage rules only.

Hive 3.1's compactor (format reference section 8; ``CompactorMR``, ``Initiator``, ``Cleaner``), restated over a
:class:`~hiveacid_sql.acid.state.TableListing` so that nothing here touches files, SQL or Spark:

* :func:`plan_compaction` - the inputs of a minor or major compaction of one directory and the names of its
  outputs (``delta_<min>_<max>`` / ``delete_delta_<min>_<max>`` with no statement id, or ``base_<N>``). The
  compactor's write-id list (``ValidWriteIdList.for_compactor``) ends below the lowest open write id, so
  nothing an open transaction writes is ever folded in.
* :func:`obsolete_after` - what a cleaner deletes once no reader needs it: ``getAcidState`` with every write id
  up to the compaction's highest write id counted as committed (``Cleaner.removeFiles``).
* :func:`determine_compaction_type` - ``Initiator.determineCompactionType`` with Hive's knobs and defaults.
* :func:`temp_dir_name` - the hidden directory outputs are built in (``_tmp_<uuid>``, ``CompactorMR``).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, replace

from hiveacid_sql.acid.names import (
    ParsedDelta,
    base_dir_name,
    delete_delta_dir_name,
    delta_dir_name,
    parse_dir_name,
    with_visibility,
)
from hiveacid_sql.acid.state import AcidState, TableListing, get_acid_state
from hiveacid_sql.acid.writeids import ValidTxnList, ValidWriteIdList
from hiveacid_sql.errors import AcidFormatError
from hiveacid_sql.settings import ABORTED_TXN_THRESHOLD, DELTA_NUM_THRESHOLD, DELTA_PCT_THRESHOLD, REGISTRY

MAJOR, MINOR = "major", "minor"

#: Hive's initiator settings; their defaults (hive3 HiveConf) are in the settings registry.
INITIATOR_SETTINGS = (DELTA_NUM_THRESHOLD, DELTA_PCT_THRESHOLD, ABORTED_TXN_THRESHOLD)
#: Per-table override prefix: TBLPROPERTIES ('compactorthreshold.hive.compactor.delta.num.threshold'='4').
THRESHOLD_PREFIX = "compactorthreshold."
#: ``hive_metastoreConstants.TABLE_NO_AUTO_COMPACT``: 'true' keeps the initiator away from the table.
NO_AUTO_COMPACTION = "no_auto_compaction"


@dataclass(frozen=True)
class CompactionPlan:
    """One directory's compaction: inputs chosen at the compactor's write ids, and the outputs' names.

    ``deltas`` / ``delete_deltas`` are the input directories; ``base`` the input base (major only);
    ``originals`` the pre-ACID files (major only, they get their synthetic row ids written out).
    ``insert_dir`` / ``delete_dir`` are the output names (``delete_dir`` is None for a major compaction);
    ``highest_write_id`` is Hive's ``CQ_HIGHEST_WRITE_ID``: the compactor list's high watermark.
    """

    kind: str
    state: AcidState
    deltas: tuple[ParsedDelta, ...]
    delete_deltas: tuple[ParsedDelta, ...]
    insert_dir: str
    delete_dir: str | None
    highest_write_id: int

    @property
    def input_dirs(self) -> tuple[str, ...]:
        """Every input directory name (base first, then deltas in Hive's order)."""
        base = (self.state.base.name,) if self.kind == MAJOR and self.state.base is not None else ()
        return base + tuple(d.name for d in sorted(self.deltas + self.delete_deltas, key=ParsedDelta.sort_key))

    def visible_at(self, txn_id: int) -> CompactionPlan:
        """The plan with Hive 4's output names, ``base_N_v<txn>`` / ``delta_x_y_v<txn>``: outputs written in
        place that count only once the compactor's transaction ``txn_id`` commits (a store without atomic
        rename). Hive 4 and later read them; Hive 3.1 cannot parse the names."""
        delete_dir = with_visibility(self.delete_dir, txn_id) if self.delete_dir else None
        return replace(self, insert_dir=with_visibility(self.insert_dir, txn_id), delete_dir=delete_dir)


def plan_compaction(
    listing: TableListing,
    write_ids: ValidWriteIdList,
    kind: str,
    *,
    insert_only: bool = False,
    txns: ValidTxnList | None = None,
) -> CompactionPlan | None:
    """The compaction of one directory at ``write_ids`` (a reader list; the compactor view is derived here).

    Returns None when there is nothing to do: minor with fewer than two input deltas (Hive's "not enough
    deltas"), major with no delta and no original file (the base is already everything). A minor
    compaction's range ends at the last delta below the lowest open write id; a major one writes
    ``base_<max write id of its inputs>``, which every later reader may use. ``insert_only``: the directory
    of an insert-only table (plain files, possibly nested in its deltas). ``txns``: the store's transaction
    list, so a ``_v<txn>`` output of a compaction still running (or aborted) is no input.
    """
    if kind not in (MAJOR, MINOR):
        raise ValueError(f"compaction type must be 'major' or 'minor', not {kind!r}")
    compactor = write_ids if write_ids.compactor else write_ids.for_compactor()
    state = get_acid_state(without_unfinished_publish(listing), compactor, nested_files=insert_only, txns=txns)
    hwm = compactor.high_watermark
    deltas = tuple(d for d in state.deltas if d.max_write_id <= hwm)
    deletes = tuple(d for d in state.delete_deltas if d.max_write_id <= hwm)
    chosen = deltas + deletes
    if kind == MINOR:
        if len({(d.min_write_id, d.max_write_id, d.statement_id) for d in chosen}) < 2:
            return None
        lo = min(d.min_write_id for d in chosen)
        hi = max(d.max_write_id for d in chosen)
        delete_dir = None if insert_only else delete_delta_dir_name(lo, hi, None)  # no deletes in an MM table
        return CompactionPlan(MINOR, state, deltas, deletes, delta_dir_name(lo, hi, None), delete_dir, hwm)
    if not chosen and not state.originals:
        return None
    top = max([d.max_write_id for d in chosen] + ([state.base.write_id] if state.base is not None else []), default=0)
    if top <= 0:
        # Only original files and no write id at all: Hive names this base_-9223372036854775808; we name it
        # after the compactor's high watermark when there is one, so ordinary readers pick it up.
        top = max(hwm, 0)
    return CompactionPlan(MAJOR, state, deltas, deletes, base_dir_name(top), None, hwm)


def obsolete_after(
    listing: TableListing, highest_write_id: int, *, insert_only: bool = False, txns: ValidTxnList | None = None
) -> tuple[str, ...]:
    """Relative paths a cleaner deletes after a compaction whose highest write id was ``highest_write_id``.

    Hive 3.1's ``Cleaner.removeFiles``: ``getAcidState`` with every write id up to the compaction's counted as
    committed; whatever the result calls obsolete is superseded by the compaction's output. ``txns``: the
    store's transaction list, so the ``_v<txn>`` output of a compaction still writing never makes anything
    obsolete (its half-written base would otherwise supersede the directories it is made from).
    """
    ids = ValidWriteIdList.all_committed(None, highest_write_id)
    return get_acid_state(listing, ids, nested_files=insert_only, txns=txns).obsolete


def aborted_dirs(
    listing: TableListing, write_ids: ValidWriteIdList, *, insert_only: bool = False, txns: ValidTxnList | None = None
) -> tuple[str, ...]:
    """Directories whose whole write-id range is aborted, and (with ``txns``) ``_v<txn>`` outputs of an aborted
    compactor transaction: no snapshot reads them, so they may go at any time."""
    return get_acid_state(listing, write_ids, nested_files=insert_only, txns=txns).aborted


def without_unfinished_publish(listing: TableListing) -> TableListing:
    """The listing without the half of a minor compaction's output that was moved into place alone.

    A minor compaction's two outputs are two renames. Between them (or after a worker died between them) a
    reader would see ``delta_x_y`` without ``delete_delta_x_y`` and lose the deletes it replaces (or the
    reverse, and lose rows). Such a lone output is recognised by its inputs: deltas of *both* kinds inside
    its range are still there (the cleaner has not run: the compaction never finished). Ignoring it gives
    exactly the view from before the compaction. Outputs with their twin, and lone outputs whose inputs
    are gone (Hive writes no ``delete_delta`` when there were no deletes), are kept.
    """
    parsed = []
    for entry in listing.dirs:
        try:
            d = parse_dir_name(entry.name)
        except AcidFormatError:
            d = None
        if isinstance(d, ParsedDelta):
            parsed.append(d)
    names = {d.name for d in parsed}
    lone: set[str] = set()
    for d in parsed:
        if d.statement_id is not None or d.min_write_id == d.max_write_id or d.visibility_txn_id:
            continue  # a _v output pair becomes visible in one commit, never half
        twin = (delta_dir_name if d.is_delete else delete_delta_dir_name)(d.min_write_id, d.max_write_id, None)
        if twin in names:
            continue

        def inside(other: ParsedDelta, d: ParsedDelta = d) -> bool:
            return (
                other.name != d.name
                and d.min_write_id <= other.min_write_id
                and other.max_write_id <= d.max_write_id
                and (other.min_write_id, other.max_write_id) != (d.min_write_id, d.max_write_id)
            )

        kinds = {o.is_delete for o in parsed if inside(o)}
        # A lone insert output hides the deletes still in delete deltas inside it; a lone delete output hides
        # the rows of insert deltas inside it (the worker moves the insert output first).
        if (d.is_delete and False in kinds) or (not d.is_delete and kinds == {True, False}):
            lone.add(d.name)
    if not lone:
        return listing
    return TableListing(tuple(e for e in listing.dirs if e.name not in lone), listing.files)


def temp_dir_name() -> str:
    """The hidden directory a compaction builds its output in (``_tmp_<uuid>``; readers skip ``_`` names)."""
    return f"_tmp_{uuid.uuid4()}"


def _setting(key: str, table_params: Mapping[str, str], conf: Mapping[str, str]) -> str:
    for k, v in table_params.items():
        if k.lower() == (THRESHOLD_PREFIX + key).lower():
            return v
    return conf.get(key, REGISTRY[key].default)


def no_auto_compaction(table_params: Mapping[str, str]) -> bool:
    """``NO_AUTO_COMPACTION``='true' (the key in any case, as Hive reads it lower and upper case)."""
    return any(k.lower() == NO_AUTO_COMPACTION and v.strip().lower() == "true" for k, v in table_params.items())


def determine_compaction_type(
    state: AcidState,
    sizes: Mapping[str, int],
    aborted_txns: int,
    table_params: Mapping[str, str],
    conf: Mapping[str, str],
    *,
    insert_only: bool = False,
) -> str | None:
    """``Initiator.determineCompactionType`` (Hive 3.1): 'major', 'minor' or None (always 'major' for an
    insert-only table, ``insert_only``: Hive's initiator never asks for a minor compaction there).

    ``state`` is the directory at the compactor's write ids; ``sizes`` maps a relative path (a base or delta
    directory name, or an original file's path) to its size in bytes. Too many aborted transactions
    (``abortedtxn.threshold``) -> major; delta bytes / base bytes above ``delta.pct.threshold`` -> major; more
    deltas than ``delta.num.threshold`` -> minor, or major when there is no base. Table properties
    ``compactorthreshold.<setting>`` override the settings.
    """
    if aborted_txns > int(_setting(ABORTED_TXN_THRESHOLD, table_params, conf)):
        return MAJOR
    base_size = sizes.get(state.base.name, 0) if state.base is not None else 0
    base_size += sum(sizes.get(f.path, f.size) for f in state.originals)
    deltas = state.all_deltas
    delta_size = sum(sizes.get(d.name, 0) for d in deltas)
    no_base = base_size == 0 and delta_size > 0
    if base_size > 0 and delta_size / base_size > float(_setting(DELTA_PCT_THRESHOLD, table_params, conf)):
        return MAJOR
    if len(deltas) <= int(_setting(DELTA_NUM_THRESHOLD, table_params, conf)):
        return None
    return MAJOR if no_base or insert_only else MINOR
