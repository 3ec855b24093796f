"""Gain-based measures: DCG, nDCG and its cuts, Rndcg, ndcg_rel, G, binG, RBP,
with trec_eval's gain levels (``ndcg.1=3,2=9``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..io.inputs import grades_of_codes
from ..rankings import Rankings, running_sum
from .base import gather, per_cutoff, ratio

# ---------------------------------------------------------------- gain-based measures

@dataclass(frozen=True)
class Gains:
    """Gain per relevance code: the grade, unless ``level=gain`` pairs say
    otherwise; documents not in the qrels (or unjudged) gain 0. ``values``
    (fractional qrels: each code's grade, see lexeval.io.fractional) turns
    codes into grades; without it the code is the grade."""

    pairs: tuple = ()

    @property
    def levels(self) -> dict[float, float]:
        table: dict[float, float] = {}
        for name, value in self.pairs:
            level = _number(name)
            if level is not None and level not in table:
                table[level] = float(value)
        return table

    def of_codes(self, codes: np.ndarray, values: np.ndarray | None = None) -> np.ndarray:
        grade = grades_of_codes(codes, values)
        gain = np.where(codes >= 0, grade, 0.0)
        for level, value in self.levels.items():
            gain[grade == level] = value
        return gain

    def of_grades(self, num_grades: int, values: np.ndarray | None = None) -> np.ndarray:
        grade = np.arange(num_grades, dtype=np.float64) if values is None else values[:num_grades].astype(np.float64)
        gain = grade.copy()
        for level, value in self.levels.items():
            if level >= 0:
                gain[grade == level] = value
        return gain


def _number(text: str) -> float | None:
    """A gain level's grade: an integer (trec_eval's ``ndcg.1=3``), or a
    fractional grade's decimal."""
    body = text[1:] if text[:1] in "+-" else text
    if body.isdigit():
        return float(int(text))
    try:
        value = float(text)
    except ValueError:
        return None
    return value if "." in text and np.isfinite(value) else None


@dataclass
class Ideal:
    """The ideal ranking of each query: positive gains, best first.

    gains: (sum T,) flat; lengths: (Q,) T per query; starts: (Q,)."""

    gains: np.ndarray
    lengths: np.ndarray
    starts: np.ndarray

    @classmethod
    def of(cls, r: Rankings, gains: Gains) -> Ideal:
        grade_gain = gains.of_grades(r.level_counts.shape[1], r.grade_values)
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
    gain = gains.of_codes(r.codes, r.grade_values)
    return gain, np.where(gain != 0, gain / np.log2(r.rank + 1.0), 0.0)


def gaining(r: Rankings, gains: Gains, positive_only: bool = False):
    """(segment, rank, gain, gain / log2(rank + 1)) of the documents whose
    gain is non-zero (positive only, if asked), in segment and rank order."""
    gain = gains.of_codes(r.codes, r.grade_values)
    index, segment, rank = r.locate(gain > 0 if positive_only else gain != 0)
    gain = gain[index]
    return segment, rank, gain, gain / np.log2(rank + 1.0)


def dcg(r: Rankings, pairs) -> np.ndarray:
    """dcg: discounted cumulative gain (Jarvelin and Kekalainen 2002)."""
    segment, _, _, discounted = gaining(r, Gains(pairs))
    return np.bincount(segment, weights=discounted, minlength=r.num_segments)


def dcg_cut(r: Rankings, cutoffs) -> np.ndarray:
    """dcg_cut.k: DCG of the top k; gains are the grades (ranx's dcg@k)."""
    segment, rank, _, discounted = gaining(r, Gains(), positive_only=True)

    def at(cutoff):
        chosen = rank <= cutoff
        return np.bincount(segment[chosen], weights=discounted[chosen], minlength=r.num_segments)
    return per_cutoff(at, cutoffs)


def ideal_dcg(r: Rankings, pairs) -> np.ndarray:
    """ideal_dcg: DCG of the ideal ranking."""
    return Ideal.of(r, Gains(pairs)).dcg_within()[r.segment_query]


def ndcg(r: Rankings, pairs) -> np.ndarray:
    """ndcg: DCG over the ideal DCG, whole ranking."""
    return ratio(dcg(r, pairs), ideal_dcg(r, pairs))


def ndcg_cut(r: Rankings, cutoffs, gains=()) -> np.ndarray:
    """ndcg_cut.k: nDCG of the top k; gains are the grades, or what
    ``gains`` ((grade, gain) pairs: ir_measures' nDCG(gains={...})@k) maps them to."""
    table = Gains(tuple((str(grade), gain) for grade, gain in gains))
    segment, rank, _, discounted = gaining(r, table, positive_only=True)
    ideal = Ideal.of(r, table)

    def at(cutoff):
        chosen = rank <= cutoff
        found = np.bincount(segment[chosen], weights=discounted[chosen], minlength=r.num_segments)
        best = ideal.dcg_within(cutoff)[r.segment_query]
        return np.where(best > 0, ratio(found, best), found)
    return per_cutoff(at, cutoffs)


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
    ideal_here = gather(ideal_running, ideal.starts[query] + position, chosen)
    share = ratio(running, ideal_here)
    total = r.segment_sum(share, chosen)
    found = np.bincount(r.segment[chosen], minlength=r.num_segments)
    full = r.segment_sum(discounted)
    best = ideal.dcg_within()[r.segment_query]
    total = total + ratio((size - found) * full, best)
    return np.where((total > 0) & (size > 0), ratio(total, size), 0.0)


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
    total = np.where(extra, total + ratio(full, best), total)
    points = count + extra
    value = ratio(total, points)
    return np.where(r.num_rel > 0, value, 0.0)


def binary_g(r: Rankings, _=()) -> np.ndarray:
    """binG: mean over relevant documents of 1 / log2(2 + non-relevant above)."""
    score = 1.0 / np.log2((3 + (r.rel_rank - 1) - r.rel_ordinal).astype(np.float64))
    total = np.bincount(r.rel_segment, weights=score, minlength=r.num_segments)
    return np.where(r.num_rel_ret > 0, ratio(total, r.num_rel), 0.0)


def g_measure(r: Rankings, pairs) -> np.ndarray:
    """G: gain of each document discounted by how far the ranking has fallen
    behind the ideal so far, normalised by the total ideal gain."""
    gains = Gains(pairs)
    ideal = Ideal.of(r, gains)
    gain = gains.of_codes(r.codes, r.grade_values)
    size = ideal.lengths[r.segment_query][r.segment]
    query = r.segment_query[r.segment]
    inside = r.rank - 1 < size
    ideal_gain = gather(ideal.gains, ideal.starts[query] + r.rank - 1, inside)
    cost = np.where(inside & (ideal_gain >= 1.0), ideal_gain, 1.0)
    sum_cost = running_sum(cost, r.starts, r.lengths)
    sum_results = running_sum(gain, r.starts, r.lengths)
    with np.errstate(divide="ignore", invalid="ignore"):
        score = gain / np.log2(2 + sum_cost - sum_results)
    total = r.segment_sum(score, gain != 0)
    ideal_total = np.bincount(np.repeat(np.arange(r.num_queries), ideal.lengths),
                              weights=ideal.gains, minlength=r.num_queries)[r.segment_query]
    return ratio(total, ideal_total)


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
GRADES = "grades"   # rbp's parameter for ranx's rbp: gain = grade at or above the level, never rescaled
DEPTH = "depth"     # rbp's parameter for a cutoff (ir_measures' RBP@k, pref_eval's rbp@p,k)


def rank_biased_precision(r: Rankings, pairs) -> np.ndarray:
    """rbp: rank-biased precision, (1 - p) * sum of gain * p^(rank - 1),
    persistence p = 0.9 unless rbp.p=...; gains outside [0, 1] are rescaled
    to it (per query, over its grades). ir_measures' RBP (binary gains, p =
    0.8) is RBP(p=0.8); ranx's rbp.95 takes the grades as gains, unscaled;
    ``depth=k`` counts the top k documents only (RBP@10; pref_eval's
    rbp@0.8,10 is binary, p = 0.8, depth 10)."""
    persistence = _persistence(pairs)
    names = {name for name, _ in pairs}
    depth = next((int(float(value)) for name, value in pairs if name == DEPTH), None)
    if names & {BINARY, GRADES}:
        power = _powers(persistence, int(r.lengths.max(initial=0)))
        index, segment, rank = r.rel_index, r.rel_segment, r.rel_rank
        gain = np.ones(len(index)) if BINARY in names else r.grades(r.codes[index])
        if depth is not None:
            within = rank <= depth
            segment, rank, gain = segment[within], rank[within], gain[within]
        return (1.0 - persistence) * np.bincount(segment, weights=gain * power[rank - 1], minlength=r.num_segments)
    gains = Gains(pairs)
    num_grades = r.level_counts.shape[1]
    grade_gain = gains.of_grades(num_grades, r.grade_values)
    # each query's gain table: its grades 0..highest judged, plus parameter levels
    highest = num_grades - 1 - np.argmax(r.level_counts[:, ::-1] > 0, axis=1)
    in_table = np.arange(num_grades)[None, :] <= highest[:, None]
    grade_of_code = r.grades(np.arange(num_grades))
    for level in gains.levels:
        in_table[:, grade_of_code == level] = True
    extra = [value for level, value in gains.levels.items() if not (grade_of_code == level).any()]
    low = np.where(in_table, grade_gain, np.inf).min(axis=1)
    high = np.where(in_table, grade_gain, -np.inf).max(axis=1)
    if extra:
        low, high = np.minimum(low, min(extra)), np.maximum(high, max(extra))
    rescale = (low < 0) | (high > 1)
    gain = gains.of_codes(r.codes, r.grade_values)
    in_qrels = (r.codes >= 0) | np.isin(r.codes, list(gains.levels))
    query = r.segment_query[r.segment]
    scaled = rescale[query] & in_qrels
    with np.errstate(divide="ignore", invalid="ignore"):
        gain = np.where(scaled, (gain - low[query]) / (high[query] - low[query]), gain)
    power = _powers(persistence, int(r.lengths.max(initial=0)))
    index, segment, rank = r.locate(gain != 0)
    if depth is not None:
        within = rank <= depth
        index, segment, rank = index[within], segment[within], rank[within]
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
