"""Fuzzing the front end: random and mutated SQL through ``acid.sql``.

The seeds are every statement of ``grammar_tests/cases`` and ``examples/walkthrough.sql``; each mutant deletes,
duplicates or swaps tokens, drops in a keyword or a random character. For every mutant:

* only a :class:`HiveAcidError` (any subclass) may come out, with a one-line message and no traceback text;
* it finishes within a time bound (no hang);
* a statement that fails changes nothing: the bytes of every file under the warehouse and the catalog rows of
  the store are what they were, and no transaction is left open. A statement that succeeds may change things
  (it is valid SQL); the warehouse is then restored from a pristine copy before the next mutant.

CI runs a fixed seed and a fixed number of mutants; ``HIVEACID_FUZZ_MUTANTS`` / ``HIVEACID_FUZZ_SEED`` run more.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
import re
import shutil
import sqlite3
import threading
from pathlib import Path

import pytest

import hiveacid_sql
from hiveacid_sql.errors import HiveAcidError

ROOT = Path(__file__).resolve().parents[2]
SEED = int(os.environ.get("HIVEACID_FUZZ_SEED", "7"))
MUTANTS = int(os.environ.get("HIVEACID_FUZZ_MUTANTS", "120"))
TIME_BOUND_S = 120  # per statement; generous because CI machines are shared (a hang is minutes, not this)
ACID = "STORED AS ORC TBLPROPERTIES ('transactional'='true')"
SETUP = [
    f"CREATE TABLE employee (id int, name string, salary int) {ACID}",
    "INSERT INTO employee VALUES (1, 'Jerry', 5000), (2, 'Tom', 8000), (3, 'Kate', 6000)",
    "CREATE TABLE employee_update (id int, name string, salary int)",
    "INSERT INTO employee_update VALUES (2, 'Tom', 7500), (4, 'Lily', 9000)",
    f"CREATE TABLE t (a int, b string, c int) PARTITIONED BY (p string) {ACID}",
    "INSERT INTO t VALUES (1, 'x', 10, 'p1'), (2, NULL, 20, 'p2')",
    f"CREATE TABLE u (a int, b string, c int) {ACID}",
    "INSERT INTO u VALUES (1, 'y', 11), (3, 'z', 33)",
]
#: Never run: they reach outside the throwaway warehouse (locations, the shared SparkSession's settings).
UNSAFE = re.compile(r"location|spark\.|\bload\b|\badd\s+(jar|file)|dfs|'/|\"/", re.IGNORECASE)
KEYWORDS = ["SELECT", "FROM", "WHERE", "(", ")", ",", ";", "NULL", "''", "`", "MERGE", "WHEN", "MATCHED", "THEN",
            "INSERT", "VALUES", "UPDATE", "SET", "DELETE", "PARTITION", "=", "*", "row__id", "AND", "OR", "1"]
_TOKEN = re.compile(r"'(?:[^']|'')*'|`[^`]*`|\w+|\S")


def seed_statements() -> list[str]:
    """Every statement of the grammar corpus and the walkthrough, one string each."""
    out: list[str] = []
    for path in sorted((ROOT / "grammar_tests" / "cases").glob("*.cases")):
        lines: list[str] = []
        for raw in path.read_text(encoding="utf-8").splitlines() + ["=== end"]:
            if raw.startswith("=== "):
                if len(lines) > 1:
                    out.append("\n".join(lines[1:]).strip())
                lines = []
            elif lines or (raw.strip() and not raw.startswith("#")):
                lines.append(raw)
    text = (ROOT / "examples" / "walkthrough.sql").read_text(encoding="utf-8")
    text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("--"))
    out += [s.strip() for s in text.split(";") if s.strip()]
    return out


def mutate(sql: str, rng: random.Random) -> str:
    """One to three token-level edits of ``sql``."""
    tokens = _TOKEN.findall(sql)
    for _ in range(rng.randint(1, 3)):
        if not tokens:
            tokens = [rng.choice(KEYWORDS)]
        i = rng.randrange(len(tokens))
        op = rng.randrange(6)
        if op == 0:
            del tokens[i]
        elif op == 1:
            tokens.insert(i, tokens[i])
        elif op == 2 and i + 1 < len(tokens):
            tokens[i], tokens[i + 1] = tokens[i + 1], tokens[i]
        elif op == 3:
            tokens.insert(i, rng.choice(KEYWORDS))
        elif op == 4:
            tokens[i] = rng.choice(KEYWORDS)
        else:
            tok = tokens[i]
            j = rng.randrange(len(tok) + 1)
            tokens[i] = tok[:j] + rng.choice("'\"`;()\\,.*-+/%$#@!?<>=[]{}\t\x00é€") + tok[j:]
    return " ".join(tokens)


def fingerprint(warehouse: Path) -> tuple:
    """Bytes of every data file (store files aside) and the store's catalog rows; plus open transactions."""
    files = {}
    for path in sorted(warehouse.rglob("*")):
        if path.is_file() and ".hiveacid" not in path.parts:
            files[str(path.relative_to(warehouse))] = hashlib.sha1(path.read_bytes()).hexdigest()
    with contextlib.closing(sqlite3.connect(warehouse / ".hiveacid" / "txn.db")) as conn:
        catalog = {
            name: sorted(map(repr, conn.execute(f"SELECT * FROM {name}").fetchall()))  # noqa: S608
            for name in ("DBS", "TBLS", "SDS", "SERDES", "CDS", "COLUMNS_V2", "TABLE_PARAMS", "PARTITIONS",
                         "PARTITION_KEYS", "PARTITION_KEY_VALS")
        }
        open_txns = conn.execute("SELECT count(*) FROM TXNS WHERE TXN_STATE = 'o'").fetchone()[0]
    return files, catalog, open_txns


def run_bounded(acid, sql: str) -> BaseException | None:
    """Run ``sql``; the exception it raised (None if it succeeded). Fails the test when it hangs."""
    outcome: list[BaseException | None] = []

    def target() -> None:
        try:
            acid.sql(sql)
            outcome.append(None)
        except BaseException as exc:  # noqa: BLE001 - judged by the caller
            outcome.append(exc)

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(TIME_BOUND_S)
    if worker.is_alive():
        pytest.fail(f"statement did not finish in {TIME_BOUND_S}s: {sql!r}")
    return outcome[0]


@pytest.mark.slow
def test_mutated_sql_fails_cleanly_and_changes_nothing(spark, tmp_path):
    pristine = tmp_path / "pristine"
    with hiveacid_sql.connect(spark=spark, warehouse=pristine) as acid:
        for sql in SETUP:
            acid.sql(sql)
    warehouse = tmp_path / "warehouse"
    shutil.copytree(pristine, warehouse)
    clean = fingerprint(warehouse)
    acid = hiveacid_sql.connect(spark=spark, warehouse=warehouse)
    rng = random.Random(SEED)
    seeds = seed_statements()
    problems: list[str] = []
    ran = failed = 0
    try:
        while ran < MUTANTS:
            sql = mutate(rng.choice(seeds), rng)
            if UNSAFE.search(sql):
                continue
            ran += 1
            before = fingerprint(warehouse)
            exc = run_bounded(acid, sql)
            if exc is None:  # valid SQL: let it be, then start the next mutant from the pristine warehouse
                acid.close()
                if fingerprint(warehouse) != clean:
                    shutil.rmtree(warehouse)
                    shutil.copytree(pristine, warehouse)
                acid = hiveacid_sql.connect(spark=spark, warehouse=warehouse)
                continue
            failed += 1
            message = str(exc)
            if not isinstance(exc, HiveAcidError):
                problems.append(f"{sql!r}: {type(exc).__name__} (not a HiveAcidError): {message[:300]!r}")
            elif "\n" in message or "Traceback" in message or not message.strip():
                problems.append(f"{sql!r}: message not one clean line: {message[:300]!r}")
            after = fingerprint(warehouse)
            if after != before:
                problems.append(f"{sql!r}: failed ({message[:120]!r}) but changed the warehouse or store")
                acid.close()
                shutil.rmtree(warehouse)
                shutil.copytree(pristine, warehouse)
                acid = hiveacid_sql.connect(spark=spark, warehouse=warehouse)
    finally:
        acid.close()
    assert failed > ran // 2, f"only {failed} of {ran} mutants failed: the mutations are too gentle"
    assert not problems, f"{len(problems)} of {ran} mutants misbehaved:\n" + "\n".join(problems)


def test_random_text_fails_cleanly(acid):
    """Arbitrary characters (not SQL at all) give a one-line SqlError, never another exception."""
    rng = random.Random(SEED)
    alphabet = "abcSELECTFROMWHERE ()'\"`;,.*=<>-+/\\\n\t\x00é€0123456789"
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        if UNSAFE.search(text):
            continue
        try:
            acid.sql(text)
        except HiveAcidError as exc:
            assert "\n" not in str(exc) and "Traceback" not in str(exc), (text, str(exc))
