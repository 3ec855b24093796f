"""Client side: the partitions' totals added and concluded as one machine
concludes them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np

from ..errors import InputError
from ..evaluation import ResultCore
from ..preferences import PairSource, pair_rows, pair_signs
from .partition import PartitionResult

# ---------------------------------------------------------------- client side: combining


@dataclass(eq=False, repr=False)
class Combined(ResultCore):
    """The cluster's results, offering what one machine's
    :class:`~lexeval.evaluation.Evaluation` offers (the same
    :class:`~lexeval.evaluation.ResultCore`): summaries, pairs and tests
    from the added totals; with ``-q`` the per-query values put back in qid
    order."""

    run_names: list[str]
    run_tags: list[str]
    columns: list
    totals: Any
    options: Any
    complete: bool
    aggregate: str
    requests: tuple = ()
    pairs: np.ndarray | None = None
    pair_summary: object = None
    tests: object = None
    metric_pairs: object = None
    qids: list[str] = field(default_factory=list)
    included: np.ndarray | None = None
    compared: np.ndarray | None = None
    preferences: object = None
    parts: list[str] = field(default_factory=list)     # part files of per-query lines, if written
    inputs: object = None                               # what was read, and how (the page's provenance)
    level: float = 1                                   # -l
    tie_counts: Any = None                             # with the reports: LP's ties per level, as counts
    degradation_totals: dict | None = None             # with the degradation report: its counts, added
    difference_bounds: Any = None                      # with --bounds: the pairs' bounds, added, and fragile

    def level_tie_counts(self) -> tuple[np.ndarray, np.ndarray]:
        return self.tie_counts


class PrintedPreferences(PairSource):
    """The printed pairs' per-query preferences a cluster's partitions sent
    back (P, compared Q): a source of those pairs alone."""

    def __init__(self, values: dict, num_runs: int, num_queries: int, pairs: np.ndarray):
        super().__init__(values, num_runs, num_queries)
        self.printed = values
        self.slot = {int(row): i for i, row in enumerate(pair_rows(num_runs, pairs).tolist())}

    def _slots(self, rows) -> np.ndarray:
        return np.array([self.slot[int(row)] for row in rows], dtype=np.int64)

    def of_pairs(self, name: str, pairs: np.ndarray) -> np.ndarray:
        """(P, compared Q) preference ``name`` of ``pairs``, among the printed ones."""
        values = self.printed[name][self._slots(pair_rows(self.num_runs, pairs).tolist())]
        return values if (pairs[:, 0] < pairs[:, 1]).all() else values * pair_signs(pairs) + 0.0

    def blocks(self, rows=None):
        index = self._slots(rows)
        yield rows, {name: v[index] for name, v in self.printed.items()}, {}


def combine(results: list[PartitionResult], job, in_order: dict, warn=None):
    """Add the partitions' totals and conclude, as one machine does (``job``:
    the partitions' :class:`~lexeval.cluster.partition.PartitionJob`)."""
    from ..evaluation import Column, conclude, requests_for
    from ..stats.pairs import plan_for, selected_pairs
    files, names, options = job.files, job.names, job.asked.options
    per_query = job.per_query or job.for_reports is not None
    everything, results = results, [r for r in results if r.totals is not None]
    if not results:
        raise InputError(files[0], "no judgements (empty qrels file)")
    totals = results[0].totals
    for result in results[1:]:
        totals = totals + result.totals
    totals.in_order = in_order
    significance, aggregate = options.significance, options.measuring.aggregate
    pair_metrics, complete = options.measuring.pair_metrics, options.reading.complete
    for index in range(len(names)):
        if all(r.last[index] == (-1, -1) for r in everything):
            raise InputError(files[index + 1], "empty run: no result lines")
    tags = [max(everything, key=lambda r: r.last[index]).tags[index] for index in range(len(names))]
    requests, _ = requests_for(job.asked, len(names))
    combined = Combined(names, tags, [Column(name, measure, cast(Any, None)) for name, measure in results[0].columns],
                        totals, significance, complete, aggregate, tuple(requests))
    if len(names) > 1:
        pairs = selected_pairs(names, significance.baseline)
        by_name: dict[str, Any] = {column.name: (column.measure, None) for column in combined.columns}
        plan = plan_for(by_name, pairs, significance, pair_metrics)
        combined.pairs = pairs
        combined.pair_summary, combined.tests, combined.metric_pairs = \
            conclude(totals, plan, significance, aggregate, pair_metrics)
        bounded = [r.difference_bounds for r in results if r.difference_bounds is not None]
        if bounded:                             # exact sums over each partition's queries, added
            from ..bounds.pairs import marked_fragile
            total = bounded[0]
            for part in bounded[1:]:
                total = total + part
            combined.difference_bounds = marked_fragile(total, combined.tests, significance.alpha)
    combined.parts = sorted(r.part for r in results if r.part)
    combined.level = options.reading.level
    if per_query:          # the partitions are ranges of qids in trec_eval's order, each in that order
        _put_back(combined, results)
    if options.reading.fill_qrels is not None:         # said as one machine says it, from the whole files
        from ..loading import fill_counts, fill_note
        (warn or _note)(fill_note(options.reading.fill_qrels, _path(job.files[0]),
                                  fill_counts(job.files[0], options.reading.fill_qrels)))
    _notes(results, everything, names, options.reading.verbose, warn, complete)
    return combined


def _note(text: str) -> None:
    from ..evaluation import note
    note(text)


def _path(given) -> str:
    from ..io.source import Source
    return Source(given, kind="qrels").path


def _put_back(combined: Combined, results: list[PartitionResult]) -> None:
    """-q's per-query values of every partition, in qid order."""
    from ..evaluation import Column
    combined.qids = [qid for r in results for qid in r.per_query["qids"]]
    combined.included = np.concatenate([r.per_query["included"] for r in results], axis=1)
    combined.compared = np.concatenate([r.per_query["compared"] for r in results])
    columns = []
    for column in combined.columns:
        if column.name in results[0].per_query["columns"]:
            values = np.concatenate([r.per_query["columns"][column.name] for r in results], axis=1)
            columns.append(Column(column.name, column.measure, values))
        else:
            columns.append(column)
    combined.columns = columns
    names = combined.preference_names()
    if names and "all_preferences" in results[0].per_query:     # the reports': every pair
        from ..preferences import GatheredPreferences
        every = {key: {name: np.concatenate([r.per_query[key][name] for r in results], axis=1)
                       for name in results[0].per_query[key]} for key in ("all_preferences", "levels")}
        combined.preferences = GatheredPreferences(len(combined.run_names), int(combined.compared.sum()),
                                                   every["all_preferences"], every["levels"])
    elif names:
        printed = {name: np.concatenate([r.per_query["preferences"][name] for r in results], axis=1)
                   for name in names}
        combined.preferences = PrintedPreferences(printed, len(combined.run_names), int(combined.compared.sum()),
                                                  cast(np.ndarray, combined.pairs))
    counted = [r.per_query["degradation"] for r in results if "degradation" in r.per_query]
    if counted:                                          # the degradation's counts, partition by partition
        combined.degradation_totals = {name: sum(part[name] for part in counted) for name in counted[0]}
    if "level_ties" in results[0].per_query:            # LP's ties per level: counts that add up
        counts = [r.per_query["level_ties"] for r in results]
        deepest = max(len(tied) for tied, _ in counts)
        combined.tie_counts = tuple(sum(np.pad(part[i], (0, deepest - len(part[i]))) for part in counts)
                                    for i in (0, 1))


def _notes(results, everything, names, verbose: bool, warn, complete: bool = False) -> None:
    """The one-machine notes on dropped and missing queries, from the
    partitions' coverages (ranges in query order; a run's first unknown
    query is the one earliest in its file)."""
    from ..io.runs import Coverage, notes
    if warn is None:
        from ..evaluation import note as warn
    first_unknown = [min((first for r in everything for first in r.unknown[index]), default=(None, None))[1]
                     for index in range(len(names))]
    for index in range(len(names)):
        format_ = next((r.formats[index] for r in results if r.formats[index] != "run"), "run")
        if format_ != "run":
            warn(f"{results[0].coverage.runs[index].path}: read as {format_} (qid docid rank): score = -rank")
    for note in notes(Coverage.merge([r.coverage for r in everything], first_unknown), verbose, complete):
        warn(note)
