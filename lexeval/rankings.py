"""The centre of lexeval: every run's ranking of every query as flat arrays.

A *segment* is one (run, query) ranking; segments are stored run-major
(segment ``s`` is run ``s // Q``, query ``s % Q``). Per document we keep its
relevance code (grade, or -1 not in qrels, or -2 unjudged), in rank order.
Measures, preferences and statistics are pure functions of these arrays.

Running sums here are exact left-to-right accumulations (as trec_eval's C
loops), never "global cumsum minus offset", so printed digits match.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .inputs import ParsedRun, Qrels


@dataclass
class Rankings:
    """Relevance-coded rankings of R runs over the Q evaluated queries.

    Attributes are plain arrays; shapes: N ranked documents in all,
    S = R * Q segments.
    """

    qids: list[str]              # (Q,) evaluated queries, trec_eval order
    run_names: list[str]         # (R,)
    run_tags: list[str]          # (R,) trec_eval's runid (tag of last line)
    level: int                   # relevance level: relevant iff grade >= level
    codes: np.ndarray            # (N,) int32 relevance code per ranked document
    lengths: np.ndarray          # (S,) documents ranked per segment
    present: np.ndarray          # (R, Q) bool: run has the query
    level_counts: np.ndarray     # (Q, G) judged documents per grade >= 0
    doc_keys: np.ndarray = field(repr=False, default=None)  # (N,) docno hashes

    # ------------------------------------------------------------ shape
    @property
    def num_runs(self) -> int:
        return len(self.run_names)

    @property
    def num_queries(self) -> int:
        return len(self.qids)

    @property
    def num_segments(self) -> int:
        return len(self.lengths)

    def as_matrix(self, per_segment: np.ndarray) -> np.ndarray:
        """(S, ...) values as (R, Q, ...)."""
        return per_segment.reshape((self.num_runs, self.num_queries) + per_segment.shape[1:])

    # ------------------------------------------------------------ per segment
    @cached_property
    def starts(self) -> np.ndarray:
        """(S,) index of each segment's first document."""
        return np.concatenate(([0], np.cumsum(self.lengths)[:-1])).astype(np.int64)

    @cached_property
    def segment(self) -> np.ndarray:
        """(N,) segment of each document."""
        return np.repeat(np.arange(self.num_segments, dtype=np.int64), self.lengths)

    @cached_property
    def rank(self) -> np.ndarray:
        """(N,) 1-based rank of each document in its ranking."""
        return np.arange(len(self.codes), dtype=np.int64) - self.starts[self.segment] + 1

    @cached_property
    def segment_query(self) -> np.ndarray:
        """(S,) query index of each segment."""
        return np.tile(np.arange(self.num_queries), self.num_runs)

    @cached_property
    def num_rel_per_query(self) -> np.ndarray:
        """(Q,) relevant documents in the qrels."""
        return self.level_counts[:, max(self.level, 0):].sum(axis=1)

    @cached_property
    def num_rel(self) -> np.ndarray:
        """(S,) relevant documents in the qrels for each segment's query."""
        return self.num_rel_per_query[self.segment_query]

    @cached_property
    def num_judged_nonrel(self) -> np.ndarray:
        """(S,) documents judged below the relevance level."""
        return self.level_counts[:, :max(self.level, 0)].sum(axis=1)[self.segment_query]

    # ------------------------------------------------------------ per document
    @cached_property
    def relevant(self) -> np.ndarray:
        """(N,) bool: document is relevant."""
        return self.codes >= self.level

    @cached_property
    def judged_nonrel(self) -> np.ndarray:
        """(N,) bool: judged, but below the relevance level."""
        return (self.codes >= 0) & (self.codes < self.level)

    @cached_property
    def unjudged(self) -> np.ndarray:
        """(N,) bool: not in the qrels, or in them with a negative grade."""
        return self.codes < 0

    def count_before(self, mask: np.ndarray) -> np.ndarray:
        """(N,) how many ``mask`` documents rank above each document."""
        running = np.concatenate(([0], np.cumsum(mask, dtype=np.int64)))
        return running[:-1] - running[self.starts[self.segment]]

    def count_within(self, mask: np.ndarray, depth) -> np.ndarray:
        """(S,) ``mask`` documents at rank <= depth (scalar or (S,))."""
        depth = np.broadcast_to(depth, (self.num_segments,))
        chosen = mask & (self.rank <= depth[self.segment])
        return np.bincount(self.segment[chosen], minlength=self.num_segments)

    def segment_sum(self, values: np.ndarray, chosen: np.ndarray | None = None) -> np.ndarray:
        """(S,) sum of per-document ``values`` (where ``chosen``), added in
        rank order like trec_eval's loops."""
        if chosen is None:
            return np.bincount(self.segment, weights=values, minlength=self.num_segments)
        return np.bincount(self.segment[chosen], weights=values[chosen], minlength=self.num_segments)

    # ------------------------------------------------------------ relevant documents
    @cached_property
    def rel_index(self) -> np.ndarray:
        """(K,) indices of relevant documents, in segment then rank order."""
        return np.flatnonzero(self.relevant)

    @cached_property
    def rel_segment(self) -> np.ndarray:
        return self.segment[self.rel_index]

    @cached_property
    def rel_rank(self) -> np.ndarray:
        """(K,) rank of each relevant retrieved document: the position vector."""
        return self.rank[self.rel_index]

    @cached_property
    def num_rel_ret(self) -> np.ndarray:
        """(S,) relevant documents retrieved."""
        return np.bincount(self.rel_segment, minlength=self.num_segments)

    @cached_property
    def rel_starts(self) -> np.ndarray:
        """(S,) index into the relevant arrays where each segment starts."""
        return np.concatenate(([0], np.cumsum(self.num_rel_ret)[:-1])).astype(np.int64)

    @cached_property
    def rel_ordinal(self) -> np.ndarray:
        """(K,) 1-based recall level of each relevant retrieved document."""
        return np.arange(len(self.rel_index)) - self.rel_starts[self.rel_segment] + 1

    @cached_property
    def first_rel_rank(self) -> np.ndarray:
        """(S,) rank of the first relevant document, 0 if none."""
        first = np.zeros(self.num_segments, dtype=np.int64)
        has = self.num_rel_ret > 0
        first[has] = self.rel_rank[self.rel_starts[has]]
        return first


def running_sum(values: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Exact left-to-right running sums within segments.

    values: (N,) float, segments laid end to end; starts, lengths: (S,).
    Loops over depth (vectorised over segments), so each partial sum is
    the same sequence of additions a C loop would make.
    """
    out = np.array(values, dtype=np.float64, copy=True)
    if len(out) == 0:
        return out
    by_length = np.argsort(-lengths, kind="stable")
    sorted_lengths = lengths[by_length]
    sorted_starts = starts[by_length]
    for depth in range(1, int(sorted_lengths[0])):
        active = np.searchsorted(-sorted_lengths, -depth, side="left")
        index = sorted_starts[:active] + depth
        out[index] += out[index - 1]
    return out


def suffix_max(values: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Within each segment, the maximum of each element and all after it."""
    out = np.array(values, dtype=np.float64, copy=True)
    if len(out) == 0:
        return out
    by_length = np.argsort(-lengths, kind="stable")
    sorted_lengths = lengths[by_length]
    sorted_starts = starts[by_length]
    for depth in range(int(sorted_lengths[0]) - 2, -1, -1):
        active = np.searchsorted(-sorted_lengths, -(depth + 1), side="left")
        index = sorted_starts[:active] + depth
        out[index] = np.maximum(out[index], out[index + 1])
    return out


def build_rankings(qrels: Qrels, runs: list[ParsedRun], level: int = 1) -> Rankings:
    """Assemble parsed runs into one Rankings over the evaluated queries.

    Evaluated queries are the qrels queries with at least one document at or
    above ``level``. Queries a run lacks become empty rankings (the
    ``present`` mask records which).
    """
    evaluated = qrels.num_relevant(level) > 0
    keep_query = np.flatnonzero(evaluated)
    code_parts, key_parts, length_parts, present_rows = [], [], [], []
    for run in runs:
        query_of_doc = np.repeat(np.arange(len(qrels.qids)), run.counts)
        keep = evaluated[query_of_doc]
        code_parts.append(run.codes[keep])
        key_parts.append(run.doc_keys[keep])
        length_parts.append(run.counts[keep_query])
        present_rows.append(run.present[keep_query])
    return Rankings(
        qids=[qrels.qids[q] for q in keep_query],
        run_names=[run.name for run in runs],
        run_tags=[run.tag for run in runs],
        level=level,
        codes=np.concatenate(code_parts) if code_parts else np.zeros(0, np.int32),
        lengths=np.concatenate(length_parts).astype(np.int64) if length_parts else np.zeros(0, np.int64),
        present=np.array(present_rows, dtype=bool).reshape(len(runs), len(keep_query)),
        level_counts=qrels.level_counts[keep_query],
        doc_keys=np.concatenate(key_parts) if key_parts else np.zeros(0, np.uint64),
    )
