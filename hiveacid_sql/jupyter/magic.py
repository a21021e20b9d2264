"""The ``%acid`` line magic and ``%%acid`` cell magic.

Options come first, then the SQL (on the line, or in the cell):

    -l N, --limit N        rows to show (0: all; default ``%config AcidMagic.limit``, 100)
    -o NAME, --out NAME    keep the last statement's result in the notebook variable NAME
    --warehouse DIR, --store-url URL, --master M, --conf K=V
                           connection options: the first use connects with them; giving them again
                           later reconnects (the session this magic started is stopped first). Without
                           --master, a SparkSession already active in the kernel is used (and left running)
    --connection NAME      use an existing ``hiveacid_sql`` connection from the notebook instead
    --close                close the connection
    --dry-run              DML statements show the rows they would change (old and new values), commit nothing

Options are parsed by hand rather than by ``magic_arguments``: that splits the whole line shell-style,
which would eat the quotes of the SQL after the options.
"""

from __future__ import annotations

from typing import Any

from IPython.core.error import UsageError
from IPython.core.magic import Magics, line_cell_magic, magics_class, no_var_expand
from traitlets import Dict, Integer, Unicode

from hiveacid_sql.errors import HiveAcidError
from hiveacid_sql.jupyter.display import DmlReport, QueryResult
from hiveacid_sql.jupyter.params import paste, substitute
from hiveacid_sql.results import DmlResult, StatementResult

#: option -> (destination, takes a value)
_OPTIONS = {
    "-l": ("limit", True), "--limit": ("limit", True),
    "-o": ("out", True), "--out": ("out", True),
    "--warehouse": ("warehouse", True), "--store-url": ("store_url", True), "--master": ("master", True),
    "--conf": ("conf", True), "--connection": ("connection", True), "--close": ("close", False),
    "--dry-run": ("dry_run", False),
}
_CONNECT = ("warehouse", "store_url", "master", "conf")


def split_options(line: str) -> tuple[dict[str, Any], str]:
    """The leading options of a magic line, and the SQL after them (untouched)."""
    opts: dict[str, Any] = {"conf": {}}
    rest = line
    while True:
        rest = rest.lstrip()
        word = rest.split(None, 1)[0] if rest else ""
        name, eq, inline = word.partition("=")
        if name not in _OPTIONS:
            return opts, rest
        dest, takes_value = _OPTIONS[name]
        rest = rest[len(word):]
        if not takes_value:
            opts[dest] = True
            continue
        if eq:
            value = inline
        else:
            value, rest = _value(name, rest.lstrip())
        if dest == "conf":
            key, sep, val = value.partition("=")
            if not sep:
                raise UsageError(f"--conf expects KEY=VALUE, got {value!r}")
            opts["conf"][key] = val
        elif dest == "limit":
            try:
                opts["limit"] = int(value)
            except ValueError:
                raise UsageError(f"{name} expects a number of rows, got {value!r}") from None
        else:
            opts[dest] = value


def _value(option: str, text: str) -> tuple[str, str]:
    """An option's value (bare, or in single or double quotes) and the text after it."""
    if not text:
        raise UsageError(f"{option} needs a value")
    if text[0] in "'\"":
        end = text.find(text[0], 1)
        if end < 0:
            raise UsageError(f"{option}: unclosed quote in {text.split(chr(10))[0]!r}")
        return text[1:end], text[end + 1 :]
    parts = text.split(None, 1)
    return parts[0], parts[1] if len(parts) > 1 else ""


@magics_class
class AcidMagic(Magics):
    """``%acid`` / ``%%acid``: Hive SQL on Hive ACID tables, one connection per kernel."""

    limit = Integer(100, help="rows a query shows (0: all)").tag(config=True)
    warehouse = Unicode(None, allow_none=True, help="warehouse directory of the first connection").tag(config=True)
    store_url = Unicode(None, allow_none=True, help="transaction store URL of the first connection").tag(config=True)
    master = Unicode(None, allow_none=True, help="Spark master of the first connection").tag(config=True)
    conf = Dict(help="Spark settings of the first connection").tag(config=True)

    def __init__(self, shell: Any = None, **kwargs: Any) -> None:
        super().__init__(shell, **kwargs)
        self.connection: Any = None
        self._owns_connection = False

    @no_var_expand
    @line_cell_magic
    def acid(self, line: str, cell: str | None = None) -> Any:
        """Run Hive SQL: ``%acid [options] SQL`` or ``%%acid [options]`` over a cell of statements."""
        namespace = self.shell.user_ns if self.shell is not None else {}
        try:
            opts, sql = split_options(paste(line, namespace))
            if cell is not None:
                sql = (sql + "\n" + cell) if sql.strip() else cell
            if opts.get("close"):
                self.close()
                if not sql.strip():
                    return None
            self._connect(opts)
            if not sql.strip():
                return None
            result = self._run(substitute(sql, namespace), opts)
        except HiveAcidError as exc:
            raise UsageError(f"{type(exc).__name__}: {exc}") from None
        except Exception as exc:  # Spark's analysis errors: their first line is the message
            if type(exc).__module__.startswith(("pyspark", "py4j")):
                first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                raise UsageError(f"{type(exc).__name__}: {first}") from None
            raise
        return result

    def close(self) -> None:
        """Close the connection this magic opened (one given with ``--connection`` stays open)."""
        if self.connection is not None and self._owns_connection:
            self.connection.close()
        self.connection, self._owns_connection = None, False

    def _connect(self, opts: dict[str, Any]) -> None:
        if opts.get("connection"):
            name = opts["connection"]
            session = (self.shell.user_ns if self.shell is not None else {}).get(name)
            if session is None or not hasattr(session, "run_statement"):
                raise UsageError(f"--connection {name}: no hiveacid_sql connection by that name in the notebook")
            self.close()
            self.connection, self._owns_connection = session, False
            return
        asked = any(opts.get(k) for k in _CONNECT)
        if self.connection is not None and not asked:
            return
        self.close()
        from hiveacid_sql.engine.connect import active_session, connect, quiet_pyspark_error_logs

        quiet_pyspark_error_logs(verbose=False)  # the magic shows Spark's error on one line already

        kwargs: dict[str, Any] = {
            "warehouse": opts.get("warehouse") or self.warehouse,
            "store_url": opts.get("store_url") or self.store_url,
            "spark_conf": {**self.conf, **opts.get("conf", {})},
        }
        master = opts.get("master") or self.master
        if master:
            kwargs["master"] = master
        else:
            active = active_session()
            if active is not None:  # the kernel's own Spark: use it (and never stop it)
                for key, value in kwargs.pop("spark_conf").items():
                    active.conf.set(key, value)
                kwargs["spark"] = active
        try:
            self.connection = connect(**kwargs)
        except HiveAcidError as exc:
            raise UsageError(f"cannot connect: {exc}") from None
        self._owns_connection = True

    def _run(self, sql: str, opts: dict[str, Any]) -> Any:
        from hiveacid_sql.sql.parse import parse

        statements = parse(sql)  # the whole cell parses before anything runs
        acid = self.connection
        shown: Any = None
        result: Any = None
        for i, statement in enumerate(statements):
            result = acid.run_statement(statement, dry_run=True) if opts.get("dry_run") else acid.run_statement(statement)
            last = i == len(statements) - 1
            if isinstance(result, DmlResult):
                if last:
                    shown = DmlReport(result)
                else:
                    print(result)
            elif last and result is not None and not isinstance(result, StatementResult):
                limit = opts.get("limit", self.limit)
                shown = QueryResult.collect(result, limit)
            elif last:
                shown = None
        if opts.get("out") and self.shell is not None:
            self.shell.user_ns[opts["out"]] = result
        return shown
