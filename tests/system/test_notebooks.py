"""The notebooks in notebooks/ run top to bottom in a real kernel (this interpreter's), as users run them.

A broken notebook fails the build: each test executes one with nbclient and checks what its cells printed.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def execute(name: str, tmp_path: Path, *, skip_tag: str | None = None) -> nbformat.NotebookNode:
    """Run a notebook in a fresh ``python3`` kernel (jupyter_client starts it with this interpreter)."""
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    if skip_tag:
        nb.cells = [c for c in nb.cells if skip_tag not in c.metadata.get("tags", [])]
    NotebookClient(nb, kernel_name="python3", timeout=600, resources={"metadata": {"path": str(tmp_path)}}).execute()
    return nb


def outputs(nb: nbformat.NotebookNode) -> list[str]:
    """Each code cell's output as one text (streams, displayed text and errors)."""
    texts = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        parts = []
        for out in cell.get("outputs", []):
            if out.output_type == "stream":
                parts.append(out.text)
            elif out.output_type in ("execute_result", "display_data"):
                parts.append(out.data.get("text/plain", "") + out.data.get("text/html", ""))
            elif out.output_type == "error":
                parts.append(f"{out.ename}: {out.evalue}")
        texts.append("".join(parts))
    return texts


def test_quickstart_notebook_runs_and_shows_the_walkthrough_files(tmp_path):
    texts = outputs(execute("01-quickstart.ipynb", tmp_path))
    everything = "\n".join(texts)
    assert "INSERT default.employee: 3 row(s) affected, txn 1, write id 1" in everything
    listings = [t for t in texts if "delta_0000001_0000001_0000/bucket_00000" in t and "{" not in t]
    assert listings[0].split() == ["delta_0000001_0000001_0000/_orc_acid_version",
                                   "delta_0000001_0000001_0000/bucket_00000"]
    assert "delete_delta_0000002_0000002_0000/bucket_00000" in listings[1]
    assert "delete_delta_0000002_0000002_0001/bucket_00000" in listings[2]  # MERGE: the UPDATE clause, stmt 1
    events = [json.loads(line) for t in texts for line in t.splitlines() if line.startswith('{"operation"')]
    assert {"operation": 2, "originalTransaction": 1, "bucket": 536870912, "rowId": 1, "currentTransaction": 2,
            "row": None} in events
    assert {"operation": 0, "originalTransaction": 2, "bucket": 536870913, "rowId": 0, "currentTransaction": 2,
            "row": {"id": 2, "name": "Tom", "salary": 7000}} in events  # Tom's new row, statement 1
    assert "<td>Mary</td>" in everything and "Showing the first" not in everything


@pytest.mark.release  # CI budget: a kernel and a JVM each (40-60 s); CI runs notebook 01
def test_merge_notebook_runs_to_the_end_with_compaction(tmp_path):
    nb = execute("02-merge-and-compaction.ipynb", tmp_path)
    tagged = ["compaction" in c.metadata.get("tags", []) for c in nb.cells if c.cell_type == "code"]
    texts = outputs(nb)
    before = [t for t, tag in zip(texts, tagged, strict=True) if not tag]
    after = [t for t, tag in zip(texts, tagged, strict=True) if tag]
    everything = "\n".join(before)
    assert "MERGE default.accounts: 3 row(s) affected (1 inserted, 1 updated, 1 deleted)" in everything
    assert "<td>121.50</td>" in everything  # ann: 100.00 + 20.00 + :bonus 1.5
    assert "cardinality" in everything.lower()  # the failing MERGE, expected to fail
    listings = [t for t in before if "_orc_acid_version" in t]
    assert listings[-1] == listings[-2]  # the failed MERGE left no directory behind
    assert any(re.search(r"^base_\d{7}/bucket_00000$", t, re.M) for t in after)  # never a _v suffix
    assert "<td>121.50</td>" in after[-1]  # the rows read from the base are the rows before it


@pytest.mark.release  # CI budget: a kernel and a JVM each (40-60 s); CI runs notebook 01
def test_transactions_notebook_runs_and_checks_every_step(tmp_path):
    """Every cell of 03 asserts what it shows (rollback, the write conflict, ABORT TRANSACTIONS)."""
    texts = outputs(execute("03-transactions.ipynb", tmp_path))
    everything = "\n".join(texts)
    assert "inside : [(1, 70), (2, 80)]" in everything and "outside: [(1, 100), (2, 50)]" in everything
    assert "Lock acquisition failed" in everything
    assert "due to a write conflict on default/account committed by" in everything
    assert "rolled back: something went wrong after the insert" in everything


@pytest.mark.release  # CI budget: a kernel and a JVM each (40-60 s); CI runs notebook 01
def test_a_failing_magic_cell_fails_the_notebook(tmp_path):
    """What makes a broken notebook fail the build: the magic's one-line errors are cell errors."""
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("%load_ext hiveacid_sql"),
        nbformat.v4.new_code_cell("%acid --limit many SELECT 1"),
        nbformat.v4.new_code_cell("print('never reached')"),
    ])
    client = NotebookClient(nb, kernel_name="python3", timeout=120, resources={"metadata": {"path": str(tmp_path)}})
    with pytest.raises(CellExecutionError, match="--limit expects a number of rows, got 'many'"):
        client.execute()
    assert nb.cells[2].outputs == []


@pytest.mark.release  # CI budget: a kernel and a JVM (~60 s); tests/spark/test_dataframe_api.py runs its API in CI
def test_daily_upsert_notebook_runs_and_checks_every_step(tmp_path):
    """04: the upsert from a DataFrame with the table handle and the MERGE builder (its cells assert the rows,
    counts and directories); here what it prints: the MERGE's report and the statement the builder made."""
    texts = outputs(execute("04-daily-upsert.ipynb", tmp_path))
    everything = "\n".join(texts)
    assert "MERGE default.customer: 3 row(s) affected (1 inserted, 1 updated, 1 deleted)" in everything
    assert "MERGE INTO default.customer" in everything and "WHEN NOT MATCHED" in everything
    assert "ids at version 1: [1, 2, 3]" in everything
