"""trec_eval's -Z file: lines ``qid measure mean stddev``, the reference
mean and standard deviation of each measure on each query."""

from __future__ import annotations

import gzip

from ..errors import InputError


def read_zscores(path: str) -> dict[tuple[str, str], tuple[float, float]]:
    """{(qid, printed measure name): (mean, stddev)}; errors name file and line."""
    try:
        with open(path, "rb") as raw:
            data = raw.read()
    except OSError as error:
        raise InputError(path, f"cannot read: {error.strerror or error}") from None
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    table: dict[tuple[str, str], tuple[float, float]] = {}
    for number, line in enumerate(data.decode("utf-8", "surrogateescape").splitlines(), start=1):
        fields = line.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != 4:
            raise InputError(path, f"expected 4 columns (qid measure mean stddev), found {len(fields)}", number)
        try:
            mean, stddev = float(fields[2]), float(fields[3])
        except ValueError:
            raise InputError(path, "mean and stddev must be numbers", number) from None
        table[(fields[0], fields[1])] = (mean, stddev)
    return table
