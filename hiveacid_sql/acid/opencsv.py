"""Hive's ``OpenCSVSerde`` row format, character for character: one CSV line per row, parsed and written as
opencsv 2.3 (the version Hive 3 ships) does for ``org.apache.hadoop.hive.serde2.OpenCSVSerde``.

The serde's properties are ``separatorChar`` (default ``,``), ``quoteChar`` (``"``) and ``escapeChar``
(``"``, opencsv's ``CSVWriter.DEFAULT_ESCAPE_CHARACTER``), each its first character. Their quirks are kept,
since Hive and every file Hive wrote depend on them:

* The writer quotes every non-NULL value and writes NULL as nothing (so NULL reads back as ``''``: the
  format has no NULL). Inside a value the quote and the escape are preceded by the escape; with the default
  escape (``"``) a quote is doubled and a backslash left alone.
* The serde builds its reader with opencsv's own default escape, a backslash, whenever ``escapeChar`` is the
  default ``"`` (``OpenCSVSerde.newReader``), so a file written with the defaults is read with ``\\`` as
  escape: ``\\\\`` and ``\\"`` inside quotes read as one character.
* Reading (``CSVParser.parseLine``, ``strictQuotes`` off, ``ignoreLeadingWhiteSpace`` on): the escape
  escapes only a quote or an escape inside quotes or a field, and is dropped elsewhere; a doubled quote inside
  quotes is one quote; a quote in the middle of an unquoted field is kept; a field still inside quotes at
  the end of the line is lost (``CSVReader.readNext`` finds no next line); missing trailing columns are NULL.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: ``CSVWriter.DEFAULT_SEPARATOR`` / ``DEFAULT_QUOTE_CHARACTER`` / ``DEFAULT_ESCAPE_CHARACTER``
DEFAULT_SEPARATOR = ","
DEFAULT_QUOTE = '"'
DEFAULT_ESCAPE = '"'
#: ``CSVParser.DEFAULT_ESCAPE_CHARACTER``: the escape the serde's reader gets for the default ``escapeChar``
PARSER_DEFAULT_ESCAPE = "\\"
#: The serde properties Hive's ``OpenCSVSerde`` reads.
PROPERTIES = ("separatorChar", "quoteChar", "escapeChar")
SERDE_CLASS = "org.apache.hadoop.hive.serde2.OpenCSVSerde"


@dataclass(frozen=True)
class CsvFormat:
    """One table's ``separatorChar``, ``quoteChar`` and ``escapeChar`` (``OpenCSVSerde.getProperty``: the
    property's first character, the default when it is missing)."""

    separator: str = DEFAULT_SEPARATOR
    quote: str = DEFAULT_QUOTE
    escape: str = DEFAULT_ESCAPE

    @classmethod
    def of(cls, serde_params: Mapping[str, str]) -> CsvFormat:
        def first(key: str, default: str) -> str:
            value = serde_params.get(key)
            return value[0] if value else default

        return cls(first("separatorChar", DEFAULT_SEPARATOR), first("quoteChar", DEFAULT_QUOTE), first("escapeChar", DEFAULT_ESCAPE))

    @property
    def read_escape(self) -> str:
        """The escape the serde's reader uses (``OpenCSVSerde.newReader``)."""
        return PARSER_DEFAULT_ESCAPE if self.escape == DEFAULT_ESCAPE else self.escape


def parse_line(line: str, fmt: CsvFormat = CsvFormat()) -> list[str]:
    """The fields of one row as ``CSVReader.readNext`` returns them for the row's text (module docstring)."""
    sep, quote, escape = fmt.separator, fmt.quote, fmt.read_escape
    tokens: list[str] = []
    sb: list[str] = []
    in_quotes = in_field = False
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c == escape:
            if (in_quotes or in_field) and i + 1 < n and line[i + 1] in (quote, escape):
                sb.append(line[i + 1])
                i += 1
        elif c == quote:
            if (in_quotes or in_field) and i + 1 < n and line[i + 1] == quote:
                sb.append(line[i + 1])
                i += 1
            else:
                # the tricky case of a quote in the middle of a field: a,bc"d"ef,g keeps it
                if i > 2 and line[i - 1] != sep and i + 1 < n and line[i + 1] != sep:
                    if sb and all(ch.isspace() for ch in sb):
                        sb = []  # white space before the quote is dropped (ignoreLeadingWhiteSpace)
                    else:
                        sb.append(c)
                in_quotes = not in_quotes
            in_field = not in_field
        elif c == sep and not in_quotes:
            tokens.append("".join(sb))
            sb = []
            in_field = False
        else:
            sb.append(c)
            in_field = True
        i += 1
    if not in_quotes:
        tokens.append("".join(sb))
    return tokens


def format_row(values: Sequence[str | None], fmt: CsvFormat = CsvFormat()) -> str:
    """One row as ``CSVWriter.writeNext`` writes it (no line end: the text output format adds it)."""
    sep, quote, escape = fmt.separator, fmt.quote, fmt.escape
    out: list[str] = []
    for i, value in enumerate(values):
        if i:
            out.append(sep)
        if value is None:
            continue
        out.append(quote)
        if quote in value or escape in value:
            out.extend(escape + ch if ch in (quote, escape) else ch for ch in value)
        else:
            out.append(value)
        out.append(quote)
    return "".join(out)
