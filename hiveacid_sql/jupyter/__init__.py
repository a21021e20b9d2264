"""Jupyter: ``%load_ext hiveacid_sql``, then ``%%acid`` cells and ``%acid`` lines.

    %acid --warehouse /tmp/wh                  connect (on first use, options are optional)
    %%acid -l 20 -o rows
    UPDATE employee SET salary = 7000 WHERE id = :emp_id;
    SELECT * FROM {{table_name}}

The last statement's rows show as an HTML table (at most ``--limit`` rows, default
``%config AcidMagic.limit = 100``); a DML statement shows its one-line report; ``-o name`` keeps the
result (a Spark DataFrame, or a :class:`~hiveacid_sql.DmlResult`) in the notebook's namespace.
``{{var}}`` pastes a variable's text, ``:var`` its value as a SQL literal (jupysql's conventions).
One connection per kernel, opened on first use.
"""

from __future__ import annotations

from typing import Any

from hiveacid_sql.jupyter.display import QueryResult
from hiveacid_sql.jupyter.magic import AcidMagic
from hiveacid_sql.jupyter.params import substitute

__all__ = ["AcidMagic", "QueryResult", "load_ipython_extension", "substitute"]


def load_ipython_extension(ipython: Any) -> None:
    """Register the ``%acid`` / ``%%acid`` magics with an IPython shell."""
    ipython.register_magics(AcidMagic)
