"""Results as a DataFrame: the same record stream the text writers print."""

from __future__ import annotations

import numpy as np

from ..evaluation import Evaluation
from .records import all_blocks, records


def to_frame(evaluation: Evaluation, per_query: bool = True, summary: bool = True, library: str | None = None):
    """One row per printed value: columns run (None on pair rows), pair
    ("A:B", None on run rows), measure, qid ("all" for summaries) and value.
    A pandas DataFrame, or a polars one (``library="polars"``, or when
    pandas is not installed); neither is a dependency of lexeval."""
    columns: dict[str, list] = {"run": [], "pair": [], "measure": [], "qid": [], "value": []}
    runs = set(evaluation.run_names)
    for record in records(all_blocks(evaluation, per_query, summary)):
        is_run = record.key in runs
        columns["run"].append(record.key if is_run else None)
        columns["pair"].append(None if is_run else record.key)
        columns["measure"].append(record.measure)
        columns["qid"].append(record.qid)
        value = record.value
        columns["value"].append(value.item() if isinstance(value, np.generic) else value)
    if library in (None, "pandas"):
        try:
            import pandas
            return pandas.DataFrame(columns)
        except ImportError:
            if library == "pandas":
                raise
    try:
        import polars
    except ImportError:
        raise ImportError("to_frame() needs pandas or polars: pip install pandas") from None
    return polars.DataFrame(columns, strict=False)
