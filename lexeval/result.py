"""What every result offers a Python user, one machine's
(:class:`~lexeval.evaluation.Evaluation`) and a cluster's alike: tidy
frames, the baseline comparison, the paper's tables, the page, a short
repr. Each hands the result to the output layer below, which reads it
through :class:`lexeval.interface.Result` only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from .interface import Result


class ResultViews:
    """Methods over a result's run names, columns, summaries, pairs and tests."""

    # what the classes that offer these views hold (lexeval.interface.Result; run_names and qids too)
    columns: list[Any]
    pairs: Any
    tests: Any
    options: Any
    zscores: Any = None          # -Z's reference means and sds, where the values are z-scores
    parts: Any = None            # a cluster's: the part files of per-query lines its partitions wrote (--output)
    degradation_totals: Any = None   # the degradation report's counts, where a cluster's partitions made them

    def preference_names(self) -> list[str]:
        """The preferences computed (their printed names)."""
        raise NotImplementedError

    def _result(self) -> Result:
        """This result as the output layer reads it."""
        return cast("Result", self)

    def column(self, name: str):
        """The column of a measure by any accepted name: printed (``ndcg_cut_10``),
        trec_eval's (``ndcg_cut.10``), ir_measures' (``nDCG@10``), ranx's, pref_eval's."""
        printed = self.printed_name(name)
        for column in self.columns:
            if column.name == printed:
                return column
        raise KeyError(f"{name}: a preference, not a column (see run_preference_summary and pair_frame)")

    def printed_name(self, name: str) -> str:
        """The printed name of the one measure ``name`` stands for (itself if printed)."""
        if any(column.name == name for column in self.columns) or name in self.preference_names():
            return name
        from .errors import UsageError
        from .measures.names import output_names
        computed = ", ".join([column.name for column in self.columns] + self.preference_names())
        try:
            names = output_names(name)
        except UsageError as error:
            raise KeyError(f"{error}; computed here: {computed}") from None
        if len(names) != 1:
            raise KeyError(f"{name} stands for {len(names)} measures ({', '.join(names)}): name one of them")
        printed = ("Z" if self.zscores is not None else "") + names[0]
        if not any(column.name == printed for column in self.columns) and printed not in self.preference_names():
            raise KeyError(f"{name} ({printed}) was not computed; computed here: {computed}")
        return printed

    def to_frame(self, per_query: bool = True, summary: bool = True, library: str | None = None, measures=None,
                 *, kind: str = "records"):
        """A tidy frame. ``kind``: "records" (every printed line: run or
        pair, measure, qid, a numeric value, and text for runid), "summary"
        (run, measure, value), "per_query" (run, qid, measure, value),
        "pairs" (pair, a, b, measure, mean, win, loss, tie, p, ...).
        ``measures`` keeps those (and their tests); ``library``: pandas,
        polars or numpy. See :mod:`lexeval.output.frame`."""
        from .output.frame import to_frame
        return to_frame(self._result(), per_query, summary, library, measures, kind)

    def summary_frame(self, measures=None, library: str | None = None):
        """run, measure, value: ``.pivot(index="run", columns="measure", values="value")``."""
        return self.to_frame(measures=measures, library=library, kind="summary")

    def query_frame(self, measures=None, library: str | None = None):
        """run, qid, measure, value: every per-query value a run's average counts."""
        return self.to_frame(measures=measures, library=library, kind="per_query")

    def pair_frame(self, measures=None, library: str | None = None):
        """pair, a, b, measure, mean, win, loss, tie, p, raw_p, ci_low, ci_high, effect."""
        return self.to_frame(measures=measures, library=library, kind="pairs")

    def pair(self, name: str, measures=None) -> dict[str, dict[str, float]]:
        """One tested pair's values, ``"A:B"`` in either order: per measure its
        mean (A minus B, or A's mean preference over B), win, loss, tie, p,
        raw_p, ci_low, ci_high and effect, seen from the first run named
        (``"B:A"`` gives the signs flipped, wins and losses swapped)."""
        from .output.notebook import pair_values
        return pair_values(self, name, measures)

    def in_order(self, names):
        """The same result with its columns in the order ``names`` asked for them."""
        from .output.frame import in_order
        return in_order(self, names)

    def to_latex(self) -> str:
        """``--format latex``: the summary table for a paper (booktabs)."""
        from .output.frame import paper_table
        return paper_table(self, "latex")

    def to_markdown(self) -> str:
        """``--format markdown``: the summary table as GitHub Markdown."""
        from .output.frame import paper_table
        return paper_table(self, "markdown")

    def __repr__(self) -> str:
        from .output.notebook import short_repr
        return short_repr(self)

    def to_html(self, report_lines=None, command: str | None = None) -> str:
        """``--format html``: one self-contained page of the evaluation
        (where it came from, summary table, pair matrices, per-query
        differences, and the ``report_lines`` of
        :func:`lexeval.reports.run_reports`, if any); ``command``: how it
        was made, shown in the page's provenance (default: the Python call)."""
        from .output.html_page import html_page
        return html_page(self._result(), report_lines, command=command)

    def page(self, report_lines=None):
        """The page (``to_html()``) shown whole where a notebook displays it,
        in a frame of its own (its script and styles stay inside it)."""
        from .output.notebook import Page
        return Page(self.to_html(report_lines))

    def _repr_html_(self) -> str:
        """A notebook's view: the repr's table as HTML (small, whatever the
        evaluation's size); the whole page is ``to_html()``."""
        from .output.notebook import short_repr_html
        return short_repr_html(self)

    def compare(self, baseline: str | None = None, correction: str | None = None, library: str | None = None):
        """With ``baseline`` (a run's name), PyTerrier's Experiment: a row per
        run with each measure's value, its difference from the baseline,
        queries better/worse/tied, p and (with ``correction`` over the runs
        against the baseline) the corrected p, and each preference of the
        run against the baseline. Without one, ranx's compare report: a row
        per run, each measure's value and the runs it is significantly
        better than (or, if the evaluation had a baseline, its p and
        ``_vs_baseline``). See :mod:`lexeval.output.frame`."""
        from .output.frame import comparison
        return comparison(self._result(), library, baseline, correction)
