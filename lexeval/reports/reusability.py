"""reusability: can this pool judge a system that did not contribute to it?
(Zobel, "How reliable are the results of large-scale information retrieval
experiments?", SIGIR 1998; Voorhees's leave-one-group-out, as TREC
overviews report it.)

For each run, or each group of runs sharing a name prefix (``--group-by
SEPARATOR``: the name up to the separator, as TREC removes a whole team's
runs), the relevant documents only that group retrieved within the pool
depth (``--pool-depth``, 100) are taken out of the judgements (they become
unjudged), and the group's runs are evaluated again. Per measure (metrics
by their mean, preferences by each run's mean preference against the other
runs, all on the reduced judgements):

- per run: its score ``before`` and ``after``, the ``drop`` (before minus
  after), its rank among all runs ``rank_before`` and ``rank_after`` (the
  leaderboard where every run is scored without its own group's unique
  documents);
- over the runs: ``mean_drop``, ``largest_drop`` (and its run) and Kendall's
  ``tau_b`` between the two leaderboards;
- measure ``pool``: ``unique_relevant:GROUP``, how many relevant documents
  each group alone contributed.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..errors import UsageError
from ..stats import similarity as sim
from ..stats.pairs import testable
from .common import COUNT, RANK, ReportLine, ReportOptions, run_inputs


def groups_of(run_names: list[str], separator: str | None) -> list[str]:
    """(R,) each run's group: its name up to ``separator`` (the whole name
    without a separator, or where the name has none)."""
    if not separator:
        return list(run_names)
    return [name.split(separator, 1)[0] for name in run_names]


def unique_relevant(rankings, groups: list[str], depth: int) -> dict[str, np.ndarray]:
    """{group: (J,) bool} the relevant judgement rows retrieved within
    ``depth`` by that group's runs and by no other group's."""
    names = list(dict.fromkeys(groups))
    group_of_run = np.array([names.index(group) for group in groups], dtype=np.int64)
    relevant = rankings.codes >= rankings.level
    index, segment, rank = rankings.locate(relevant)
    within = rank <= depth
    rows = rankings.qrels_rows[index[within]].astype(np.int64)
    group = group_of_run[segment[within] // rankings.num_queries]
    pairs = np.unique(rows * len(names) + group)                  # each (row, group) once
    row_of_pair, group_of_pair = pairs // len(names), pairs % len(names)
    groups_per_row = np.bincount(row_of_pair, minlength=len(rankings.qrels.grades))
    alone = groups_per_row[row_of_pair] == 1
    out = {}
    for number, name in enumerate(names):
        mask = np.zeros(len(rankings.qrels.grades), dtype=bool)
        mask[row_of_pair[alone & (group_of_pair == number)]] = True
        out[name] = mask
    return out


def _with_identities(evaluation, options: ReportOptions):
    """The evaluation again, its runs read with each document's judgement row."""
    import os

    from ..evaluation import load
    from ..options import Hooks
    path = evaluation.rankings.qrels.path if evaluation.rankings.qrels is not None else ""
    if not os.path.isfile(path):
        raise UsageError("--report reusability needs the documents' identities: evaluate with keep_rows=True "
                         "(or from a qrels file)")
    runs, reading = run_inputs(evaluation, options, "--report reusability")
    rankings = load(path, list(runs), reading, keep_rows=True, hooks=Hooks(warn=lambda _: None))
    return evaluation.reevaluate(rankings, evaluation.options)


def run_scores(evaluation) -> dict[str, np.ndarray]:
    """{measure: (R,)} each run's leaderboard score: a metric's mean over the
    queries it counts, a preference's mean preference against the others."""
    out = {}
    for column in evaluation.columns:
        if testable(column.measure):
            out[column.name] = np.nanmean(evaluation.values(column.name), axis=1)
    for name in evaluation.preference_names():
        out[name] = evaluation.run_preference_scores(name).mean(axis=1)
    return out


def reusability(evaluation, data, options: ReportOptions, progress: Callable | None = None) -> list[ReportLine]:
    rankings = evaluation.rankings
    if rankings.qrels_rows is None:         # read without document identities (the library's default)
        evaluation = _with_identities(evaluation, options)
        rankings = evaluation.rankings
    runs = evaluation.run_names
    groups = groups_of(runs, options.group_by)
    removed = unique_relevant(rankings, groups, options.pool_depth)
    before = run_scores(evaluation)
    after = {name: np.full(len(runs), np.nan) for name in before}
    for done, (group, rows) in enumerate(removed.items(), 1):
        members = [r for r, g in enumerate(groups) if g == group]
        reduced = evaluation.reevaluate(rankings.without_judgements(rows)) if rows.any() else evaluation
        for name, scores in run_scores(reduced).items():
            after[name][members] = scores[members]
        if progress:
            progress(done, len(removed))
    lines = [ReportLine("reusability", "pool", f"unique_relevant:{group}", float(rows.sum()), COUNT,
                        table="reusability: the pool", row=group, row_name="run" if not options.group_by else "group",
                        column="unique relevant") for group, rows in removed.items()]
    for name in before:
        x, y = before[name], after[name]
        drop = x - y
        rank_before = sim.strict_positions(x[None, :])[0] + 1
        rank_after = sim.strict_positions(y[None, :])[0] + 1
        for r, run in enumerate(runs):
            where = {"table": "reusability: each run", "row": run, "row_name": "run"}
            lines += [ReportLine("reusability", name, f"before:{run}", float(x[r]), column="before", **where),
                      ReportLine("reusability", name, f"after:{run}", float(y[r]), column="after", **where),
                      ReportLine("reusability", name, f"drop:{run}", float(drop[r]), column="drop", **where),
                      ReportLine("reusability", name, f"rank_before:{run}", float(rank_before[r]), RANK,
                                 column="rank before", **where),
                      ReportLine("reusability", name, f"rank_after:{run}", float(rank_after[r]), RANK,
                                 column="rank after", **where)]
        largest = int(np.nanargmax(drop)) if np.isfinite(drop).any() else 0
        summary = {"table": "reusability: over the runs"}
        lines += [ReportLine("reusability", name, "mean_drop", float(np.nanmean(drop)), column="mean_drop",
                             **summary),
                  ReportLine("reusability", name, f"largest_drop:{runs[largest]}", float(drop[largest]),
                             column="largest_drop", **summary),
                  ReportLine("reusability", name, "tau_b", float(sim.kendall_tau_b(x[None, :], y[None, :])[0]),
                             column="tau_b", **summary)]
    return lines
