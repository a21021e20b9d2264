"""Running scripts: statement by statement, with variables, output formats, reports and error positions.

One :class:`Runner` per command invocation holds the connection, the variables and the output settings.
A statement's life: substitute ``${...}`` (so a ``SET hivevar:`` earlier in the file counts), parse it at
its own position in the file (so every line/column an error names is a file position), run it, show it:
rows on stdout in the chosen format, one-line reports and timings on stderr (beeline's split, so
``hiveacid-sql -e "SELECT ..." --outputformat csv2 > out.csv`` gives a clean file), and one JSON line
per statement in ``--report FILE``.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, TextIO

from sqlglot import exp

from hiveacid_sql.cli.output import hive_string, render
from hiveacid_sql.cli.progress import ProgressBar
from hiveacid_sql.cli.script import ScriptStatement, positioned, split_script, statements_of
from hiveacid_sql.cli.variables import Variables
from hiveacid_sql.errors import HiveAcidError, SqlError
from hiveacid_sql.exec.session import cancel_all_jobs
from hiveacid_sql.results import DmlResult, StatementResult
from hiveacid_sql.sql.parse import Statement, parse

_POSITION = re.compile(r"^line (\d+), col (\d+): ")
_QUIT = {"quit", "exit", "!quit", "!q", "!exit"}
PROMPT = "hiveacid-sql> "
CONTINUATION = "           > "


@dataclass
class OutputSettings:
    """How results are shown (the command's output options)."""

    format: str = "table"
    header: bool = True
    null: str = "NULL"
    delimiter: str = "|"
    silent: bool = False
    verbose: bool = False
    progress: bool = False  # draw the Spark progress bar on stderr (only when stderr is a terminal)


@dataclass
class Runner:
    """Runs statements against one connection; counts failures; writes the report file."""

    acid: Any  # hiveacid_sql.Session
    output: OutputSettings = field(default_factory=OutputSettings)
    hivevars: dict[str, str] = field(default_factory=dict)
    report: TextIO | None = None
    dry_run: bool = False
    out: TextIO = field(default_factory=lambda: sys.stdout)
    err: TextIO = field(default_factory=lambda: sys.stderr)
    failures: int = 0

    def __post_init__(self) -> None:
        self.variables = Variables(self.hivevars, settings=lambda: self.acid.settings)

    # -- scripts -----------------------------------------------------------------------------------
    def run_script(self, source: str, text: str, *, force: bool = False) -> bool:
        """Run every statement of ``text``; stop at the first failure unless ``force``. True if all ran."""
        ok = True
        for statement in statements_of(text):
            if not self.run_statement(source, statement):
                ok = False
                if not force:
                    break
        return ok

    def run_atomic(self, source: str, text: str) -> bool:
        """Run the whole script as one transaction: committed if every statement succeeds, else rolled back."""
        self.acid.begin()
        try:
            ok = self.run_script(source, text)
        except BaseException:
            self.acid.rollback()
            raise
        if ok:
            try:
                self.acid.commit()
            except HiveAcidError as exc:  # e.g. a write conflict found at commit: nothing was kept
                self.failures += 1
                self.err.write(f"Error: {source}: the script's transaction did not commit: {_message(exc)}\n")
                self._report({"source": source, "statement": "COMMIT", "kind": "COMMIT", "status": "error",
                              "error": _message(exc)})
                return False
            self.info("Committed the transaction of the whole script")
        else:
            self.acid.rollback()
            self.info("Rolled back the transaction of the whole script: nothing it wrote is kept")
        return ok

    def interactive(self, stdin: TextIO, *, force: bool = False) -> bool:
        """Read statements until ``quit;`` or end of input; a statement may span lines until its ``;``.

        On a terminal a failed statement only reports its error (the session goes on, and ends with
        status 0); input from a pipe is a script, so it stops at the first failure unless ``force``.
        """
        tty = stdin.isatty()
        history = _History() if tty else None
        buffer, ok, number = "", True, 0
        while True:
            try:
                if tty:
                    line = input(CONTINUATION if buffer.strip() else PROMPT)
                else:
                    line = stdin.readline()
                    if not line:
                        raise EOFError
            except EOFError:
                break
            except KeyboardInterrupt:
                self.err.write("\n")
                buffer = ""
                continue
            if not buffer.strip() and line.strip().rstrip(";").strip().lower() in _QUIT:
                break
            buffer += line if line.endswith("\n") else line + "\n"
            split = split_script(buffer)
            for statement in split.statements:
                number += 1
                if statement.text.lower() in _QUIT:
                    return ok or tty
                try:
                    succeeded = self.run_statement(f"<stdin>#{number}" if tty else "<stdin>", statement)
                except KeyboardInterrupt:
                    if (spark := self.acid.running_spark()) is not None:
                        cancel_all_jobs(spark)
                    self.err.write("\nCancelled\n")
                    succeeded = False
                if not succeeded:
                    ok = False
                    if not tty and not force:
                        return False
            if split.statements:
                buffer = (split.rest.text + "\n") if split.rest else ""
                if tty and history:
                    history.save()
        if buffer.strip() and (tty or ok or force):
            split = split_script(buffer)
            for statement in split.statements + ([split.rest] if split.rest else []):
                ok = self.run_statement("<stdin>", statement) and ok
        return ok or tty  # on a terminal the errors were shown as they came; leaving is a success

    # -- one statement -----------------------------------------------------------------------------
    def run_statement(self, source: str, statement: ScriptStatement) -> bool:
        """Run one statement of a script; report an error with its file position. True if it succeeded."""
        started = time.monotonic()
        record: dict[str, Any] = {"source": source, "line": statement.line, "statement": statement.text}
        try:
            text = self.variables.substitute(statement.text)
            record["statement"] = text
            if self.output.verbose:
                self.err.write(f"-- {source}:{statement.line}\n{text};\n")
                self.err.flush()
            for parsed in parse(positioned(statement, text)):
                record["kind"] = _kind(parsed)
                self._run_parsed(parsed, record, started)
            record["status"] = "ok"
            return True
        except Exception as exc:  # every failure of a statement is reported the same way
            self.failures += 1
            message = _message(exc)
            where, message = _where(source, statement, exc, message)
            record.update(status="error", error=message)
            snippet = " ".join(statement.text.split())
            snippet = snippet if len(snippet) <= 100 else snippet[:100] + "..."
            self.err.write(f"Error: {where}: {message} (statement: {snippet})\n")
            if self.output.verbose:
                traceback.print_exception(exc, file=self.err)
            self.err.flush()
            return False
        finally:
            record["elapsed_ms"] = int((time.monotonic() - started) * 1000)
            self._report(record)

    def _run_parsed(self, st: Statement, record: dict[str, Any], started: float) -> None:
        if self._set_variable(st, record):
            return
        with ProgressBar(self.acid.running_spark, self.err, enabled=self.output.progress):
            if self.dry_run:
                result = self.acid.run_statement(st, dry_run=True)
                record["dry_run"] = True
            else:
                result = self.acid.run_statement(st)
            if isinstance(result, DmlResult):
                record["result"] = result.to_dict()
                self.info(str(result))
                return
            if result is None or isinstance(result, StatementResult):
                self.info(f"OK ({time.monotonic() - started:.3f} seconds)")
                return
            if not hasattr(result, "collect"):  # a report object of another kind (e.g. a dry run's)
                self.out.write(f"{result}\n")
                return
            rows = result.collect()
        types = [type(f.dataType).__name__ for f in result.schema.fields]
        o = self.output
        self.out.write(render(o.format, result.columns, types, rows, header=o.header, null=o.null,
                              delimiter=o.delimiter))
        self.out.flush()
        record["rows"] = len(rows)
        self.info(f"{len(rows)} row{'s' if len(rows) != 1 else ''} selected "
                  f"({time.monotonic() - started:.3f} seconds)")

    def _set_variable(self, st: Statement, record: dict[str, Any]) -> bool:
        """``SET hivevar:k=v`` defines a variable and ``SET hivevar:k`` shows one; ``SET hiveconf:k=v`` is
        ``SET k=v``; other SETs are the session's."""
        tree = st.tree
        if not isinstance(tree, exp.Set) or not tree.expressions:
            return False
        node = tree.expressions[0].this
        key_node = node.this if isinstance(node, exp.EQ) else node
        key = key_node.name.strip() if isinstance(key_node, exp.Expression) else ""
        if key.lower().startswith("hiveconf:") and isinstance(node, exp.EQ):  # Hive's spelling of SET k=v
            name, value = key.split(":", 1)[1], node.expression.name.strip()
            self.acid.settings.set(name, value)  # checked as SET checks it
            if name.startswith("spark."):
                self.acid.spark.conf.set(name, value)
            record["kind"] = "SET"
            self.info("OK")
            return True
        if not key.lower().startswith("hivevar:"):
            return False
        name = key.split(":", 1)[1]
        if isinstance(node, exp.EQ):
            self.variables.hivevars[name] = node.expression.name.strip()
            self.info("OK")
        else:
            value = self.variables.hivevars.get(name)
            text = f"{key}={value}" if value is not None else f"{key} is undefined"
            self.out.write(render(self.output.format, ["set"], ["StringType"], [(text,)], header=self.output.header))
        record["kind"] = "SET"
        return True

    # -- output helpers ----------------------------------------------------------------------------
    def info(self, message: str) -> None:
        """An informational line on stderr (suppressed by ``--silent``)."""
        if not self.output.silent:
            self.err.write(message + "\n")
            self.err.flush()

    def _report(self, record: dict[str, Any]) -> None:
        if self.report is not None:
            self.report.write(json.dumps(record, default=hive_string) + "\n")
            self.report.flush()


def _kind(st: Statement) -> str:
    words = st.text.split(None, 1)
    return words[0].upper() if words else ""


def _message(exc: BaseException) -> str:
    """A one-line message: ours as they are, Spark's and Python's first line with the error class."""
    if isinstance(exc, HiveAcidError):
        return " ".join(str(exc).split())
    text = str(exc).strip() or type(exc).__name__
    first = text.splitlines()[0].strip()
    if not isinstance(exc, (ValueError, OSError)) and type(exc).__name__ not in first:
        first = f"{type(exc).__name__}: {first}"
    return first if len(first) <= 400 else first[:400] + "..."


def _where(source: str, statement: ScriptStatement, exc: BaseException, message: str) -> tuple[str, str]:
    """``source:line[:col]`` of an error, and the message without its own ``line N, col M:`` prefix."""
    if isinstance(exc, SqlError) and exc.line is not None:
        return f"{source}:{exc.line}:{exc.col}", " ".join(exc.description.split())
    found = _POSITION.match(message)
    if found:
        return f"{source}:{found.group(1)}:{found.group(2)}", message[found.end():]
    return f"{source}:{statement.line}", message


class _History:
    """readline history in ``~/.hiveacid_sql_history`` (when readline is available)."""

    def __init__(self) -> None:
        self.path = os.path.expanduser("~/.hiveacid_sql_history")
        try:
            import readline
        except ImportError:  # pragma: no cover - Windows without pyreadline
            self.readline = None
            return
        self.readline = readline
        readline.set_history_length(1000)
        with contextlib.suppress(OSError):
            readline.read_history_file(self.path)

    def save(self) -> None:
        if self.readline is not None:
            with contextlib.suppress(OSError):
                self.readline.write_history_file(self.path)
