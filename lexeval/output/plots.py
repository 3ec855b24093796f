"""Figures for the reports (optional: ``pip install lexeval[plot]``)."""

from __future__ import annotations

import math
import os
from collections import defaultdict

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
    series: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
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
        for measure, values in effects.items():
            axes.scatter(values["ER"], values["DeltaRI"], marker="o")
            axes.annotate(measure, (values["ER"], values["DeltaRI"]), fontsize="small",
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
    return written
