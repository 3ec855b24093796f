"""The assignments that bound each measure, and why.

Every strategy takes the rankings (at the measure's relevance level), their
holes and the relevant and non-relevant grades, and returns per segment the
grades (U,) of the assignment that gives the least value and of the one that
gives the greatest. Binary measures need only two grades: ``relevant`` (the
qrels' highest, if it reaches the level) and ``other`` (0, if below it).

- **Uniform** (P, RR, success, hits, set measures, num_rel_ret, DCG, RBP,
  ERR, utility, ...): the value never falls when one hole's gain rises, or is
  a sum over documents of a positive weight times the gain of one grade: the
  bounds are those of every hole given one and the same grade.
- **Threshold** (recall.k, F1.k, relative_P.k): relevant holes in the top k
  raise the value and relevant holes below k only lower it (they raise R):
  the greatest marks the holes in the top k relevant, the least those below.
- **Precision sweep** (AP, map_cut.k): for m holes made relevant, moving one
  up a rank raises the precision at every relevant document, so the
  greatest value has the top m holes relevant and the least the bottom m;
  every m from 0 to the number of holes is tried, in one pass each way.
- **Depth sweep** (Rprec, Rprec_mult): likewise, relevant documents within
  the R-dependent depth only rise when holes move up; every m is tried.
"""

from __future__ import annotations

import numpy as np

from ..rankings import Rankings
from .choose import best_candidate, blocks, expanded, segment_cumsum, segment_totals
from .holes import Holes


def threshold(rankings: Rankings, holes: Holes, cutoff: int, relevant: int, other: int):
    """(least, greatest) assignments of recall.k and its kin at ``cutoff``."""
    within = holes.rank <= cutoff
    return np.where(within, other, relevant), np.where(within, relevant, other)


def precision_sweep(rankings: Rankings, holes: Holes, cutoff: float, relevant: int, other: int):
    """(least, greatest) assignments of AP counted to ``cutoff`` (inf: AP).

    With the top m holes relevant, making the m-th relevant adds its own
    precision, (relevant above + m) / rank, and 1 / rank of every judged
    relevant document below it (each has one more relevant above); with the
    bottom m, it adds (relevant above + 1) / rank, and 1 / rank of every
    relevant document below it, holes included. Sums over R + m."""
    r = rankings
    num_rel = r.num_rel.astype(np.float64)
    counted = r.rel_rank <= cutoff
    base_sum = np.bincount(r.rel_segment, weights=np.where(counted, r.rel_ordinal / r.rel_rank, 0.0),
                           minlength=r.num_segments)
    counted_per_segment = np.bincount(r.rel_segment[counted], minlength=r.num_segments)
    base = np.divide(base_sum, num_rel, out=np.zeros(r.num_segments), where=num_rel > 0)
    least = np.zeros(r.num_segments, dtype=np.int64)
    greatest = np.zeros(r.num_segments, dtype=np.int64)
    width = int(r.lengths.max(initial=0)) + 2
    for chunk in blocks(holes.counts, size=1 << 20):         # a block's arrays stay in the cache and are reused
        part = _Part(r, holes, chunk, width)
        segment, rank, ordinal, counts = part.segment, part.rank, part.ordinal, part.counts
        above = part.relevant_above()
        first = part.rel_first
        reciprocal = np.where(part.rel_rank <= cutoff, 1.0 / part.rel_rank, 0.0)
        reciprocal_before = np.concatenate(([0.0], np.cumsum(reciprocal)))
        within_counted = counted_per_segment[chunk][segment]
        judged_below = np.maximum(reciprocal_before[first + within_counted]
                                  - reciprocal_before[first + np.minimum(above, within_counted)], 0.0)
        within = rank <= cutoff
        start_sum, start_rel = base_sum[chunk][segment], num_rel[chunk][segment]
        to_top = np.where(within, (above + ordinal) / rank + judged_below, 0.0)
        top_value = (start_sum + segment_cumsum(to_top, segment, part.starts)) / (start_rel + ordinal)
        greatest[chunk] = best_candidate(top_value, ordinal, segment, counts, base[chunk], maximize=True)

        hole_reciprocal = np.where(within, 1.0 / rank, 0.0)
        running = segment_cumsum(hole_reciprocal, segment, part.starts)
        holes_below = segment_totals(hole_reciprocal, segment, len(counts))[segment] - running
        to_bottom = np.where(within, (above + 1) / rank + judged_below + holes_below, 0.0)
        bottom_sums = segment_totals(to_bottom, segment, len(counts))[segment] \
            - segment_cumsum(to_bottom, segment, part.starts) + to_bottom
        from_bottom = counts[segment] - ordinal + 1
        bottom_value = (start_sum + bottom_sums) / (start_rel + from_bottom)
        least[chunk] = best_candidate(bottom_value, from_bottom, segment, counts, base[chunk], maximize=False)
    return holes.bottom(least, relevant), holes.top(greatest, relevant)


class _Part:
    """One block of segments' holes and relevant documents, indexed from
    the block's start (segment 0 is the block's first)."""

    def __init__(self, r: Rankings, holes: Holes, chunk: slice, width: int):
        self.counts = holes.counts[chunk]
        first_hole = holes.starts[chunk.start]
        last_hole = holes.starts[chunk.stop - 1] + holes.counts[chunk.stop - 1]
        self.segment = holes.segment[first_hole:last_hole] - chunk.start
        self.rank = holes.rank[first_hole:last_hole].astype(np.float64)
        self.starts = holes.starts[chunk] - first_hole
        self.ordinal = np.arange(last_hole - first_hole, dtype=np.int64) - self.starts[self.segment] + 1
        first_rel = r.rel_starts[chunk.start]
        last_rel = r.rel_starts[chunk.stop - 1] + r.num_rel_ret[chunk.stop - 1]
        self.rel_rank = r.rel_rank[first_rel:last_rel]
        self.rel_keys = (r.rel_segment[first_rel:last_rel] - chunk.start) * width + self.rel_rank
        self.rel_first = (r.rel_starts[chunk] - first_rel)[self.segment]   # (holes,) first relevant of its segment
        self.hole_keys = self.segment * width + holes.rank[first_hole:last_hole]
        self.width = width

    def relevant_above(self) -> np.ndarray:
        """(holes,) judged relevant documents ranked above each hole."""
        return np.searchsorted(self.rel_keys, self.hole_keys) - self.rel_first


def depth_sweep(rankings: Rankings, holes: Holes, depth_of, relevant: int, other: int):
    """(least, greatest) assignments of precision at a depth that depends on
    R (``depth_of(R)``: Rprec's R, Rprec_mult's rounded f * R), every number
    of relevant holes m tried, top m for the greatest, bottom m for the least."""
    r = rankings
    least = np.zeros(r.num_segments, dtype=np.int64)
    greatest = np.zeros(r.num_segments, dtype=np.int64)
    width = int(max(r.lengths.max(initial=0), 0)) + 2
    hole_ranks = holes.rank
    for chunk in blocks(holes.counts):
        counts = holes.counts[chunk]
        local, many = expanded(counts)
        segment = local + chunk.start
        depth = np.asarray(depth_of(r.num_rel[segment] + many), dtype=np.int64)
        reach = np.minimum(depth, width - 1)                           # past the ranking: all of it
        key = segment * width + reach
        first_rel, last_rel = r.rel_starts[chunk.start], r.rel_starts[chunk.stop - 1] + r.num_rel_ret[chunk.stop - 1]
        rel_keys = r.rel_segment[first_rel:last_rel] * width + r.rel_rank[first_rel:last_rel]
        judged = np.searchsorted(rel_keys, key, side="right") - (r.rel_starts[segment] - first_rel)
        first_hole = holes.starts[chunk.start]
        last_hole = holes.starts[chunk.stop - 1] + holes.counts[chunk.stop - 1]
        hole_keys = holes.segment[first_hole:last_hole] * width + hole_ranks[first_hole:last_hole]
        holes_within = np.searchsorted(hole_keys, key, side="right") - (holes.starts[segment] - first_hole)
        total = holes.counts[segment]
        on_top = judged + np.minimum(many, holes_within)
        at_bottom = judged + np.maximum(0, many - (total - holes_within))
        scale = np.where(depth > 0, 1.0 / np.maximum(depth, 1), 0.0)
        zero = np.zeros(len(counts))
        greatest[chunk] = best_candidate(on_top * scale, many, local, counts + 1, zero - 1.0, maximize=True)
        least[chunk] = best_candidate(at_bottom * scale, many, local, counts + 1, zero + 2.0, maximize=False)
    return holes.bottom(least, relevant), holes.top(greatest, relevant)
