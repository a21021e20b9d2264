"""Test helpers that look at a table directory the way a Hive operator would (independent of the package)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pyorc


def listing(table_dir: Path) -> list[str]:
    """Every file under ``table_dir`` as a sorted list of relative paths."""
    out = []
    for root, _dirs, files in os.walk(table_dir):
        for f in files:
            out.append(str((Path(root) / f).relative_to(table_dir)))
    return sorted(out)


def events(path: Path) -> list[dict]:
    """The rows of an ORC file as dicts (struct fields by name), like ``orc-tools data``."""
    with open(path, "rb") as f:
        reader = pyorc.Reader(f, struct_repr=pyorc.StructRepr.DICT)
        return [json.loads(json.dumps(row, default=str)) for row in reader]


def metadata(path: Path) -> dict[str, str]:
    with open(path, "rb") as f:
        return {k: v.decode() for k, v in pyorc.Reader(f).user_metadata.items()}


def schema(path: Path) -> str:
    with open(path, "rb") as f:
        return str(pyorc.Reader(f).schema)
