"""trec_eval's -Z: every per-query value as its deviation from a reference
mean, in reference standard deviations (trec_eval's convert_zscores.c)."""

from __future__ import annotations

import numpy as np

#: What trec_eval prints where the reference has no mean for a (query, measure).
MISSING_ZSCORE = -1000000.0


def to_zscores(values: np.ndarray, qids: list[str], name: str,
               reference: dict[tuple[str, str], tuple[float, float]]) -> np.ndarray:
    """(R, Q) values as z-scores against ``reference`` {(qid, name): (mean, sd)}.
    A standard deviation of 0 gives 0 where the value is the mean, and the
    missing value otherwise, as trec_eval does."""
    out = np.full(values.shape, MISSING_ZSCORE)
    for query, qid in enumerate(qids):
        found = reference.get((qid, name))
        if found is None:
            continue
        mean, stddev = found
        column = values[:, query].astype(np.float64)
        if stddev:
            out[:, query] = (column - mean) / stddev
        else:
            out[:, query] = np.where(column == mean, 0.0, MISSING_ZSCORE)
    return out
