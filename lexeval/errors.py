"""Errors that reach the user: bad input (exit 2) and failed gates (exit 1).

From Python they are the exceptions a caller already catches: a bad
argument is a :class:`UsageError`, bad data an :class:`InputError`, both
``ValueError``; a path that is missing, a folder or unreadable is also a
``FileNotFoundError``, ``IsADirectoryError`` or ``PermissionError``.
"""


class InputError(ValueError):
    """A problem with an input file, reported as ``path:line: message``.

    ``line`` is 1-based, or None when the problem concerns the whole file.
    """

    exit_status = 2

    def __init__(self, path: str, message: str, line: int | None = None):
        self.path = path
        self.line = line
        self.message = message
        where = path if line is None else f"{path}:{line}"
        super().__init__(f"{where}: {message}")

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


class OutputError(Exception):
    """The output could not be written (full disk, closed stdout): exit 2."""

    exit_status = 2
