"""Hive's variable substitution: ``${k}``, ``${hivevar:k}``, ``${hiveconf:k}``, ``${env:K}``, ``${system:k}``.

Lookup order is Hive's (``VariableSubstitution.getSubstitute``): ``env:`` and ``system:`` read the
environment, ``hiveconf:k`` the session settings, ``hivevar:k`` the variables; a bare ``${k}`` is a
session setting (``SET k=v``) first, then a variable (``--hivevar k=v``, ``-d k=v``,
``SET hivevar:k=v``).  Substituted text is substituted again (a value may name another variable), up to
Hive's default depth of 40.  One difference from Hive, on purpose: Hive leaves an undefined ``${k}`` in
the text, which then fails to parse with a confusing message; we stop with "undefined variable".
"""

from __future__ import annotations

import os
import platform
import re
from collections.abc import Callable, Mapping

from hiveacid_sql.errors import HiveAcidError

_REFERENCE = re.compile(r"\$\{([^}$\s]+)\}")
MAX_DEPTH = 40  # hive.variable.substitute.depth

_SYSTEM = {
    "user.name": lambda: os.environ.get("USER") or os.environ.get("USERNAME") or "",
    "user.home": lambda: os.path.expanduser("~"),
    "user.dir": os.getcwd,
    "os.name": platform.system,
}


class VariableError(HiveAcidError):
    """A ``${...}`` reference that names nothing defined, or that refers to itself."""


class Variables:
    """The runner's variables, plus a view of the session settings for ``${hiveconf:k}`` and ``${k}``."""

    def __init__(self, hivevars: Mapping[str, str] | None = None,
                 settings: Callable[[], Mapping[str, str]] | None = None) -> None:
        self.hivevars: dict[str, str] = dict(hivevars or {})
        self._settings = settings or dict

    def lookup(self, name: str) -> str | None:
        """The value ``${name}`` stands for, or None when it is undefined."""
        prefix, sep, key = name.partition(":")
        if sep and prefix == "env":
            return os.environ.get(key)
        if sep and prefix == "system":
            getter = _SYSTEM.get(key)
            return getter() if getter else None
        if sep and prefix == "hiveconf":
            return self._settings().get(key)
        if sep and prefix == "hivevar":
            return self.hivevars.get(key)
        value = self._settings().get(name)
        return value if value is not None else self.hivevars.get(name)

    def substitute(self, text: str) -> str:
        """``text`` with every ``${...}`` replaced; raises :class:`VariableError` for an undefined one."""
        for _ in range(MAX_DEPTH):
            if "${" not in text:
                return text
            text, count = _REFERENCE.subn(self._replace, text)
            if count == 0:
                return text
        raise VariableError(f"variable substitution depth exceeded {MAX_DEPTH} (a variable refers to itself?)")

    def _replace(self, match: re.Match[str]) -> str:
        value = self.lookup(match.group(1))
        if value is None:
            name = match.group(1)
            hint = "" if ":" in name else f" (define it with --hivevar {name}=VALUE)"
            raise VariableError(f"undefined variable ${{{name}}}{hint}")
        return value


def parse_assignment(text: str, option: str) -> tuple[str, str]:
    """``k=v`` from a command-line option, or a one-line error naming the option."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise VariableError(f"{option} expects KEY=VALUE, got {text!r}")
    return key.strip(), value
