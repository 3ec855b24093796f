"""Exact bounds of every measure over the grades the unjudged documents
could get (``--bounds``): per (run, query), the least and the greatest value
over every assignment of grades 0 up to the qrels' highest to the documents
the ranking holds that the qrels leave unjudged.

How each measure's bounds are found is a row's ``bounds`` in the measure
table (:mod:`lexeval.measures.registry`); :mod:`.sweeps` and :mod:`.gains`
say why each strategy is exact. A strategy finds the bounding assignments;
the measure's own kernel then computes their values, so that a bound is
the value the measure would print were the holes judged that way. AP's and
R-precision's sweeps have a compiled twin (:func:`lexeval.compiled.precision_bounds`)
that finds the assignments and computes their values with the kernels'
arithmetic in one pass per ranking.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cached_property
from typing import cast

import numpy as np

from .. import compiled
from ..errors import UsageError
from ..measures import registry as m
from ..measures.base import CUTOFFS, FRACTIONS
from ..measures.gains import Gains
from ..rankings import Rankings
from .gains import gain_sweep
from .holes import Holes, assigned, uniformly_assigned, with_level
from .sweeps import depth_sweep, precision_sweep, threshold

__all__ = ["Bounder", "has_bounds", "needs_bounds", "check_bounded"]

#: the uniform measures that tell a judged non-relevant document from an unjudged one (the rest read a
#: hole as they read grade 0, so that every hole at grade 0 leaves their value as it is)
READS_JUDGED_NONRELEVANT = frozenset({"num_nonrel_judged_ret"})


def needs_bounds(measure: m.Measure) -> bool:
    """Whether a measure's value can depend on the holes' grades (and is
    not a measure of the holes themselves)."""
    return measure.bounds not in (m.BOUNDS_FIXED, m.BOUNDS_HOLES) and measure.compute is not None \
        and not measure.text


def has_bounds(measure: m.Measure) -> bool:
    """Whether lexeval computes a measure's exact bounds."""
    return measure.bounds not in ("", m.BOUNDS_FIXED, m.BOUNDS_HOLES)


def check_bounded(requests, named: set) -> list:
    """The requests whose bounds are out of reach: a UsageError naming
    those ``named`` (the measures -m names one by one, not in a set), else
    the list (a set's, the default set's: printed without bounds, with a
    note)."""
    missing = [req for req in requests if needs_bounds(req.measure) and not has_bounds(req.measure)]
    refused = [req for req in missing if req.measure.name in named]
    if refused:
        names = sorted({req.output_names()[0] for req in refused})
        raise UsageError(f"--bounds: no exact bounds for {', '.join(names)} (--list-measures says which measures "
                         "have them); ask for it without --bounds")
    return missing


class Bounder:
    """The bounds of the measure requests on one rankings; the holes and
    the assigned rankings that several measures share are made once."""

    def __init__(self, rankings: Rankings):
        self.rankings = rankings
        self._uniform: dict = {}
        self._bounds: dict = {}

    @cached_property
    def holes(self) -> Holes:
        return Holes.of(self.rankings)

    @cached_property
    def top_grade(self) -> int:
        return max(self.rankings.level_counts.shape[1] - 1, 0)

    def value(self, req, grades: np.ndarray) -> np.ndarray:
        """(S, k) ``req``'s values were the holes judged ``grades`` (U,)."""
        return req.compute(assigned(self.rankings, self.holes, grades))

    def uniform_value(self, req, grade: int, value: np.ndarray) -> np.ndarray:
        """(S, k) ``req``'s values were every hole judged ``grade`` (the
        rankings made once per grade, for every measure that asks);
        ``value``, the measure's own, where that changes nothing."""
        level = req.level if req.level is not None else self.rankings.level
        if grade == 0 and level > 0 and not req.measure.graded and req.name not in READS_JUDGED_NONRELEVANT:
            return value
        if grade not in self._uniform:
            self._uniform[grade] = uniformly_assigned(self.rankings, grade)
        return req.compute(self._uniform[grade])

    def bounds(self, req, value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(least, greatest) values (S, k) of a request whose own values are
        ``value``, one column per output name (once for requests that
        compute the same: map and gm_map)."""
        key = (req.measure.compute, req.measure.bounds, req.values, req.level, req.floor, req.judged_only,
               req.options, req.num_docs)
        if key not in self._bounds:
            self._bounds[key] = self._computed(req, value)
        return self._bounds[key]

    def _computed(self, req, value: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        strategy = req.measure.bounds
        if strategy == m.BOUNDS_UNIFORM:
            values = [self.uniform_value(req, grade, value) for grade in self._grades(req)]
            return np.minimum.reduce(values), np.maximum.reduce(values)
        level = req.level if req.level is not None else self.rankings.level
        relevant = self.top_grade if self.top_grade >= level else None
        other = 0 if level > 0 else None
        settled = relevant is None or other is None             # the holes' relevance is fixed
        if settled and strategy != m.BOUNDS_GAIN:               # (nDCG reads grades, not relevance)
            fixed = self.uniform_value(req, 0 if other is not None or relevant is None else relevant, value)
            return fixed, fixed
        columns = [self._column(req, strategy, parameter, level, cast(int, relevant), cast(int, other))
                   for parameter in _parameters(req)]
        return (np.stack([low for low, _ in columns], axis=1), np.stack([high for _, high in columns], axis=1))

    def _column(self, req, strategy: str, parameter, level: int, relevant: int, other: int):
        """(least, greatest) (S,) of one output column of ``req``."""
        r = self.rankings
        if strategy in (m.BOUNDS_PRECISION, m.BOUNDS_DEPTH):
            fraction = np.nan if strategy == m.BOUNDS_PRECISION else -1.0 if parameter is None else parameter
            made = compiled.precision_bounds(r.codes, r.starts, r.lengths, r.num_rel_per_query[r.segment_query]
                                             if level == r.level else _num_rel_at(r, level), level,
                                             _cutoff(parameter if strategy == m.BOUNDS_PRECISION else None),
                                             fraction)
            if made is not None:
                return made
        single = replace(req, values=(parameter,)) if parameter is not None else req
        ranked, holes = with_level(r, level), self.holes
        if strategy == m.BOUNDS_THRESHOLD:
            least, greatest = threshold(ranked, holes, parameter, relevant, other)
        elif strategy == m.BOUNDS_PRECISION:
            least, greatest = precision_sweep(ranked, holes, _cutoff(parameter), relevant, other)
        elif strategy == m.BOUNDS_DEPTH:
            least, greatest = depth_sweep(ranked, holes, _depth_rule(parameter), relevant, other)
        elif strategy == m.BOUNDS_GAIN:
            least, greatest = gain_sweep(ranked, holes, self._gains(req), _cutoff(parameter),
                                         req.output_names()[0])
        else:
            raise UsageError(f"--bounds: no exact bounds for {req.output_names()[0]}")
        return self.value(single, least)[:, 0], self.value(single, greatest)[:, 0]

    def _grades(self, req) -> list[int]:
        """The grades to try for a uniform measure: all, for graded ones;
        one relevant and one not, for binary ones."""
        if req.measure.graded:
            return list(range(self.top_grade + 1))
        level = req.level if req.level is not None else self.rankings.level
        grades = {grade for grade in (self.top_grade if self.top_grade >= level else None, 0 if level > 0 else None)
                  if grade is not None}
        return sorted(grades) or [0]

    def _gains(self, req) -> np.ndarray:
        """(G + 1,) the gain of each grade for an nDCG request."""
        width = self.top_grade + 1
        if req.measure.name in ("ndcg_exp", "ndcg_burges"):
            gains = 2.0 ** np.arange(width) - 1.0
        elif req.measure.name == "ndcg_cut":
            table = dict(req.options).get("gains", ())
            gains = Gains(tuple((str(grade), gain) for grade, gain in table)).of_grades(width)
        else:
            gains = Gains(req.values).of_grades(width)
        if req.floor and req.level is not None:
            gains[:req.level] = gains[0]
        return gains


def _num_rel_at(rankings: Rankings, level: int) -> np.ndarray:
    """(S,) relevant documents in the qrels at another relevance level."""
    return rankings.level_counts[:, max(level, 0):].sum(axis=1)[rankings.segment_query]


def _parameters(req) -> list:
    """One entry per output column: the cutoff or fraction, or None."""
    if req.measure.params in (CUTOFFS, FRACTIONS):
        return list(req.values)
    return [None]


def _cutoff(parameter) -> float:
    return np.inf if parameter is None else float(parameter)


def _depth_rule(fraction):
    """R -> the depth Rprec (fraction None) or Rprec_mult.f reads at."""
    if fraction is None:
        return lambda relevant: relevant
    return lambda relevant: np.floor(fraction * relevant + 0.9)
