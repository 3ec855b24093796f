"""The centre of lexeval: every run's ranking of every query as flat arrays.

A *segment* is one (run, query) ranking; segments are stored run-major
(segment ``s`` is run ``s // Q``, query ``s % Q``). Per document we keep its
relevance code (grade, or -1 not in qrels, or -2 unjudged), in rank order.
Measures, preferences and statistics are pure functions of these arrays.

Running sums here are exact left-to-right accumulations (as trec_eval's C
loops), never "global cumsum minus offset", so printed digits match.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from typing import Any, cast

import numpy as np

from .io.inputs import ParsedRun, Qrels


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
    codes: np.ndarray            # (N,) int16 relevance code per ranked document
    lengths: np.ndarray          # (S,) documents ranked per segment
    present: np.ndarray          # (R, Q) bool: run has the query
    level_counts: np.ndarray     # (Q, G) judged documents per grade >= 0
    qrels_rows: np.ndarray | None = field(repr=False, default=None)  # (N,) qrels row or -1, if kept
    qrels: Qrels | None = field(repr=False, default=None)   # the judgements these came from
    subtopics: Any = field(repr=False, default=None)  # measures.diversity.Subtopics, if read
    prefs: Any = field(repr=False, default=None)      # measures.prefs.PreferenceIndex (-R prefs)
    groups: Any = field(repr=False, default=None)     # measures.groups.JudgementGroups (-R qrels_jg)
    tie_groups: np.ndarray | None = field(repr=False, default=None)  # (N,) equal within a segment iff scores tie
    hole_ids: np.ndarray | None = field(repr=False, default=None)    # (N,) int16 (or int32 past 32,767 a query)
    hole_counts: np.ndarray | None = field(repr=False, default=None)  # an unjudged document's number in its query
    #                                                                   (-1 judged); (Q,) how many per query
    grade_values: np.ndarray | None = field(repr=False, default=None)  # fractional grades: each code's grade
    relevance_level: float | None = None    # -l as given (``level`` is its code); None: the same as ``level``

    def level_code(self, level: float) -> int:
        """The least relevance code whose grade reaches ``level`` (integer
        grades: the level rounded up; see lexeval.io.fractional)."""
        from .io.inputs import level_code
        return level_code(level, self.grade_values)

    def grades(self, codes: np.ndarray) -> np.ndarray:
        """(n,) float64 the grades of relevance codes (negative ones kept)."""
        from .io.inputs import grades_of_codes
        return grades_of_codes(codes, self.grade_values)

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

    def restrict(self, keep: np.ndarray) -> Rankings:
        """The same runs over the queries where ``keep`` (Q,) holds."""
        if keep.all():
            return self
        segment_kept = np.tile(keep, self.num_runs)
        document_kept = np.repeat(segment_kept, self.lengths)
        return replace(self, qids=[qid for qid, k in zip(self.qids, keep.tolist()) if k],
                       codes=self.codes[document_kept], lengths=self.lengths[segment_kept],
                       present=self.present[:, keep], level_counts=self.level_counts[keep],
                       qrels_rows=None if self.qrels_rows is None else self.qrels_rows[document_kept],
                       tie_groups=None if self.tie_groups is None else self.tie_groups[document_kept],
                       hole_ids=None if self.hole_ids is None else self.hole_ids[document_kept],
                       hole_counts=None if self.hole_counts is None else self.hole_counts[keep])

    def judged_only(self) -> Rankings:
        """The rankings without their unjudged documents (trec_eval's -J)."""
        keep = self.codes >= 0
        if keep.all():
            return self
        lengths = np.bincount(self.segment[keep], minlength=self.num_segments).astype(self.lengths.dtype)
        return replace(self, codes=self.codes[keep], lengths=lengths,
                       qrels_rows=None if self.qrels_rows is None else self.qrels_rows[keep],
                       tie_groups=None if self.tie_groups is None else self.tie_groups[keep])

    def without_judgements(self, removed: np.ndarray) -> Rankings:
        """The rankings as if the qrels lacked the judgement rows where
        ``removed`` (J,) holds: the documents they judged become unjudged
        (not in the qrels) and the grade counts lose them. Needs
        ``qrels_rows`` (read with keep_rows)."""
        if self.qrels_rows is None or self.qrels is None:
            raise ValueError("document identities were not kept (read runs with keep_rows=True)")
        codes = self.codes.copy()
        hit = self.qrels_rows >= 0
        hit[hit] = removed[self.qrels_rows[hit]]
        codes[hit] = -1
        evaluated = {qid: index for index, qid in enumerate(self.qids)}
        query_of_qrels_query = np.array([evaluated.get(qid, -1) for qid in self.qrels.qids], dtype=np.int64)
        rows = np.flatnonzero(removed)
        query, grade = query_of_qrels_query[self.qrels.query_index[rows]], self.qrels.grades[rows].astype(np.int64)
        counted = (query >= 0) & (grade >= 0)
        width = self.level_counts.shape[1]
        level_counts = self.level_counts - np.bincount(query[counted] * width + grade[counted],
                                                       minlength=self.level_counts.size).reshape(self.level_counts.shape)
        return replace(self, codes=codes, level_counts=level_counts)

    def forget(self) -> None:
        """Drop the arrays computed and kept for measures (per document,
        many of them): once the measures are done, pairs need other ones
        (what they read, the relevant ranks, they were handed before)."""
        kept = {f.name for f in fields(self)}
        # cached properties, memos (the keys listed at once: --bounds' pairs, in a thread, may add one meanwhile)
        for name in [name for name in list(self.__dict__) if name not in kept]:
            del self.__dict__[name]

    # ------------------------------------------------------------ per segment
    @cached_property
    def starts(self) -> np.ndarray:
        """(S,) index of each segment's first document."""
        return np.concatenate(([0], np.cumsum(self.lengths)[:-1])).astype(np.int64)

    @cached_property
    def ends(self) -> np.ndarray:
        """(S,) index one past each segment's last document."""
        return np.cumsum(self.lengths).astype(np.int64)

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

    # ------------------------------------------------------------ documents
    # Most measures look only at a few documents (the relevant, the judged);
    # they are located by binary search instead of per-document arrays.

    def segment_of(self, index: np.ndarray) -> np.ndarray:
        """Segment of each document index (sorted or not)."""
        return np.searchsorted(self.ends, index, side="right")

    def locate(self, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(index, segment, rank) of the documents where ``mask`` holds, in
        segment then rank order; rank is 1-based."""
        index = np.flatnonzero(mask)
        # each segment's count, repeated (segments lie end to end and index is sorted): no search per document
        counts = self.count_per_segment(mask)
        segment = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
        return index, segment, index - self.starts[segment] + 1

    def count_per_segment(self, mask: np.ndarray) -> np.ndarray:
        """(S,) how many ``mask`` (N,) documents each segment holds."""
        return np.diff(_marked_before(mask, self.ends), prepend=0)

    def count_above(self, mask: np.ndarray, index: np.ndarray, segment: np.ndarray) -> np.ndarray:
        """How many ``mask`` documents rank above each document ``index``
        (sorted; whose segments are ``segment``)."""
        return _marked_before(mask, index) - _marked_before(mask, self.starts[segment])

    def count_within(self, mask: np.ndarray, depth) -> np.ndarray:
        """(S,) ``mask`` documents at rank <= depth (scalar or (S,))."""
        _, segment, rank = self.locate(mask)
        depth = np.broadcast_to(depth, (self.num_segments,))
        return np.bincount(segment[rank <= depth[segment]], minlength=self.num_segments)

    @cached_property
    def segment(self) -> np.ndarray:
        """(N,) segment of every document (for the few measures that need all)."""
        return np.repeat(np.arange(self.num_segments, dtype=np.int32), self.lengths)

    @cached_property
    def rank(self) -> np.ndarray:
        """(N,) 1-based rank of every document."""
        return (np.arange(len(self.codes), dtype=np.int64) - self.starts[self.segment] + 1).astype(np.int32)

    def segment_sum(self, values: np.ndarray, chosen: np.ndarray | None = None) -> np.ndarray:
        """(S,) sum of per-document ``values`` (where ``chosen``), added in
        rank order like trec_eval's loops."""
        if chosen is None:
            return np.bincount(self.segment, weights=values, minlength=self.num_segments)
        index, segment, _ = self.locate(chosen)
        return np.bincount(segment, weights=values[index], minlength=self.num_segments)

    # per-document masks are made when asked for, not kept: a byte per document each, and
    # most measures only need where the relevant documents are (_relevant_located, kept)
    @property
    def relevant(self) -> np.ndarray:
        """(N,) bool: document is relevant."""
        return self.codes >= self.level

    @property
    def judged_nonrel(self) -> np.ndarray:
        """(N,) bool: judged, but below the relevance level."""
        return (self.codes >= 0) & (self.codes < self.level)

    @cached_property
    def unjudged(self) -> np.ndarray:
        """(N,) bool: not in the qrels, or in them with a negative grade."""
        return self.codes < 0

    # ------------------------------------------------------------ relevant documents
    @cached_property
    def _relevant_located(self):
        return self.locate(self.relevant)

    @property
    def rel_index(self) -> np.ndarray:
        """(K,) indices of relevant documents, in segment then rank order."""
        return self._relevant_located[0]

    @property
    def rel_segment(self) -> np.ndarray:
        return self._relevant_located[1]

    @property
    def rel_rank(self) -> np.ndarray:
        """(K,) rank of each relevant retrieved document: the position vector."""
        return self._relevant_located[2]

    @cached_property
    def num_rel_ret(self) -> np.ndarray:
        """(S,) relevant documents retrieved (counted block by block where
        the relevant documents have not been located: --bounds' assigned
        rankings, where they are most of the documents)."""
        if "_relevant_located" in self.__dict__:
            return np.bincount(self.rel_segment, minlength=self.num_segments)
        return self.count_per_segment(self.relevant)

    @cached_property
    def rel_starts(self) -> np.ndarray:
        """(S,) index into the relevant arrays where each segment starts."""
        return np.concatenate(([0], np.cumsum(self.num_rel_ret)[:-1])).astype(np.int64)

    @cached_property
    def rel_ordinal(self) -> np.ndarray:
        """(K,) 1-based recall level of each relevant retrieved document."""
        return np.arange(len(self.rel_index)) - self.rel_starts[self.rel_segment] + 1

    def retrieved_by(self, depth=None) -> np.ndarray:
        """(K,) for each relevant retrieved document, how many runs retrieved
        it for that query within the top ``depth`` (all if None); 0 for
        documents below ``depth`` themselves. Needs ``qrels_rows``."""
        if self.qrels_rows is None:
            raise ValueError("document identities were not kept (read runs with keep_rows=True)")
        rows = self.qrels_rows[self.rel_index]
        within = np.ones(len(rows), dtype=bool) if depth is None else self.rel_rank <= depth
        counts = np.bincount(rows[within], minlength=int(rows.max(initial=-1)) + 1)
        return np.where(within, counts[rows], 0)

    @cached_property
    def first_rel_rank(self) -> np.ndarray:
        """(S,) rank of the first relevant document, 0 if none (where the
        relevant documents have not been located, read from the top of each
        ranking by the compiled kernel: --bounds' assigned rankings, where
        they are most of the documents)."""
        if "_relevant_located" not in self.__dict__:
            from . import compiled
            made = compiled.relevant_within(self.codes, self.starts, self.lengths, self.level, None)
            if made is not None:
                return made
        first = np.zeros(self.num_segments, dtype=np.int64)
        has = self.num_rel_ret > 0
        first[has] = self.rel_rank[self.rel_starts[has]]
        return first


_PREFIX_BLOCK = 1 << 20      # documents counted at once, into one reused buffer (fresh memory costs page faults)


def _marked_before(mask: np.ndarray, points: np.ndarray) -> np.ndarray:
    """(len(points),) how many of ``mask`` (N,) lie before each of the
    sorted ``points``: running counts block by block (a running count over
    all N would cost 4 bytes a document; listing the marked ones, a branch each)."""
    out = np.zeros(len(points), dtype=np.int64)
    starts = range(0, len(mask), _PREFIX_BLOCK)
    edges = np.searchsorted(points, [*starts, len(mask)])           # points in [start, next start)
    offset = 0
    buffer = np.empty(min(len(mask), _PREFIX_BLOCK), dtype=np.int32)
    for number, start in enumerate(starts):
        block = mask[start:start + _PREFIX_BLOCK]
        counts = np.cumsum(block, dtype=np.int32, out=buffer[:len(block)])
        local = points[edges[number]:edges[number + 1]] - start
        # the marked ones before p are those up to p - 1 in this block, and every one in the blocks before
        out[edges[number]:edges[number + 1]] = offset + np.where(local > 0, counts[np.maximum(local - 1, 0)], 0)
        offset += int(counts[-1])
    out[edges[-1]:] = offset                                           # points at the end: every one
    return out


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


def build_rankings(qrels: Qrels, runs: list[ParsedRun], level: float = 1) -> Rankings:
    """Assemble parsed runs into one Rankings over every qrels query (as
    trec_eval evaluates them, those with no relevant document included).
    Queries a run lacks become empty rankings (``present`` says which)."""
    codes = np.concatenate([run.codes for run in runs]) if runs else np.zeros(0, np.int16)
    return Rankings(
        qids=list(qrels.qids),
        run_names=[run.name for run in runs],
        run_tags=[run.tag for run in runs],
        level=qrels.level_code(level),
        relevance_level=level,
        grade_values=qrels.grade_values,
        codes=codes,
        lengths=np.concatenate([run.counts for run in runs]).astype(np.int64) if runs else np.zeros(0, np.int64),
        present=np.array([run.present for run in runs], dtype=bool).reshape(len(runs), len(qrels.qids)),
        level_counts=qrels.level_counts,
        qrels_rows=np.concatenate([run.qrels_rows for run in runs])
        if runs and all(run.qrels_rows is not None for run in runs) else None,
        qrels=qrels,
        tie_groups=np.concatenate([run.tie_groups for run in runs])
        if runs and all(run.tie_groups is not None for run in runs) else None,
        **dict(zip(("hole_ids", "hole_counts"), hole_identities(runs, codes, len(qrels.qids))))
        if runs and all(run.hole_docnos is not None for run in runs) else {},
    )


def hole_identities(runs: list[ParsedRun], codes: np.ndarray, num_queries: int) -> tuple[np.ndarray, np.ndarray]:
    """((N,) int16 where every query's fit, else int32; (Q,)): every ranked document's number among its query's
    unjudged documents (the same in every run; -1 for a judged one), and
    how many each query has, from the runs' ``hole_docnos`` (``codes``: the
    runs' codes end to end). The compiled
    reading kernel numbers them with a hash table per query (hash, then
    bytes); else documents are told apart by their query and a hash of
    their docno (one sort), checked byte for byte against the first
    document of their key, and one that differs (a collision) gets a number
    of its own. The numbers differ between the two; the documents they
    tell apart do not."""
    from .io import kernel
    from .io.strings import ByteStrings, ShortStrings
    if kernel.enabled():                        # a hash table per query, run by run (numbered by first appearance)
        return kernel.number_holes([run.hole_docnos for run in runs], codes,
                                   np.concatenate([run.counts for run in runs]), num_queries)
    docnos = ByteStrings.concatenate([run.hole_docnos if isinstance(run.hole_docnos, ByteStrings)
                                      else cast(ShortStrings, run.hole_docnos).strings() for run in runs])
    hole = codes < 0
    # each hole's query, run by run (a run's arrays stay in the cache; one pass over every document of every run
    # at once takes a second at a hundred runs)
    every_query = np.arange(num_queries, dtype=np.int64)
    query = np.concatenate([np.repeat(every_query, run.counts)[run.codes < 0] for run in runs]
                           + [np.zeros(0, dtype=np.int64)])
    shift = np.uint64(max(int(num_queries - 1).bit_length(), 1))
    query = query.astype(np.uint64)
    key = (query << np.uint64(64 - int(shift))) | (docnos.hash64() >> shift)   # the query's bits, then the hash's
    keys, inverse = np.unique(key, return_inverse=True)
    inverse = inverse.reshape(-1)
    leader = np.empty(len(keys), dtype=np.int64)
    leader[inverse[::-1]] = np.arange(len(inverse) - 1, -1, -1)               # each key's first document
    same = docnos.equal(np.arange(len(inverse)), docnos, leader[inverse])
    if not same.all():                          # a collision (rare): those documents numbered by their bytes
        twins: dict = {}
        extra = len(keys)
        for position in np.flatnonzero(~same).tolist():
            name = (int(query[position]), docnos[position])
            inverse[position] = twins.setdefault(name, extra + len(twins))
        keys = np.concatenate([keys, np.array([(q << int(64 - int(shift))) for q, _ in twins], dtype=np.uint64)])
        order = np.argsort(keys, kind="stable")
        rank = np.empty(len(keys), dtype=np.int64)
        rank[order] = np.arange(len(keys))
        keys, inverse = keys[order], rank[inverse]
    key_query = (keys >> np.uint64(64 - int(shift))).astype(np.int64)
    per_query = np.bincount(key_query, minlength=num_queries).astype(np.int64)
    first = np.concatenate(([0], np.cumsum(per_query)[:-1]))
    width = np.int16 if per_query.max(initial=0) <= kernel.NARROW_IDS_UP_TO + 1 else np.int32   # as the kernel's
    ids = np.full(len(codes), -1, dtype=width)
    ids[hole] = (inverse - first[key_query[inverse]]).astype(width)
    return ids, per_query
