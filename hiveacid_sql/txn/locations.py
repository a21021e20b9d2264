"""Locations as Hive's metastore stores them, and as the engine uses them.

Hive keeps a Hadoop ``Path``'s string in ``SDS.LOCATION`` and ``DBS.DB_LOCATION_URI``: always with its scheme,
so a local directory is ``file:/data/wh/t`` (``Path.toString()`` of ``file:///data/wh/t``: one slash, the name
taken literally, no URI escapes). A bare ``/data/wh/t`` in the metastore would be resolved by every other client
against *its* ``fs.defaultFS`` (HDFS on a cluster), i.e. a different directory. So the store writes Hive's form
(:func:`to_metastore`) and hands the engine a plain local path for a local location (:func:`from_metastore`),
which reads both forms: stores written before locations carried a scheme keep working unchanged.
"""

from __future__ import annotations

import posixpath
from urllib.parse import unquote, urlparse

from hiveacid_sql.acid.listing import is_uri


def to_metastore(location: str | None) -> str | None:
    """The string Hive would store for ``location``: ``file:/p`` for a local absolute path (or ``file:///p``,
    ``file://localhost/p``), other URIs (``hdfs://``, ``s3a://`` ..) unchanged; ``None``/empty unchanged."""
    if not location:
        return location
    if not is_uri(location):
        return "file:" + posixpath.normpath(location) if location.startswith("/") else location
    if location[:5].lower() != "file:":
        return location
    if location[5:7] != "//":  # already Hadoop's file:/p
        return "file:" + location[5:]
    parsed = urlparse(location)
    if parsed.netloc not in ("", "localhost"):
        return location  # a remote host: not ours to rewrite
    return "file:" + (unquote(parsed.path) or "/")


def from_metastore(location: str | None) -> str | None:
    """The location the engine works with: a local one as a plain absolute path (``file:/p``, ``file:///p`` or
    an old store's bare ``/p``), anything else as stored."""
    if not location or location[:5].lower() != "file:":
        return location
    if location[5:7] != "//":
        return location[5:] or "/"
    parsed = urlparse(location)
    if parsed.netloc not in ("", "localhost"):
        return location
    return unquote(parsed.path) or "/"
