"""Counts: documents retrieved, relevant, relevant retrieved, judged non-relevant retrieved."""

from __future__ import annotations

import numpy as np

from ..rankings import Rankings

# ---------------------------------------------------------------- counts

def num_ret(r: Rankings, _=()) -> np.ndarray:
    """Documents retrieved."""
    return r.lengths.copy()


def num_rel(r: Rankings, _=()) -> np.ndarray:
    """Relevant documents in the qrels."""
    return r.num_rel.copy()


def num_rel_ret(r: Rankings, _=()) -> np.ndarray:
    """Relevant documents retrieved."""
    return r.num_rel_ret.copy()


def num_nonrel_judged_ret(r: Rankings, _=()) -> np.ndarray:
    """Judged non-relevant documents retrieved."""
    return np.bincount(r.locate(r.judged_nonrel)[1], minlength=r.num_segments)
