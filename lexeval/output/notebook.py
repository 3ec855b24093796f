"""The result as a notebook user reads it: tidy frames that reshape as they
come (numbers in ``value``), a baseline comparison as PyTerrier's
Experiment prints it, and a short ``repr``.

Frames are pandas DataFrames by default (polars where pandas is missing),
polars ones with ``library="polars"``, and plain dicts of numpy arrays with
``library="numpy"``; neither pandas nor polars is a dependency of lexeval.
"""

from __future__ import annotations

import numpy as np

from ..choices import CORRECTIONS, SIGN_PREFERENCES
from ..errors import UsageError
from ..stats import significance as sig
from ..stats.pairs import testable

LIBRARIES = ("pandas", "polars", "numpy")
FRAME_KINDS = ("records", "summary", "per_query", "pairs")


def make_frame(columns: dict[str, list], library: str | None):
    """``columns`` as the frame ``library`` asks for (see the module)."""
    if library is not None and library not in LIBRARIES:
        raise UsageError(f"library must be one of {', '.join(LIBRARIES)}, or None; got {library!r}")
    if library == "numpy":
        return {name: np.asarray(values, dtype=object if any(isinstance(v, str) or v is None for v in values)
                                 else None) for name, values in columns.items()}
    if library in (None, "pandas"):
        try:
            import pandas
            return pandas.DataFrame(columns)
        except ImportError:
            if library == "pandas":
                raise ImportError("library='pandas' needs pandas: pip install pandas") from None
    try:
        import polars
    except ImportError:
        raise ImportError("frames need pandas or polars (pip install pandas), or library='numpy'") from None
    return polars.DataFrame(columns, strict=False)


def wanted_names(evaluation, measures) -> set[str] | None:
    """The printed names ``measures`` (any accepted names) stand for; a name
    not computed is a KeyError that lists the computed ones."""
    if measures is None:
        return None
    from ..parameters import measure_names
    return {evaluation.printed_name(name) for name in measure_names(measures) or []}


def summary_columns(evaluation, wanted: set[str] | None) -> dict[str, list]:
    """One row per run and numeric summary value: run, measure, value;
    preferences as <name>_score and <name>_rank."""
    columns: dict[str, list] = {"run": [], "measure": [], "value": []}

    def add(name: str, values) -> None:
        columns["run"].extend(evaluation.run_names)
        columns["measure"].extend([name] * len(evaluation.run_names))
        columns["value"].extend(float(value) for value in values)

    for column in evaluation.columns:
        if column.measure.text or column.measure.summary == "none" or (wanted and column.name not in wanted):
            continue
        add(column.name, evaluation.summary(column))
    for name in evaluation.preference_names():
        if not wanted or name in wanted:
            score, rank = evaluation.run_preference_summary(name)
            add(f"{name}_score", score)
            add(f"{name}_rank", rank)
    return columns


def per_query_columns(evaluation, wanted: set[str] | None) -> dict[str, list]:
    """One row per run, query and per-query value the run's average counts:
    run, qid, measure, value."""
    columns: dict[str, list] = {"run": [], "qid": [], "measure": [], "value": []}
    qids = np.array(evaluation.qids, dtype=object)
    for column in evaluation.columns:
        if column.measure.text or not column.measure.per_query or (wanted and column.name not in wanted):
            continue
        for run_index, run in enumerate(evaluation.run_names):
            chosen = np.flatnonzero(evaluation.included[run_index])
            columns["run"].extend([run] * len(chosen))
            columns["qid"].extend(qids[chosen].tolist())
            columns["measure"].extend([column.name] * len(chosen))
            columns["value"].extend(column.values[run_index, chosen].tolist())
    return columns


def pair_columns(evaluation, wanted: set[str] | None) -> dict[str, list]:
    """One row per tested pair and measure: pair ("A:B"), a, b, measure,
    mean (A minus B, or A's mean preference), win, loss, tie (NaN where not
    counted), p (corrected), raw_p, and with ci the interval and effect."""
    names = ["pair", "a", "b", "measure", "mean", "win", "loss", "tie", "p", "raw_p", "ci_low", "ci_high", "effect"]
    columns: dict[str, list] = {name: [] for name in names}
    if evaluation.pairs is None:
        return columns
    runs, pairs = evaluation.run_names, evaluation.pairs.tolist()
    tests, summary, as_preferences = evaluation.tests, evaluation.pair_summary, evaluation.metric_pairs
    measures = list(evaluation.preference_names()) + \
        [column.name for column in evaluation.columns if testable(column.measure)]
    for name in measures:
        if wanted and name not in wanted:
            continue
        if summary is not None and name in summary.mean:
            mean = summary.mean[name]
            counts: tuple | None = (summary.wins[name], summary.losses[name], summary.ties[name])
        elif tests is not None and name in tests.mean_difference:
            mean = tests.mean_difference[name]
            counts = (as_preferences.wins[name], as_preferences.losses[name], as_preferences.ties[name]) \
                if as_preferences is not None and name in as_preferences.wins else None
        else:
            continue
        nan = np.full(len(pairs), np.nan)
        for row, (a, b) in enumerate(pairs):
            columns["pair"].append(f"{runs[a]}:{runs[b]}")
            columns["a"].append(runs[a])
            columns["b"].append(runs[b])
            columns["measure"].append(name)
            columns["mean"].append(float(mean[row]))
            for key, values in zip(("win", "loss", "tie"), counts or (nan, nan, nan)):
                columns[key].append(float(values[row]))
            for key, source in (("p", "p"), ("raw_p", "raw_p"), ("ci_low", "ci_low"), ("ci_high", "ci_high"),
                                ("effect", "effect")):
                values = getattr(tests, source).get(name) if tests is not None else None
                columns[key].append(float(values[row]) if values is not None else float("nan"))
    return columns


def pair_values(evaluation, name: str, measures) -> dict[str, dict[str, float]]:
    """See :meth:`lexeval.result.ResultViews.pair`."""
    first, colon, second = name.partition(":") if isinstance(name, str) else ("", "", "")
    runs = evaluation.run_names
    if not colon or first not in runs or second not in runs or first == second:
        raise KeyError(f"{name!r} is not a pair 'A:B' of two runs ({', '.join(runs)})")
    columns = pair_columns(evaluation, wanted_names(evaluation, measures))
    found, flipped = f"{first}:{second}", False
    if found not in columns["pair"]:
        found, flipped = f"{second}:{first}", True
    rows = [index for index, key in enumerate(columns["pair"]) if key == found]
    if not rows:
        raise KeyError(f"{name!r} was not tested (with a baseline, only its pairs are)")
    values = {}
    for index in rows:
        entry = {key: columns[key][index] for key in ("mean", "win", "loss", "tie", "p", "raw_p", "ci_low",
                                                       "ci_high", "effect")}
        if flipped:
            entry.update(mean=-entry["mean"], win=entry["loss"], loss=entry["win"], ci_low=-entry["ci_high"],
                         ci_high=-entry["ci_low"], effect=-entry["effect"])
        values[columns["measure"][index]] = entry
    return values


def frame_of(evaluation, kind: str, wanted, library, per_query: bool, summary: bool):
    if kind == "summary":
        return make_frame(summary_columns(evaluation, wanted), library)
    if kind == "per_query":
        return make_frame(per_query_columns(evaluation, wanted), library)
    if kind == "pairs":
        return make_frame(pair_columns(evaluation, wanted), library)
    raise UsageError(f"kind must be one of {', '.join(FRAME_KINDS)}; got {kind!r}")


def baseline_comparison(evaluation, baseline: str, correction: str | None, library: str | None):
    """PyTerrier's Experiment with a baseline: one row per run (``name``);
    per tested measure its value, ``<m> diff`` (run minus baseline), ``<m>
    +`` / ``<m> -`` / ``<m> =`` (queries better, worse, tied), ``<m>
    p-value`` and, with a correction over the runs compared with the
    baseline, ``<m> p-value corrected`` and ``<m> reject``; per preference,
    the run's mean preference over the baseline (``<pref>``), its wins and
    losses, and the p-values. The baseline's row holds NaN where a
    comparison would be with itself."""
    runs = evaluation.run_names
    if baseline not in runs:
        raise UsageError(f"baseline {baseline!r} is not one of the runs ({', '.join(runs)})")
    correction = evaluation.options.correction if correction is None else correction
    if correction not in CORRECTIONS:
        raise UsageError(f"correction must be one of {', '.join(CORRECTIONS)}, or None; got {correction!r}")
    base = runs.index(baseline)
    pairs = evaluation.pairs.tolist() if evaluation.pairs is not None else []
    row_of = {}                                  # other run -> (row in pairs, sign of run minus baseline)
    for row, (a, b) in enumerate(pairs):
        if base in (a, b):
            row_of[b if a == base else a] = (row, 1.0 if b == base else -1.0)
    others = [r for r in range(len(runs)) if r != base]
    if evaluation.tests is None or any(r not in row_of for r in others):
        tested = evaluation.options.baseline
        raise UsageError(f"this evaluation has no tests of every run against {baseline!r}"
                         + (f" (it tested against {tested!r})" if tested else " (test='none')")
                         + f": evaluate with baseline={baseline!r}")
    columns: dict[str, list] = {"name": list(runs)}
    tests, summary = evaluation.tests, evaluation.pair_summary

    def tested_columns(label: str, name: str, means: np.ndarray, wins, losses, ties) -> None:
        raw = np.full(len(runs), np.nan)
        raw[others] = [tests.raw_p[name][row_of[r][0]] for r in others]
        columns[f"{label} +"], columns[f"{label} -"], columns[f"{label} ="] = wins, losses, ties
        columns[f"{label} p-value"] = raw.tolist()
        if correction != "none":
            corrected = np.full(len(runs), np.nan)
            corrected[others] = sig.correct(raw[others], correction)
            columns[f"{label} p-value corrected"] = corrected.tolist()
            columns[f"{label} reject"] = [bool(value < evaluation.options.alpha) if r != base else False
                                          for r, value in enumerate(corrected)]

    for column in evaluation.columns:
        if not testable(column.measure) or column.name not in tests.raw_p:
            continue
        values = evaluation.summary(column)
        columns[column.name] = [float(v) for v in values]
        columns[f"{column.name} diff"] = [float(v - values[base]) for v in values]
        per_query = evaluation.compared_values(column)
        difference = per_query - per_query[base]
        counts = [np.sum(test, axis=1).astype(float) for test in (difference > 0, difference < 0, difference == 0)]
        for count in counts:
            count[base] = np.nan                # the baseline is not compared with itself
        tested_columns(column.name, column.name, values, *(count.tolist() for count in counts))
    for name in evaluation.preference_names():
        if name not in tests.raw_p:
            continue
        mean, wins, losses, ties = (np.full(len(runs), np.nan) for _ in range(4))
        for r in others:
            row, sign = row_of[r]
            mean[r] = sign * summary.mean[name][row]
            if name in SIGN_PREFERENCES:
                first, second = (summary.wins[name][row], summary.losses[name][row]) if sign > 0 else \
                    (summary.losses[name][row], summary.wins[name][row])
                wins[r], losses[r], ties[r] = first, second, summary.ties[name][row]
        columns[name] = mean.tolist()
        tested_columns(name, name, mean, wins.tolist(), losses.tolist(), ties.tolist())
    return make_frame(columns, library)


def _repr_parts(evaluation, most_runs: int, most_measures: int):
    """(head, header, rows, footer) of the short repr: the shape and tests,
    runs x the first measures as printed, and what else there is."""
    runs = evaluation.run_names
    numeric = [column for column in evaluation.columns if not column.measure.text and column.measure.summary != "none"]
    preferences = evaluation.preference_names()
    tests = evaluation.tests
    pairs = 0 if evaluation.pairs is None else len(evaluation.pairs)
    tested = "" if tests is None else f"; {pairs} pair{'s' * (pairs != 1)} tested ({evaluation.options.test} " \
        f"test, correction {evaluation.options.correction}" + \
        (f", baseline {evaluation.options.baseline}" if evaluation.options.baseline else "") + ")"
    head = (f"lexeval Evaluation: {len(runs)} run{'s' * (len(runs) != 1)} x {len(evaluation.qids)} queries, "
            f"{len(numeric)} measure{'s' * (len(numeric) != 1)}"
            + (f", preferences {', '.join(preferences)}" if preferences else "") + tested)
    shown = [(column.name, evaluation.summary(column), column.measure.integer) for column in numeric[:most_measures]]
    shown += [(f"{name}_score", evaluation.run_preference_summary(name)[0], False)
              for name in preferences[:max(0, most_measures - len(shown))]]
    header = ["run"] + [name for name, _, _ in shown]
    rows = [[run] + [("%d" % values[index] if integer else "%.4f" % values[index]) for _, values, integer in shown]
            for index, run in enumerate(runs[:most_runs])] if shown else []
    rest = []
    if len(runs) > most_runs:
        rest.append(f"{len(runs) - most_runs} more runs")
    if len(numeric) + len(preferences) > len(shown):
        rest.append(f"{len(numeric) + len(preferences) - len(shown)} more measures")
    footer = ("; ".join(rest) + "; " if rest else "") + \
        "summary_frame(), query_frame(), pair_frame(): every value; compare(), to_latex(), to_html(), page()"
    return head, header, rows, footer


def short_repr(evaluation, most_runs: int = 25, most_measures: int = 6) -> str:
    """A few lines: the shape, the tests, and runs x the first measures."""
    head, header, rows, footer = _repr_parts(evaluation, most_runs, most_measures)
    if not rows:
        return f"<{head}>"
    widths = [max(len(row[column]) for row in [header, *rows]) for column in range(len(header))]
    widths[1:] = [max(width, 7) for width in widths[1:]]
    lines = [f"<{head}>"] + ["  ".join([row[0].ljust(widths[0])] + [cell.rjust(w) for cell, w in
                                                                   zip(row[1:], widths[1:])])
                             for row in [header, *rows]]
    return "\n".join(lines + [f"({footer})"])


def short_repr_html(evaluation, most_runs: int = 25, most_measures: int = 6) -> str:
    """The short repr as a small HTML table for a notebook (a few
    kilobytes, whatever the evaluation); the whole page is ``to_html()``."""
    from html import escape
    head, header, rows, footer = _repr_parts(evaluation, most_runs, most_measures)
    cells = "".join(f"<th>{escape(name)}</th>" for name in header)
    right = ' style="text-align: right"'
    body = "".join("<tr>" + "".join(f"<td{right if column else ''}>{escape(cell)}</td>"
                                    for column, cell in enumerate(row)) + "</tr>" for row in rows)
    table = f"<table><thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table>" if rows else ""
    return (f'<div class="lexeval-evaluation"><p><b>{escape(head)}</b></p>{table}'
            f"<p><small>{escape(footer)}; the whole page here: <code>ev.page()</code></small></p></div>")


class Page(str):
    """The HTML page (a str) that a notebook shows whole, in a frame of its own."""

    def _repr_html_(self) -> str:
        from html import escape
        return (f'<iframe srcdoc="{escape(str(self), quote=True)}" style="width: 100%; height: 720px; '
                'border: 1px solid #d5dae2" sandbox="allow-scripts" title="lexeval"></iframe>')
