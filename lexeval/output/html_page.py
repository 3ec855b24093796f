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
from .provenance import provenance
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


def page_data(evaluation: Result, report_lines=None, command: str | None = None) -> dict:
    """Everything the page shows, as JSON-ready values."""
    runs = evaluation.run_names
    table = summary_table(evaluation, for_paper=False)
    options = evaluation.options
    if "runid" in table.cells and [cell.text for cell in table.cells["runid"]] == list(runs):
        table.measures.remove("runid")              # one name column: runid repeats the run names
    from .tables import latex, markdown
    paper = summary_table(evaluation, for_paper=True)
    exports = {"latex": latex(paper), "markdown": markdown(paper)}
    summary = {
        "columns": table.measures,
        "groups": {name: measure_group(name, table.cells[name]) for name in table.measures},
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
        "forest": forest(evaluation),
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
    if name.endswith(("_score", "_rank")):
        group = "preferences"
    elif all(text.lstrip("-").isdigit() for text in (cell.text for cell in cells)) or name in ("runid", "relstring"):
        group = "counts"
    elif re.search(r"(_\d|@\d|_cut_|iprec_at_recall)", name):
        group = "cutoffs"
    else:
        group = "measures"
    shown = name in DEFAULT_SHOWN or name.endswith("_score") or (group == "measures" and len(name) <= 12)
    return group + (" shown" if shown else "")


def _interval(values: np.ndarray, confidence: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(mean, low, high) per row of (rows, Q) values: the t interval of the mean."""
    from scipy.stats import t as student
    count = values.shape[1]
    mean = values.mean(axis=1) if count else np.full(len(values), np.nan)
    if count < 2:
        return mean, mean, mean
    half = student.ppf((1 + confidence) / 2, count - 1) * values.std(axis=1, ddof=1) / np.sqrt(count)
    return mean, mean - half, mean + half


def forest(evaluation: Result) -> dict:
    """The forest plot's numbers, per tested metric and preference score:
    each run's mean over the compared queries and its t interval; with a
    baseline, each run's mean difference from it (preference: its mean
    preference over it), the interval and the pair's p."""
    runs = evaluation.run_names
    options = evaluation.options
    confidence = options.confidence if options is not None else 0.95
    baseline = runs.index(options.baseline) if options is not None and options.baseline in runs else None
    out = {}
    sources = [(column.name, evaluation.compared_values(column).astype(np.float64)) for column in evaluation.columns
               if testable(column.measure) and len(runs) > 1]
    if evaluation.preferences is not None and len(runs) > 1 and hasattr(evaluation, "run_preference_scores"):
        sources += [(name, evaluation.run_preference_scores(name)) for name in evaluation.preference_names()]
    tests = evaluation.tests
    for name, values in sources:
        entry = dict(zip(("mean", "low", "high"), (_floats(v) for v in _interval(values, confidence))))
        if baseline is not None:
            if name in evaluation.preference_names():
                against = np.array([evaluation.preferences.of_pairs(name, np.array([[min(r, baseline),
                                    max(r, baseline)]]))[0] * (1 if r < baseline else -1) if r != baseline
                                    else np.zeros(values.shape[1]) for r in range(len(runs))])
            else:
                against = values - values[baseline]
            entry.update(zip(("difference", "difference_low", "difference_high"),
                             (_floats(v) for v in _interval(against, confidence))))
            p = np.full(len(runs), np.nan)
            if tests is not None and name in tests.p:
                for row, (a, b) in enumerate(evaluation.pairs.tolist()):
                    p[b if a == baseline else a] = tests.p[name][row]
            entry["p"] = _floats(p)
        out[name] = entry
    return {"measures": out, "confidence": confidence, "baseline": baseline}


def _floats(values) -> list:
    """Floats for JSON: NaN as None."""
    return [float(v) if np.isfinite(v) else None for v in np.asarray(values, dtype=np.float64)]


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
                .replace("{{PROVENANCE}}", provenance_html(data["provenance"]))
                .replace("{{CITATIONS}}", "".join(f"<li>{_escape(reference)}</li>" for reference in cited))
                .replace("/*{{STYLE}}*/", _asset("page.css"))
                .replace("/*{{SCRIPT}}*/", _asset("page.js"))
                .replace("{{DATA}}", payload))


OPTION_LABELS = [("relevance_level", "relevance level (-l)"), ("depth", "depth (-M)"),
                 ("judged_only", "judged only (-J)"), ("complete", "every query (-c)"), ("test", "test"),
                 ("correction", "correction"), ("alpha", "alpha"), ("seed", "seed"),
                 ("permutations", "permutations"), ("baseline", "baseline"), ("confidence", "interval (--ci)")]


def _size(count) -> str:
    if count is None:
        return "not a file here"
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} B"


def _shown(value) -> str:
    """An option's value as the page says it (1 and 0 are numbers, not yes and no)."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return f"{value:g}" if isinstance(value, float) else str(value)


def provenance_html(facts: dict) -> str:
    """The page's header: how it was made, from which files, with which options."""
    rows = "".join(f"<tr><td>{_escape(item['role'])}</td><td>{_escape(item['name'])}</td>"
                   f"<td>{_escape(item['path'] or '-')}</td><td>{_size(item['bytes'])}</td>"
                   f"<td><code>{_escape(item['sha256'] or '-')}</code></td></tr>" for item in facts["inputs"])
    options = "".join(f"<li><span>{_escape(label)}</span> <b>{_escape(_shown(facts['options'].get(key)))}</b></li>"
                      for key, label in OPTION_LABELS)
    command = _escape(facts["command"] or "")
    reproduce = _escape(facts["reproduce"] or "")
    return (f'<p>Made by lexeval {_escape(facts["lexeval"])} on <time datetime="{_escape(facts["date"])}">'
            f'{_escape(facts["date"])}</time>.</p>'
            f'<p class="command-line">Command: <code id="command">{command}</code></p>'
            f'<div class="scroll"><table id="inputs"><caption>Inputs: size and the first characters of each '
            f'file\'s SHA-256 (of the bytes as stored)</caption><thead><tr><th scope="col">role</th>'
            f'<th scope="col">name</th><th scope="col">path</th><th scope="col">size</th>'
            f'<th scope="col">SHA-256</th></tr></thead><tbody>{rows}</tbody></table></div>'
            f'<ul class="options" id="options">{options}</ul>'
            + (f'<p>To make it again (on files with the same digests): <code id="reproduce">{reproduce}</code></p>'
               if reproduce else ""))


def _plain(value):
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
