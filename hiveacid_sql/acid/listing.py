"""List a table/partition directory into a :class:`~hiveacid_sql.acid.state.TableListing` over ``pyarrow.fs``.

Mirrors the listing ``AcidUtils.getAcidState`` does: the partition dir non-recursively with ``hiddenFileFilter``,
the files of every base/delta dir, ``MetaDataFile.isCompacted`` for bases (reads ``_metadata_acid``), and the
recursive ``findOriginals`` walk of non-ACID sub-directories. Hidden names (``_``/``.``: staging dirs, compactor
``_tmp_*`` dirs, ``_orc_acid_version``) are skipped.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable
from urllib.parse import unquote, urlparse

import pyarrow.fs as pafs

from hiveacid_sql.acid.names import METADATA_FILE, ParsedBase, ParsedDelta, is_hidden, parse_dir_name
from hiveacid_sql.acid.state import DirEntry, FileEntry, TableListing
from hiveacid_sql.errors import AcidFormatError

#: ``scheme:`` at the start of a location (two letters at least, so a Windows drive is no scheme)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]+:")


def is_uri(location: str) -> bool:
    """Whether ``location`` names its filesystem: ``hdfs://nn/x``, ``file:///x``, and Hadoop's ``file:/x`` (the
    form Hive's metastore stores for local paths), as opposed to a plain path."""
    return bool(_SCHEME.match(location))


def filesystem_for(uri_or_path: str) -> tuple[pafs.FileSystem, str]:
    """A pyarrow filesystem and the path inside it for a location.

    Plain paths, ``file://`` URIs and Hadoop's ``file:/path`` map to :class:`pyarrow.fs.LocalFileSystem`; other
    schemes (``hdfs://``, ``s3://``, ``gs://`` ...) go through :meth:`pyarrow.fs.FileSystem.from_uri`. Hadoop's
    form is taken literally, as Hadoop's ``Path`` does: ``%`` in it is a character of the name (Hive's escaped
    partition directories, ``k=a%2Fb``), not a URI escape.
    """
    if not is_uri(uri_or_path):
        return pafs.LocalFileSystem(), posixpath.abspath(uri_or_path) if uri_or_path else uri_or_path
    if "://" not in uri_or_path and uri_or_path[:5].lower() == "file:":
        return pafs.LocalFileSystem(), posixpath.normpath(uri_or_path[5:]) or "/"
    parsed = urlparse(uri_or_path)
    if parsed.scheme == "file":
        if parsed.netloc not in ("", "localhost"):
            raise AcidFormatError(f"file URI with a remote host is not supported: {uri_or_path}")
        return pafs.LocalFileSystem(), unquote(parsed.path) or "/"
    fs, path = pafs.FileSystem.from_uri(uri_or_path)
    return fs, path


#: pyarrow file systems whose directory rename is one atomic step (and that Spark reads without a connector).
_RENAMING_FILESYSTEMS = frozenset({"local", "hdfs", "mock"})


def data_files_of(location: str) -> list[tuple[str, str]]:
    """(pyarrow path, path for Spark) of the data files of one plain directory as Spark's readers see them: no
    hidden ``_``/``.`` name, no empty file, no sub-directory; the path for Spark keeps the location's scheme."""
    fs, root = filesystem_for(location)
    try:
        infos = fs.get_file_info(pafs.FileSelector(root, allow_not_found=True))
    except OSError:
        return []
    out = []
    for info in sorted(infos, key=lambda i: i.path):
        name = posixpath.basename(info.path)
        if info.type != pafs.FileType.File or name.startswith(("_", ".")) or not info.size:
            continue
        out.append((info.path, location.rstrip("/") + "/" + name if "://" in location else info.path))
    return out


def has_atomic_rename(fs: pafs.FileSystem) -> bool:
    """Whether ``fs`` renames a directory in one step (local disk, HDFS). An object store (S3, GCS, Azure
    blobs) has keys only: a "rename" is a copy and a delete per key, so a reader could see half a directory;
    compaction there writes Hive 4's ``_v<txn>`` outputs in place instead (``compactor/worker.py``)."""
    return fs.type_name in _RENAMING_FILESYSTEMS


def _rel(path: str, root: str) -> str:
    return posixpath.relpath(path, root) if root else path


def _list_tree(
    fs: pafs.FileSystem, root: str, dir_path: str, name: str, is_compacted: bool = False
) -> DirEntry:
    files: list[FileEntry] = []
    subdirs: list[DirEntry] = []
    for info in sorted(
        fs.get_file_info(pafs.FileSelector(dir_path, recursive=False, allow_not_found=True)),
        key=lambda i: i.base_name,
    ):
        if is_hidden(info.base_name):
            continue
        if info.type == pafs.FileType.Directory:
            subdirs.append(_list_tree(fs, root, info.path, info.base_name))
        elif info.type == pafs.FileType.File:
            files.append(FileEntry(_rel(info.path, root), int(info.size or 0), info.mtime_ns))
    return DirEntry(name, tuple(files), is_compacted, tuple(subdirs))


def parse_metadata_acid(content: bytes, where: str = METADATA_FILE) -> bool:
    """``MetaDataFile.isCompacted`` on the bytes of ``_metadata_acid``: True for ``dataFormat: compacted``.

    ``thisFileVersion`` must be ``"0"`` (Hive 3.1 throws otherwise). Hive 4's ``truncated`` (TRUNCATE base) is
    accepted as *not* compacted, i.e. an INSERT OVERWRITE-like base (Hive 3.1 and Trino reject it). Anything else is
    an :class:`AcidFormatError`.
    """
    try:
        meta = json.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise AcidFormatError(f"Unreadable ACID metadata file {where}") from None
    if not isinstance(meta, dict):
        raise AcidFormatError(f"Unreadable ACID metadata file {where}")
    version = meta.get("thisFileVersion")
    if version != "0":
        raise AcidFormatError(f'{where}: unexpected thisFileVersion {version!r} (expected "0")')
    data_format = meta.get("dataFormat")
    if data_format == "compacted":
        return True
    if data_format == "truncated":
        return False
    raise AcidFormatError(f"{where}: unexpected value for ACID dataFormat: {data_format!r}")


def _read_is_compacted(fs: pafs.FileSystem, dir_path: str) -> bool:
    meta_path = posixpath.join(dir_path, METADATA_FILE)
    info = fs.get_file_info(meta_path)
    if info.type != pafs.FileType.File:
        return False
    with fs.open_input_stream(meta_path) as stream:
        return parse_metadata_acid(stream.read(), meta_path)


def list_acid_dir(fs: pafs.FileSystem, path: str) -> TableListing:
    """List a table/partition dir; a missing dir is an empty listing (a table with no data yet).

    Every non-hidden directory becomes a :class:`DirEntry` with its files (paths relative to ``path``) and
    sub-directories, recursively; base dirs also get ``is_compacted`` from ``_metadata_acid``.
    """
    path = path.rstrip("/") or path
    info = fs.get_file_info(path)
    if info.type == pafs.FileType.NotFound:
        return TableListing()
    if info.type != pafs.FileType.Directory:
        raise AcidFormatError(f"ACID table location is not a directory: {path}")
    dirs: list[DirEntry] = []
    files: list[FileEntry] = []
    children = fs.get_file_info(pafs.FileSelector(path, recursive=False, allow_not_found=True))
    for child in sorted(children, key=lambda i: i.base_name):
        name = child.base_name
        if is_hidden(name):
            continue
        if child.type == pafs.FileType.File:
            files.append(FileEntry(_rel(child.path, path), int(child.size or 0), child.mtime_ns))
        elif child.type == pafs.FileType.Directory:
            parsed = parse_dir_name(name)
            compacted = isinstance(parsed, ParsedBase) and _read_is_compacted(fs, child.path)
            dirs.append(_list_tree(fs, path, child.path, name, compacted))
    return TableListing(tuple(dirs), tuple(files))


def max_write_id_on_disk(listing: TableListing) -> int:
    """Highest write id named by any base/delta/delete_delta dir (0 if none), e.g. to seed the write id sequence
    when registering existing data so new writes never reuse an id already on disk."""
    best = 0
    for entry in listing.dirs:
        if is_hidden(entry.name):
            continue
        parsed = parse_dir_name(entry.name)
        if isinstance(parsed, ParsedBase):
            best = max(best, parsed.write_id)
        elif isinstance(parsed, ParsedDelta):
            best = max(best, parsed.max_write_id)
    return best


def _descend(fs: pafs.FileSystem, path: str, levels: list[Callable[[str], bool]]) -> list[str]:
    """Relative paths of the non-hidden directories reached by going one level down per ``levels`` entry,
    keeping at each level only the directory names that entry accepts."""
    found = [""]
    for accept in levels:
        deeper = []
        for rel in found:
            base = f"{path.rstrip('/')}/{rel}" if rel else path
            infos = fs.get_file_info(pafs.FileSelector(base, recursive=False, allow_not_found=True))
            for info in sorted(infos, key=lambda i: i.base_name):
                name = info.base_name
                if info.type == pafs.FileType.Directory and not is_hidden(name) and accept(name):
                    deeper.append(f"{rel}/{name}" if rel else name)
        found = deeper
    return found


def discover_partitions(fs: pafs.FileSystem, path: str, keys: list[str]) -> list[str]:
    """Partition directories below a table directory (``k1=v1/k2=v2``, the keys in order), as Hive names.

    Like Hive's ``MSCK REPAIR TABLE``: a directory is a partition when every level is ``<key>=<value>`` with
    the table's keys in order (compared case-insensitively, as Hive does); anything else is ignored.
    """
    if not keys:
        return []

    def is_key(key: str) -> Callable[[str], bool]:
        return lambda name: "=" in name and name.split("=", 1)[0].lower() == key.lower()

    return _descend(fs, path, [is_key(k) for k in keys])


def find_directories(fs: pafs.FileSystem, path: str, depth: int, names: set[str]) -> list[str]:
    """Relative paths of the directories named one of ``names`` inside the ACID directories ``depth`` levels
    below ``path`` (0: the table itself; n: its n-level partition directories)."""
    return _descend(fs, path, [lambda _name: True] * depth + [lambda name: name in names])
