"""Splitting SQL script text into statements, remembering where each one starts in the file.

Why not :func:`hiveacid_sql.sql.parse.parse` directly: a script is run statement by statement, and each
statement's ``${var}`` references are substituted just before it runs (a ``SET hivevar:k=v`` earlier in
the file changes what later statements see), so the text cannot be tokenized as SQL up front.  This
splitter knows only what decides where a statement ends: quoted strings and identifiers (with Hive's
backslash escapes), ``--`` line comments and ``/* */`` block comments.  It is the same job Hive's CLI
and beeline do with a character scan before anything is parsed.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScriptStatement:
    """One statement's source text (no trailing ``;``), and the 1-based line/column of its first character."""

    text: str
    line: int
    col: int


@dataclass(frozen=True)
class Split:
    """A split script: the complete (``;``-terminated) statements and the unterminated rest, if any."""

    statements: list[ScriptStatement]
    rest: ScriptStatement | None


def split_script(text: str) -> Split:
    """Split ``text`` at the semicolons that are outside strings, quoted identifiers and comments.

    Statements holding only whitespace and comments are dropped.  ``rest`` is the text after the last
    terminating ``;`` when it holds something other than whitespace and comments (the interactive prompt
    waits for more input then; a file runs it as its last statement).
    """
    statements: list[ScriptStatement] = []
    start: int | None = None  # offset of the current statement's first significant character
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "-" and text.startswith("--", i):
            end = text.find("\n", i)
            i = n if end < 0 else end + 1
            continue
        if ch == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if start is None and end < 0:
                start = i  # an unterminated comment keeps the statement open (the parser reports it)
            i = n if end < 0 else end + 2
            continue
        if ch.isspace():
            i += 1
            continue
        if ch == ";":
            if start is not None:
                statements.append(_statement(text, start, i))
            start = None
            i += 1
            continue
        if start is None:
            start = i
        if ch in "'\"`":
            i = _end_of_quoted(text, i)
            continue
        i += 1
    rest = _statement(text, start, n) if start is not None else None
    return Split(statements, rest)


def statements_of(text: str) -> list[ScriptStatement]:
    """Every statement of a file, the unterminated last one included."""
    split = split_script(text)
    return split.statements + ([split.rest] if split.rest is not None else [])


def _end_of_quoted(text: str, i: int) -> int:
    """Offset just past the quoted text starting at ``i`` (the end of ``text`` when it is not closed)."""
    quote = text[i]
    j = i + 1
    while j < len(text):
        ch = text[j]
        if ch == "\\" and quote != "`":
            j += 2
            continue
        if ch == quote:
            if quote == "`" and text.startswith("``", j):  # a doubled backtick is one backtick
                j += 2
                continue
            return j + 1
        j += 1
    return len(text)


def _statement(text: str, start: int, end: int) -> ScriptStatement:
    line = text.count("\n", 0, start) + 1
    col = start - (text.rfind("\n", 0, start) + 1) + 1
    return ScriptStatement(text[start:end].rstrip(), line, col)


def positioned(statement: ScriptStatement, text: str) -> str:
    """``text`` (the statement after substitution) preceded by blank lines and spaces up to where the
    statement starts in its file, so every line/column the parser and planner report is a file position."""
    return "\n" * (statement.line - 1) + " " * (statement.col - 1) + text
