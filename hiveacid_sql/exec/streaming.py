"""What the Structured Streaming sink needs of Spark: a micro-batch's rows as Arrow on the driver, and the
id of the streaming query running it (kept in the query's checkpoint, so the same after a restart)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pyarrow as pa

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

#: The local property Spark's ``StreamExecution`` sets on the thread running a micro-batch
#: (``StreamExecution.QUERY_ID_KEY``): the query's id, stored in its checkpoint.
QUERY_ID_PROPERTY = "sql.streaming.queryId"


def frame_arrow(frame: DataFrame) -> pa.Table:
    """The micro-batch's rows as one Arrow table on the driver (``DataFrame.toArrow``)."""
    return frame.toArrow()


def streaming_query_id(frame: DataFrame) -> str | None:
    """The id of the streaming query whose micro-batch ``frame`` is (None outside ``foreachBatch``)."""
    return frame.sparkSession.sparkContext.getLocalProperty(QUERY_ID_PROPERTY)
