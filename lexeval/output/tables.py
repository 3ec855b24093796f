"""Summary tables: LaTeX and Markdown for papers, and a table for people
that fits the terminal, from the same values as :mod:`lexeval.output.records`.

One :class:`SummaryTable` holds what every table shows: each run's summary
value per measure, the best value per measure, and which differences are
significant. With a baseline, a run that differs from it (p < alpha after
correction) is marked (a dagger in papers, up/down arrows on screen);
without one, each run carries the letters of the runs it is significantly
better than (runs are lettered a, b, c... in command-line order, as ranx
does).
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..choices import CORRECTION_TITLES, TEST_TITLES
from ..interface import Result
from ..measures.registry import SUMMARY_NONE
from ..stats.pairs import testable
from .lines import formatted


def letter(index: int) -> str:
    """a, b, ..., z, aa, ab, ...: a run's letter."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = string.ascii_lowercase[rest] + letters
    return letters


@dataclass
class Cell:
    text: str                       # the value as printed (%6.4f, trimmed)
    best: bool = False
    better_than: list[int] = field(default_factory=list)    # runs this one is significantly better than
    worse_than: list[int] = field(default_factory=list)
    better: int = 0                  # how many: len(better_than), also where the lists are not made
    worse: int = 0
    half_width: float | None = None  # of the interval of the difference from the baseline
    fragile: int = 0                 # of its significant differences, those that could reverse (--bounds)
    fragile_with: list[int] = field(default_factory=list)     # the runs of those


@dataclass
class SummaryTable:
    """Runs (rows) by measures (columns) of summary values."""

    runs: list[str]
    measures: list[str]
    cells: dict[str, list[Cell]]    # measure -> one cell per run
    baseline: int | None
    caption: str
    values: dict[str, np.ndarray] = field(default_factory=dict)     # measure -> (R,) the numbers shown

    def marker(self, run: int, measure: str, style: str) -> str:
        """The significance mark of a cell: ``paper`` (dagger, letters) or
        ``screen`` (arrows with counts)."""
        cell = self.cells[measure][run]
        reverses = "?" if cell.fragile else ""
        if self.baseline is not None:
            if run == self.baseline or not (cell.better or cell.worse):
                return ""
            if style == "paper":
                return "†" + reverses
            return ("▲" if cell.better else "▼") + reverses
        if style == "paper":
            return "".join(letter(other) + ("?" if other in cell.fragile_with else "")
                           for other in sorted(cell.better_than))
        parts = [f"▲{cell.better}" if cell.better else "",
                 f"▼{cell.worse}" if cell.worse else "", f"?{cell.fragile}" if cell.fragile else ""]
        return " ".join(part for part in parts if part)


#: A preference's column with a baseline: each run's mean preference over the baseline.
AGAINST_BASELINE = " vs baseline"


def summary_table(evaluation: Result, for_paper: bool, with_lists: bool = True,
                  against_baseline: bool = True) -> SummaryTable:
    """The table of an evaluation: for papers, the real-valued measures and
    preference scores; for the screen, every summary value. ``with_lists``:
    each cell lists the runs it is significantly better and worse than (the
    screen needs only how many). With a baseline (and ``against_baseline``)
    a preference's column is ``<name> vs baseline``, each run's mean
    preference over the baseline, which its marks test; else ``<name>_score``
    (and ``_rank``), its mean preference over every other run."""
    runs = evaluation.run_names
    measures: list[str] = []
    cells: dict[str, list[Cell]] = {}
    numbers: dict[str, np.ndarray] = {}
    tested: dict[str, str] = {}                  # printed column -> tested measure
    for column in evaluation.columns:
        if column.measure.summary == SUMMARY_NONE or (for_paper and not testable(column.measure)):
            continue
        values = evaluation.summary(column)
        style = "text" if column.measure.text else "int" if column.measure.integer else "float"
        cells[column.name] = [Cell(text.strip()) for text in formatted(list(values), style)]
        numbers[column.name] = values
        measures.append(column.name)
        if testable(column.measure):
            tested[column.name] = column.name
            _mark_best(cells[column.name], np.asarray(values, dtype=np.float64))
    baseline = runs.index(evaluation.options.baseline) if evaluation.options and evaluation.options.baseline \
        else None
    for name in evaluation.preference_names():
        if baseline is not None and against_baseline:
            score, rank = _over_baseline(evaluation, name, baseline), None
            label = f"{name}{AGAINST_BASELINE}"
        else:
            score, rank = evaluation.run_preference_summary(name)
            label = f"{name}_score"
        cells[label] = [Cell(text.strip()) for text in formatted(list(score), "float")]
        numbers[label] = score
        measures.append(label)
        tested[label] = name
        _mark_best(cells[label], score)
        if not for_paper and rank is not None:
            cells[f"{name}_rank"] = [Cell(str(int(value))) for value in rank]
            numbers[f"{name}_rank"] = rank
            measures.append(f"{name}_rank")
    _mark_significance(evaluation, cells, tested, baseline, with_lists)
    return SummaryTable(runs, measures, cells, baseline, caption(evaluation, baseline, screen=not for_paper),
                        numbers)


def _over_baseline(evaluation: Result, name: str, baseline: int) -> np.ndarray:
    """(R,) each run's mean preference ``name`` over the baseline (0 for the
    baseline itself, which ties itself on every query)."""
    out = np.zeros(len(evaluation.run_names))
    mean = evaluation.pair_summary.mean[name]
    for row, (first, second) in enumerate(evaluation.pairs.tolist()):       # run:baseline
        out[first if second == baseline else second] = mean[row] if second == baseline else -mean[row]
    return out + 0.0


def _mark_best(cells: list[Cell], values: np.ndarray) -> None:
    if len(values) > 1 and np.isfinite(values).any():
        best = np.nanmax(values)
        for cell, value in zip(cells, values):
            cell.best = bool(value == best)


def _mark_significance(evaluation: Result, cells: dict[str, list[Cell]], tested: dict[str, str],
                       baseline: int | None, with_lists: bool = True) -> None:
    """Each cell's significant wins and losses: counts, and (``with_lists``)
    the runs themselves; whole arrays per measure, not a loop over pairs."""
    tests, pairs = evaluation.tests, evaluation.pairs
    if tests is None or pairs is None:
        return
    alpha = evaluation.options.alpha
    runs = len(evaluation.run_names)
    firsts, seconds = np.ascontiguousarray(pairs[:, 0]), np.ascontiguousarray(pairs[:, 1])
    for label, measure in tested.items():
        if measure not in tests.p:
            continue
        significant = tests.p[measure] < alpha
        forward = significant & (tests.mean_difference[measure] > 0)             # A better than B
        backward = significant ^ forward
        wins = np.bincount(firsts[forward], minlength=runs) + np.bincount(seconds[backward], minlength=runs)
        losses = np.bincount(seconds[forward], minlength=runs) + np.bincount(firsts[backward], minlength=runs)
        for cell, won, lost in zip(cells[label], wins.tolist(), losses.tolist()):
            cell.better, cell.worse = won, lost
        bounds = getattr(evaluation, "difference_bounds", None)
        if bounds is not None and measure in bounds.fragile:
            could_reverse = bounds.fragile[measure] & significant
            counted = np.bincount(firsts[could_reverse], minlength=runs) + \
                np.bincount(seconds[could_reverse], minlength=runs)
            for run, (cell, count) in enumerate(zip(cells[label], counted.tolist())):
                cell.fragile = count
                if with_lists:
                    cell.fragile_with = sorted(seconds[could_reverse & (firsts == run)].tolist()
                                               + firsts[could_reverse & (seconds == run)].tolist())
        if with_lists:
            ahead = forward[significant]
            a, b = firsts[significant], seconds[significant]
            winner, loser = np.where(ahead, a, b), np.where(ahead, b, a)
            for owner, other, attribute in ((winner, loser, "better_than"), (loser, winner, "worse_than")):
                order = np.lexsort((other, owner))
                bounds = np.searchsorted(owner[order], np.arange(runs + 1))
                listed = other[order].tolist()
                for run, cell in enumerate(cells[label]):
                    setattr(cell, attribute, listed[bounds[run]:bounds[run + 1]])
        if baseline is not None and measure in tests.effect:
            for row, (first, second) in enumerate(pairs.tolist()):
                other = second if first == baseline else first
                low, high = tests.ci_low[measure][row], tests.ci_high[measure][row]
                cells[label][other].half_width = float(high - low) / 2


def caption(evaluation: Result, baseline: int | None, screen: bool = False) -> str:
    """What the marks mean: the tests, the correction, alpha, the letters
    (``screen``: the arrows of the table for people)."""
    options = evaluation.options
    if len(evaluation.run_names) < 2:
        return "Summary values over the queries."
    if evaluation.tests is None:
        return "Best value per column in bold."
    test = TEST_TITLES.get(options.test, options.test)
    if options.test == "randomization":
        test += f" ({options.permutations:,} permutations)"
    parts = [f"{test[0].upper()}{test[1:]} for metrics"]
    if evaluation.preference_names():
        parts.append("sign test for LP and LR, one-sample t-test for rrLP and rrLR")
    text = "; ".join(parts)
    if options.correction != "none":
        text += f"; {CORRECTION_TITLES[options.correction]} correction over the pairs"
    text += f"; alpha = {options.alpha:g}. Best value per column in bold."
    runs = evaluation.run_names
    if baseline is not None:
        text += (f" ▲/▼: significantly better/worse than the baseline, {runs[baseline]}." if screen else
                 f" † differs significantly from the baseline, {runs[baseline]}.")
        if evaluation.preference_names():
            text += f" A preference{AGAINST_BASELINE}: each run's mean preference over {runs[baseline]}."
        if options.ci and not screen:
            text += (f" ± half-width of the {options.confidence:.0%} interval of the difference from the "
                     "baseline.")
    else:
        text += (" ▲k ▼j: significantly better than k runs, worse than j." if screen else
                 " Superscripts: the runs a run is significantly better than.")
    if getattr(evaluation, "difference_bounds", None) is not None:
        text += (" ?k: k of those differences could reverse were the unjudged documents judged (--bounds)."
                 if screen and baseline is None else
                 " ?: the difference could reverse were the unjudged documents judged (--bounds).")
    return text


# ---------------------------------------------------------------- papers


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "_": r"\_", "%": r"\%", "&": r"\&", "#": r"\#", "$": r"\$",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(char, char) for char in text).replace("†", r"$^\dagger$") \
        .replace("±", r"$\pm$").replace("α", r"$\alpha$")


def _transposed(table: SummaryTable) -> bool:
    """Measures as rows when there are many more of them than runs."""
    return len(table.measures) > max(6, len(table.runs))


def _paper_cell(table: SummaryTable, run: int, measure: str, style: dict) -> str:
    cell = table.cells[measure][run]
    text = style["number"](cell.text)
    text = style["bold"](text) if cell.best else text
    if cell.half_width is not None and np.isfinite(cell.half_width):
        text += style["plus_minus"] + f"{cell.half_width:.4f}"
    mark = table.marker(run, measure, "paper")
    if mark == "†":
        return text + style["dagger"]
    return text + (style["superscript"](mark) if mark else "")


def _run_label(table: SummaryTable, run: int) -> str:
    name = table.runs[run]
    if len(table.runs) == 1:
        return name
    if table.baseline is not None:
        return f"{name} (baseline)" if run == table.baseline else name
    return f"({letter(run)}) {name}"


def _grid(table: SummaryTable, style: dict) -> tuple[list[str], list[list[str]]]:
    """Header and rows of a paper table, in the better orientation; cells
    are final (escaped) text."""
    escape = style["escape"]
    runs = range(len(table.runs))
    if _transposed(table):
        header = ["Measure"] + [escape(_run_label(table, run)) for run in runs]
        rows = [[escape(measure)] + [_paper_cell(table, run, measure, style) for run in runs]
                for measure in table.measures]
    else:
        header = ["Run"] + [escape(measure) for measure in table.measures]
        rows = [[escape(_run_label(table, run))] + [_paper_cell(table, run, measure, style)
                                                     for measure in table.measures] for run in runs]
    return header, rows


LATEX: dict[str, Any] = {
    "escape": latex_escape, "number": lambda text: "$-$" + text[1:] if text.startswith("-") else text,
    "bold": lambda text: r"\textbf{" + text + "}", "plus_minus": r" $\pm$ ",
    "dagger": r"$^\dagger$", "superscript": lambda letters: f"$^{{{letters}}}$"}
MARKDOWN: dict[str, Any] = {"escape": lambda text: text.replace("|", "\\|"), "number": lambda text: text,
            "bold": lambda text: f"**{text}**",
            "plus_minus": " ± ", "dagger": "†", "superscript": lambda letters: f"<sup>{letters}</sup>"}


def latex(table: SummaryTable) -> str:
    """A LaTeX table (booktabs) for a paper; \\input it, or paste it."""
    return latex_tabular(*_grid(table, LATEX), latex_escape(table.caption))


def latex_tabular(header: list[str], rows: list[list[str]], caption_text: str, labels: int = 1) -> str:
    """A table environment from final (escaped) cells, the first ``labels`` columns left-aligned."""
    lines = ["% lexeval: needs \\usepackage{booktabs}", r"\begin{table}[t]", r"\centering", r"\small",
             r"\setlength{\tabcolsep}{4pt}",
             r"\caption{" + caption_text + "}", r"\begin{tabular}{" + "l" * labels + "r" * (len(header) - labels) + "}",
             r"\toprule", " & ".join(header) + r" \\", r"\midrule"]
    lines += [" & ".join(row) + r" \\" for row in rows]
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def markdown(table: SummaryTable) -> str:
    """A Markdown (GitHub) table, with the caption under it."""
    return markdown_table(*_grid(table, MARKDOWN), table.caption)


def markdown_table(header: list[str], rows: list[list[str]], caption_text: str, labels: int = 1) -> str:
    """A pipe table from final (escaped) cells, its first ``labels`` columns
    left-aligned and the others right, the caption in italics below."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * labels + "---:|" * (len(header) - labels)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + f"\n\n*{caption_text}*\n"


# ---------------------------------------------------------------- the screen


def _console(out, width: int | None):
    """A rich Console on ``out`` whose closed pipe is a BrokenPipeError, as
    for every other format (rich's own answer is SystemExit(1), the status
    of a failed gate)."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError()

    return _Console(file=out, width=width) if width else _Console(file=out)


def screen_tables(table: SummaryTable, out, width: int | None = None) -> None:
    """Rich tables that fit the terminal: runs as rows and measures as
    columns; when that is too wide, measures as rows and runs as columns;
    when that is too wide too, the measures are split over several tables."""
    from rich.table import Table

    console = _console(out, width)
    width = console.width

    made: dict[str, list[str]] = {}         # each cell's text, made once (widths, layouts and rows read it)

    def text(run: int, measure: str) -> str:
        if measure not in made:
            made[measure] = [cell.text + (f" {mark}" if (mark := table.marker(r, measure, "screen")) else "")
                             for r, cell in enumerate(table.cells[measure])]
        return made[measure][run]

    def measure_width(measure: str) -> int:
        return max([len(measure)] + [len(text(run, measure)) for run in range(len(table.runs))]) + 3

    run_width = max(len(run) for run in table.runs + ["run"]) + 4
    wide = run_width + sum(measure_width(measure) for measure in table.measures) + 1
    if wide <= width or not table.measures:
        groups = [table.measures]
    else:
        tall = max(len(m) for m in table.measures) + 4 + sum(
            max(len(run), *(len(text(r, m)) for m in table.measures)) + 3
            for r, run in enumerate(table.runs)) + 1
        if tall <= width:
            _print_transposed(console, table, text)
            console.print(table.caption, style="dim")
            return
        groups = []
        group: list = []
        used = run_width + 1
        for measure in table.measures:                          # fill each table up to the width
            size = measure_width(measure)
            if group and used + size > width:
                groups.append(group)
                group, used = [], run_width + 1
            group.append(measure)
            used += size
        groups.append(group)
    for group in groups:
        rows = [[name, *[text(run, measure) for measure in group]] for run, name in enumerate(table.runs)]
        if _print_plain(console, ["run", *group], rows):
            continue
        grid = Table()
        grid.add_column("run", style="bold", no_wrap=True)
        for measure in group:
            grid.add_column(measure, justify="right", no_wrap=True)
        for run, name in enumerate(table.runs):
            grid.add_row(name, *[_screen_cell(table, run, measure, text) for measure in group])
        console.print(grid)
    console.print(table.caption, style="dim")


def _print_plain(console, header: list[str], rows: list[list[str]]) -> bool:
    """Print rich's table (its heavy head, the first column left and the
    others right, no styles) where styles would not show (a file or a pipe)
    and every column fits: the same characters a thousand times faster than
    rich lays them out. False where rich must do it."""
    if console.is_terminal or console.color_system is not None:
        return False
    from rich.cells import cell_len
    widths = [max(cell_len(row[column]) for row in [header, *rows]) for column in range(len(header))]
    if sum(widths) + 3 * len(widths) + 1 > console.width:
        return False                     # rich shortens cells to fit: its own business

    def line(cells: list[str], edge: str, middle: str) -> str:
        padded = [cell + " " * (width - cell_len(cell)) if column == 0 else " " * (width - cell_len(cell)) + cell
                  for column, (cell, width) in enumerate(zip(cells, widths))]
        return f"{edge} " + f" {middle} ".join(padded) + f" {edge}\n"
    rules = ["━" * (width + 2) for width in widths]
    lines = ["┏" + "┳".join(rules) + "┓\n", line(header, "┃", "┃"), "┡" + "╇".join(rules) + "┩\n"]
    lines += [line(row, "│", "│") for row in rows]
    lines.append("└" + "┴".join("─" * (width + 2) for width in widths) + "┘\n")
    console.file.write("".join(lines))
    return True


def _screen_cell(table: SummaryTable, run: int, measure: str, text) -> str:
    value = text(run, measure)
    return f"[bold]{value}[/bold]" if table.cells[measure][run].best else value


def _print_transposed(console, table: SummaryTable, text) -> None:
    from rich.table import Table
    rows = [[measure, *[text(run, measure) for run in range(len(table.runs))]] for measure in table.measures]
    if _print_plain(console, ["measure", *table.runs], rows):
        return
    grid = Table()
    grid.add_column("measure", style="bold", no_wrap=True)
    for run in table.runs:
        grid.add_column(run, justify="right", no_wrap=True)
    for measure in table.measures:
        grid.add_row(measure, *[_screen_cell(table, run, measure, text) for run in range(len(table.runs))])
    console.print(grid)


