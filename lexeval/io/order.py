"""trec_eval's order of a run's lines: query, then score descending, then
docno descending (byte-wise)."""

from __future__ import annotations

import numpy as np


def trec_order(query: np.ndarray, scores: np.ndarray, docnos, index: np.ndarray | None,
               descending: bool = True, ties_in_order: bool = False,
               line_order: bool = False) -> tuple[np.ndarray | None, tuple | None]:
    """How to put lines in trec_eval's order: query, then score descending,
    then docno descending (byte-wise; ascending if not ``descending``, as
    trec_eval orders runs for preference judgements). Returns ``(order,
    fix)``: ``x[fix[0]] = x[fix[1]]`` first (tied lines put in docno order
    where they are; no fix if None), then ``x[order]`` (None: in order
    already). Line i's docno is ``docnos[index[i]]`` (``docnos[i]``
    without ``index``); ``ties_in_order`` says tied neighbours are known
    to be in docno order; ``line_order`` keeps tied lines in the file's
    order instead of docno order (--tie-order input).

    Runs are usually written by query and descending score already; that is
    checked in linear time, whole blocks of a query are moved into query
    order, and only tied scores are ordered by docno. Other files pay for a
    sort by (query, score).
    """
    count = len(query)
    if count == 0:
        return None, None
    boundaries = np.flatnonzero(query[1:] != query[:-1]) + 1       # where a query's block starts
    block_query = query[np.concatenate(([0], boundaries))]
    rises = np.flatnonzero(scores[1:] > scores[:-1]) + 1            # a score may rise only at a block start
    grouped = np.bincount(block_query).max() <= 1
    if grouped and np.isin(rises, boundaries).all():
        blocks: np.ndarray | None = None
        if not (block_query[1:] > block_query[:-1]).all():           # move whole blocks into query order
            position = np.int32 if count < 2 ** 31 else np.int64
            starts = np.concatenate(([0], boundaries)).astype(position)
            lengths: np.ndarray = np.diff(np.append(starts, count)).astype(position)
            by_query = np.argsort(block_query, kind="stable")
            moved: np.ndarray = np.repeat(starts[by_query] - np.concatenate(([0], np.cumsum(lengths[by_query])[:-1])),
                              lengths[by_query]).astype(position)
            moved += np.arange(count, dtype=position)
            blocks = moved
        # ties lie within blocks: ordered where they are (moving blocks keeps their order)
        return blocks, None if ties_in_order or line_order else _tie_fix(query, scores, docnos, index, descending,
                                                                          None)
    order = np.lexsort((-scores, query))                             # stable: tied lines keep their order
    fix = None if line_order else _tie_fix(query[order], scores[order], docnos, index, descending, order)
    if fix is not None:
        order[fix[0]] = order[fix[1]]
    return order, None


def _tie_fix(query: np.ndarray, scores: np.ndarray, docnos, index: np.ndarray | None, descending: bool,
             order: np.ndarray | None) -> tuple[np.ndarray, np.ndarray] | None:
    """For lines in order of query and score (position i holds line
    ``order[i]``, or i): (positions, sources) putting tied scores in docno
    order by ``x[positions] = x[sources]``, or None when they are so
    already."""
    tie = (query[1:] == query[:-1]) & (scores[1:] == scores[:-1])
    tied = np.flatnonzero(tie)
    if not len(tied):
        return None
    members = np.union1d(tied, tied + 1)                              # positions in tied groups
    line = members if order is None else order[members]
    rank = docnos.rank(line if index is None else index[line]) * (1 if descending else -1)
    position = np.searchsorted(members, tied)
    if (rank[position] > rank[position + 1]).all():                  # in docno order already
        return None
    starts_group = np.ones(len(members), dtype=bool)                  # not tied to the position before
    starts_group[1:] = ~tie[members[1:] - 1]
    return members, members[np.lexsort((-rank, np.cumsum(starts_group)))]
