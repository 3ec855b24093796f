"""Results for Python: DataFrames of the same record stream the text
writers print (:func:`to_frame`), ranx's compare report (:func:`comparison`)
and the HTML page (:func:`html`). Evaluation's methods reach the output
layer through this module only."""

from __future__ import annotations

import numpy as np

from ..evaluation import Evaluation
from .records import all_blocks, records

#: What a measure's printed name gains on the lines that test or count it.
DERIVED = ("_p", "_hsd_p", "_ci_low", "_ci_high", "_effect", "_win", "_loss", "_tie", "_score", "_rank")


def to_frame(evaluation: Evaluation, per_query: bool = True, summary: bool = True, library: str | None = None,
             measures=None):
    """One row per printed value: columns run (None on pair rows), pair
    ("A:B", None on run rows), measure, qid ("all" for summaries) and value.
    ``measures`` (any accepted names: ``nDCG@10``, ``ndcg_cut.10``, ``LP``)
    keeps those measures' rows and their tests'. Per-query rows are those
    the text prints: a query a run's average leaves out has none. A pandas
    DataFrame, or a polars one (``library="polars"``, or when pandas is not
    installed); neither is a dependency of lexeval."""
    wanted = None
    if measures is not None:
        printed = [evaluation.printed_name(name) for name in ([measures] if isinstance(measures, str) else measures)]
        wanted = set(printed) | {name + suffix for name in printed for suffix in DERIVED}
    columns: dict[str, list] = {"run": [], "pair": [], "measure": [], "qid": [], "value": []}
    runs = set(evaluation.run_names)
    for record in records(all_blocks(evaluation, per_query, summary)):
        if wanted is not None and record.measure.strip() not in wanted:
            continue
        is_run = record.key in runs
        columns["run"].append(record.key if is_run else None)
        columns["pair"].append(None if is_run else record.key)
        columns["measure"].append(record.measure)
        columns["qid"].append(record.qid)
        value = record.value
        columns["value"].append(value.item() if isinstance(value, np.generic) else value)
    return _frame(columns, library)


def comparison(evaluation: Evaluation, library: str | None = None):
    """ranx's compare report: one row per run (column ``run``), per
    real-valued measure and preference score its summary value, and its
    significance (the tests and correction of the evaluation, at its alpha):
    with a baseline, ``<measure>_p`` (against the baseline; NaN on the
    baseline's row) and ``<measure>_vs_baseline`` (+1 significantly better,
    -1 worse, 0 neither); without one, ``<measure>_better_than`` (the names
    of the runs it is significantly better than, comma-separated)."""
    from .tables import summary_table
    table = summary_table(evaluation, for_paper=True)
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
    return _frame(columns, library)


def html(evaluation: Evaluation, report_lines=None) -> str:
    """The page of ``--format html`` (see :mod:`lexeval.output.html_page`):
    the library's conveniences (frames, the compare report, the page) enter
    the output layer here, through the one upward import the layers allow."""
    from .html_page import html_page
    return html_page(evaluation, report_lines)


def _frame(columns: dict[str, list], library: str | None):
    if library in (None, "pandas"):
        try:
            import pandas
            return pandas.DataFrame(columns)
        except ImportError:
            if library == "pandas":
                raise
    try:
        import polars
    except ImportError:
        raise ImportError("to_frame() and compare() need pandas or polars: pip install pandas") from None
    return polars.DataFrame(columns, strict=False)
