"""trec_eval's -Z file: lines ``qid measure mean stddev``, the reference
mean and standard deviation of each measure on each query."""

from __future__ import annotations

from ..errors import InputError
from .textfile import small_file_fields


def read_zscores(path: str) -> dict[tuple[str, str], tuple[float, float]]:
    """{(qid, printed measure name): (mean, stddev)}; errors name file and line."""
    table: dict[tuple[str, str], tuple[float, float]] = {}
    for number, raw_fields in small_file_fields(path):
        fields = [field.decode("utf-8", "surrogateescape") for field in raw_fields]
        if len(fields) != 4:
            raise InputError(path, f"expected 4 columns (qid measure mean stddev), found {len(fields)}", number)
        try:
            mean, stddev = float(fields[2]), float(fields[3])
        except ValueError:
            raise InputError(path, "mean and stddev must be numbers", number) from None
        table[(fields[0], fields[1])] = (mean, stddev)
    return table
