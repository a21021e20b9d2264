"""``python -m hiveacid_sql.cli``: the same as the ``hiveacid-sql`` command."""

from hiveacid_sql.cli import main

raise SystemExit(main())
