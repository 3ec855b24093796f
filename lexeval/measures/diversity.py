"""Diversity measures over subtopics, as ndeval 4.5 (the TREC Web track's
evaluation of novelty and diversity) computes them, with its defaults:
alpha = 0.5, beta = 0.5, binary relevance per subtopic (grade >= -l).

A document relevant to subtopic j gains (1 - alpha)^c for it, c being the
documents above it already relevant to j; its gain at a rank is the sum
over its subtopics. A is the number of the query's subtopics with a
relevant document.

- alpha_ndcg.k: alpha-DCG@k (discount 1/log2(rank + 1)) over the same of
  the ideal list, built greedily as ndeval does (Clarke et al., "Novelty
  and diversity in information retrieval evaluation", SIGIR 2008);
- err_ia.k: sum of gain / rank over the top k, over the same for A
  subtopics each found at every rank ("ideal ideal", ndeval's ERR-IA@k);
  nerr_ia.k: over the same of the ideal list (Chapelle et al. 2009);
- nrbp, nnrbp: novelty- and rank-biased precision, (1 - (1 - alpha) beta) / A
  sum of gain beta^(rank - 1); nnrbp over the ideal list's (Clarke et al.,
  ICTIR 2009);
- p_ia.k: relevant (document, subtopic) pairs in the top k over k A;
- ap_ia: average precision per subtopic, averaged over the A subtopics;
- strec.k: subtopics with a relevant document in the top k, over A.

ndeval breaks ties in its ideal list by docno, the larger first; the runs
are in trec_eval's order (ndeval's -traditional order).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

import numpy as np

from ..io.inputs import Qrels
from ..rankings import Rankings
from .base import per_cutoff, ratio

ALPHA = 0.5
BETA = 0.5


@dataclass(frozen=True)
class Subtopics:
    """Per judgement row (of the ordinary qrels): its relevant subtopics
    (CSR: ``row_starts`` (J + 1,), ``row_subtopic`` local to the query); per
    qrels query: A, relevant documents per subtopic, the ideal list's gain
    at each rank (CSR: ``ideal_starts``, ``ideal_gain``)."""

    row_starts: np.ndarray
    row_subtopic: np.ndarray
    query_of_row: np.ndarray
    actual: np.ndarray            # (Q,) A
    relevant_starts: np.ndarray   # (Q + 1,) into relevant_count, per local subtopic
    relevant_count: np.ndarray
    ideal_starts: np.ndarray      # (Q + 1,)
    ideal_gain: np.ndarray
    level: float
    # per query: (docno, its relevant subtopics) of each relevant document, for ideal lists at another alpha
    members: list = field(default_factory=list, repr=False, compare=False)
    _ideals: dict = field(default_factory=dict, repr=False, compare=False)

    def ideal(self, alpha: float) -> tuple[np.ndarray, np.ndarray]:
        """(starts (Q + 1,), gains) of the greedy ideal lists at ``alpha``."""
        if alpha == ALPHA:
            return self.ideal_starts, self.ideal_gain
        if alpha not in self._ideals:
            counts = np.diff(self.relevant_starts)
            ideal = [_greedy_ideal(members, int(count), alpha) for members, count in zip(self.members, counts)]
            self._ideals[alpha] = (_starts(ideal), np.concatenate(ideal) if ideal else np.zeros(0))
        return self._ideals[alpha]

    @classmethod
    def build(cls, qrels, judgements, level: float) -> Subtopics:
        """``qrels``: the ordinary Qrels; ``judgements``: SubtopicJudgements."""
        rows = len(qrels.grades)
        local: list[dict[bytes, int]] = [{} for _ in qrels.qids]
        per_row: list[list[int]] = [[] for _ in range(rows)]
        docnos = [qrels.docnos[int(line)] for line in qrels.line_of_row]
        qid_bytes = [qid.encode("utf-8", "surrogateescape") for qid in qrels.qids]
        for row in range(rows):
            query = int(qrels.query_index[row])
            grades = judgements.grades.get((qid_bytes[query], docnos[row]), {})
            for subtopic, grade in sorted(grades.items()):
                index = local[query].setdefault(subtopic, len(local[query]))
                if grade >= level:
                    per_row[row].append(index)
        row_starts = np.concatenate(([0], np.cumsum([len(s) for s in per_row]))).astype(np.int64)
        row_subtopic = np.array([s for subs in per_row for s in subs], dtype=np.int64)
        counts, ideal, actual, everyone = [], [], [], []
        for query in range(len(qrels.qids)):
            count = np.zeros(len(local[query]), dtype=np.int64)
            members = [(docnos[row], per_row[row]) for row in np.flatnonzero(qrels.query_index == query)
                       if per_row[row]]
            for _, subs in members:
                count[subs] += 1
            counts.append(count)
            actual.append(int((count > 0).sum()))
            ideal.append(_greedy_ideal(members, len(count)))
            everyone.append(members)
        return cls(row_starts, row_subtopic, np.asarray(qrels.query_index, dtype=np.int64), np.array(actual),
                   _starts(counts), np.concatenate(counts) if counts else np.zeros(0, np.int64),
                   _starts(ideal), np.concatenate(ideal) if ideal else np.zeros(0), level, everyone)


def _starts(pieces) -> np.ndarray:
    return np.concatenate(([0], np.cumsum([len(p) for p in pieces]))).astype(np.int64)


def _greedy_ideal(members: list[tuple[bytes, list[int]]], subtopics: int, alpha: float = ALPHA) -> np.ndarray:
    """The gain at each rank of ndeval's greedy ideal list: at every rank the
    document with the largest gain left, ties to the larger docno."""
    members = sorted(members, key=lambda item: item[0], reverse=True)      # argmax keeps the first
    matrix = np.zeros((len(members), subtopics))
    for i, (_, subs) in enumerate(members):
        matrix[i, subs] = 1.0
    gains = np.ones(subtopics)
    left = np.ones(len(members), dtype=bool)
    out = np.zeros(len(members))
    for rank in range(len(members)):
        scores = np.where(left, matrix @ gains, -1.0)
        best = int(np.argmax(scores))
        out[rank] = scores[best]
        left[best] = False
        gains = np.where(matrix[best] > 0, gains * (1.0 - alpha), gains)
    return out


@dataclass(frozen=True)
class _Pairs:
    """Every (ranked document, relevant subtopic) of the rankings: its
    segment, rank, qrels query and subtopic, and how many documents above it
    were already relevant to that subtopic."""

    segment: np.ndarray
    rank: np.ndarray
    query: np.ndarray
    subtopic: np.ndarray
    seen_before: np.ndarray


def _pairs(r: Rankings) -> tuple[Subtopics, _Pairs, np.ndarray, np.ndarray]:
    """The subtopic judgements, every relevant (document, subtopic) pair, and
    per segment A and the qrels query."""
    subtopics: Subtopics = r.subtopics
    if subtopics is None or r.qrels_rows is None:
        raise ValueError("diversity measures need subtopic judgements (read with --subtopics)")
    index = np.flatnonzero((r.qrels_rows >= 0) & (r.codes >= 0))     # a removed label (degradation) drops out
    rows = r.qrels_rows[index]
    per = subtopics.row_starts[rows + 1] - subtopics.row_starts[rows]
    doc = np.repeat(index, per)
    offset = np.arange(int(per.sum())) - np.repeat(np.cumsum(per) - per, per)
    subtopic = subtopics.row_subtopic[np.repeat(subtopics.row_starts[rows], per) + offset]
    segment = r.segment[doc].astype(np.int64)
    rank = r.rank[doc].astype(np.int64)
    order = np.lexsort((rank, subtopic, segment))
    segment, rank, subtopic, doc_rows = segment[order], rank[order], subtopic[order], np.repeat(rows, per)[order]
    group = np.flatnonzero(np.r_[True, (segment[1:] != segment[:-1]) | (subtopic[1:] != subtopic[:-1])])
    sizes = np.diff(np.r_[group, len(segment)])
    seen = np.arange(len(segment)) - np.repeat(group, sizes)
    query_of = np.array([cast(Qrels, r.qrels).query_of[qid.encode("utf-8", "surrogateescape")] for qid in r.qids],
                        dtype=np.int64)[r.segment_query]
    pairs = _Pairs(segment, rank, subtopics.query_of_row[doc_rows], subtopic, seen)
    return subtopics, pairs, subtopics.actual[query_of], query_of


def _gain(pairs: _Pairs, alpha: float = ALPHA) -> np.ndarray:
    return (1.0 - alpha) ** pairs.seen_before


def _ideal_within(subtopics: Subtopics, query: np.ndarray, cutoff: int, discount, alpha: float = ALPHA) -> np.ndarray:
    """(S,) sum over each segment's query's ideal list's top ``cutoff`` of
    gain x discount(rank), added in rank order."""
    starts, gains = subtopics.ideal(alpha)
    counts = np.diff(starts)
    owner = np.repeat(np.arange(len(counts)), counts)
    rank = np.arange(len(owner)) - starts[owner] + 1
    chosen = rank <= cutoff
    weights = gains[chosen] * discount(rank[chosen].astype(np.float64))
    return np.bincount(owner[chosen], weights=weights, minlength=len(counts))[query]


def _sum_within(r: Rankings, pairs: _Pairs, weight: np.ndarray, cutoff=None) -> np.ndarray:
    chosen = slice(None) if cutoff is None else pairs.rank <= cutoff
    return np.bincount(pairs.segment[chosen], weights=weight[chosen], minlength=r.num_segments)


def _log_discount(rank):
    return 1.0 / np.log2(rank + 1.0)


def _rank_discount(rank):
    return 1.0 / rank


def alpha_ndcg(r: Rankings, cutoffs, alpha: float = ALPHA) -> np.ndarray:
    """alpha_ndcg.k: alpha-nDCG@k (ndeval's alpha-nDCG@k); alpha 0.5 unless alpha_nDCG(alpha=...)@k."""
    subtopics, pairs, _, query = _pairs(r)
    gained = _gain(pairs, alpha) * _log_discount(pairs.rank)
    return per_cutoff(lambda k: ratio(_sum_within(r, pairs, gained, k),
                                      _ideal_within(subtopics, query, k, _log_discount, alpha)), cutoffs)


def alpha_dcg(r: Rankings, cutoffs, alpha: float = ALPHA) -> np.ndarray:
    """alpha_dcg.k: alpha-DCG@k normalised by A subtopics found at every rank (ndeval's alpha-DCG@k,
    ir_measures' alpha_DCG@k)."""
    _, pairs, actual, _ = _pairs(r)
    gained = _gain(pairs, alpha) * _log_discount(pairs.rank)

    def at(k):
        found = _sum_within(r, pairs, gained, k)
        if k < 2:                    # ndeval leaves rank 1 unnormalised
            return np.where(actual > 0, found, 0.0)
        ranks = np.arange(1, k + 1, dtype=np.float64)
        return ratio(found, actual * np.sum((1.0 - alpha) ** (ranks - 1) * _log_discount(ranks)))
    return per_cutoff(at, cutoffs)


def err_ia(r: Rankings, cutoffs) -> np.ndarray:
    """err_ia.k: intent-aware ERR@k, normalised by A subtopics found at every rank (ndeval's ERR-IA@k)."""
    subtopics, pairs, actual, _ = _pairs(r)
    gained = _gain(pairs) / pairs.rank

    def at(k):
        found = _sum_within(r, pairs, gained, k)
        if k < 2:                    # ndeval leaves rank 1 unnormalised
            return np.where(actual > 0, found, 0.0)
        ideal_ideal = actual * np.sum((1.0 - ALPHA) ** np.arange(k) / np.arange(1, k + 1))
        return ratio(found, ideal_ideal)
    return per_cutoff(at, cutoffs)


def nerr_ia(r: Rankings, cutoffs) -> np.ndarray:
    """nerr_ia.k: intent-aware ERR@k over the ideal list's (ndeval's nERR-IA@k)."""
    subtopics, pairs, _, query = _pairs(r)
    gained = _gain(pairs) / pairs.rank
    return per_cutoff(lambda k: ratio(_sum_within(r, pairs, gained, k),
                                      _ideal_within(subtopics, query, k, _rank_discount)), cutoffs)


def _nrbp_discount(beta: float):
    return lambda rank: beta ** (rank - 1.0)


def nrbp(r: Rankings, _=(), alpha: float = ALPHA, beta: float = BETA) -> np.ndarray:
    """nrbp: novelty- and rank-biased precision (ndeval's NRBP); alpha and beta 0.5 unless NRBP(alpha=,beta=)."""
    subtopics, pairs, actual, _ = _pairs(r)
    total = _sum_within(r, pairs, _gain(pairs, alpha) * _nrbp_discount(beta)(pairs.rank))
    return ratio(total * (1.0 - (1.0 - alpha) * beta), actual)


def nnrbp(r: Rankings, _=(), alpha: float = ALPHA, beta: float = BETA) -> np.ndarray:
    """nnrbp: NRBP over the ideal list's (ndeval's nNRBP)."""
    subtopics, pairs, _, query = _pairs(r)
    total = _sum_within(r, pairs, _gain(pairs, alpha) * _nrbp_discount(beta)(pairs.rank))
    return ratio(total, _ideal_within(subtopics, query, 1 << 62, _nrbp_discount(beta), alpha))


def p_ia(r: Rankings, cutoffs) -> np.ndarray:
    """p_ia.k: intent-aware precision@k, relevant (document, subtopic) pairs over k A (ndeval's P-IA@k)."""
    subtopics, pairs, actual, _ = _pairs(r)
    ones = np.ones(len(pairs.rank))
    return per_cutoff(lambda k: ratio(_sum_within(r, pairs, ones, k), k * actual), cutoffs)


def ap_ia(r: Rankings, _=()) -> np.ndarray:
    """ap_ia: average precision per subtopic, averaged over the subtopics with a relevant document
    (ndeval's MAP-IA)."""
    subtopics, pairs, actual, _ = _pairs(r)
    relevant = subtopics.relevant_count[subtopics.relevant_starts[pairs.query] + pairs.subtopic]
    precision = (pairs.seen_before + 1.0) / pairs.rank / relevant
    return ratio(_sum_within(r, pairs, precision), actual)


def subtopic_recall(r: Rankings, cutoffs) -> np.ndarray:
    """strec.k: subtopics with a relevant document in the top k, over A (ndeval's strec@k)."""
    subtopics, pairs, actual, _ = _pairs(r)
    first = (pairs.seen_before == 0).astype(np.float64)
    return per_cutoff(lambda k: ratio(_sum_within(r, pairs, first, k), actual), cutoffs)
