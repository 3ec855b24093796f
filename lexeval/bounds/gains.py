"""Bounds of nDCG: the grades of the holes that give the least and the
greatest nDCG, found exactly.

Write a grade's gain as the sum of the steps of the layers it reaches:
the layers are the distinct positive gains v_1 < ... < v_L, with steps
d_g = v_g - v_(g-1). Let t_g be the number of holes whose gain reaches
layer g and J_g the judged documents whose gain does. With higher grades on higher-ranked holes
(best for the greatest, for any counts t_g), and the reverse for the least,

    DCG  = DCG0 + sum_g d_g * P(t_g)        (P: the top t holes' discounts)
    IDCG =        sum_g d_g * I(J_g + t_g)  (I(n): the first n discounts)

since the ideal ranking's documents of grade g or more fill its first
J_g + t_g ranks. Both are sums over layers. **Greatest:** Dinkelbach's
method maximises DCG - lambda * IDCG for lambda the best ratio so far; that
is one maximisation per layer over t, and the window I(J_g + t) - I(J_{g+1}
+ t) shrinks as t grows, so the layers' largest maximisers fall with g:
the t_g found are a valid assignment. lambda rises to the optimum and stops.
**Least:** the bottom t holes all given the highest grade (the layers' best
counts rise with g, so the constraint t_1 >= ... >= t_G holds them equal);
every t is tried. The tests check both against every assignment.
"""

from __future__ import annotations

import numpy as np

from ..errors import UsageError
from ..rankings import Rankings
from .choose import best_candidate, blocks, expanded
from .holes import Holes

_ROUNDS = 60          # Dinkelbach's rounds at most: each strictly raises lambda, a handful suffice


def gain_layers(gains: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(steps d_k, a grade of each layer, (G + 1, L) whether each grade
    reaches each layer) of gains (G + 1,) per grade: the layers are the
    distinct positive gains, rising; a grade's gain is the sum of the steps
    of the layers it reaches. A UsageError for a negative gain (a hole
    could then lower DCG without touching the ideal: not searched here)."""
    if (gains < 0).any():
        raise UsageError(f"--bounds: {name} gives a grade a negative gain; its bounds are computed for gains of "
                         "0 or more")
    values = np.unique(gains[gains > 0])
    steps = np.diff(values, prepend=0.0)
    grade_of_layer = np.array([int(np.flatnonzero(gains == value)[0]) for value in values], dtype=np.int64)
    return steps, grade_of_layer, gains[:, None] >= values[None, :]


def gain_sweep(rankings: Rankings, holes: Holes, gains: np.ndarray, cutoff: float, name: str):
    """(least, greatest) grades (U,) of the holes for nDCG with ``gains``
    (G + 1,) per grade, counting the top ``cutoff`` ranks (inf: all)."""
    r = rankings
    steps, grade_of_layer, reaches = gain_layers(gains, name)
    if len(steps) == 0 or len(holes.index) == 0:
        zero = holes.uniform(int(np.argmin(gains)))
        return zero, zero
    width = gains.shape[0]
    judged_at_least = (r.level_counts[:, :width] @ reaches)[r.segment_query]          # (S, L)
    discount = np.where(holes.rank <= cutoff, 1.0 / np.log2(holes.rank + 1.0), 0.0)
    longest = int(judged_at_least[:, 0].max(initial=0) + holes.counts.max()) + 2
    ideal_positions = np.arange(1, longest + 1, dtype=np.float64)
    ideal_before = np.concatenate(([0.0], np.cumsum(np.where(ideal_positions <= cutoff,
                                                             1.0 / np.log2(ideal_positions + 1.0), 0.0))))
    codes = r.codes
    judged_gain = np.zeros(len(codes))
    judged = codes >= 0
    judged_gain[judged] = gains[np.minimum(codes[judged], width - 1)]
    chosen = judged & (judged_gain != 0) & (r.rank <= cutoff)
    base_dcg = r.segment_sum(np.where(chosen, judged_gain / np.log2(r.rank + 1.0), 0.0))

    least = np.zeros(r.num_segments, dtype=np.int64)
    counts = np.zeros((r.num_segments, len(steps)), dtype=np.int64)
    for chunk in blocks(holes.counts):
        local, many = expanded(holes.counts[chunk])
        segment = local + chunk.start
        first_hole = holes.starts[chunk.start]
        last_hole = holes.starts[chunk.stop - 1] + holes.counts[chunk.stop - 1]
        # P(t): the top t holes' discounts; S(t): the bottom t's, per candidate (segment, t)
        running = np.concatenate(([0.0], np.cumsum(discount[first_hole:last_hole])))
        offset = holes.starts[segment] - first_hole
        top_discount = running[offset + many] - running[offset]
        total = running[offset + holes.counts[segment]] - running[offset]
        bottom_discount = total - (running[offset + holes.counts[segment] - many] - running[offset])
        ideal = [ideal_before[judged_at_least[segment, layer] + many] for layer in range(len(steps))]
        step = steps
        lowest_ideal = sum(step[i] * ideal[i] for i in range(len(steps)))
        least_value = (base_dcg[segment] + gains[grade_of_layer[-1]] * bottom_discount) / np.where(
            lowest_ideal > 0, lowest_ideal, np.inf)
        size = holes.counts[chunk] + 1
        least[chunk] = best_candidate(least_value, many, local, size, np.full(len(size), 2.0), maximize=False)
        counts[chunk] = _dinkelbach(local, many, size, base_dcg[chunk], top_discount, ideal, step)
    greatest_grade = holes.uniform(int(np.argmin(gains)))
    for index, grade in enumerate(grade_of_layer):
        greatest_grade = np.where(holes.ordinal <= counts[holes.segment, index], grade, greatest_grade)
    least_grade = np.where(holes.from_bottom <= least[holes.segment], grade_of_layer[-1], int(np.argmin(gains)))
    return least_grade, greatest_grade


def _dinkelbach(local, many, size, base_dcg, top_discount, ideal, step) -> np.ndarray:
    """(segments, layers) the counts t_g that maximise (DCG0 + sum d_g
    P(t_g)) / sum d_g I(J_g + t_g) over the candidates laid out end to end."""
    layers = len(step)
    best_counts = np.zeros((len(size), layers), dtype=np.int64)

    def ratio_of(counts):
        found = base_dcg + sum(step[i] * top_discount[_at(size, counts[:, i])] for i in range(layers))
        best = sum(step[i] * ideal[i][_at(size, counts[:, i])] for i in range(layers))
        return np.divide(found, best, out=np.zeros(len(size)), where=best > 0)

    current = ratio_of(best_counts)
    for _ in range(_ROUNDS):
        tried = np.zeros_like(best_counts)
        for i in range(layers):
            score = top_discount - current[local] * ideal[i]
            tried[:, i] = _largest_best(score, many, local, size)
        tried = np.minimum.accumulate(tried, axis=1)               # t_1 >= t_2 >= ... (ties broken in float)
        value = ratio_of(tried)
        better = value > current * (1 + 1e-15) + 1e-300
        if not better.any():
            break
        best_counts[better], current[better] = tried[better], value[better]
    return best_counts


def _at(size: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Indices of candidate t = ``counts`` of each segment in the laid-out arrays."""
    return np.concatenate(([0], np.cumsum(size)[:-1])) + counts


def _largest_best(score, many, local, size) -> np.ndarray:
    """(segments,) the largest t with the highest ``score`` per segment."""
    starts = np.concatenate(([0], np.cumsum(size)[:-1]))
    best = np.maximum.reduceat(score, starts)
    return np.maximum.reduceat(np.where(score >= best[local], many, -1), starts)
