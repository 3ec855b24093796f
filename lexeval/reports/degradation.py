"""degradation: relevant labels removed at random (at least one kept per
query): ties and agreement with the full-label preferences, mean and sd
(Diaz, "Best-Case Retrieval Evaluation", figures 8-9; "Recall,
Robustness, and Lexicographic Evaluation", figures 14-15).

Which labels go is drawn per label, keyed by (seed, draw, qid, docno), so
a query loses the same labels whichever queries surround it: a cluster's
partitions degrade their own queries and send back counts (ties, cells,
agreements, decided cells per fraction, sample and measure), which add up
to one machine's.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import cast

import numpy as np

from ..rankings import Rankings
from ..stats.sums import uniform_bits
from .common import PERCENT, ReportLine, ReportOptions, matrices

#: What each (fraction, sample, measure) counts: cells tied, cells, cells that agree, cells decided.
TIES, CELLS, AGREE, DECIDED = range(4)


def label_keys(r: Rankings, qrels, rows: np.ndarray) -> np.ndarray:
    """(n,) uint64 key of each judgement row: its qid and docno's BLAKE2b."""
    qid_bytes = [qid.encode("utf-8", "surrogateescape") for qid in qrels.qids]
    return np.array([int.from_bytes(hashlib.blake2b(qid_bytes[int(qrels.query_index[row])] + b"\0" +
                                                    qrels.docnos[int(qrels.line_of_row[row])], digest_size=8)
                                    .digest(), "little") for row in rows.tolist()], dtype=np.uint64)


def degraded(r: Rankings, qrels, fraction: float, seed: int, draw: int, policy: str = "random") -> Rankings:
    """Rankings with a ``fraction`` of each query's relevant labels kept (at
    least one); removed labels make their documents unjudged. ``policy``
    random keeps a random subset; pool keeps the labels of the documents the
    most runs retrieve (pref_eval's pool policy), ties in random order. The
    random order is draw ``draw`` of each label's keyed generator."""
    query_of_row = qrels.query_index
    relevant_rows = np.flatnonzero(qrels.grades >= r.level)
    evaluated = {qid: index for index, qid in enumerate(r.qids)}
    row_query = np.array([evaluated.get(qrels.qids[q], -1) for q in query_of_row[relevant_rows]], dtype=np.int64)
    inside = row_query >= 0
    relevant_rows, row_query = relevant_rows[inside], row_query[inside]
    shuffle = uniform_bits(seed, label_keys(r, qrels, relevant_rows), draw, 1)[0]
    if policy == "pool":
        rows = cast(np.ndarray, r.qrels_rows)
        retrieved = rows[rows >= 0]
        runs_retrieving = np.bincount(retrieved, minlength=len(qrels.grades))[relevant_rows]
        order = np.lexsort((shuffle, -runs_retrieving, row_query))
    else:
        order = np.lexsort((shuffle, row_query))
    relevant_rows, row_query = relevant_rows[order], row_query[order]
    first = np.searchsorted(row_query, np.arange(r.num_queries))
    position = np.arange(len(row_query)) - first[row_query]
    keep_count = np.maximum(1, np.round(fraction * r.num_rel_per_query)).astype(np.int64)
    removed = np.zeros(len(qrels.grades), dtype=bool)
    removed[relevant_rows[position >= keep_count[row_query]]] = True
    return r.without_judgements(removed)


def degradation_counts(evaluation, options: ReportOptions, progress: Callable | None = None) -> dict[str, np.ndarray]:
    """{measure: (fractions, samples, 4)} the counts of every degraded
    evaluation against the full labels' (see TIES ... DECIDED); counts of
    disjoint sets of queries add up."""
    data = matrices(evaluation)
    qrels = evaluation.rankings.qrels
    compared_rankings = evaluation.comparison
    shape = (len(options.fractions), options.samples, 4)
    counts = {name: np.zeros(shape, dtype=np.int64) for name in data.differences}
    total, done = len(options.fractions) * options.samples, 0
    for f, fraction in enumerate(options.fractions):
        for s in range(options.samples):
            sample = matrices(evaluation.reevaluate(degraded(compared_rankings, qrels, fraction, options.seed,
                                                             f * options.samples + s, options.label_policy)))
            for name, full in data.differences.items():
                d, decided = sample.differences[name], full != 0
                counts[name][f, s] = ((d == 0).sum(), d.size, (np.sign(d[decided]) == np.sign(full[decided])).sum(),
                                      decided.sum())
            done += 1
            if progress:
                progress(done, total)
    return counts


def degradation(evaluation, data, options: ReportOptions, progress: Callable | None = None) -> list[ReportLine]:
    """Re-evaluates the same measures on rankings with labels removed: the
    mean and sd over the samples of each fraction's tie and agreement rates."""
    # a cluster's partitions counted their queries already; one machine counts here
    counts = evaluation.degradation_totals or degradation_counts(evaluation, options, progress)
    lines = []
    for f, fraction in enumerate(options.fractions):
        for name, table in counts.items():
            rates = {"ties": _percent(table[f, :, TIES], table[f, :, CELLS]),
                     "agreement": _percent(table[f, :, AGREE], table[f, :, DECIDED])}
            for what, values in rates.items():
                where = {"table": f"degradation: % {what}", "row": name, "row_name": "measure"}
                lines.append(ReportLine("degradation", f"{name}_{what}_mean", f"{fraction:g}",
                                        float(np.mean(values)), PERCENT, column=f"mean at {fraction:g}", **where))
                lines.append(ReportLine("degradation", f"{name}_{what}_sd", f"{fraction:g}",
                                        float(np.std(values, ddof=1)) if len(values) > 1 else 0.0, PERCENT,
                                        column=f"sd at {fraction:g}", **where))
    return lines


def _percent(part: np.ndarray, whole: np.ndarray) -> np.ndarray:
    """(samples,) 100 part / whole, 0 where whole is 0 (as percent() of nothing)."""
    return np.where(whole > 0, 100.0 * part / np.maximum(whole, 1), 0.0)
