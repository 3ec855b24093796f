"""The command line: a thin layer over :func:`lexeval.evaluate`.

- ``main``: the entry point and exit statuses
- ``command``: the click command and the output writers
- ``options``: option values checked and grouped into a few objects
- ``help``: ``--help`` and ``--list-measures``
"""

from .command import command
from .main import main

__all__ = ["command", "main"]
