"""What an input file was: its size and SHA-256, for the provenance a page
or a JSON output carries (so that a result sent on can be traced to the
files that made it)."""

from __future__ import annotations

import hashlib
import os

DIGEST_CHARACTERS = 12          # the SHA-256 prefix shown: enough to tell two files apart


def file_facts(given, role: str) -> dict:
    """{role, name, path, bytes, sha256}: a local file's size and the first
    hex digits of its SHA-256 (of the bytes as stored, compressed or not);
    None where the input is not a file here (standard input, a pipe, a URL,
    a table in memory)."""
    from .source import Source, is_stream, run_name
    source = given if isinstance(given, Source) else None
    path = source.path if source is not None else os.fspath(given) if isinstance(given, (str, os.PathLike)) else None
    name = source.name if source is not None else run_name(path) if path else "in memory"
    facts = {"role": role, "name": name, "path": path, "bytes": None, "sha256": None}
    if path is None or path == "-" or "://" in path or not os.path.isfile(path) or is_stream(path):
        return facts
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 22), b""):
                digest.update(block)
        facts["bytes"] = os.path.getsize(path)
    except OSError:
        return facts
    facts["sha256"] = digest.hexdigest()[:DIGEST_CHARACTERS]
    return facts
