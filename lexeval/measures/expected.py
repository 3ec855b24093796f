"""Measures as expected values over every order of tied documents
(``--tie-order expected``), in closed form (McSherry and Najork, "Computing
Information Retrieval Performance Measures Efficiently in the Presence of
Tied Scores", ECIR 2008).

Tied documents (equal scores in one ranking) fill a block of ranks in an
order taken uniformly at random. What a measure adds up position by position
(relevant documents in the top k, discounted gains) has as expectation the
same sum with each document's relevance or gain replaced by its block's mean.
The rest is worked out here: AP (given that the document at a block's p-th
place is relevant, the block's other r - 1 relevant documents lie above it
(p - 1) (r - 1) / (t - 1) times on average), the reciprocal rank and success
(the first relevant document's place in the first block that holds one is
the least of r places drawn from t). Every kernel has the signature of the
measure's own and is named in the measure table (``expected=``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..rankings import Rankings
from .base import per_cutoff, ratio
from .gains import Gains, Ideal
from .gdeval import exponential_gains


@dataclass
class Ties:
    """The blocks of tied documents of every segment; T blocks in all."""

    first: np.ndarray        # (T,) index of each block's first document
    size: np.ndarray         # (T,) documents in each block
    segment: np.ndarray      # (T,)
    offset: np.ndarray       # (T,) ranks above the block in its segment
    block: np.ndarray        # (N,) block of each document

    @classmethod
    def of(cls, r: Rankings) -> Ties:
        cached = r.__dict__.get("_ties")
        if cached is not None:
            return cached
        if r.tie_groups is None:
            raise ValueError("the rankings were read without their ties (tie_order='expected')")
        starts = np.ones(len(r.codes), dtype=bool)
        starts[1:] = r.tie_groups[1:] != r.tie_groups[:-1]
        starts[r.starts[r.lengths > 0]] = True               # a segment starts a block
        first = np.flatnonzero(starts)
        size = np.diff(np.append(first, len(r.codes)))
        segment = r.segment_of(first)
        ties = cls(first, size, segment, first - r.starts[segment],
                   np.repeat(np.arange(len(first)), size))
        r.__dict__["_ties"] = ties
        return ties

    def total(self, values: np.ndarray) -> np.ndarray:
        """(T,) the sum of per-document ``values`` (N,) over each block."""
        if not len(self.first):
            return np.zeros(0)
        return np.add.reduceat(values.astype(np.float64), self.first)

    def mean(self, values: np.ndarray) -> np.ndarray:
        """(N,) each document's block's mean of ``values`` (N,)."""
        return (self.total(values) / np.maximum(self.size, 1))[self.block]


def _within(r: Rankings, values: np.ndarray, depth) -> np.ndarray:
    """(S,) the sum of ``values`` (N,) over each segment's top ``depth``
    (scalar or (S,)) documents."""
    running = np.concatenate(([0.0], np.cumsum(values)))
    reach = np.minimum(np.broadcast_to(depth, (r.num_segments,)), r.lengths).astype(np.int64)
    return running[r.starts + np.maximum(reach, 0)] - running[r.starts]


def _relevance(r: Rankings) -> np.ndarray:
    """(N,) each document's expected relevance: its block's share of relevant documents."""
    return Ties.of(r).mean(r.codes >= r.level)


def precision(r: Rankings, cutoffs) -> np.ndarray:
    """Expected P.k."""
    found = _relevance(r)
    return per_cutoff(lambda k: _within(r, found, k) / k, cutoffs)


def recall(r: Rankings, cutoffs) -> np.ndarray:
    """Expected recall.k."""
    found = _relevance(r)
    return per_cutoff(lambda k: ratio(_within(r, found, k), r.num_rel), cutoffs)


def hits(r: Rankings, cutoffs) -> np.ndarray:
    """Expected hits.k."""
    found = _relevance(r)
    return per_cutoff(lambda k: _within(r, found, k), cutoffs)


def relative_precision(r: Rankings, cutoffs) -> np.ndarray:
    """Expected relative_P.k."""
    found = _relevance(r)
    return per_cutoff(lambda k: ratio(_within(r, found, k), np.minimum(k, r.num_rel)), cutoffs)


def f1(r: Rankings, cutoffs) -> np.ndarray:
    """Expected F1.k: 2 * (relevant in the top k) / (k + R) is linear."""
    found = _relevance(r)
    return per_cutoff(lambda k: ratio(2.0 * _within(r, found, k), k + r.num_rel), cutoffs)


def r_precision(r: Rankings, _=()) -> np.ndarray:
    """Expected Rprec."""
    return ratio(_within(r, _relevance(r), r.num_rel), r.num_rel)


def r_precision_multiples(r: Rankings, fractions) -> np.ndarray:
    """Expected Rprec_mult.f."""
    found = _relevance(r)

    def at(fraction):
        depth = np.floor(fraction * r.num_rel + 0.9)
        return ratio(_within(r, found, depth), depth)
    return per_cutoff(at, fractions)


def judged(r: Rankings, cutoffs) -> np.ndarray:
    """Expected judged.k."""
    in_qrels = Ties.of(r).mean(r.codes != -1)
    return per_cutoff(lambda k: ratio(_within(r, in_qrels, k), np.minimum(r.lengths, k)), cutoffs)


def unjudged(r: Rankings, cutoffs) -> np.ndarray:
    """Expected unj.k."""
    holes = Ties.of(r).mean(r.codes < 0)
    return per_cutoff(lambda k: _within(r, holes, k) / k, cutoffs)


# ---------------------------------------------------------------- the first relevant document


def _log_choose(n: np.ndarray, k: np.ndarray) -> np.ndarray:
    from scipy.special import gammaln
    return gammaln(n + 1.0) - gammaln(k + 1.0) - gammaln(n - k + 1.0)


def _first_block(r: Rankings):
    """Per segment, the first block holding a relevant document: (has (S,),
    offset, size, relevant), each (S,) (0 where none)."""
    ties = Ties.of(r)
    relevant = ties.total(r.codes >= r.level)
    holding = np.flatnonzero(relevant > 0)
    segment = ties.segment[holding]
    first = holding[np.concatenate(([True], segment[1:] != segment[:-1]))] if len(holding) else holding
    has = np.zeros(r.num_segments, dtype=bool)
    offset, size, count = (np.zeros(r.num_segments, dtype=np.int64) for _ in range(3))
    where = ties.segment[first]
    has[where], offset[where], size[where], count[where] = True, ties.offset[first], ties.size[first], \
        relevant[first].astype(np.int64)
    return has, offset, size, count


def success(r: Rankings, cutoffs) -> np.ndarray:
    """Expected success.k: 1 less the chance that the top k hold none of
    the first relevant block's r documents (C(t - r, m) / C(t, m), m of its
    t places in the top k)."""
    has, offset, size, count = _first_block(r)

    def at(k):
        places = np.clip(k - offset, 0, size)
        missed = np.zeros(r.num_segments)
        possible = has & (places <= size - count)
        missed[possible] = np.exp(_log_choose(size[possible] - count[possible], places[possible])
                                  - _log_choose(size[possible], places[possible]))
        return np.where(has, 1.0 - missed, 0.0)
    return per_cutoff(at, cutoffs)


def _first_places(r: Rankings):
    """(segment, rank, probability) of every place the first relevant
    document can take: place j of the first relevant block, with chance
    C(t - j, r - 1) / C(t, r)."""
    has, offset, size, count = _first_block(r)
    span = np.where(has, size - count + 1, 0)
    segment = np.repeat(np.arange(r.num_segments), span)
    place = np.arange(len(segment)) - np.repeat(np.concatenate(([0], np.cumsum(span)[:-1])), span) + 1
    t, c = size[segment], count[segment]
    chance = np.exp(_log_choose(t - place, c - 1) - _log_choose(t, c))
    return segment, offset[segment] + place, chance


def recip_rank(r: Rankings, _=()) -> np.ndarray:
    """Expected recip_rank."""
    segment, rank, chance = _first_places(r)
    return np.bincount(segment, weights=chance / rank, minlength=r.num_segments)


def recip_rank_cut(r: Rankings, cutoffs) -> np.ndarray:
    """Expected recip_rank.k."""
    segment, rank, chance = _first_places(r)
    return per_cutoff(lambda k: np.bincount(segment[rank <= k], weights=(chance / rank)[rank <= k],
                                            minlength=r.num_segments), cutoffs)


# ---------------------------------------------------------------- AP


def _precision_terms(r: Rankings) -> tuple[np.ndarray, np.ndarray]:
    """(N,) each place's expected (relevant here) x (relevant at or above) /
    rank, and (N,) ranks."""
    made = r.__dict__.get("_precision_terms")             # AP and gm_map, map_cut's cutoffs: made once
    if made is not None:
        return made
    ties = Ties.of(r)
    relevant = ties.total(r.codes >= r.level)
    size = ties.size.astype(np.float64)
    # relevant documents in the blocks above each block of its segment
    running = np.concatenate(([0.0], np.cumsum(relevant)))
    first_of_segment = np.searchsorted(ties.segment, np.arange(r.num_segments))
    above = running[:-1] - running[first_of_segment][ties.segment]
    block = ties.block
    place = np.arange(len(r.codes)) - ties.first[block] + 1
    others = np.where(size > 1, (relevant - 1) / np.maximum(size - 1, 1), 0.0)[block]
    term = (relevant / size)[block] * (above[block] + 1.0 + (place - 1) * others) / r.rank
    r.__dict__["_precision_terms"] = term, r.rank
    return term, r.rank


def average_precision(r: Rankings, _=()) -> np.ndarray:
    """Expected AP: sum over places of P(relevant there) times the expected
    relevant at or above it given that, over the rank; over R."""
    term, _rank = _precision_terms(r)
    return ratio(r.segment_sum(term), r.num_rel)


def map_cut(r: Rankings, cutoffs) -> np.ndarray:
    """Expected map_cut.k."""
    term, rank = _precision_terms(r)
    return per_cutoff(lambda k: ratio(r.segment_sum(np.where(rank <= k, term, 0.0)), r.num_rel), cutoffs)


# ---------------------------------------------------------------- gains


def _expected_dcg(r: Rankings, gains: Gains, positive_only: bool) -> np.ndarray:
    """(N,) each place's expected gain / log2(rank + 1)."""
    gain = gains.of_codes(r.codes, r.grade_values)
    if positive_only:
        gain = np.where(gain > 0, gain, 0.0)
    return Ties.of(r).mean(gain) / np.log2(r.rank + 1.0)


def dcg(r: Rankings, pairs) -> np.ndarray:
    """Expected dcg."""
    return r.segment_sum(_expected_dcg(r, Gains(pairs), False))


def ndcg(r: Rankings, pairs) -> np.ndarray:
    """Expected ndcg: expected DCG over the ideal DCG (which ties leave alone)."""
    gains = Gains(pairs)
    return ratio(r.segment_sum(_expected_dcg(r, gains, False)), Ideal.of(r, gains).dcg_within()[r.segment_query])


def _cut(r: Rankings, cutoffs, gains: Gains, normalised: bool) -> np.ndarray:
    discounted = _expected_dcg(r, gains, True)
    ideal = Ideal.of(r, gains) if normalised else None

    def at(cutoff):
        found = _within(r, discounted, cutoff)
        if ideal is None:
            return found
        best = ideal.dcg_within(cutoff)[r.segment_query]
        return np.where(best > 0, ratio(found, best), found)
    return per_cutoff(at, cutoffs)


def dcg_cut(r: Rankings, cutoffs) -> np.ndarray:
    """Expected dcg_cut.k."""
    return _cut(r, cutoffs, Gains(), False)


def ndcg_cut(r: Rankings, cutoffs, gains=()) -> np.ndarray:
    """Expected ndcg_cut.k."""
    return _cut(r, cutoffs, Gains(tuple((str(grade), gain) for grade, gain in gains)), True)


def dcg_exponential(r: Rankings, cutoffs) -> np.ndarray:
    """Expected dcg_exp.k."""
    return _cut(r, cutoffs, exponential_gains(r), False)


def ndcg_exponential(r: Rankings, cutoffs) -> np.ndarray:
    """Expected ndcg_exp.k."""
    gains = exponential_gains(r)
    discounted = _expected_dcg(r, gains, True)
    ideal = Ideal.of(r, gains)
    return per_cutoff(lambda k: ratio(_within(r, discounted, k), ideal.dcg_within(k)[r.segment_query]), cutoffs)
