"""Errors that reach the user: bad input (exit 2) and failed gates (exit 1)."""


class InputError(Exception):
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


class UsageError(Exception):
    """A bad option value or measure name (exit 2)."""

    exit_status = 2


class OutputError(Exception):
    """The output could not be written (full disk, closed stdout): exit 2."""

    exit_status = 2
