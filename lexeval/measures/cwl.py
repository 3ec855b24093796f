"""C/W/L measures as cwl_eval computes them (Azzopardi, Thomas and Moffat,
"cwl_eval: An Evaluation Tool for Information Retrieval", SIGIR 2019), by
ir_measures' names: INST, INSQ, BPM, SDCG and NERR8 to NERR11.

A C/W/L measure is the expected rate of gain, sum over ranks i of W_i g_i,
where the user goes on from rank i to i + 1 with probability C_i and
W_i = prod_{j<i} C_j / sum_k prod_{j<k} C_j. As in cwl_eval, a ranking is
cut or padded (gain 0) to 1000 items; a document's gain is its grade
clipped to [min_rel, max_rel] and scaled to [0, 1] (negative grades and
unjudged documents gain 0); every item costs 1. The measures differ only in
C. ``max_rel`` defaults to the highest grade in the qrels (ir_measures asks
for it), ``min_rel`` to 0, ``T`` to 1 (the gain the user wants), NERR10's
``p`` to 0.9; BPM, SDCG, NERR8 and NERR9 need a cutoff ``k``.
"""

from __future__ import annotations

import numpy as np

from ..errors import UsageError
from ..rankings import Rankings

#: cwl_eval's depth: every ranking is cut or padded to this many items.
MAX_ITEMS = 1000
#: Segments evaluated at once: (segments x MAX_ITEMS) floats stay near 32 MB.
_CHUNK = 4096


def _insq_factor(rank: np.ndarray, target: float) -> np.ndarray:
    return ((rank + 2.0 * target - 1.0) / (rank + 2.0 * target)) ** 2.0


def _inst(gains, rank, p):
    remaining = p["T"] - np.cumsum(gains, axis=1)
    return ((rank + p["T"] + remaining - 1.0) / (rank + p["T"] + remaining)) ** 2.0


def _insq(gains, rank, p):
    return np.broadcast_to(_insq_factor(rank, p["T"]), gains.shape)


def _bpm(gains, rank, p):
    # static BPM: go on while the gain so far is below T and the cost so far (one per item) below k
    return ((np.cumsum(gains, axis=1) < p["T"]) & (rank < p["k"])).astype(np.float64)


def _sdcg(gains, rank, p):
    going_on = np.where(rank < p["k"], np.log(rank + 1.0) / np.log(2.0) / (np.log(rank + 2.0) / np.log(2.0)), 0.0)
    return np.broadcast_to(going_on, gains.shape)


def _nerr8(gains, rank, p):
    return np.where(rank < p["k"], 1.0 - gains, 0.0)


def _nerr9(gains, rank, p):
    return np.where(rank < p["k"], rank / (rank + 1.0) * (1.0 - gains), 0.0)


def _nerr10(gains, rank, p):
    return p["p"] * (1.0 - gains)


def _nerr11(gains, rank, p):
    return _insq_factor(rank, p["T"]) * (1.0 - gains)


#: name -> (continuation C(gains, rank, params), its parameters, the ones it needs)
CONTINUATIONS = {
    "inst": (_inst, ("T", "min_rel", "max_rel"), ()),
    "insq": (_insq, ("T", "min_rel", "max_rel"), ()),
    "bpm": (_bpm, ("k", "T", "min_rel", "max_rel"), ("k",)),
    "sdcg": (_sdcg, ("k", "min_rel", "max_rel"), ("k",)),
    "nerr8": (_nerr8, ("k", "min_rel", "max_rel"), ("k",)),
    "nerr9": (_nerr9, ("k", "min_rel", "max_rel"), ("k",)),
    "nerr10": (_nerr10, ("p", "min_rel", "max_rel"), ()),
    "nerr11": (_nerr11, ("T", "min_rel", "max_rel"), ()),
}


#: Each measure's syntax example and help, for --list-measures.
CWL_EXAMPLES = {"inst": (("T", 2), ("max_rel", 3)), "insq": (("T", 2),), "bpm": (("k", 10), ("T", 2)),
                "sdcg": (("k", 10),), "nerr8": (("k", 10),), "nerr9": (("k", 10),), "nerr10": (("p", 0.8),),
                "nerr11": (("T", 2),)}
CWL_HELP = {
    "inst": "INST (Moffat et al. 2015): C_i = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - gain so far.",
    "insq": "INSQ (Moffat et al. 2012): C_i = ((i + 2T - 1) / (i + 2T))^2.",
    "bpm": "Static Bejeweled Player Model (Zhang et al. 2017): go on while the gain so far is below T and i < k.",
    "sdcg": "Scaled DCG: DCG@k over the DCG of k fully relevant documents (C_i = log2(i+1)/log2(i+2), i < k).",
    "nerr8": "NERR eq. 8 (Azzopardi et al. 2021): C_i = 1 - g_i for i < k.",
    "nerr9": "NERR eq. 9: C_i = i/(i+1) (1 - g_i) for i < k.",
    "nerr10": "NERR eq. 10: C_i = p (1 - g_i), p = 0.9 by default.",
    "nerr11": "NERR eq. 11: C_i = ((i + 2T - 1) / (i + 2T))^2 (1 - g_i).",
}


def check(name: str, pairs) -> None:
    """Raise UsageError for a parameter ``name`` does not take, or lacks."""
    _, accepted, needed = CONTINUATIONS[name]
    given = {key for key, _ in pairs}
    unknown = sorted(given - set(accepted))
    if unknown:
        raise UsageError(f"measure '{name}': no parameter '{unknown[0]}' (it takes {', '.join(accepted)})")
    for key in needed:
        if key not in given:
            raise UsageError(f"measure '{name}' needs a cutoff: {name}.k=10, or {name.upper()}@10")
    values = dict(pairs)
    if "k" in values and (values["k"] < 1 or values["k"] != int(values["k"])):
        raise UsageError(f"measure '{name}': k is a positive number of documents")


def _gain_matrix(r: Rankings, segments: slice, low: float, high: float) -> np.ndarray:
    """(s, MAX_ITEMS) gains of the segments' top MAX_ITEMS documents, 0 past their end."""
    lengths = np.minimum(r.lengths[segments], MAX_ITEMS)
    row = np.repeat(np.arange(len(lengths)), lengths)
    column = np.arange(len(row)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    codes = r.codes[r.starts[segments][row] + column]
    grade = np.clip(r.grades(np.maximum(codes, 0)), low, high)               # fractional grades: their values
    gains = np.zeros((len(lengths), MAX_ITEMS))
    gains[row, column] = np.where(codes == -1, 0.0, (grade - low) / (high - low))     # -1: not in the qrels
    return gains


def cwl_measure(name: str):
    """The kernel of C/W/L measure ``name``: (S,) expected rate of gain."""
    continuation = CONTINUATIONS[name][0]

    def kernel(r: Rankings, pairs=()) -> np.ndarray:
        top = float(r.grades(np.array([r.level_counts.shape[1] - 1]))[0])      # the highest grade judged
        params = {"T": 1.0, "p": 0.9, "min_rel": 0.0, "max_rel": top,
                  **{key: float(value) for key, value in pairs}}
        low, high = params["min_rel"], params["max_rel"]
        if high <= low:
            raise UsageError(f"measure '{name}': max_rel ({high:g}) must be above min_rel ({low:g})")
        rank = np.arange(1, MAX_ITEMS + 1, dtype=np.float64)
        out = np.zeros(r.num_segments)
        for start in range(0, r.num_segments, _CHUNK):
            chunk = slice(start, min(start + _CHUNK, r.num_segments))
            gains = _gain_matrix(r, chunk, low, high)
            going_on = continuation(gains, rank, params)
            reached = np.ones_like(gains)              # prod_{j<i} C_j
            np.cumprod(going_on[:, :-1], axis=1, out=reached[:, 1:])
            out[chunk] = (reached * gains).sum(axis=1) / reached.sum(axis=1)
        return out
    kernel.__doc__ = f"{name}: cwl_eval's {name.upper()}, the expected rate of gain under its continuation."
    return kernel
