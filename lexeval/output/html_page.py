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
from typing import Any

import numpy as np

from ..choices import SIGN_PREFERENCES
from ..interface import Result
from ..stats.pairs import testable
from .provenance import provenance
from .report_tables import report_grids
from .tables import AGAINST_BASELINE, summary_table

#: Per-query preference values kept for the per-query view: every pair while
#: pairs x queries stays under this, else the pairs of the best run only.
PREFERENCE_CELLS = 250_000
#: Beyond this many pairs the page carries p-values as a byte and preference means as int16.
COMPACT_PAIRS = 20_000
#: Bytes of per-pair arrays (p-values, preference means and counts) a page carries; measures beyond it are
#: left to the text output.
PAIR_BYTES = 4_000_000
#: Per-query values (runs x compared queries, each measure) a page carries, the summary's shown measures first.
VALUE_CELLS = 2_000_000
#: The LaTeX and Markdown tables of the summary come with the page up to this many runs.
EXPORT_RUNS = 100


def _packed(values) -> str:
    """An array as base64 of little-endian float32 (NaN where missing)."""
    return base64.b64encode(np.asarray(values, dtype="<f4").tobytes()).decode("ascii")


def _counts(values, kind: str = "<i4") -> str:
    return base64.b64encode(np.asarray(values, dtype=kind).tobytes()).decode("ascii")


def _scaled(values) -> str:
    """Means in [-1, 1] as int16 (x 32767; -32768 where missing): half the bytes of float32, to 3e-5."""
    scaled = np.where(np.isfinite(values), np.rint(np.clip(values, -1, 1) * 32767), -32768)
    return base64.b64encode(scaled.astype("<i2").tobytes()).decode("ascii")


def _spend(budget: list, cost: int) -> bool:
    """Take ``cost`` bytes from the page's budget for per-pair arrays, if it has them."""
    if cost > budget[0]:
        return False
    budget[0] -= cost
    return True


def _p_bytes(p: np.ndarray, alpha: float) -> str:
    """p-values of many pairs as a byte each: 255 untested; else bit 7 set
    where p < alpha (exactly), and below it min(127, round(-10 log10 p)):
    the page says p to a tenth of a decade."""
    tested = np.isfinite(p)
    with np.errstate(divide="ignore"):
        level = np.minimum(127, np.rint(-10 * np.log10(np.maximum(p, 1e-300)))).astype(np.int64)
    out = np.where(tested, level + 128 * (p < alpha), 255)
    out = np.where(tested & (out == 255), 254, out)        # p < 1e-12.7 and significant: 254 still says so
    return base64.b64encode(out.astype(np.uint8).tobytes()).decode("ascii")


def _pair_index(num_runs: int) -> np.ndarray:
    """(R, R) the index of pair (a, b), a < b, in run_pairs' order; -1 elsewhere."""
    index = np.full((num_runs, num_runs), -1, dtype=np.int64)
    upper = np.triu_indices(num_runs, 1)
    index[upper] = np.arange(len(upper[0]))
    return index


def page_data(evaluation: Result, report_lines=None, command: str | None = None) -> dict:
    """Everything the page shows, as JSON-ready values."""
    runs = evaluation.run_names
    table = summary_table(evaluation, for_paper=False, with_lists=False)
    options = evaluation.options
    if "runid" in table.cells and [cell.text for cell in table.cells["runid"]] == list(runs):
        table.measures.remove("runid")              # one name column: runid repeats the run names
    exports = None
    if len(runs) <= EXPORT_RUNS:             # a paper's table: beyond a hundred runs, --format latex says it all
        from .tables import latex, markdown
        paper = summary_table(evaluation, for_paper=True)
        exports = {"latex": latex(paper), "markdown": markdown(paper)}
    summary: dict[str, Any] = {
        "columns": table.measures,
        "groups": {name: measure_group(name, table.cells[name]) for name in table.measures},
        # per cell: its text, whether best, how many runs it is significantly better and worse than, and
        # how many of those differences could reverse were the unjudged documents judged (--bounds)
        "cells": {name: [[cell.text, int(cell.best), cell.better, cell.worse, cell.fragile] for cell in cells]
                  for name, cells in table.cells.items()},
        "caption": table.caption,
        "baseline": table.baseline,
    }
    pairs = evaluation.pairs.tolist() if evaluation.pairs is not None else []
    tests = evaluation.tests
    index = _pair_index(len(runs))
    compared = evaluation.compared_qids
    measures: dict[str, Any] = {}
    size = int(index.max(initial=-1)) + 1
    compact = size > COMPACT_PAIRS                 # many pairs: p as a byte, counts as small integers
    budget = [PAIR_BYTES]                          # the per-pair arrays the page carries, in bytes
    preferences = {}
    if evaluation.preferences is not None and len(runs) > 1:
        # the printed pairs' (with a baseline, its pairs only): one machine has every pair's preferences,
        # a cluster gathers the printed ones
        known = evaluation.pairs
        at = index[known.min(axis=1), known.max(axis=1)]
        best = int(np.argmax(evaluation.run_preference_summary(evaluation.preference_names()[0])[0])) \
            if evaluation.preference_names() else 0
        keep_all = size * max(len(compared), 1) <= PREFERENCE_CELLS
        kept = [i for i, (a, b) in enumerate(known.tolist()) if keep_all or best in (a, b)]
        count_type = "<u1" if len(compared) < 256 else "<u2" if len(compared) < 65536 else "<i4"
        for name in evaluation.preference_names():
            signs = name in SIGN_PREFERENCES       # LP, LR: the mean is (wins - losses) / queries
            if not _spend(budget, size * ((0 if signs else 2) + 2 * np.dtype(count_type).itemsize + 1)
                          if compact else size * 16):
                continue                           # beyond the page's budget: the text output has them
            # the printed pairs' means and counts are the evaluation's already; per-query values only where kept
            mean, win, loss = np.full(size, np.nan), *(np.zeros(size, dtype=np.int64) for _ in range(2))
            # the page holds pair (a, b), a < b: run:baseline pairs the other way round are turned
            swap = known[:, 0] > known[:, 1]
            mean[at] = np.where(swap, -1.0, 1.0) * evaluation.pair_summary.mean[name] + 0.0
            wins, losses = evaluation.pair_summary.wins[name], evaluation.pair_summary.losses[name]
            win[at], loss[at] = np.where(swap, losses, wins), np.where(swap, wins, losses)
            values = evaluation.preferences.of_pairs(name, np.sort(known[kept], axis=1))
            # ties are the queries neither wins; with many pairs an LP or LR mean is its counts'
            entry: dict[str, Any] = {
                "mean": None if compact and signs else _scaled(mean) if compact else _packed(mean),
                "win": _counts(win, count_type), "loss": _counts(loss, count_type), "counts": count_type[1:],
                "per_query": {str(int(at[i])): _packed(values[row]) for row, i in enumerate(kept)}}
            entry.update(_tested(name, tests, pairs, index, compact, options.alpha if options else 0.05))
            preferences[name] = entry
    cells = [VALUE_CELLS]                          # per-query values the page carries
    tested_columns = [column for column in evaluation.columns if testable(column.measure) and len(runs) > 1]
    shown_first = sorted(tested_columns, key=lambda column: "shown" not in summary["groups"].get(column.name, ""))
    carried = {column.name for column in shown_first if _spend(cells, len(runs) * len(compared))}
    for column in tested_columns:
        values = evaluation.compared_values(column)
        entry = {"values": [_packed(row) for row in values] if column.name in carried else None,
                 "means": [float(v) for v in (values.mean(axis=1) if values.shape[1] else np.zeros(len(runs)))]}
        if _spend(budget, size * (1 if compact else 4)):
            entry.update(_tested(column.name, tests, pairs, index, compact, options.alpha if options else 0.05))
        else:
            entry["untested_on_page"] = True
        measures[column.name] = entry
    return _displayable({
        "forest": forest(evaluation),
        "version": _version(),
        "runs": runs,
        "queries": compared,
        "num_queries": len(evaluation.qids),
        "summary": summary,
        "measures": measures,
        "preferences": preferences,
        "tested_pairs": pairs if evaluation.options is not None and evaluation.options.baseline else None,
        "compact": compact,
        "test": options.test if tests is not None else "none",
        "alpha": options.alpha,
        "ci": bool(options.ci) and tests is not None,
        "confidence": options.confidence,
        "reports": _reports(report_lines or []),
        "report_tables": [grid._asdict() for grid in report_grids(report_lines or [])],
        "provenance": provenance(evaluation, command or "lexeval.evaluate(...).to_html() in Python"),
        "exports": exports,
    })


#: The summary's measures shown first: trec_eval's official single numbers, P@10 and nDCG@10, the preferences.
DEFAULT_SHOWN = ("map", "gm_map", "Rprec", "bpref", "recip_rank", "ndcg", "P_10", "ndcg_cut_10", "nDCG@10")


def measure_group(name: str, cells) -> str:
    """The picker's group of a summary column: preferences (scores and
    ranks), counts (and text), cutoffs (a rank or recall level in the
    name), or measures; ``shown`` is added to those of the default set."""
    import re
    if name.endswith(("_score", "_rank", AGAINST_BASELINE)):
        group = "preferences"
    elif all(text.lstrip("-").isdigit() for text in (cell.text for cell in cells)) or name in ("runid", "relstring"):
        group = "counts"
    elif re.search(r"(_\d|@\d|_cut_|iprec_at_recall)", name):
        group = "cutoffs"
    else:
        group = "measures"
    shown = name in DEFAULT_SHOWN or name.endswith(("_score", AGAINST_BASELINE)) or \
        (group == "measures" and len(name) <= 12)
    return group + (" shown" if shown else "")


def _interval(values: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mean, low, high) per row of (rows, Q) values: the t interval of the mean."""
    from scipy.special import stdtrit  # scipy.stats takes a second to import; this, a tenth
    count = values.shape[1]
    mean = values.mean(axis=1) if count else np.full(len(values), np.nan)
    if count < 2:
        return mean, mean, mean
    half = stdtrit(count - 1, (1 + confidence) / 2) * values.std(axis=1, ddof=1) / np.sqrt(count)
    return mean, mean - half, mean + half


def forest(evaluation: Result) -> dict:
    """The forest plot's numbers, per tested metric: each run's mean over
    the compared queries and its t interval; with a baseline, each run's
    mean difference from it, the interval and the pair's p. (Preferences
    have their scores in the summary: a run's score is relative to every
    other run, which a cluster with a baseline never sees.)"""
    runs = evaluation.run_names
    options = evaluation.options
    confidence = options.confidence if options is not None else 0.95
    baseline = runs.index(options.baseline) if options is not None and options.baseline in runs else None
    out = {}
    sources = [(column.name, evaluation.compared_values(column).astype(np.float64)) for column in evaluation.columns
               if testable(column.measure) and len(runs) > 1]
    tests = evaluation.tests
    by_name = {column.name: column for column in evaluation.columns}
    bounds = getattr(evaluation, "difference_bounds", None)
    for name, values in sources:
        entry = dict(zip(("mean", "low", "high"), (_packed(v) for v in _interval(values, confidence))))
        if f"{name}_low" in by_name:          # --bounds: the mean's least and greatest over the unjudged grades
            for side in ("low", "high"):
                column = by_name[f"{name}_{side}"]
                entry[f"bound_{side}"] = _packed(evaluation.compared_values(column).astype(np.float64).mean(axis=1)
                                                 if evaluation.compared_values(column).shape[1] else
                                                 np.full(len(runs), np.nan))
        if baseline is not None:
            against = values - values[baseline]
            entry.update(zip(("difference", "difference_low", "difference_high"),
                             (_packed(v) for v in _interval(against, confidence))))
            p = np.full(len(runs), np.nan)
            other = [b if a == baseline else a for a, b in evaluation.pairs.tolist()]
            if tests is not None and name in tests.p:
                p[other] = tests.p[name]
            entry["p"] = _packed(p)
            if bounds is not None and name in bounds.low:     # pairs are (run, baseline): run minus baseline
                for side, values_of in (("low", bounds.low), ("high", bounds.high)):
                    shown = np.full(len(runs), np.nan)
                    shown[other] = values_of[name]
                    entry[f"difference_bound_{side}"] = _packed(shown)
                if name in bounds.fragile:
                    fragile = np.zeros(len(runs))
                    fragile[other] = bounds.fragile[name]
                    entry["fragile"] = _packed(fragile)
        out[name] = entry
    return {"measures": out, "confidence": confidence, "baseline": baseline}


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


def _tested(name: str, tests, pairs: list, index: np.ndarray, compact: bool = False, alpha: float = 0.05) -> dict:
    """p-values (and intervals) of a measure's tested pairs, by pair index
    (a < b, the difference a - b); NaN for pairs not tested."""
    if tests is None or name not in tests.p:
        return {}
    size = int(index.max(initial=-1)) + 1
    p, low, high = (np.full(size, np.nan) for _ in range(3))
    pair_array = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    first, second = pair_array[:, 0], pair_array[:, 1]
    at = index[np.minimum(first, second), np.maximum(first, second)]
    p[at] = tests.p[name]
    if name in tests.ci_low:
        sign = np.where(first < second, 1.0, -1.0)          # the interval of a - b, whichever way the pair ran
        one, other = sign * np.asarray(tests.ci_low[name]), sign * np.asarray(tests.ci_high[name])
        low[at], high[at] = np.minimum(one, other), np.maximum(one, other)
    out = {"p_bytes": _p_bytes(p, alpha)} if compact else {"p": _packed(p)}
    if name in tests.ci_low and not compact:
        out.update({"ci_low": _packed(low), "ci_high": _packed(high)})
    return out


def _reports(lines) -> list[dict]:
    """Report lines as {report, measure, rows: [[parameter, value], ...]}."""
    grouped: dict[tuple[str, str], list] = {}
    for line in lines:
        value = float(line.value)          # NaN (a kappa of one label, an undefined ratio): null, shown empty
        grouped.setdefault((line.report, line.measure.strip()), []).append(
            [line.parameter, value if np.isfinite(value) else None])
    return [{"report": report, "measure": measure, "rows": rows} for (report, measure), rows in grouped.items()]


def _version() -> str:
    from .. import __version__
    return __version__


def _asset(name: str) -> str:
    return resources.files(__package__).joinpath("web", name).read_text(encoding="utf-8")


def html_page(evaluation: Result, report_lines=None, title: str | None = None, command: str | None = None) -> str:
    """The whole page: the template with its style, script and the data inline."""
    data = page_data(evaluation, report_lines, command)
    judged = next((item["name"] for item in data["provenance"]["inputs"] if item["role"] == "qrels"), None)
    title = title or f"lexeval: {len(data['runs'])} run{'s' * (len(data['runs']) != 1)}" + \
        (f" on {judged}" if judged else "") + f", {data['num_queries']} queries"
    # inside <script>, "</" would end the element; "<\/" is the same JSON string
    payload = json.dumps(data, separators=(",", ":"), allow_nan=False, default=_plain).replace("</", "<\\/")
    page = _asset("page.html")
    from ..citations import keys_of, references
    cited = references(keys_of([column.measure for column in evaluation.columns], evaluation.preference_names()))
    many = len(data["provenance"]["inputs"]) > 13           # a long list of inputs starts folded
    return (page.replace("{{TITLE}}", _escape(title))
                .replace("{{PROVENANCE_OPEN}}", "" if many else " open")
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
