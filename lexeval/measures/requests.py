"""Measure requests: a measure of the table with its parameters parsed,
as a -m value asks for it (:class:`MeasureRequest`), and how the requests
of several -m values become one per measure and parameter set
(:func:`merge_requests`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import cast

import numpy as np

from ..errors import UsageError
from ..rankings import Rankings
from .base import CUTOFFS, FRACTIONS, GAINS, NONE, VALUES
from .registry import MEASURE_BY_NAME, MEASURE_ORDER, Measure


@dataclass(frozen=True)
class MeasureRequest:
    """A measure with its parameters, as asked for on the command line."""

    measure: Measure
    values: tuple = ()
    raw: str | None = None    # parameter text as given (names VALUES/GAINS outputs)
    level: int | None = None  # this measure's own relevance level (ir_measures' rel=), else -l's
    rarity_weight: float = 0.5  # alpha of the rareness measures (needs_documents)
    floor: bool = False       # ranx's -lN on graded measures: grades below ``level`` gain nothing
    judged_only: bool = False  # ir_measures' judged_only=True: unjudged documents removed first (-J for one measure)
    num_docs: int = 0          # documents in the collection (-N), for the measures that use it
    separate: bool = False     # another tool's parameters (RBP(p=0.5)): printed beside others, never merged
    options: tuple = ()        # (name, value) keyword options of the kernel (alpha_nDCG(alpha=0.75): alpha)
    trec_spelling: bool = True  # asked in trec_eval's words (NAME, NAME.PARAMS, a set): one parameter set each

    @property
    def name(self) -> str:
        return self.measure.name

    def output_names(self) -> list[str]:
        """The names printed for this request, one per output column."""
        kind, stem = self.measure.params, self.measure.stem
        if kind == CUTOFFS:
            names = [f"{stem}_{int(value)}" for value in self.values]
        elif kind == FRACTIONS:
            names = [f"{stem}_{value:3.2f}" for value in self.values]
        elif kind in (VALUES, GAINS) and self.raw is not None:
            names = [f"{stem}_{self.raw}"]
        else:
            names = [stem]
        if self.judged_only:
            names = [f"{name}(judged_only)" for name in names]
        if self.options:
            shown = ",".join(f"{key}={_shown(value)}" for key, value in self.options)
            names = [f"{name}({shown})" for name in names]
        if self.level is None:
            return names
        return [f"{name}({'min_rel' if self.floor else 'rel'}={self.level})" for name in names]

    def compute(self, rankings: Rankings, kernel=None) -> np.ndarray:
        """(S, k) values: one column per output name; ``kernel`` in place
        of the measure's own (its expected value over tie orders)."""
        if self.judged_only:
            rankings = rankings.judged_only()
        if self.floor:
            rankings = floored(rankings, rankings.level_code(cast(float, self.level)))
        elif self.level is not None and rankings.level_code(self.level) != rankings.level:
            rankings = replace(rankings, level=rankings.level_code(self.level))
        # one calling convention: kernel(rankings, parameter values, **keyword options)
        options = dict(self.options)
        if self.measure.needs_documents:
            options["rarity_weight"] = self.rarity_weight
        if self.measure.uses_num_docs:
            options["num_docs"] = self.num_docs
        values = cast(Callable, kernel or self.measure.compute)(rankings, self.values, **options)
        return values.reshape(len(values), -1)


THREADED_SEGMENTS = 1 << 14     # rankings (runs x queries) from which the measures are computed on every core


def computed(requests: list[MeasureRequest], rankings: Rankings, kernel_of: Callable) -> Iterator:
    """Each request's :meth:`MeasureRequest.compute` (``kernel_of(request)``
    its kernel; None for a summary-only measure), in the requests' order:
    on every core where the rankings are many (numpy and the compiled
    kernels let the other threads run; each value is its own)."""
    from ..compiled import cores, in_threads
    threads = cores() > 1 and rankings.num_segments >= THREADED_SEGMENTS and len(requests) > 1
    return in_threads(lambda req: None if req.measure.compute is None else req.compute(rankings, kernel_of(req)),
                      requests, threads)


def _shown(value) -> str:
    """An option's value as printed: 0.75, or grade:gain pairs 0:0,1:1,2:3."""
    if isinstance(value, tuple):
        return ",".join(f"{grade:g}:{gain:g}" for grade, gain in value)
    return f"{value:g}"


def floored(rankings: Rankings, level: int) -> Rankings:
    """The rankings with every grade below ``level`` (a relevance code) read
    as 0 (judged, no gain) and relevance at ``level``: ranx's ``-lN``."""
    codes = np.where((rankings.codes >= 0) & (rankings.codes < level), 0, rankings.codes).astype(rankings.codes.dtype)
    counts = rankings.level_counts.copy()
    counts[:, 0] += counts[:, 1:level].sum(axis=1)
    counts[:, 1:level] = 0
    return replace(rankings, codes=codes, level_counts=counts, level=level)


def _parse_long(text: str) -> int:
    """trec_eval reads integer cutoffs with atol: '23.4' is 23."""
    digits = ""
    for index, char in enumerate(text.strip()):
        if char.isdigit() or (index == 0 and char in "+-"):
            digits += char
        else:
            break
    if digits in ("", "+", "-"):
        raise ValueError(text)
    return int(digits)


def parse_params(measure: Measure, raw: str) -> tuple:
    """Parse ``raw`` (the text after the first '.') for ``measure``."""
    if raw == "":
        raise UsageError(f"measure '{measure.name}.' has an empty parameter list")
    parts = raw.split(",")
    kind = measure.params
    try:
        if kind == NONE:
            raise UsageError(f"measure '{measure.name}' takes no parameters")
        values: list
        if kind == CUTOFFS:
            values = sorted(_parse_long(part) for part in parts)
            if values[0] <= 0:
                raise UsageError(f"measure '{measure.name}': cutoffs must be positive")
        elif kind == FRACTIONS:
            values = sorted(float(part) for part in parts)
        elif kind == VALUES:
            return tuple(float(part) for part in parts)
        else:
            pairs = []
            for part in parts:
                name, equals, value = part.partition("=")
                if not equals or not name:
                    raise UsageError(f"measure '{measure.name}': parameters are level=gain pairs, "
                                     f"got '{part}'")
                pairs.append((name, float(value)))
            return tuple(pairs)
    except UsageError:
        raise
    except ValueError:
        raise UsageError(f"measure '{measure.name}': cannot read parameters '{raw}'") from None
    if len(set(values)) != len(values):
        raise UsageError(f"measure '{measure.name}': duplicate cutoffs in '{raw}'")
    return tuple(values)


def request(name: str, raw: str | None = None, level: int | None = None) -> MeasureRequest:
    """A MeasureRequest for a table measure, with defaults when raw is None."""
    measure = MEASURE_BY_NAME[name]
    values = measure.defaults if raw is None else parse_params(measure, raw)
    if measure.check is not None:
        measure.check(values)
    return MeasureRequest(measure, values, raw, level, separate=measure.check is not None)


def merge_requests(requests: list[MeasureRequest]) -> tuple[list[MeasureRequest], list[tuple]]:
    """One request per measure and parameter set, in table order (among one
    measure's sets, the order asked), and the sets not computed.

    Cutoffs asked for twice are united (``-m P.5 -m P.10`` gives P_5 and
    P_10); a measure's default cutoffs give way to cutoffs asked in
    trec_eval's words. Other parameters: every set asked in another tool's
    words is its own request (``SetF(beta=0.5)`` beside ``SetF``), while in
    trec_eval's words the first explicit set wins, as trec_eval computes one
    set per measure. Returns (requests, dropped), dropped holding pairs
    (request not computed, the request computed in its place)."""
    groups: dict = {}            # (measure and everything but its parameters) -> requests in the order asked
    for req in requests:
        groups.setdefault(replace(req, values=(), raw=None, trec_spelling=True), []).append(req)
    merged: list = []
    dropped: list = []
    for group in groups.values():
        if group[0].measure.params in (CUTOFFS, FRACTIONS):
            merged.append(_united_cutoffs(group))
            continue
        trec = [req for req in group if req.trec_spelling and not req.separate]
        winner = next((req for req in trec if req.raw is not None), trec[0] if trec else None)
        kept: dict = {}
        for req in group:
            if req is winner or not req.trec_spelling or req.separate:
                kept.setdefault(req.raw, req)
        dropped.extend((req, winner) for req in trec if req.raw not in kept)
        merged.extend(kept.values())
    merged.sort(key=lambda req: (MEASURE_ORDER[req.name], req.level is not None, req.level or 0, req.separate,
                                 req.options))
    return merged, dropped


def _united_cutoffs(group: list[MeasureRequest]) -> MeasureRequest:
    """One request of every cutoff asked (the defaults too, unless cutoffs
    were asked in trec_eval's words, which replace them there)."""
    explicit = [req for req in group if req.raw is not None]
    if not explicit:
        return group[0]
    asked = set().union(*(req.values for req in explicit))
    if len(explicit) < len(group) and not any(req.trec_spelling for req in explicit):
        asked |= set(group[0].measure.defaults)
    values = tuple(sorted(asked))
    if len(explicit) == 1 and values == explicit[0].values:
        return explicit[0]
    return replace(explicit[0], values=values, raw=",".join(map(str, values)))
