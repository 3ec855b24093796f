"""Per-run measures: one small function each, and one table naming them all.

Every measure function takes a :class:`~lexeval.rankings.Rankings` and its
parsed parameters and returns per-segment values: shape (S,) for a single
value, (S, k) for k cutoffs. Definitions follow trec_eval 10.0 to the last
digit (order of floating-point operations included); where trec_eval has a
bug, the intended definition is used and the README says so.

Adding a measure: write its function, add one row to ``MEASURES``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .errors import UsageError
from .rankings import Rankings, running_sum, suffix_max

# Parameter kinds (trec_eval's init_meas families)
NONE = "none"            # no parameters
CUTOFFS = "cutoffs"      # positive integers, sorted, one value each: P_10
FRACTIONS = "fractions"  # floats, sorted, one value each: iprec_at_recall_0.10
VALUES = "values"        # floats, one value: utility_2,-1,0,0
GAINS = "gains"          # level=gain pairs, one value: ndcg_1=3,2=9

MIN_GEO_MEAN = 0.00001   # trec_eval floor before taking logs (gm_map, gm_bpref)
INFAP_EPSILON = 0.00001


def _ratio(numerator, denominator) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0."""
    numerator, denominator = np.broadcast_arrays(np.asarray(numerator, dtype=np.float64),
                                                 np.asarray(denominator, dtype=np.float64))
    out = np.zeros(numerator.shape)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def _gather(values: np.ndarray, index: np.ndarray, where: np.ndarray) -> np.ndarray:
    """values[index] where ``where`` holds, else 0; safe when ``values`` is
    empty (no query has an ideal gain, e.g. every grade 0 at -l)."""
    out = np.zeros(len(index), dtype=np.float64)
    out[where] = values[index[where]]
    return out


def _per_cutoff(function, cutoffs) -> np.ndarray:
    """Stack ``function(cutoff)`` (S,) for each cutoff into (S, k)."""
    return np.stack([function(cutoff) for cutoff in cutoffs], axis=1)


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


# ---------------------------------------------------------------- precision family

def _precision_at_relevant(r: Rankings) -> np.ndarray:
    """(K,) precision at the rank of each relevant retrieved document."""
    return r.rel_ordinal / r.rel_rank


def _rel_within(r: Rankings, depth) -> np.ndarray:
    """(S,) relevant documents at rank <= depth (scalar or (S,))."""
    depth = np.broadcast_to(depth, (r.num_segments,))
    return np.bincount(r.rel_segment[r.rel_rank <= depth[r.rel_segment]], minlength=r.num_segments)


def average_precision(r: Rankings, _=()) -> np.ndarray:
    """map: mean of the precision at every relevant document (0 if unretrieved)."""
    total = np.bincount(r.rel_segment, weights=_precision_at_relevant(r), minlength=r.num_segments)
    return _ratio(total, r.num_rel)


def map_cut(r: Rankings, cutoffs) -> np.ndarray:
    """map_cut.k: average precision counting only the top k."""
    precision = _precision_at_relevant(r)

    def at(cutoff):
        chosen = r.rel_rank <= cutoff
        return _ratio(np.bincount(r.rel_segment[chosen], weights=precision[chosen],
                                  minlength=r.num_segments), r.num_rel)
    return _per_cutoff(at, cutoffs)


def r_precision(r: Rankings, _=()) -> np.ndarray:
    """Rprec: precision after R documents (R = relevant documents)."""
    return _ratio(_rel_within(r, r.num_rel), r.num_rel)


def recip_rank(r: Rankings, _=()) -> np.ndarray:
    """recip_rank: 1 / rank of the first relevant document."""
    return _ratio(1.0, r.first_rel_rank)


def recip_rank_cut(r: Rankings, cutoffs) -> np.ndarray:
    """recip_rank.k (MRR@k, RR@k): 1 / rank of the first relevant document
    if it is in the top k, else 0 (MS MARCO's official measure at k = 10)."""
    first = r.first_rel_rank
    return _per_cutoff(lambda k: _ratio(1.0, np.where(first <= k, first, 0)), cutoffs)


def precision(r: Rankings, cutoffs) -> np.ndarray:
    """P.k: relevant in the top k, over k."""
    return _per_cutoff(lambda k: _rel_within(r, k) / k, cutoffs)


def recall(r: Rankings, cutoffs) -> np.ndarray:
    """recall.k: relevant in the top k, over R."""
    return _per_cutoff(lambda k: _ratio(_rel_within(r, k), r.num_rel), cutoffs)


def relative_precision(r: Rankings, cutoffs) -> np.ndarray:
    """relative_P.k: relevant in the top k, over min(k, R)."""
    return _per_cutoff(lambda k: _ratio(_rel_within(r, k), np.minimum(k, r.num_rel)), cutoffs)


def success(r: Rankings, cutoffs) -> np.ndarray:
    """success.k: 1 if a relevant document is in the top k."""
    first = r.first_rel_rank
    return _per_cutoff(lambda k: ((first > 0) & (first <= k)).astype(np.float64), cutoffs)


def r_precision_multiples(r: Rankings, fractions) -> np.ndarray:
    """Rprec_mult.f: precision at f * R documents (rounded as trec_eval)."""
    def at(fraction):
        depth = np.floor(fraction * r.num_rel + 0.9)
        return _ratio(_rel_within(r, depth), depth)
    return _per_cutoff(at, fractions)


def _lround(values: np.ndarray) -> np.ndarray:
    """C's lround for non-negative values: halves round up, exactly."""
    floor = np.floor(values)
    return (floor + (values - floor >= 0.5)).astype(np.int64)


def interpolated_precision(r: Rankings, fractions) -> np.ndarray:
    """iprec_at_recall.f: the highest precision at any rank at or below the
    one where recall first reaches f (recall counted as round(f * R))."""
    tail = _ratio(r.num_rel_ret, r.lengths)                     # P at the last rank
    best = suffix_max(_precision_at_relevant(r), r.rel_starts, r.num_rel_ret)
    best = np.maximum(best, tail[r.rel_segment])

    def at(fraction):
        needed = _lround(fraction * r.num_rel)
        reached = needed <= r.num_rel_ret
        level = np.maximum(needed, 1)
        has = reached & (r.num_rel_ret > 0)
        out = np.where(reached, tail, 0.0)
        out[has] = best[r.rel_starts[has] + level[has] - 1]
        return out
    return _per_cutoff(at, fractions)


def eleven_point_average(r: Rankings, fractions) -> np.ndarray:
    """11pt_avg: mean interpolated precision over the recall points."""
    points = interpolated_precision(r, sorted(fractions))
    total = np.zeros(r.num_segments)
    for column in range(points.shape[1] - 1, -1, -1):  # trec_eval adds from the top point down
        total += points[:, column]
    return total / len(fractions)


# ---------------------------------------------------------------- incomplete judgements

def bpref(r: Rankings, _=()) -> np.ndarray:
    """bpref: how many judged non-relevant documents (of the first R) rank
    above each relevant one (Buckley and Voorhees 2004)."""
    nonrel_above = r.count_above(r.judged_nonrel, r.rel_index, r.rel_segment)
    limit = np.minimum(r.num_judged_nonrel, r.num_rel)[r.rel_segment]
    with np.errstate(divide="ignore", invalid="ignore"):
        penalty = np.minimum(nonrel_above, r.num_rel[r.rel_segment]) / limit
    score = np.where(nonrel_above > 0, 1.0 - penalty, 1.0)
    return _ratio(np.bincount(r.rel_segment, weights=score, minlength=r.num_segments), r.num_rel)


def inferred_ap(r: Rankings, _=()) -> np.ndarray:
    """infAP: inferred average precision (Yilmaz and Aslam 2006), average
    precision estimated from a sampled pool (grade -1: in the pool, not
    judged)."""
    above = (r.rel_rank - 1).astype(np.float64)                  # documents ranked above
    rel_above = r.rel_ordinal - 1
    nonrel_above = r.count_above(r.judged_nonrel, r.rel_index, r.rel_segment)
    pool_unjudged_above = r.count_above(r.codes == -2, r.rel_index, r.rel_segment)
    with np.errstate(divide="ignore", invalid="ignore"):
        score = (1.0 / (above + 1.0)
                 + (above / (above + 1.0)) * ((rel_above + nonrel_above + pool_unjudged_above) / above)
                 * ((rel_above + INFAP_EPSILON) / ((rel_above + nonrel_above) + 2 * INFAP_EPSILON)))
    score = np.where(above == 0, 1.0, score)
    return _ratio(np.bincount(r.rel_segment, weights=score, minlength=r.num_segments), r.num_rel)


def unjudged(r: Rankings, cutoffs) -> np.ndarray:
    """unj.k: fraction of the top k not judged."""
    return _per_cutoff(lambda k: r.count_within(r.unjudged, k) / k, cutoffs)


def judged(r: Rankings, cutoffs) -> np.ndarray:
    """judged.k (Judged@k): fraction of the top k that is in the qrels (any
    grade), over k or the ranking's length if shorter (as ir_measures)."""
    in_qrels = r.codes != -1
    return _per_cutoff(lambda k: _ratio(r.count_within(in_qrels, k), np.minimum(r.lengths, k)), cutoffs)


# ---------------------------------------------------------------- set measures

def set_precision(r: Rankings, _=()) -> np.ndarray:
    """set_P: relevant retrieved over retrieved."""
    return _ratio(r.num_rel_ret, r.lengths)


def set_relative_precision(r: Rankings, _=()) -> np.ndarray:
    """set_relative_P: relevant retrieved over min(retrieved, R)."""
    return _ratio(r.num_rel_ret, np.minimum(r.lengths, r.num_rel))


def set_recall(r: Rankings, _=()) -> np.ndarray:
    """set_recall: relevant retrieved over R."""
    return _ratio(r.num_rel_ret, r.num_rel)


def set_map(r: Rankings, _=()) -> np.ndarray:
    """set_map: set precision times set recall."""
    found = r.num_rel_ret.astype(np.float64)
    return _ratio(found * found, r.lengths.astype(np.float64) * r.num_rel)


def set_f(r: Rankings, values) -> np.ndarray:
    """set_F.b: weighted harmonic mean of set precision and recall."""
    weight = values[0]
    p = _ratio(r.num_rel_ret, r.lengths)
    rec = _ratio(r.num_rel_ret, r.num_rel)
    return np.where(r.num_rel_ret > 0, _ratio((weight + 1.0) * p * rec, weight * p + rec), 0.0)


def utility(r: Rankings, values) -> np.ndarray:
    """utility.a,b,c,d: a*relret + b*nonrelret + c*relmissed + d*nonrelmissed."""
    if len(values) != 4:
        raise UsageError("utility takes exactly 4 coefficients, e.g. -m utility.1,-1,0,0")
    found, retrieved, relevant = r.num_rel_ret, r.lengths, r.num_rel
    return (values[0] * found + values[1] * (retrieved - found) + values[2] * (relevant - found)
            + values[3] * (found - retrieved - relevant))


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


# ---------------------------------------------------------------- gain-based measures

@dataclass(frozen=True)
class Gains:
    """Gain per relevance code: the grade, unless ``level=gain`` pairs say
    otherwise; documents not in the qrels (or unjudged) gain 0."""

    pairs: tuple = ()

    @property
    def levels(self) -> dict[int, float]:
        table: dict[int, float] = {}
        for name, value in self.pairs:
            if _is_int(name) and int(name) not in table:
                table[int(name)] = float(value)
        return table

    def of_codes(self, codes: np.ndarray) -> np.ndarray:
        gain = np.where(codes >= 0, codes, 0).astype(np.float64)
        for level, value in self.levels.items():
            gain[codes == level] = value
        return gain

    def of_grades(self, num_grades: int) -> np.ndarray:
        gain = np.arange(num_grades, dtype=np.float64)
        for level, value in self.levels.items():
            if 0 <= level < num_grades:
                gain[level] = value
        return gain


def _is_int(text: str) -> bool:
    body = text[1:] if text[:1] in "+-" else text
    return body.isdigit()


@dataclass
class Ideal:
    """The ideal ranking of each query: positive gains, best first.

    gains: (sum T,) flat; lengths: (Q,) T per query; starts: (Q,)."""

    gains: np.ndarray
    lengths: np.ndarray
    starts: np.ndarray

    @classmethod
    def of(cls, r: Rankings, gains: Gains) -> "Ideal":
        grade_gain = gains.of_grades(r.level_counts.shape[1])
        order = np.argsort(-grade_gain, kind="stable")
        counts = r.level_counts[:, order] * (grade_gain[order] > 0)
        flat = np.repeat(np.tile(grade_gain[order], r.num_queries), counts.ravel())
        lengths = counts.sum(axis=1)
        return cls(flat, lengths, np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64))

    def discounted(self) -> np.ndarray:
        """(sum T,) gain / log2(position + 1), position 1-based."""
        position = np.arange(len(self.gains)) - np.repeat(self.starts, self.lengths)
        return self.gains / np.log2(position + 2.0)

    def dcg_within(self, cutoff=None) -> np.ndarray:
        """(Q,) ideal DCG of the top ``cutoff`` (all if None), summed in order."""
        discounted = self.discounted()
        query = np.repeat(np.arange(len(self.lengths)), self.lengths)
        if cutoff is not None:
            position = np.arange(len(self.gains)) - self.starts[query]
            chosen = position < cutoff
            query, discounted = query[chosen], discounted[chosen]
        return np.bincount(query, weights=discounted, minlength=len(self.lengths))


def _discounted_gain(r: Rankings, gains: Gains) -> tuple[np.ndarray, np.ndarray]:
    """(N,) gain and gain / log2(rank + 1) of every ranked document."""
    gain = gains.of_codes(r.codes)
    return gain, np.where(gain != 0, gain / np.log2(r.rank + 1.0), 0.0)


def _gaining(r: Rankings, gains: Gains, positive_only: bool = False):
    """(segment, rank, gain, gain / log2(rank + 1)) of the documents whose
    gain is non-zero (positive only, if asked), in segment and rank order."""
    gain = gains.of_codes(r.codes)
    index, segment, rank = r.locate(gain > 0 if positive_only else gain != 0)
    gain = gain[index]
    return segment, rank, gain, gain / np.log2(rank + 1.0)


def dcg(r: Rankings, pairs) -> np.ndarray:
    """dcg: discounted cumulative gain (Jarvelin and Kekalainen 2002)."""
    segment, _, _, discounted = _gaining(r, Gains(pairs))
    return np.bincount(segment, weights=discounted, minlength=r.num_segments)


def ideal_dcg(r: Rankings, pairs) -> np.ndarray:
    """ideal_dcg: DCG of the ideal ranking."""
    return Ideal.of(r, Gains(pairs)).dcg_within()[r.segment_query]


def ndcg(r: Rankings, pairs) -> np.ndarray:
    """ndcg: DCG over the ideal DCG, whole ranking."""
    return _ratio(dcg(r, pairs), ideal_dcg(r, pairs))


def ndcg_cut(r: Rankings, cutoffs) -> np.ndarray:
    """ndcg_cut.k: nDCG of the top k; gains are the grades."""
    segment, rank, _, discounted = _gaining(r, Gains(), positive_only=True)
    ideal = Ideal.of(r, Gains())

    def at(cutoff):
        chosen = rank <= cutoff
        found = np.bincount(segment[chosen], weights=discounted[chosen], minlength=r.num_segments)
        best = ideal.dcg_within(cutoff)[r.segment_query]
        return np.where(best > 0, _ratio(found, best), found)
    return _per_cutoff(at, cutoffs)


def ndcg_rel(r: Rankings, pairs) -> np.ndarray:
    """ndcg_rel: nDCG averaged over the relevant (gain > 0) documents; an
    unretrieved one counts the nDCG at the end of the ranking."""
    gains = Gains(pairs)
    ideal = Ideal.of(r, gains)
    gain, discounted = _discounted_gain(r, gains)
    running = running_sum(discounted, r.starts, r.lengths)
    ideal_running = running_sum(ideal.discounted(), ideal.starts, ideal.lengths)
    size = ideal.lengths[r.segment_query]                          # T per segment
    query = r.segment_query[r.segment]
    chosen = (gain > 0) & (size[r.segment] > 0)
    position = np.minimum(r.rank - 1, size[r.segment] - 1)
    ideal_here = _gather(ideal_running, ideal.starts[query] + position, chosen)
    share = _ratio(running, ideal_here)
    total = r.segment_sum(share, chosen)
    found = np.bincount(r.segment[chosen], minlength=r.num_segments)
    full = r.segment_sum(discounted)
    best = ideal.dcg_within()[r.segment_query]
    total = total + _ratio((size - found) * full, best)
    return np.where((total > 0) & (size > 0), _ratio(total, size), 0.0)


def rndcg(r: Rankings, pairs) -> np.ndarray:
    """Rndcg: nDCG averaged over the points where the ideal gain drops."""
    gains = Gains(pairs)
    ideal = Ideal.of(r, gains)
    _, discounted = _discounted_gain(r, gains)
    running = running_sum(discounted, r.starts, r.lengths)
    ideal_running = running_sum(ideal.discounted(), ideal.starts, ideal.lengths)

    # boundaries b (1..T) where the ideal gain changes, per query
    query_of_ideal = np.repeat(np.arange(r.num_queries), ideal.lengths)
    position = np.arange(len(ideal.gains)) - ideal.starts[query_of_ideal]
    next_gain = np.append(ideal.gains[1:], 0.0)
    last = position == ideal.lengths[query_of_ideal] - 1
    boundary = last | (next_gain != ideal.gains)
    boundary_query = query_of_ideal[boundary]
    boundary_at = position[boundary] + 1                           # b: ideal docs before the change
    ideal_at = ideal_running[np.flatnonzero(boundary)]
    per_query = np.bincount(boundary_query, minlength=r.num_queries)
    first = np.concatenate(([0], np.cumsum(per_query)[:-1]))

    # expand boundaries to segments
    count = per_query[r.segment_query]
    segment = np.repeat(np.arange(r.num_segments), count)
    which = first[r.segment_query][segment] + np.arange(count.sum()) - np.repeat(
        np.concatenate(([0], np.cumsum(count)[:-1])), count)
    depth = np.minimum(boundary_at[which], r.lengths[segment])
    dcg_here = np.zeros(len(depth))
    reached = depth > 0
    dcg_here[reached] = running[r.starts[segment[reached]] + depth[reached] - 1]
    total = np.bincount(segment, weights=dcg_here / ideal_at[which], minlength=r.num_segments)

    size = ideal.lengths[r.segment_query]
    extra = size + 1 < r.lengths                                   # trec_eval's final point
    full = r.segment_sum(discounted)
    best = ideal.dcg_within()[r.segment_query]
    total = np.where(extra, total + _ratio(full, best), total)
    points = count + extra
    value = _ratio(total, points)
    return np.where(r.num_rel > 0, value, 0.0)


def binary_g(r: Rankings, _=()) -> np.ndarray:
    """binG: mean over relevant documents of 1 / log2(2 + non-relevant above)."""
    score = 1.0 / np.log2((3 + (r.rel_rank - 1) - r.rel_ordinal).astype(np.float64))
    total = np.bincount(r.rel_segment, weights=score, minlength=r.num_segments)
    return np.where(r.num_rel_ret > 0, _ratio(total, r.num_rel), 0.0)


def g_measure(r: Rankings, pairs) -> np.ndarray:
    """G: gain of each document discounted by how far the ranking has fallen
    behind the ideal so far, normalised by the total ideal gain."""
    gains = Gains(pairs)
    ideal = Ideal.of(r, gains)
    gain = gains.of_codes(r.codes)
    size = ideal.lengths[r.segment_query][r.segment]
    query = r.segment_query[r.segment]
    inside = r.rank - 1 < size
    ideal_gain = _gather(ideal.gains, ideal.starts[query] + r.rank - 1, inside)
    cost = np.where(inside & (ideal_gain >= 1.0), ideal_gain, 1.0)
    sum_cost = running_sum(cost, r.starts, r.lengths)
    sum_results = running_sum(gain, r.starts, r.lengths)
    with np.errstate(divide="ignore", invalid="ignore"):
        score = gain / np.log2(2 + sum_cost - sum_results)
    total = r.segment_sum(score, gain != 0)
    ideal_total = np.bincount(np.repeat(np.arange(r.num_queries), ideal.lengths),
                              weights=ideal.gains, minlength=r.num_queries)[r.segment_query]
    return _ratio(total, ideal_total)


def _powers(base: float, count: int) -> np.ndarray:
    """base**i for i in 0..count, by repeated multiplication (as trec_eval)."""
    return np.cumprod(np.concatenate(([1.0], np.full(count, base))))


def _persistence(pairs) -> float:
    """rbp's p: the last ``p=value`` parameter, 0.9 without one (trec_eval)."""
    persistence = 0.9
    for name, value in pairs:
        if name == "p":
            persistence = float(value)
    return persistence


BINARY = "binary"   # rbp's parameter for ir_measures' RBP: gain 1 if relevant, else 0


def rank_biased_precision(r: Rankings, pairs) -> np.ndarray:
    """rbp: rank-biased precision, (1 - p) * sum of gain * p^(rank - 1),
    persistence p = 0.9 unless rbp.p=...; gains outside [0, 1] are rescaled
    to it (per query, over its grades). ir_measures' RBP (binary gains, p =
    0.8) is RBP(p=0.8)."""
    persistence = _persistence(pairs)
    if any(name == BINARY for name, _ in pairs):
        power = _powers(persistence, int(r.lengths.max(initial=0)))
        index, segment, rank = r.locate(r.relevant)
        return (1.0 - persistence) * np.bincount(segment, weights=power[rank - 1], minlength=r.num_segments)
    gains = Gains(pairs)
    num_grades = r.level_counts.shape[1]
    grade_gain = gains.of_grades(num_grades)
    # each query's gain table: its grades 0..highest judged, plus parameter levels
    highest = num_grades - 1 - np.argmax(r.level_counts[:, ::-1] > 0, axis=1)
    in_table = np.arange(num_grades)[None, :] <= highest[:, None]
    for level in gains.levels:
        if 0 <= level < num_grades:
            in_table[:, level] = True
    extra = [value for level, value in gains.levels.items() if not 0 <= level < num_grades]
    low = np.where(in_table, grade_gain, np.inf).min(axis=1)
    high = np.where(in_table, grade_gain, -np.inf).max(axis=1)
    if extra:
        low, high = np.minimum(low, min(extra)), np.maximum(high, max(extra))
    rescale = (low < 0) | (high > 1)
    gain = gains.of_codes(r.codes)
    in_qrels = (r.codes >= 0) | np.isin(r.codes, list(gains.levels))
    query = r.segment_query[r.segment]
    scaled = rescale[query] & in_qrels
    with np.errstate(divide="ignore", invalid="ignore"):
        gain = np.where(scaled, (gain - low[query]) / (high[query] - low[query]), gain)
    power = _powers(persistence, int(r.lengths.max(initial=0)))
    index, segment, rank = r.locate(gain != 0)
    total = np.bincount(segment, weights=gain[index] * power[rank - 1], minlength=r.num_segments)
    return (1.0 - persistence) * total


def rbp_residual(r: Rankings, pairs=()) -> np.ndarray:
    """rbp_resid: how much rbp could still rise if the unjudged documents
    had the highest gain; persistence p = 0.9 unless rbp_resid.p=...."""
    persistence = _persistence(pairs)
    power = _powers(persistence, int(r.lengths.max(initial=0)))
    _, segment, rank = r.locate(r.unjudged)
    total = np.bincount(segment, weights=power[rank - 1], minlength=r.num_segments)
    has = np.bincount(segment, minlength=r.num_segments) > 0
    return np.where(has, power[r.lengths] + (1 - persistence) * total, 0.0)


# ---------------------------------------------------------------- measures from the seeds

def total_search_efficiency(r: Rankings, _=()) -> np.ndarray:
    """tse: 1 / rank of the last relevant document (AP exposure), 0 if any
    relevant document is unretrieved (seed 003, eq. 3)."""
    complete = (r.num_rel_ret == r.num_rel) & (r.num_rel > 0)
    last = np.zeros(r.num_segments, dtype=np.int64)
    last[complete] = r.rel_rank[r.rel_starts[complete] + r.num_rel_ret[complete] - 1]
    return _ratio(1.0, last)


def _rarity(r: Rankings, depth=None) -> np.ndarray:
    """(K,) R(d) = 1 - S_d / S for each relevant retrieved document, S_d the
    runs retrieving it within ``depth`` (seed 002, eq. 2)."""
    return 1.0 - r.retrieved_by(depth) / r.num_runs


def rare_precision(r: Rankings, cutoffs) -> np.ndarray:
    """P_rare.k: (1/k) sum over relevant documents in the top k of
    1 + alpha R(d), rarity counted among the runs' top k (seed 002, eq. 1)."""
    alpha = r.rarity_weight

    def at(cutoff):
        within = r.rel_rank <= cutoff
        weight = 1.0 + alpha * _rarity(r, cutoff)
        return np.bincount(r.rel_segment[within], weights=weight[within], minlength=r.num_segments) / cutoff
    return _per_cutoff(at, cutoffs)


def rare_precision_bounded(r: Rankings, cutoffs) -> np.ndarray:
    """P_rare_norm.k: (1/k) sum over relevant documents in the top k of
    (1 - alpha) + alpha R'(d), R'(d) = 1 - (S_d - 1) / (S - 1), in [0, 1]
    (seed 002, eq. 4; R' = 1 with a single run)."""
    alpha, runs = r.rarity_weight, r.num_runs

    def at(cutoff):
        within = r.rel_rank <= cutoff
        bounded = 1.0 - (r.retrieved_by(cutoff) - 1) / (runs - 1) if runs > 1 else np.ones(len(within))
        weight = (1.0 - alpha) + alpha * bounded
        return np.bincount(r.rel_segment[within], weights=weight[within], minlength=r.num_segments) / cutoff
    return _per_cutoff(at, cutoffs)


def rare_average_precision(r: Rankings, _=()) -> np.ndarray:
    """map_rare: average over relevant documents of P_rare at each one's
    rank; rarity over the runs' whole rankings (seed 002, eq. 3)."""
    weight = 1.0 + r.rarity_weight * _rarity(r)
    gained = running_sum(weight, r.rel_starts, r.num_rel_ret)
    total = np.bincount(r.rel_segment, weights=gained / r.rel_rank, minlength=r.num_segments)
    return _ratio(total, r.num_rel)


# ---------------------------------------------------------------- the table

SUMMARY_MEAN = "mean"
SUMMARY_SUM = "sum"
SUMMARY_NUM_REL = "num_rel"      # sum; with -c, trec_eval counts every judgement above 0
SUMMARY_GEOMETRIC = "geometric"
SUMMARY_COUNT = "count"
SUMMARY_RUNID = "runid"
SUMMARY_NONE = "none"

DEFAULT_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
R_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


@dataclass(frozen=True)
class Measure:
    """One row of the measure table."""

    name: str
    compute: Callable | None
    params: str = NONE
    defaults: tuple = ()
    summary: str = SUMMARY_MEAN
    per_query: bool = True
    integer: bool = False
    text: bool = False
    zero_when_missing: bool = False   # trec_eval forces 0 for a query the run lacks (-c)
    needs_documents: bool = False     # compares documents across runs (rareness)
    help: str = field(default="", compare=False)
    help_is_set: bool = field(default=False, compare=False)   # help given in the table, not the docstring
    label: str = ""                   # printed name's stem when not the name (recip_rank_cut: recip_rank)
    cutoff_form: str | None = None    # the row that takes cutoffs, for NAME.k (recip_rank.10)

    @property
    def stem(self) -> str:
        return self.label or self.name


def _doc(function) -> str:
    return (function.__doc__ or "").strip().splitlines()[0] if function else ""


def _row(name, compute, **options) -> Measure:
    given = options.pop("help", None)
    return Measure(name, compute, help=given or _doc(compute), help_is_set=given is not None, **options)


#: Every per-run measure, in trec_eval's order (output follows this order).
MEASURES: tuple[Measure, ...] = (
    _row("runid", None, summary=SUMMARY_RUNID, per_query=False, text=True,
         help="The run's id: the tag column of its last line."),
    _row("num_q", None, summary=SUMMARY_COUNT, per_query=False, integer=True,
         help="Number of queries evaluated."),
    _row("num_ret", num_ret, summary=SUMMARY_SUM, integer=True),
    _row("num_rel", num_rel, summary=SUMMARY_NUM_REL, integer=True),
    _row("num_rel_ret", num_rel_ret, summary=SUMMARY_SUM, integer=True),
    _row("map", average_precision),
    _row("gm_map", average_precision, summary=SUMMARY_GEOMETRIC, per_query=False,
         help="Geometric mean over queries of average precision (summary only)."),
    _row("Rprec", r_precision),
    _row("bpref", bpref),
    _row("recip_rank", recip_rank, cutoff_form="recip_rank_cut"),
    _row("iprec_at_recall", interpolated_precision, params=FRACTIONS, defaults=RECALL_POINTS),
    _row("P", precision, params=CUTOFFS, defaults=DEFAULT_CUTOFFS),
    _row("relstring", rel_string, params=VALUES, defaults=(10.0,), summary=SUMMARY_NONE, text=True),
    _row("recall", recall, params=CUTOFFS, defaults=DEFAULT_CUTOFFS),
    _row("infAP", inferred_ap),
    _row("gm_bpref", bpref, summary=SUMMARY_GEOMETRIC, per_query=False,
         help="Geometric mean over queries of bpref (summary only)."),
    _row("Rprec_mult", r_precision_multiples, params=FRACTIONS, defaults=R_MULTIPLES),
    _row("utility", utility, params=VALUES, defaults=(1.0, -1.0, 0.0, 0.0), zero_when_missing=True),
    _row("11pt_avg", eleven_point_average, params=VALUES, defaults=RECALL_POINTS),
    _row("binG", binary_g),
    _row("G", g_measure, params=GAINS),
    _row("dcg", dcg, params=GAINS),
    _row("ideal_dcg", ideal_dcg, params=GAINS),
    _row("ndcg", ndcg, params=GAINS),
    _row("ndcg_rel", ndcg_rel, params=GAINS),
    _row("Rndcg", rndcg, params=GAINS),
    _row("ndcg_cut", ndcg_cut, params=CUTOFFS, defaults=DEFAULT_CUTOFFS),
    _row("map_cut", map_cut, params=CUTOFFS, defaults=DEFAULT_CUTOFFS),
    _row("relative_P", relative_precision, params=CUTOFFS, defaults=DEFAULT_CUTOFFS),
    _row("success", success, params=CUTOFFS, defaults=(1, 5, 10)),
    _row("set_P", set_precision),
    _row("set_relative_P", set_relative_precision),
    _row("set_recall", set_recall),
    _row("set_map", set_map),
    _row("set_F", set_f, params=VALUES, defaults=(1.0,)),
    _row("num_nonrel_judged_ret", num_nonrel_judged_ret, summary=SUMMARY_SUM, integer=True),
    _row("rbp", rank_biased_precision, params=GAINS),
    _row("rbp_resid", rbp_residual, params=GAINS),
    _row("unj", unjudged, params=CUTOFFS, defaults=(5, 10, 20)),
    # cutoff forms trec_eval lacks (ir_measures' RR@k and Judged@k)
    _row("recip_rank_cut", recip_rank_cut, params=CUTOFFS, defaults=(10,), label="recip_rank"),
    _row("judged", judged, params=CUTOFFS, defaults=(5, 10, 20)),
    # measures from the seeds that trec_eval lacks
    _row("tse", total_search_efficiency),
    _row("P_rare", rare_precision, params=CUTOFFS, defaults=DEFAULT_CUTOFFS, needs_documents=True),
    _row("P_rare_norm", rare_precision_bounded, params=CUTOFFS, defaults=DEFAULT_CUTOFFS,
         needs_documents=True),
    _row("map_rare", rare_average_precision, needs_documents=True),
)

MEASURE_BY_NAME = {measure.name: measure for measure in MEASURES}
MEASURE_ORDER = {measure.name: index for index, measure in enumerate(MEASURES)}

#: Named sets, as trec_eval's nicknames.
MEASURE_SETS: dict[str, tuple[str, ...]] = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
                 "bpref", "recip_rank", "iprec_at_recall", "P"),
    "all_trec": tuple(m.name for m in MEASURES[:MEASURE_ORDER["unj"] + 1] if m.name not in ("dcg", "ideal_dcg")),
    "seeds": ("tse", "P_rare", "P_rare_norm", "map_rare"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"),
}


# ---------------------------------------------------------------- requests


@dataclass(frozen=True)
class MeasureRequest:
    """A measure with its parameters, as asked for on the command line."""

    measure: Measure
    values: tuple = ()
    raw: str | None = None    # parameter text as given (names VALUES/GAINS outputs)
    level: int | None = None  # this measure's own relevance level (ir_measures' rel=), else -l's

    @property
    def name(self) -> str:
        return self.measure.name

    def output_names(self) -> list[str]:
        """The names printed for this request, one per output column."""
        kind, stem = self.measure.params, self.measure.stem
        if kind == CUTOFFS:
            names = [f"{stem}_{int(value)}" for value in self.values]
        elif kind == FRACTIONS:
            names = [f"{stem}_{value:3.2f}" for value in self.values]
        elif kind in (VALUES, GAINS) and self.raw is not None:
            names = [f"{stem}_{self.raw}"]
        else:
            names = [stem]
        return names if self.level is None else [f"{name}(rel={self.level})" for name in names]

    def compute(self, rankings: Rankings) -> np.ndarray:
        """(S, k) values: one column per output name."""
        if self.level is not None and self.level != rankings.level:
            from dataclasses import replace
            rankings = replace(rankings, level=self.level)
        values = self.measure.compute(rankings, self.values)
        return values.reshape(len(values), -1)


def _parse_long(text: str) -> int:
    """trec_eval reads integer cutoffs with atol: '23.4' is 23."""
    digits = ""
    for index, char in enumerate(text.strip()):
        if char.isdigit() or (index == 0 and char in "+-"):
            digits += char
        else:
            break
    if digits in ("", "+", "-"):
        raise ValueError(text)
    return int(digits)


def parse_params(measure: Measure, raw: str) -> tuple:
    """Parse ``raw`` (the text after the first '.') for ``measure``."""
    if raw == "":
        raise UsageError(f"measure '{measure.name}.' has an empty parameter list")
    parts = raw.split(",")
    kind = measure.params
    try:
        if kind == NONE:
            raise UsageError(f"measure '{measure.name}' takes no parameters")
        if kind == CUTOFFS:
            values = sorted(_parse_long(part) for part in parts)
            if values[0] <= 0:
                raise UsageError(f"measure '{measure.name}': cutoffs must be positive")
        elif kind == FRACTIONS:
            values = sorted(float(part) for part in parts)
        elif kind == VALUES:
            return tuple(float(part) for part in parts)
        else:
            pairs = []
            for part in parts:
                name, equals, value = part.partition("=")
                if not equals or not name:
                    raise UsageError(f"measure '{measure.name}': parameters are level=gain pairs, "
                                     f"got '{part}'")
                pairs.append((name, float(value)))
            return tuple(pairs)
    except ValueError:
        raise UsageError(f"measure '{measure.name}': cannot read parameters '{raw}'") from None
    if len(set(values)) != len(values):
        raise UsageError(f"measure '{measure.name}': duplicate cutoffs in '{raw}'")
    return tuple(values)


def request(name: str, raw: str | None = None, level: int | None = None) -> MeasureRequest:
    """A MeasureRequest for a table measure, with defaults when raw is None."""
    measure = MEASURE_BY_NAME[name]
    if raw is None:
        return MeasureRequest(measure, measure.defaults, None, level)
    return MeasureRequest(measure, parse_params(measure, raw), raw, level)


def merge_requests(requests: list[MeasureRequest]) -> list[MeasureRequest]:
    """One request per measure, in table order; cutoffs asked for twice are
    united (``-m P.5 -m P.10`` gives P_5 and P_10), otherwise the first
    explicit parameters win, as in trec_eval."""
    chosen: dict[tuple, MeasureRequest] = {}
    for req in requests:
        key = (req.name, req.level)
        old = chosen.get(key)
        if old is None or (old.raw is None and req.raw is not None):
            chosen[key] = req
        elif req.raw is not None and req.measure.params in (CUTOFFS, FRACTIONS):
            values = tuple(sorted(set(old.values) | set(req.values)))
            chosen[key] = MeasureRequest(req.measure, values, ",".join(map(str, values)), req.level)
    return sorted(chosen.values(), key=lambda req: (MEASURE_ORDER[req.name], req.level is not None,
                                                    req.level or 0))


def geometric_mean_log(values: np.ndarray) -> np.ndarray:
    """log(max(v, MIN_GEO_MEAN)): what trec_eval sums for gm_ measures."""
    return np.log(np.maximum(values, MIN_GEO_MEAN))


__all__ = ["MEASURES", "MEASURE_BY_NAME", "MEASURE_SETS", "Measure", "MeasureRequest",
           "request", "merge_requests", "parse_params"]
