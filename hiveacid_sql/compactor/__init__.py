"""Compaction as a service: the worker, the cleaner and the initiator (:class:`Compactor`), a background
thread for a session, and the standalone ``hiveacid-sql compactor`` command (:mod:`.service`)."""

from hiveacid_sql.compactor.worker import Compactor, WorkResult

__all__ = ["Compactor", "WorkResult"]
