"""Set measures: the whole retrieved set as one unordered set (set_P, set_F,
utility, ...), and relstring."""

from __future__ import annotations

import numpy as np

from ..errors import UsageError
from ..rankings import Rankings
from .base import ratio

# ---------------------------------------------------------------- set measures

def set_precision(r: Rankings, _=()) -> np.ndarray:
    """set_P: relevant retrieved over retrieved."""
    return ratio(r.num_rel_ret, r.lengths)


def set_relative_precision(r: Rankings, _=()) -> np.ndarray:
    """set_relative_P: relevant retrieved over min(retrieved, R)."""
    return ratio(r.num_rel_ret, np.minimum(r.lengths, r.num_rel))


def set_recall(r: Rankings, _=()) -> np.ndarray:
    """set_recall: relevant retrieved over R."""
    return ratio(r.num_rel_ret, r.num_rel)


def set_map(r: Rankings, _=()) -> np.ndarray:
    """set_map: set precision times set recall."""
    found = r.num_rel_ret.astype(np.float64)
    return ratio(found * found, r.lengths.astype(np.float64) * r.num_rel)


def set_f(r: Rankings, values) -> np.ndarray:
    """set_F.b: weighted harmonic mean of set precision and recall."""
    weight = values[0]
    p = ratio(r.num_rel_ret, r.lengths)
    rec = ratio(r.num_rel_ret, r.num_rel)
    return np.where(r.num_rel_ret > 0, ratio((weight + 1.0) * p * rec, weight * p + rec), 0.0)


def utility(r: Rankings, values, num_docs: int = 0) -> np.ndarray:
    """utility.a,b,c,d: a*relret + b*nonrelret + c*relmissed + d*nonrelmissed;
    the documents neither retrieved nor relevant are counted from -N (the
    collection's size, 0 unless given), as trec_eval does."""
    if len(values) != 4:
        raise UsageError("utility takes exactly 4 coefficients, e.g. -m utility.1,-1,0,0")
    found, retrieved, relevant = r.num_rel_ret, r.lengths, r.num_rel
    return (values[0] * found + values[1] * (retrieved - found) + values[2] * (relevant - found)
            + values[3] * (num_docs + found - retrieved - relevant))


def rel_string(r: Rankings, values) -> np.ndarray:
    """relstring.n: the relevance codes of the top n documents as text."""
    length = int(values[0]) if values else 10
    symbols = np.frombuffer(b"0123456789", dtype="S1")
    chars = np.full(len(r.codes), b"<", dtype="S1")
    chars[r.codes > 9] = b">"
    small = (r.codes >= 0) & (r.codes <= 9)
    chars[small] = symbols[r.codes[small]]
    chars[r.codes == -1] = b"-"
    chars[r.codes == -2] = b"."
    text = chars.tobytes().decode("ascii")
    ends = r.starts + np.minimum(r.lengths, max(length, 0))
    return np.array([text[start:end] for start, end in zip(r.starts.tolist(), ends.tolist())], dtype=object)
