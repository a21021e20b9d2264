"""The public entry point: SQL script text in, a list of :class:`Statement` out.

The whole script is tokenized once, so every position sqlglot records (token line/col, identifier
``meta``, error line/col) is already relative to the whole script; statements are then the runs of
tokens between ``;`` tokens.  Splitting on tokens rather than characters is what keeps semicolons
inside strings, quoted identifiers and comments from splitting a statement.

All columns we report are 1-based and point at the *first* character of the token concerned
(sqlglot itself reports the last one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlglot import exp
from sqlglot.errors import ErrorLevel, ParseError, TokenError
from sqlglot.tokens import Token, TokenType

from hiveacid_sql.errors import SqlError, UnsupportedStatementError
from hiveacid_sql.sql import nodes
from hiveacid_sql.sql.dialect import DIALECT
from hiveacid_sql.sql.tree import position

__all__ = ["Statement", "parse", "parse_one", "position"]

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_TOKEN_REPR = re.compile(r"<Token token_type: TokenType\.(\w+), text: (.*?), line: \d+, col: \d+.*?>")
_CLASS_REPR = re.compile(r"<class '[\w.]+\.(\w+)'>")
_MISSING = re.compile(r"Missing (\S+) from \d+:(\d+)")
_OFFSET = re.compile(r" from \d+:(\d+)")

# Parse results that are expressions, not statements (e.g. ``UPDTE t`` parses as an alias).
_BARE_EXPRESSIONS = (exp.Condition, exp.Alias, exp.Tuple, exp.Identifier, exp.Star)


@dataclass(frozen=True)
class Statement:
    """One parsed statement of a script.

    ``text`` is the statement's own source text (no surrounding whitespace, comments or ``;``);
    ``line`` and ``col`` are 1-based and locate its first token in the whole script.
    """

    tree: exp.Expr
    text: str
    line: int
    col: int


def parse(sql: str) -> list[Statement]:
    """Parse a script of ``;``-separated statements; empty statements are skipped.

    Raises :class:`SqlError` for text that does not parse (with the line/col in ``sql``) and
    :class:`UnsupportedStatementError` for a statement sqlglot only understands as an opaque command.
    """
    return [_parse_statement(sql, chunk) for chunk in _split(_tokenize(sql))]


def parse_one(sql: str) -> Statement:
    """Parse text that must hold exactly one statement (a trailing ``;`` is fine)."""
    statements = parse(sql)
    if len(statements) == 1:
        return statements[0]
    if not statements:
        raise SqlError("Expected one statement, got none")
    extra = statements[1]
    raise SqlError(f"Expected one statement, got {len(statements)}", extra.line, extra.col)


def _line_col(sql: str, offset: int) -> tuple[int, int]:
    """1-based line and column of character ``offset`` in ``sql``."""
    line = sql.count("\n", 0, offset) + 1
    return line, offset - (sql.rfind("\n", 0, offset) + 1) + 1


def _tokenize(sql: str) -> list[Token]:
    try:
        return DIALECT.tokenize(sql)
    except TokenError as e:
        raise _token_error(sql, e) from e


def _token_error(sql: str, error: TokenError) -> SqlError:
    """Turn sqlglot's tokenizer failure into a one-line SqlError at the offending token."""
    cause = str(error.__cause__ or error)
    missing = _MISSING.search(cause)
    if missing:
        line, col = _line_col(sql, int(missing.group(2)))
        return SqlError(f"Unterminated quoted text: missing closing {missing.group(1)}", line, col)
    offset = _OFFSET.search(cause)
    if offset:
        line, col = _line_col(sql, int(offset.group(1)))
        return SqlError(_OFFSET.sub("", cause.splitlines()[0]), line, col)
    comment = sql.rfind("/*")
    if comment >= 0 and sql.find("*/", comment) < 0:
        line, col = _line_col(sql, comment)
        return SqlError("Unterminated comment: missing closing */", line, col)
    return SqlError(f"Cannot tokenize SQL: {' '.join(cause.split())}")


def _split(tokens: list[Token]) -> list[list[Token]]:
    chunks: list[list[Token]] = [[]]
    for token in tokens:
        if token.token_type == TokenType.SEMICOLON:
            chunks.append([])
        else:
            chunks[-1].append(token)
    return [chunk for chunk in chunks if chunk]


def _parse_statement(sql: str, chunk: list[Token]) -> Statement:
    line, col = _line_col(sql, chunk[0].start)
    text = sql[chunk[0].start : chunk[-1].end + 1]
    parser = DIALECT.parser(error_level=ErrorLevel.RAISE)
    try:
        trees = parser.parse(chunk, sql)
    except ParseError as e:
        raise _parse_error(e) from e
    tree = trees[0] if trees else None
    if tree is None:
        raise SqlError("Expected a statement", line, col)
    _check_statement(tree, text, line, col)
    return Statement(tree=tree, text=text, line=line, col=col)


def _check_statement(tree: exp.Expr, text: str, line: int, col: int) -> None:
    """Refuse opaque ``exp.Command`` fallbacks and bare expressions, which are not statements."""
    if isinstance(tree, exp.Command) or tree.find(exp.Command) is not None:
        words = " ".join(text.split())
        snippet = words if len(words) <= 40 else words[:40] + "..."
        raise UnsupportedStatementError(f"unsupported statement: {snippet}", line, col)
    if isinstance(tree, nodes.Explain) and isinstance(tree.this, _BARE_EXPRESSIONS):
        raise SqlError("Expected a statement after EXPLAIN", *(position(tree.this) or (line, col)))
    if isinstance(tree, _BARE_EXPRESSIONS):
        first = text.split()[0]
        if first[0].isalpha() or first[0] == "_":
            raise SqlError(f"Unknown statement '{first}'", line, col)
        raise SqlError("Expected a statement such as SELECT, INSERT, UPDATE, DELETE or MERGE", line, col)


def _parse_error(error: ParseError) -> SqlError:
    """One-line SqlError from sqlglot's first recorded error, column moved to the token's start."""
    if not error.errors:
        return SqlError(_clean(str(error).splitlines()[0]))
    first = error.errors[0]
    description = _clean(str(first.get("description") or "Invalid SQL"))
    line, col = first.get("line"), first.get("col")
    highlight = _ANSI.sub("", str(first.get("highlight") or ""))
    if highlight and "\n" not in highlight and isinstance(col, int) and len(highlight) <= col:
        col = col - len(highlight) + 1
    near = " ".join(highlight.split())
    if near and f"'{near}'" not in description:
        near = near if len(near) <= 40 else near[:40] + "..."
        description += f" near {near}" if near[0] in "'\"`" else f" near '{near}'"
    return SqlError(description, line, col)


def _clean(message: str) -> str:
    """Strip ANSI codes and newlines; show sqlglot's token and class reprs as plain words."""
    message = _TOKEN_REPR.sub(_token_word, _ANSI.sub("", message))
    message = _CLASS_REPR.sub(lambda m: m.group(1), message)
    return " ".join(message.split())


def _token_word(match: re.Match[str]) -> str:
    return "end of statement" if match.group(1) == "SENTINEL" else f"'{match.group(2)}'"
