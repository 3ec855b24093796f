"""What every measure kernel shares: parameter kinds, trec_eval's
constants, and safe division and gathering over whole arrays."""

from __future__ import annotations

import numpy as np

# Parameter kinds (trec_eval's init_meas families)
NONE = "none"            # no parameters
CUTOFFS = "cutoffs"      # positive integers, sorted, one value each: P_10
FRACTIONS = "fractions"  # floats, sorted, one value each: iprec_at_recall_0.10
VALUES = "values"        # floats, one value: utility_2,-1,0,0
GAINS = "gains"          # level=gain pairs, one value: ndcg_1=3,2=9

MIN_GEO_MEAN = 0.00001   # trec_eval floor before taking logs (gm_map, gm_bpref)
INFAP_EPSILON = 0.00001


def ratio(numerator, denominator) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0."""
    numerator, denominator = np.broadcast_arrays(np.asarray(numerator, dtype=np.float64),
                                                 np.asarray(denominator, dtype=np.float64))
    out = np.zeros(numerator.shape)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def gather(values: np.ndarray, index: np.ndarray, where: np.ndarray) -> np.ndarray:
    """values[index] where ``where`` holds, else 0; safe when ``values`` is
    empty (no query has an ideal gain, e.g. every grade 0 at -l)."""
    out = np.zeros(len(index), dtype=np.float64)
    out[where] = values[index[where]]
    return out


def per_cutoff(function, cutoffs) -> np.ndarray:
    """Stack ``function(cutoff)`` (S,) for each cutoff into (S, k)."""
    return np.stack([function(cutoff) for cutoff in cutoffs], axis=1)


def whole_ranking(kernel):
    """A cutoff kernel as a kernel of the whole ranking: its value at a
    cutoff past every ranking and every query's judgements (ranx's names
    without @k: hits, hit_rate, ndcg_burges)."""
    def whole(r, _params=()) -> np.ndarray:
        depth = max(int(r.lengths.max(initial=0)), int(r.level_counts.sum(axis=1).max(initial=0)), 1)
        return kernel(r, (depth,))[:, 0]
    whole.__doc__ = kernel.__doc__
    whole.__wrapped__ = kernel          # its family (the documentation's measure pages) is the kernel's
    return whole
