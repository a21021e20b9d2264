"""Runs every case of ``grammar_tests/cases/*.cases`` through ``hiveacid_sql.sql.parse``.

Case file format (plain text, one file per topic)::

    # a comment line (outside a case)
    === case-name
    accept Update                 <- node type of each statement, in order
    UPDATE t SET c = 1            <- the SQL: every line up to the next "===" (blank ends trimmed)

    === another-case
    reject line 1, col 8: Expected table name       <- SqlError whose str() contains this text
    SELECT FROM WHERE

    === yet-another
    unsupported unsupported statement: ADD JAR      <- UnsupportedStatementError containing this text
    ADD JAR x.jar

Accepted statements are also regenerated with ``tree.sql(dialect="hiveacid")`` and parsed again,
which must give the same node type: that checks the generator for every statement form.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from hiveacid_sql.errors import SqlError, UnsupportedStatementError
from hiveacid_sql.sql import parse

CASES_DIR = Path(__file__).parent / "cases"


@dataclass(frozen=True)
class Case:
    file: str
    name: str
    mode: str  # "accept" | "reject" | "unsupported"
    expected: str  # node type names for accept, message substring otherwise
    sql: str

    @property
    def id(self) -> str:
        return f"{self.file}:{self.name}"


def _load(path: Path) -> list[Case]:
    cases: list[Case] = []
    name: str | None = None
    lines: list[str] = []

    def flush() -> None:
        if name is None:
            return
        if not lines:
            raise ValueError(f"{path.name}:{name}: case has no expectation line")
        mode, _, expected = lines[0].partition(" ")
        if mode not in ("accept", "reject", "unsupported"):
            raise ValueError(f"{path.name}:{name}: unknown expectation {lines[0]!r}")
        sql = "\n".join(lines[1:]).strip("\n")
        cases.append(Case(path.stem, name, mode, expected.strip(), sql))

    for raw in path.read_text(encoding="utf-8").splitlines():
        if raw.startswith("=== "):
            flush()
            name, lines = raw[4:].strip(), []
        elif name is None:
            if raw.strip() and not raw.startswith("#"):
                raise ValueError(f"{path.name}: text outside a case: {raw!r}")
        else:
            lines.append(raw)
    flush()
    return cases


ALL_CASES = [case for path in sorted(CASES_DIR.glob("*.cases")) for case in _load(path)]


def test_case_names_are_unique() -> None:
    ids = [case.id for case in ALL_CASES]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("case", ALL_CASES, ids=[case.id for case in ALL_CASES])
def test_case(case: Case) -> None:
    if case.mode == "accept":
        statements = parse(case.sql)
        assert [type(st.tree).__name__ for st in statements] == case.expected.split()
        for st in statements:
            regenerated = st.tree.sql(dialect="hiveacid")
            assert [type(again.tree) for again in parse(regenerated)] == [type(st.tree)], regenerated
        return
    error_type = UnsupportedStatementError if case.mode == "unsupported" else SqlError
    with pytest.raises(error_type) as info:
        parse(case.sql)
    if case.mode == "reject":
        assert not isinstance(info.value, UnsupportedStatementError), str(info.value)
    assert case.expected in str(info.value)
    assert "\n" not in str(info.value)
