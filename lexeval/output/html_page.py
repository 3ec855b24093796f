"""``--format html``: one self-contained page of a whole evaluation.

The page's HTML, CSS and script are files of their own (``web/page.html``,
``page.css``, ``page.js``, package data); this module only gathers the
evaluation's numbers into one JSON object and fills the template with it.
Nothing reaches the network: styles, script and data are inline, the figures
are SVG drawn by the script from the data.

What the page holds (``data``):

- ``summary``: the runs x measures table of summary values, printed as the
  text output prints them, with each cell's significance (the runs it is
  significantly better and worse than) and the caption naming the test and
  the correction;
- ``measures``: per tested metric, each run's per-query values over the
  compared queries (float32, base64) and its mean there, and the p-values
  (and intervals with --ci) of the tested pairs;
- ``preferences``: per preference (LP, rrLP, LR, ...), every pair's mean,
  wins, losses and ties, p-values for the tested pairs, and per-query values
  for the pairs a page can carry;
- ``reports``: the --report lines, grouped by report and measure.
"""

from __future__ import annotations

import base64
import json
from importlib import resources

import numpy as np

from ..interface import Result
from ..stats.pairs import testable
from .tables import summary_table

#: Per-query preference values kept for the per-query view: every pair while
#: pairs x queries stays under this, else the pairs of the best run only.
PREFERENCE_CELLS = 250_000


def _packed(values) -> str:
    """An array as base64 of little-endian float32 (NaN where missing)."""
    return base64.b64encode(np.asarray(values, dtype="<f4").tobytes()).decode("ascii")


def _counts(values) -> str:
    return base64.b64encode(np.asarray(values, dtype="<i4").tobytes()).decode("ascii")


def _pair_index(num_runs: int) -> np.ndarray:
    """(R, R) the index of pair (a, b), a < b, in run_pairs' order; -1 elsewhere."""
    index = np.full((num_runs, num_runs), -1, dtype=np.int64)
    upper = np.triu_indices(num_runs, 1)
    index[upper] = np.arange(len(upper[0]))
    return index


def page_data(evaluation: Result, report_lines=None) -> dict:
    """Everything the page shows, as JSON-ready values."""
    runs = evaluation.run_names
    table = summary_table(evaluation, for_paper=False)
    options = evaluation.options
    summary = {
        "columns": table.measures,
        "cells": {name: [{"text": cell.text, "best": cell.best, "better": cell.better_than,
                          "worse": cell.worse_than} for cell in cells] for name, cells in table.cells.items()},
        "caption": table.caption,
        "baseline": table.baseline,
    }
    pairs = evaluation.pairs.tolist() if evaluation.pairs is not None else []
    tests = evaluation.tests
    index = _pair_index(len(runs))
    compared = evaluation.compared_qids
    measures = {}
    for column in evaluation.columns:
        if not testable(column.measure) or len(runs) < 2:
            continue
        values = evaluation.compared_values(column)
        entry = {"values": [_packed(row) for row in values],
                 "means": [float(v) for v in (values.mean(axis=1) if values.shape[1] else np.zeros(len(runs)))]}
        entry.update(_tested(column.name, tests, pairs, index))
        measures[column.name] = entry
    preferences = {}
    if evaluation.preferences is not None and len(runs) > 1:
        # the printed pairs' (with a baseline, its pairs only): one machine has every pair's preferences,
        # a cluster gathers the printed ones
        known = evaluation.pairs
        at = index[known[:, 0], known[:, 1]]
        size = int(index.max(initial=-1)) + 1
        best = int(np.argmax(evaluation.run_preference_summary(evaluation.preference_names()[0])[0])) \
            if evaluation.preference_names() else 0
        keep_all = size * max(len(compared), 1) <= PREFERENCE_CELLS
        kept = [i for i, (a, b) in enumerate(known.tolist()) if keep_all or best in (a, b)]
        for name in evaluation.preference_names():
            values = evaluation.preferences.of_pairs(name, known)
            mean, win, loss, tie = np.full(size, np.nan), *(np.zeros(size, dtype=np.int64) for _ in range(3))
            mean[at] = values.mean(axis=1) if values.shape[1] else 0.0
            win[at], loss[at], tie[at] = (values > 0).sum(axis=1), (values < 0).sum(axis=1), (values == 0).sum(axis=1)
            entry = {"mean": _packed(mean), "win": _counts(win), "loss": _counts(loss), "tie": _counts(tie),
                     "per_query": {str(int(at[i])): _packed(values[i]) for i in kept}}
            entry.update(_tested(name, tests, pairs, index))
            preferences[name] = entry
    return _displayable({
        "version": _version(),
        "runs": runs,
        "queries": compared,
        "num_queries": len(evaluation.qids),
        "summary": summary,
        "measures": measures,
        "preferences": preferences,
        "tested_pairs": pairs,
        "test": options.test if tests is not None else "none",
        "alpha": options.alpha,
        "ci": bool(options.ci) and tests is not None,
        "confidence": options.confidence,
        "reports": _reports(report_lines or []),
    })


def _displayable(value):
    """``value`` with every string valid Unicode: identifiers that are not
    UTF-8 (held as lone surrogates) show their bytes as \\xNN, as lexeval's
    messages do (a browser may not survive lone surrogates in its text)."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    if isinstance(value, dict):
        return {_displayable(key): _displayable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_displayable(item) for item in value]
    return value


def _tested(name: str, tests, pairs: list, index: np.ndarray) -> dict:
    """p-values (and intervals) of a measure's tested pairs, by pair index
    (a < b, the difference a - b); NaN for pairs not tested."""
    if tests is None or name not in tests.p:
        return {}
    size = int(index.max(initial=-1)) + 1
    p, low, high = (np.full(size, np.nan) for _ in range(3))
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    first, second = pairs[:, 0], pairs[:, 1]
    at = index[np.minimum(first, second), np.maximum(first, second)]
    p[at] = tests.p[name]
    if name in tests.ci_low:
        sign = np.where(first < second, 1.0, -1.0)          # the interval of a - b, whichever way the pair ran
        one, other = sign * np.asarray(tests.ci_low[name]), sign * np.asarray(tests.ci_high[name])
        low[at], high[at] = np.minimum(one, other), np.maximum(one, other)
    out = {"p": _packed(p)}
    if name in tests.ci_low:
        out.update({"ci_low": _packed(low), "ci_high": _packed(high)})
    return out


def _reports(lines) -> list[dict]:
    """Report lines as {report, measure, rows: [[parameter, value], ...]}."""
    grouped: dict[tuple[str, str], list] = {}
    for line in lines:
        grouped.setdefault((line.report, line.measure.strip()), []).append([line.parameter, float(line.value)])
    return [{"report": report, "measure": measure, "rows": rows} for (report, measure), rows in grouped.items()]


def _version() -> str:
    from .. import __version__
    return __version__


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath("web", name).read_text(encoding="utf-8")


def html_page(evaluation: Result, report_lines=None, title: str | None = None) -> str:
    """The whole page: the template with its style, script and the data inline."""
    data = page_data(evaluation, report_lines)
    title = title or f"lexeval: {len(data['runs'])} run{'s' * (len(data['runs']) != 1)}, " \
                     f"{data['num_queries']} queries"
    # inside <script>, "</" would end the element; "<\/" is the same JSON string
    payload = json.dumps(data, separators=(",", ":"), allow_nan=False, default=_plain).replace("</", "<\\/")
    page = _asset("page.html")
    from ..citations import keys_of, references
    cited = references(keys_of([column.measure for column in evaluation.columns], evaluation.preference_names()))
    return (page.replace("{{TITLE}}", _escape(title))
                .replace("{{CITATIONS}}", "".join(f"<li>{_escape(reference)}</li>" for reference in cited))
                .replace("/*{{STYLE}}*/", _asset("page.css"))
                .replace("/*{{SCRIPT}}*/", _asset("page.js"))
                .replace("{{DATA}}", payload))


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
