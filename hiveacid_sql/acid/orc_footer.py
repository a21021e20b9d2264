"""What a reader needs from an ORC file before reading it: row count, schema, user metadata.

Only the file tail is read, so choosing and grouping files stays cheap on the driver.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow.fs as pafs
import pyorc

from hiveacid_sql.errors import AcidFormatError


@dataclass(frozen=True)
class OrcFooter:
    """The parts of an ORC footer the scan and the dumper use."""

    path: str
    num_rows: int
    type_string: str
    metadata: dict[str, bytes]
    num_stripes: int


def read_footer(fs: pafs.FileSystem, path: str) -> OrcFooter:
    """Read the footer of ``path`` on ``fs``; a file that is not ORC is an :class:`AcidFormatError`."""
    try:
        with fs.open_input_file(path) as f:
            reader = pyorc.Reader(f)
            return OrcFooter(
                path=path,
                num_rows=len(reader),
                type_string=str(reader.schema),
                metadata=dict(reader.user_metadata),
                num_stripes=reader.num_of_stripes,
            )
    except (pyorc.ParseError, OSError) as exc:
        raise AcidFormatError(f"cannot read ORC file {path}: {exc}") from exc
