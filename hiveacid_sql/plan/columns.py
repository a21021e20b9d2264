"""The internal column names a DML plan's queries produce and the executors read, defined once.

A DML statement reads its target with each row's partition directory and row id parts; MERGE adds the
clause that applied and a source row id; the writer tasks add the event's operation, statement id and
bucket. No imports here: the writer tasks import this module in Spark's Python workers.
"""

#: a target row's partition directory (``p=1/q=a``, '' for an unpartitioned table) and its row id parts
PART_DIR, OWID, BUCKET, ROWID = "__part_dir", "__owid", "__bucket", "__rowid"
#: MERGE: the index of the WHEN clause that applied to a joined row, and a source row's id
CLAUSE, SOURCE_ID = "__clause", "__src_id"
#: MERGE with a small source (:class:`~hiveacid_sql.plan.model.MergeSplit`): the frames the executor names
#: for the numbered source and for its rows that matched no target row
NUMBERED_SOURCE, UNMATCHED_SOURCE = "__hacid_merge_numbered_source", "__hacid_merge_unmatched_source"
#: writer tasks: the event's operation and statement id, and the bucket id (codec-encoded) it goes to
OP, STMT, BUCKET_ID = "__op", "__stmt", "__bucket_id"
