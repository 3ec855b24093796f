"""Results for Python: DataFrames of the same record stream the text
writers print (:func:`to_frame`), ranx's and PyTerrier's compare reports
(:func:`comparison`), a result's columns in the caller's order, the paper's
tables; :mod:`lexeval.result`'s views call these."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..interface import Result
from .records import all_blocks, records

#: What a measure's printed name gains on the lines that test or count it.
DERIVED = ("_p", "_hsd_p", "_ci_low", "_ci_high", "_effect", "_win", "_loss", "_tie", "_score", "_rank")


def to_frame(evaluation: Result, per_query: bool = True, summary: bool = True, library: str | None = None,
             measures=None, kind: str = "records"):
    """A tidy frame of ``kind`` (see :mod:`lexeval.output.notebook` for
    "summary", "per_query" and "pairs"). "records": one row per printed
    line, columns run (None on pair rows), pair ("A:B", None on run rows),
    measure, qid ("all" for summaries), value (a number; NaN on runid's and
    relstring's lines) and text (their text; None elsewhere). ``measures``
    (any accepted names: ``nDCG@10``, ``ndcg_cut.10``, ``LP``) keeps those
    measures' rows and their tests'; a name not computed is a KeyError. Per-query
    rows are those the text prints: a query a run's average leaves out has
    none."""
    from .notebook import frame_of, make_frame, wanted_names
    wanted = wanted_names(evaluation, measures)
    if kind != "records":
        return frame_of(evaluation, kind, wanted, library, per_query, summary)
    if wanted is not None:
        wanted = wanted | {name + suffix for name in wanted for suffix in DERIVED}
    columns: dict[str, list] = {"run": [], "pair": [], "measure": [], "qid": [], "value": [], "text": []}
    runs = set(evaluation.run_names)
    for record in records(all_blocks(evaluation, per_query, summary)):
        if wanted is not None and record.measure.strip() not in wanted:
            continue
        is_run = record.key in runs
        columns["run"].append(record.key if is_run else None)
        columns["pair"].append(None if is_run else record.key)
        columns["measure"].append(record.measure)
        columns["qid"].append(record.qid)
        value: Any = record.value
        value = value.item() if isinstance(value, np.generic) else value
        is_text = isinstance(value, str)
        columns["value"].append(float("nan") if is_text else float(value))
        columns["text"].append(value if is_text else None)
    return make_frame(columns, library)


def in_order(evaluation, names: list[str]):
    """``evaluation`` with its columns in the order ``names`` asked for them
    (the library keeps the caller's order; the command line, trec_eval's)."""
    from dataclasses import replace

    from ..errors import UsageError
    from ..measures.names import output_names
    prefix = "Z" if evaluation.zscores is not None else ""
    place: dict[str, int] = {}
    for name in names:
        try:
            printed = output_names(name)
        except UsageError:
            continue
        for one in printed:
            place.setdefault(prefix + one, len(place))
    columns = sorted(evaluation.columns, key=lambda column: place.get(column.name, len(place)))
    return replace(evaluation, columns=columns)


def paper_table(evaluation, output_format: str) -> str:
    """``--format latex`` or ``markdown``: the summary table for a paper."""
    from .tables import latex, markdown, summary_table
    table = summary_table(evaluation, for_paper=True)
    return latex(table) if output_format == "latex" else markdown(table)


def comparison(evaluation: Result, library: str | None = None, baseline: str | None = None,
               correction: str | None = None):
    """With ``baseline``, PyTerrier's (:func:`lexeval.output.notebook.baseline_comparison`).
    Without one, ranx's compare report: one row per run (column ``run``), per
    real-valued measure and preference score its summary value, and its
    significance (the tests and correction of the evaluation, at its alpha):
    with a baseline, ``<measure>_p`` (against the baseline; NaN on the
    baseline's row) and ``<measure>_vs_baseline`` (+1 significantly better,
    -1 worse, 0 neither); without one, ``<measure>_better_than`` (the names
    of the runs it is significantly better than, comma-separated)."""
    from .notebook import baseline_comparison, make_frame
    if baseline is not None:
        return baseline_comparison(evaluation, baseline, correction, library)
    if correction is not None:
        from ..errors import UsageError
        raise UsageError("correction= adjusts the p-values against a baseline: give baseline= too (the "
                         "evaluation's own correction applies to its pairs)")
    from .tables import summary_table
    table = summary_table(evaluation, for_paper=True, against_baseline=False)
    runs = evaluation.run_names
    values = {column.name: evaluation.summary(column) for column in evaluation.columns}
    columns: dict[str, list] = {"run": list(runs)}
    tests, pairs = evaluation.tests, evaluation.pairs
    for measure in table.measures:
        if measure in values:
            columns[measure] = [float(value) for value in values[measure]]
        else:                                           # a preference's score
            columns[measure] = [float(value) for value in evaluation.run_preference_summary(measure[:-6])[0]]
        cells = table.cells[measure]
        if table.baseline is not None:
            tested = measure[:-6] if measure.endswith("_score") and measure not in values else measure
            p = np.full(len(runs), np.nan)
            if tests is not None and tested in tests.p:
                for row, (a, b) in enumerate(pairs.tolist()):
                    p[b if a == table.baseline else a] = tests.p[tested][row]
            columns[f"{measure}_p"] = p.tolist()
            columns[f"{measure}_vs_baseline"] = [0 if run == table.baseline else 1 if cell.better_than else
                                                 -1 if cell.worse_than else 0 for run, cell in enumerate(cells)]
        else:
            columns[f"{measure}_better_than"] = [",".join(runs[other] for other in sorted(cell.better_than))
                                                 for cell in cells]
    return make_frame(columns, library)
