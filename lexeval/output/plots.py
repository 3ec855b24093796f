"""Figures for the reports (optional: ``pip install lexeval[plot]``)."""

from __future__ import annotations

import math
import os
from collections import defaultdict
from typing import Any

from ..errors import OutputError, UsageError

INSTALL_HINT = "--plot needs matplotlib: pip install 'lexeval[plot]' (or pip install matplotlib)"


def check_matplotlib() -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise UsageError(INSTALL_HINT) from None


def make_directory(directory: str) -> None:
    """Create the --plot directory now, before any work, or say why not."""
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"--plot: cannot create the directory '{directory}': {exc.strerror or exc}") from None
    if not os.access(directory, os.W_OK):
        raise UsageError(f"--plot: cannot write into the directory '{directory}'")


def write_plots(lines, directory: str) -> list[str]:
    """Write the figures the requested reports support; returns the paths.

    ties_by_level: tie probability by recall level (Diaz, "Best-Case Retrieval Evaluation", figure 5);
    deciding_level_ecdf: ECDF of the deciding level (figure 6);
    degradation_ties, degradation_agreement: curves over label fractions
    with one standard deviation (Diaz, "Best-Case Retrieval Evaluation",
    figures 8-9; Diaz, "Recall, Robustness, and Lexicographic Evaluation",
    figures 14-15); power_queries: queries needed against the minimum
    detectable difference (Sakai, "Topic set size design", 2016).
    """
    check_matplotlib()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    make_directory(directory)
    written: list[str] = []
    series: dict[tuple[str, str], list[tuple[Any, Any]]] = defaultdict(list)
    for line in lines:
        series[(line.report, line.measure)].append((line.parameter, line.value))

    def save(figure, name):
        for suffix in ("png", "svg"):
            path = os.path.join(directory, f"{name}.{suffix}")
            try:
                figure.savefig(path, dpi=150, bbox_inches="tight")
            except OSError as exc:
                raise OutputError(f"--plot: cannot write {path}: {exc.strerror or exc}") from None
            written.append(path)
        plt.close(figure)

    level = series.get(("ties", "LP_level"))
    if level:
        figure, axes = plt.subplots(figsize=(6, 3.5))
        axes.plot([int(p) for p, _ in level], [v for _, v in level], marker=".")
        axes.set(xlabel="recall level i", ylabel="% of (query, pair) cases tied at p_i",
                 title="Ties by recall level")
        save(figure, "ties_by_level")
    decided = series.get(("ties", "LP_decided_at"))
    if decided:
        levels = [int(p) for p, _ in decided]
        cumulative, total = [], 0.0
        for _, value in decided:
            total += value
            cumulative.append(total / 100.0)
        figure, axes = plt.subplots(figsize=(6, 3.5))
        axes.step(levels, cumulative, where="post")
        axes.set(xlabel="deciding recall level i*", ylabel="cumulative fraction of decided cases",
                 title="ECDF of the deciding level (LP)", ylim=(0, 1.02))
        save(figure, "deciding_level_ecdf")
    for what in ("ties", "agreement"):
        curves = {measure[: -len(f"_{what}_mean")]: values for (report, measure), values in series.items()
                  if report == "degradation" and measure.endswith(f"_{what}_mean")}
        if not curves:
            continue
        figure, axes = plt.subplots(figsize=(6, 3.5))
        for measure, values in curves.items():
            spread = dict(series[("degradation", f"{measure}_{what}_sd")])
            x = [float(p) for p, _ in values]
            y = [v for _, v in values]
            error = [spread.get(p, 0.0) for p, _ in values]
            axes.errorbar(x, y, yerr=error, marker="o", capsize=3, label=measure)
        axes.invert_xaxis()
        axes.set(xlabel="fraction of relevant labels kept",
                 ylabel="% tied" if what == "ties" else "% agreeing with full labels",
                 title=f"Label degradation: {what}")
        axes.legend(fontsize="small")
        save(figure, f"degradation_{what}")
    needed = {measure: values for (report, measure), values in series.items() if report == "power"}
    if needed:         # Sakai's topic set size curves: queries needed against the difference to detect
        figure, axes = plt.subplots(figsize=(6, 3.5))
        for measure, values in needed.items():
            for test, style in (("t", "o-"), ("anova", "s--")):
                points = sorted((float(p.split("@", 1)[1]), v) for p, v in values
                                if p.startswith(f"queries_{test}@") and v > 0)
                if points:
                    axes.plot([x for x, _ in points], [y for _, y in points], style,
                              label=f"{measure} ({'paired t-test' if test == 't' else 'one-way ANOVA'})")
        axes.set(xlabel="minimum detectable difference (delta)", ylabel="queries needed", yscale="log",
                 title="Topic set size: queries needed to see delta")
        axes.legend(fontsize="small")
        save(figure, "power_queries")
    effects = {measure: dict(values) for (report, measure), values in series.items()
               if report == "reproduction" and {"ER", "DeltaRI"} <= dict(values).keys()}
    effects = {m: v for m, v in effects.items() if all(map(math.isfinite, (v["ER"], v["DeltaRI"])))}
    if effects:        # repro_eval's picture: effect ratio against delta relative improvement
        figure, axes = plt.subplots(figsize=(6, 4.5))
        axes.axvline(1.0, color="0.6", linewidth=0.8)
        axes.axhline(0.0, color="0.6", linewidth=0.8)
        for measure, effect in effects.items():
            axes.scatter(effect["ER"], effect["DeltaRI"], marker="o")
            axes.annotate(measure, (effect["ER"], effect["DeltaRI"]), fontsize="small",
                          xytext=(3, 3), textcoords="offset points")
        axes.set(xlabel="effect ratio ER (1: the improvement reproduced in full)",
                 ylabel="delta relative improvement (0: the same)",
                 title="Reproduction: effect ratio against delta RI")
        save(figure, "reproduction_er_deltari")
    ranking = {measure: dict(values) for (report, measure), values in series.items()
               if report == "reproduction" and measure.startswith(("KTU@", "RBO@"))}
    if ranking:        # KTU and RBO over the cutoffs, per run
        figure, axes = plt.subplots(figsize=(6, 3.5))
        for what, style in (("KTU", "o-"), ("RBO", "s--")):
            for role in ("baseline", "advanced"):
                points = sorted((int(measure.split("@")[1]), values[role]) for measure, values in ranking.items()
                                if measure.startswith(what + "@") and role in values)
                axes.plot([k for k, _ in points], [v for _, v in points], style, label=f"{what} {role}")
        axes.set(xlabel="cutoff k (documents compared)", ylabel="agreement with the original run",
                 xscale="log", title="Reproduction: document orderings")
        axes.legend(fontsize="small")
        save(figure, "reproduction_rankings")
    for report, draw in (("judges", _judges_figures), ("reusability", _reusability_figure)):
        if any(key[0] == report for key in series):
            for figure, name in draw(plt, {m: v for (r, m), v in series.items() if r == report}):
                save(figure, name)
    return written


def _grid(plt, count: int, title: str):
    """A figure of ``count`` small panels (at most 12), three a row."""
    count = min(count, 12)
    columns = min(count, 3)
    rows = (count + columns - 1) // columns
    figure, axes = plt.subplots(rows, columns, figsize=(3.6 * columns, 3.3 * rows), squeeze=False)
    for extra in axes.flat[count:]:
        extra.set_visible(False)
    figure.suptitle(title)
    return figure, list(axes.flat[:count])


def _judges_figures(plt, series: dict):
    """Per compared judgement set: each measure's two leaderboards, one run
    a point, against the identity line (points off it: runs the sets score
    differently; crossings: rank changes)."""
    scores: dict = {}
    for measure, values in series.items():
        for parameter, value in values:
            if parameter.startswith("score:"):
                _, judgement_set, run = parameter.split(":", 2)
                scores.setdefault(measure, {}).setdefault(judgement_set, {})[run] = value
    sets = list(dict.fromkeys(s for by_set in scores.values() for s in by_set))
    if len(sets) < 2:
        return
    first = sets[0]
    for compared in sets[1:]:
        measures = [m for m in scores if compared in scores[m]]
        figure, panels = _grid(plt, len(measures), f"Leaderboards: {first} against {compared}")
        for axes, measure in zip(panels, measures):
            runs = list(scores[measure][first])
            x = [scores[measure][first][run] for run in runs]
            y = [scores[measure][compared].get(run, float("nan")) for run in runs]
            low, high = min(x + y), max(x + y)
            axes.plot([low, high], [low, high], color="0.6", linewidth=0.8, label="identity")
            axes.scatter(x, y, s=14)
            tau = dict(series[measure]).get(f"tau_b:{compared}")
            axes.set(xlabel=f"{measure} under {first}", ylabel=f"under {compared}",
                     title=f"{measure}" + (f" (tau_b {tau:.3f})" if tau is not None else ""))
        figure.tight_layout()
        yield figure, f"judges_{_file_part(compared)}"


def _reusability_figure(plt, series: dict):
    """Per measure, each run's drop when its own (group's) unique relevant
    documents leave the judgements."""
    drops = {measure: [(p.split(":", 1)[1], v) for p, v in values if p.startswith("drop:")]
             for measure, values in series.items()}
    drops = {measure: values for measure, values in drops.items() if values}
    if not drops:
        return
    figure, panels = _grid(plt, len(drops), "Reusability: drop without each run's unique relevant documents")
    for axes, (measure, values) in zip(panels, drops.items()):
        values = sorted(values, key=lambda item: -item[1])
        axes.bar(range(len(values)), [v for _, v in values])
        axes.set(xlabel="runs, largest drop first", ylabel=f"drop in {measure}", title=measure)
        if len(values) <= 20:
            axes.set_xticks(range(len(values)), [run for run, _ in values], rotation=90, fontsize="x-small")
    figure.tight_layout()
    yield figure, "reusability_drop"


def _file_part(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)
