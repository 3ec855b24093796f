"""The holes in the judgements: each ranking's unjudged documents, and the
rankings as they would be were those documents judged.

A *hole* is a ranked document the qrels leave unjudged (relevance code
below 0: not in the qrels, or in them with a negative grade, as ``-J``
removes). An *assignment* gives every hole a grade from 0 up to the qrels'
highest; judged documents keep their grades and documents outside the
ranking keep the qrels' word. :func:`assigned` makes the rankings of an
assignment with every segment its own query, so that each (run, query)
ranking counts its own holes in its relevant documents, and the measures'
own kernels compute the value of the assignment to the last digit.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from .. import compiled
from ..rankings import Rankings


@dataclass(frozen=True)
class Holes:
    """Where every segment's unjudged documents are; shapes: U holes in
    all, S segments."""

    index: np.ndarray       # (U,) document index, in segment then rank order
    segment: np.ndarray     # (U,)
    rank: np.ndarray        # (U,) 1-based rank
    counts: np.ndarray      # (S,) holes per segment
    top_grade: int          # the qrels' highest grade: a hole's grades are 0..top_grade

    @classmethod
    def of(cls, rankings: Rankings) -> Holes:
        index, segment, rank = rankings.locate(rankings.codes < 0)
        counts = np.bincount(segment, minlength=rankings.num_segments).astype(np.int64)
        return cls(index, segment, rank, counts, max(rankings.level_counts.shape[1] - 1, 0))

    @cached_property
    def starts(self) -> np.ndarray:
        """(S,) each segment's first hole in the arrays above."""
        return np.concatenate(([0], np.cumsum(self.counts)[:-1])).astype(np.int64)

    @cached_property
    def ordinal(self) -> np.ndarray:
        """(U,) 1-based position of each hole among its segment's holes."""
        return np.arange(len(self.index), dtype=np.int64) - self.starts[self.segment] + 1

    @cached_property
    def from_bottom(self) -> np.ndarray:
        """(U,) 1-based position of each hole counted from its segment's lowest."""
        return self.counts[self.segment] - self.ordinal + 1

    def uniform(self, grade: int) -> np.ndarray:
        """(U,) every hole graded ``grade``."""
        return np.full(len(self.index), grade, dtype=np.int64)

    def top(self, many: np.ndarray, grade: int) -> np.ndarray:
        """(U,) the highest ``many`` (S,) holes of each segment graded ``grade``, the rest 0."""
        return np.where(self.ordinal <= many[self.segment], grade, 0)

    def bottom(self, many: np.ndarray, grade: int) -> np.ndarray:
        """(U,) the lowest ``many`` (S,) holes of each segment graded ``grade``, the rest 0."""
        return np.where(self.from_bottom <= many[self.segment], grade, 0)


def assigned(rankings: Rankings, holes: Holes, grades: np.ndarray) -> Rankings:
    """The rankings were the holes judged ``grades`` (U,), each segment its
    own query: one run of S queries whose judgement counts are its query's
    plus its holes' grades."""
    codes = rankings.codes.copy()
    codes[holes.index] = grades
    width = rankings.level_counts.shape[1]
    counts = rankings.level_counts[rankings.segment_query].astype(np.int64)
    counts += np.bincount(holes.segment * width + grades, minlength=rankings.num_segments * width
                          ).reshape(rankings.num_segments, width)
    return Rankings(qids=[""] * rankings.num_segments, run_names=["assigned"], run_tags=["assigned"],
                    level=rankings.level, codes=codes, lengths=rankings.lengths,
                    present=rankings.present.reshape(1, -1), level_counts=counts)


def uniformly_assigned(rankings: Rankings, grade: int) -> Rankings:
    """:func:`assigned` with every hole judged ``grade``, made without
    locating the holes one by one."""
    made = compiled.uniform_codes(rankings.codes, rankings.starts, rankings.lengths, grade)
    if made is not None:
        codes, per_segment = made
    else:
        holes = rankings.codes < 0
        codes, per_segment = np.where(holes, np.int16(grade), rankings.codes), rankings.count_per_segment(holes)
    counts = rankings.level_counts[rankings.segment_query].astype(np.int64)
    counts[:, grade] += per_segment
    return Rankings(qids=[""] * rankings.num_segments, run_names=["assigned"], run_tags=["assigned"],
                    level=rankings.level, codes=codes, lengths=rankings.lengths,
                    present=rankings.present.reshape(1, -1), level_counts=counts)


def with_level(rankings: Rankings, level: int | None) -> Rankings:
    """The rankings at a measure's own relevance level (ir_measures' rel=)."""
    return rankings if level is None or level == rankings.level else replace(rankings, level=level)
