"""Event files written one event at a time, for tests that spell out each event by hand.

The package writes events only in Arrow batches (:meth:`AcidEventWriter.write_batch`, what the Spark tasks
and the compactor hand over); a per-event API there had no caller but the tests, so it lives here. It is
the pyorc writer with two more methods: same file, same stripe cutting, same checks on the key order.
"""

from __future__ import annotations

from hiveacid_sql.acid.orc_writer import OP_DELETE, OP_INSERT, AcidEventWriter
from hiveacid_sql.errors import AcidFormatError

_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1
_INT64_MAX = (1 << 63) - 1


def _check_range(what: str, value: int, lo: int, hi: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool):
        raise AcidFormatError(f"{what} must be an int, got {value!r}")
    if not lo <= value <= hi:
        raise AcidFormatError(f"{what} {value} out of range [{lo}, {hi}]")


class RowEventWriter(AcidEventWriter):
    """:class:`AcidEventWriter` plus :meth:`insert` and :meth:`delete`, one event each."""

    def insert(self, write_id: int, bucket: int, row_id: int, row: tuple) -> None:
        """Append an insert event: operation 0, originalTransaction = currentTransaction = ``write_id``.

        ``bucket`` is the BucketCodec-encoded value (``1<<29 | bucketId<<16 | stmtId``); ``row`` is the
        pyorc tuple of the table columns in table order (see :func:`~hiveacid_sql.acid.orc_writer.row_converter`).
        """
        if self._mode != OP_INSERT or self._stats is not None:
            self._set_mode(OP_INSERT)
        if row is None or len(row) != self._ncols:
            raise AcidFormatError(
                f"{self._where()}insert row must be a tuple of {self._ncols} column values, got {row!r}"
            )
        self._append((write_id, bucket, row_id), (OP_INSERT, write_id, bucket, row_id, write_id, row))
        self._inserts += 1

    def delete(self, original_write_id: int, bucket: int, row_id: int, current_write_id: int) -> None:
        """Append a delete event for the row whose ROW__ID is (``original_write_id``, ``bucket``, ``row_id``).

        ``bucket`` is the deleted row's bucket property, verbatim (including that row's statement id);
        ``current_write_id`` is the deleting transaction's write id. The ``row`` column is NULL.
        """
        if self._mode != OP_DELETE or self._stats is not None:
            self._set_mode(OP_DELETE)
        _check_range("currentTransaction", current_write_id, 0, _INT64_MAX)
        self._append(
            (original_write_id, bucket, row_id),
            (OP_DELETE, original_write_id, bucket, row_id, current_write_id, None),
        )
        self._deletes += 1

    def _append(self, key: tuple[int, int, int], event: tuple) -> None:
        owid, bucket, row_id = key
        _check_range("originalTransaction", owid, 0, _INT64_MAX)
        _check_range("bucket", bucket, _INT32_MIN, _INT32_MAX)
        _check_range("rowId", row_id, 0, _INT64_MAX)
        last = self._last_key
        if last is None:
            self._first_key = key
        elif not key > last:
            what = "duplicate" if key == last else "out-of-order"
            raise AcidFormatError(
                f"{self._where()}{what} event key {key} after {last}: events must be strictly ascending "
                "by (originalTransaction, bucket, rowId)"
            )
        if self._in_stripe == self._rows_per_stripe:
            # All rows of the full stripe were handed to ORC (rows_per_stripe % batch_size == 0).
            self._writer.write_intermediate_footer()
            self._stripe_keys.append(last)  # type: ignore[arg-type]
            self._in_stripe = 0
        try:
            self._writer.write(event)
        except (TypeError, ValueError, OverflowError) as exc:
            raise AcidFormatError(f"{self._where()}cannot write event {key}: {exc}") from exc
        self._in_stripe += 1
        self._last_key = key
