"""Errors that reach the user: bad input (exit 2) and failed gates (exit 1).

From Python they are the exceptions a caller already catches: a bad
argument is a :class:`UsageError`, bad data an :class:`InputError`, both
``ValueError``; a path that is missing, a folder or unreadable is also a
``FileNotFoundError``, ``IsADirectoryError`` or ``PermissionError``.
"""

from __future__ import annotations


class InputError(ValueError):
    """A problem with an input, held as data and worded in one place
    (:meth:`text`): ``path:line: message (first on line N); hint``.

    ``line`` is 1-based, or None when the problem concerns the whole file;
    ``first_line`` the earlier line it repeats, if any; ``unit`` "line" for
    text, "row" for a table (``path: row R: message (first in row N)``);
    ``hint`` what to do about it. A cluster renumbers ``line`` and
    ``first_line`` from its pieces to the file's, never parsing the text.
    """

    exit_status = 2
    #: a cluster's bookkeeping: (file index, [(piece, line in piece)]) of the lines named, for the client to count
    located: tuple | None = None

    def __init__(self, path: str, message: str, line: int | None = None, *, first_line: int | None = None,
                 unit: str = "line", hint: str | None = None):
        self.path = path
        self.line = line
        self.message = message
        self.first_line = first_line
        self.unit = unit
        self.hint = hint
        super().__init__(self.text())

    def text(self) -> str:
        if self.line is None:
            where = f"{self.path}: "
        elif self.unit == "row":
            where = f"{self.path}: row {self.line}: "
        else:
            where = f"{self.path}:{self.line}: "
        related = "" if self.first_line is None else f" (first {'in' if self.unit == 'row' else 'on'} " \
                                                     f"{self.unit} {self.first_line})"
        return where + self.message + related + (f"; {self.hint}" if self.hint else "")

    def __str__(self) -> str:
        return self.text()

    def moved(self, **fields) -> InputError:
        """The same error with some fields changed (a cluster's file and line numbers)."""
        values = {"path": self.path, "message": self.message, "line": self.line, "first_line": self.first_line,
                  "unit": self.unit, "hint": self.hint, **fields}
        return type(self)(values.pop("path"), values.pop("message"), values.pop("line"), **values)

    def __reduce__(self):
        # sent between processes (a cluster's worker to its client) with every attribute
        return type(self), (str(self.path), self.message, self.line), self.__dict__ | {"path": str(self.path)}


class MissingFileError(InputError, FileNotFoundError):
    """An input path that does not exist."""


class DirectoryGivenError(InputError, IsADirectoryError):
    """An input path that is a folder, not a file."""


class UnreadableFileError(InputError, PermissionError):
    """An input file this process may not read."""


class UsageError(ValueError):
    """A bad option value, keyword argument or measure name (exit 2)."""

    exit_status = 2
    keyword: str | None = None      # the keyword a rule was broken for (the command says its flag instead)
    rule: str | None = None         # "must be 0 or more, got -1"


class KeywordError(UsageError, TypeError):
    """A keyword the function does not take (``baselin=``): a TypeError, as
    Python raises for one, that says which keyword was meant."""


class OutputError(Exception):
    """The output could not be written (full disk, closed stdout): exit 2."""

    exit_status = 2
