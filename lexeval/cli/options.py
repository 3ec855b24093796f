"""The command line's values, checked and collected into the few objects
the library takes: what to read, how to test, which reports, how to print."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import cast

import click

from .. import options
from ..choices import REL_FORMATS, SUMMARY_FORMATS
from ..errors import UsageError


class Real(click.ParamType):
    """A real number in [low, high] (either end may be open-ended); NaN is
    refused, since every comparison with it is false and would silently
    turn a check off."""

    name = "number"

    def __init__(self, low: float | None = None, high: float | None = None):
        self.low, self.high = low, high

    def convert(self, value, param, ctx):
        if isinstance(value, float):
            number = value
        else:
            try:
                number = float(value)
            except ValueError:
                self.fail(f"'{value}' is not a number", param, ctx)
        if math.isnan(number) or (self.low is not None and number < self.low) or \
                (self.high is not None and number > self.high):
            low = "-inf" if self.low is None else f"{self.low:g}"
            high = "inf" if self.high is None else f"{self.high:g}"
            self.fail(f"{value} is not in [{low}, {high}]", param, ctx)
        return number


class Depth(click.ParamType):
    """-M: trec_eval's depth (a positive integer); pref_eval's -M (its
    measure set) is told what lexeval calls it."""

    name = "integer"

    def convert(self, value, param, ctx):
        if isinstance(value, int):
            return value
        if value in ("preferences", "all", "none"):
            raise UsageError(f"-M {value}: pref_eval's measure set; lexeval's -M is trec_eval's depth. Ask for "
                             "the preferences with -m lexicographic -m recall_paired (or -m all_preferences); "
                             "pref_eval's metrics by name (-m ap -m rbp@0.5 -m p@10)")
        try:
            return int(value)
        except ValueError:
            self.fail(f"'{value}' is not an integer", param, ctx)


class JudgementFormat(click.Choice):
    """-R: trec_eval's judgement format; pref_eval's -R QRELS (a path) is
    told where lexeval takes the qrels."""

    def convert(self, value, param, ctx):
        if value not in self.choices:
            import os
            if os.path.exists(value):
                raise UsageError(f"-R {value}: pref_eval's qrels option; lexeval takes the qrels as its first "
                                 f"argument (lexeval {value} RUN...), and -R is trec_eval's judgement format")
        return super().convert(value, param, ctx)


def pref_eval_options(params: dict) -> None:
    """pref_eval's options: --query_eval_wanted, --nosummary and --topk are
    -q, -n and -M; the others are refused with what lexeval does instead."""
    params["per_query"] = params["per_query"] or params.pop("per_query_pref_eval")
    params["no_summary"] = params["no_summary"] or params.pop("no_summary_pref_eval")
    topk = params.pop("topk")
    if topk is not None:
        if params["depth"] is not None and params["depth"] != topk:
            raise UsageError(f"--topk {topk} and -M {params['depth']}: give one depth")
        params["depth"] = topk
    instead = {
        "pref_eval_qrels": "lexeval takes the qrels as its first argument: lexeval QRELS RUN...",
        "pref_eval_measure_set": "ask for preferences by name or set: -m lexicographic -m recall_paired, "
                                 "-m all_preferences",
        "pref_eval_binary": "-l LEVEL makes grades >= LEVEL relevant (binary measures and preferences)",
        "pref_eval_floor": "ranx's floors do that per measure: -m ndcg@10-l2 (grades below 2 gain nothing)",
        "pref_eval_query_fraction": "--report stability compares the runs on random halves of the queries",
        "pref_eval_label_fraction": "--report degradation --fractions 1,0.5,0.2 removes relevance labels",
        "pref_eval_label_policy": "--report degradation --label-policy random|pool",
    }
    option = {"pref_eval_qrels": "--qrels", "pref_eval_measure_set": "--measure_set",
              "pref_eval_binary": "--binary_relevance", "pref_eval_floor": "--relevance_floor",
              "pref_eval_query_fraction": "--query_fraction", "pref_eval_label_fraction": "--label_fraction",
              "pref_eval_label_policy": "--label_fraction_policy"}
    for key, advice in instead.items():
        if params.pop(key) is not None:
            raise UsageError(f"{option[key]} is pref_eval's option, not lexeval's: {advice}")


def named_run(argument: str, kind: str = "run"):
    """A RUN (or --compare-qrels) argument: a path, or NAME=PATH (a Source
    with that name) when it is not itself a file and NAME has no '/'
    (``bm25=<(zcat run.gz)``, ``llm=umbrela.qrels``)."""
    import os
    name, equals, path = argument.partition("=")
    if not equals or not name or not path or "/" in name or os.path.exists(argument):
        return argument
    from ..io.source import Source
    return Source(path, name, kind=kind)


def fractions_option(_ctx, _param, value):
    try:
        fractions = tuple(float(part) for part in value.split(","))
    except ValueError:
        raise click.BadParameter("give fractions like 1,0.8,0.6") from None
    if not all(0 < f <= 1 for f in fractions):
        raise click.BadParameter("fractions must be in (0, 1]")
    return fractions


def run_pair_option(_ctx, param, value):
    """BASE_RUN,ADV_RUN: two run names."""
    if value is None:
        return None
    names = tuple(part.strip() for part in value.split(","))
    if len(names) != 2 or not all(names):
        raise click.BadParameter(f"give two run names, BASE_RUN,ADV_RUN (got '{value}')")
    return names


def cutoffs_option(_ctx, _param, value):
    try:
        cutoffs = tuple(int(part) for part in value.split(","))
    except ValueError:
        raise click.BadParameter("give ranks like 5,10,100") from None
    if not all(k >= 1 for k in cutoffs):
        raise click.BadParameter("ranks must be 1 or more")
    return tuple(dict.fromkeys(cutoffs))


@dataclass(frozen=True)
class Call:
    """One command line, as the library takes it: the inputs and every
    option group (see :mod:`lexeval.options`)."""

    qrels: str
    runs: tuple              # paths, or Sources named on the command line (NAME=PATH)
    reading: options.Reading
    measuring: options.Measuring
    significance: options.Significance
    gate: options.Gate
    reports: options.Reports
    output: options.Output
    cluster: options.Cluster


def collect(params: dict) -> Call:
    """The click parameters, checked (by their declarations, and the
    combinations that cannot work) and grouped, before any file is read: a
    UsageError names the flags."""
    pref_eval_options(params)
    trec_eval_options(params)
    params["compare_qrels"] = tuple(named_run(given, "qrels") for given in params["compare_qrels"])
    try:
        groups = [group.pick(params) for group in (options.Reading, options.Measuring, options.Significance,
                                                   options.Gate, options.Reports, options.Output)]
        cluster = options.Cluster(cluster=params["cluster"], output_dir=params["output_dir"])
    except UsageError as error:
        raise options.as_flags(error) from None
    call = Call(params["qrels"], tuple(named_run(run) for run in params["runs"]),
                *cast(tuple[options.Reading, options.Measuring, options.Significance, options.Gate,
                            options.Reports, options.Output], tuple(groups)), cluster)
    check(call)
    return call


#: The command line's own types and parsers of the options that declare one (Spec.cli).
def _kinds() -> dict:
    from .help import list_measures, list_reports
    return {"depth": {"type": Depth()}, "judgement_format": {"type": JudgementFormat(REL_FORMATS)},
            "fractions": {"callback": fractions_option}, "cutoffs": {"callback": cutoffs_option},
            "run_pair": {"callback": run_pair_option},
            "list_reports": {"expose_value": False, "is_eager": True, "callback": list_reports},
            "list_measures": {"expose_value": False, "is_eager": True, "callback": list_measures}}


def click_option(name: str, spec: options.Spec):
    """click's option for a declared one (its flags, type, default, help)."""
    if spec.cli == "version":
        from .. import __version__
        return click.version_option(__version__, *spec.flags, prog_name="lexeval")
    field_default = next(item.default for group in options.GROUPS for item in fields(group)
                         if item.name == name and item.metadata.get("spec") is spec)
    settings: dict = {"help": spec.help or None, "hidden": spec.hidden, "metavar": spec.metavar}
    if spec.show_default:
        settings["show_default"] = True
    kind = spec.kind
    if kind == options.FLAG:
        settings["is_flag"] = True
    elif kind in (options.TEXTS, options.REALS):
        settings["multiple"] = True
        if spec.choices:
            settings["type"] = click.Choice(spec.choices)
        elif kind == options.REALS:
            settings["type"] = Real(spec.low, spec.high)
    else:
        settings["default"] = ",".join(f"{value:g}" for value in field_default) \
            if isinstance(field_default, tuple) else field_default
        if kind == options.INTEGER:
            settings["type"] = click.IntRange(min=int(spec.low)) if spec.low is not None and spec.bounded_by_click \
                else int
        elif kind == options.REAL:
            settings["type"] = Real(spec.low, spec.high) if spec.bounded_by_click else Real(None, None)
        elif kind == options.CHOICE:
            settings["type"] = click.Choice(spec.choices)
        elif kind == options.PATH:
            settings["type"] = click.Path(file_okay=False) if spec.folder else click.Path(dir_okay=False)
    if spec.cli is not None:
        settings.update(_kinds()[spec.cli])
    return click.option(*spec.flags, name, **{key: value for key, value in settings.items() if value is not None})


def trec_eval_options(params: dict) -> None:
    """trec_eval's -R, -T, -D and -o: what lexeval reads, or what to use instead."""
    if params["rel_format"] != "qrels" and params["subtopics"]:
        raise UsageError(f"--subtopics with -R {params['rel_format']}: subtopic judgements are a format of their "
                         "own; give one of them")
    if params["results_format"] != "trec_results":
        raise UsageError(f"-T {params['results_format']}: unknown results format (trec_results; MS MARCO run "
                         "files, qid docid rank, are recognised without an option)")
    if params["debug_level"] is not None:
        raise UsageError("-D: lexeval has no debug levels; use --timings for where the time goes, -v for "
                         "dropped queries, LEXEVAL_TRACEBACK=1 for an internal error's traceback")


def _shows(output_format: str) -> str:
    return "page shows summary values, and per-query differences in its own view" if output_format == "html" \
        else "table shows summary values"


def check(call: Call) -> None:
    """Option combinations that cannot work, before any file is read."""
    printing, tests, gate, reports = call.output, call.significance, call.gate, call.reports
    runs, output_dir = call.runs, call.cluster.output_dir
    if printing.format in SUMMARY_FORMATS and printing.per_query:
        raise UsageError(f"-q with --format {printing.format}: the {_shows(printing.format)}; "
                         "use text, json or csv for per-query lines")
    if printing.format in SUMMARY_FORMATS and printing.no_summary:
        raise UsageError(f"-n with --format {printing.format}: the {_shows(printing.format)}")
    if tests.ci and tests.test == "none":
        raise UsageError("--ci needs the tests: use --test t or --test randomization")
    if gate.gates and not tests.baseline:
        raise UsageError("--gate needs --baseline RUN (the run to compare with)")
    if gate.gates and len(runs) < 2:
        raise UsageError("--gate compares runs with the baseline: give two or more runs")
    if gate.gates and tests.test == "none":
        raise UsageError("--gate needs p-values: use --test t or --test randomization")
    if gate.gate_report and not gate.gates:
        raise UsageError("--gate-report writes the gate's verdicts: add --gate MEASURE (and --baseline RUN)")
    if gate.gate_report:
        check_writable(gate.gate_report, "--gate-report")
    if gate.gate_test == "non-inferiority" and not gate.gate_margin > 0:
        raise UsageError("--gate-test non-inferiority needs --gate-margin D > 0 (the drop that counts as worse)")
    if any(not delta > 0 for delta in reports.deltas):
        raise UsageError("--delta is a difference to detect: give a positive number")
    if not 0 < reports.power < 1:
        raise UsageError(f"--power must be in (0, 1), got {reports.power:g}")
    reproducing = "reproduction" in reports.reports
    for option, given in (("--original", reports.original), ("--reproduced", reports.reproduced),
                          ("--replication-qrels", reports.replication_qrels)):
        if given is not None and not reproducing:
            raise UsageError(f"{option} names what the reproduction report compares: add --report reproduction")
    if reproducing and (reports.original is None or reports.reproduced is None):
        raise UsageError("--report reproduction needs --original BASE_RUN,ADV_RUN and --reproduced "
                         "BASE_RUN,ADV_RUN (run names among the runs given)")
    if reports.compare_qrels and "judges" not in reports.reports:
        raise UsageError("--compare-qrels names the judgement sets the judges report compares: add --report judges")
    if "judges" in reports.reports and not reports.compare_qrels:
        raise UsageError("--report judges compares judgement sets: add --compare-qrels FILE (another qrels)")
    if reports.group_by is not None and not {"reusability", "judges"} & set(reports.reports):
        raise UsageError("--group-by groups runs for the reusability and judges reports: add --report reusability "
                         "or --report judges")
    if reports.run_groups is not None and "judges" not in reports.reports:
        raise UsageError("--run-groups groups runs for the judges report: add --report judges")
    if reports.run_groups is not None and reports.group_by is not None:
        raise UsageError("--run-groups and --group-by both group the runs: give one")
    if reports.group_by == "":
        raise UsageError("--group-by needs a separator (e.g. - or _)")
    if reports.reports and len(runs) < 2:
        raise UsageError("--report compares runs: give two or more")
    if output_dir and not printing.per_query:
        raise UsageError("--output DIR holds the per-query lines: add -q")
    if output_dir and reports.reports:
        raise UsageError("--output DIR holds per-query lines, not reports")
    if output_dir and "://" not in output_dir:
        import os
        try:
            os.makedirs(output_dir, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"--output {output_dir}: cannot make the folder ({exc.strerror})") from None
    if printing.plot_dir and not reports.reports:
        raise UsageError("--plot draws the reports' figures: add --report")
    if printing.plot_dir:
        from ..output.plots import check_matplotlib, make_directory
        check_matplotlib()
        make_directory(printing.plot_dir)


def check_writable(path: str, option: str) -> None:
    """A file the command will write at the end: refused now if it cannot be
    (a folder, a missing or read-only folder), so that nothing is printed
    before the error."""
    import os
    if os.path.isdir(path):
        raise UsageError(f"{option} {path}: is a directory, not a file")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise UsageError(f"{option} {path}: no such folder {folder}")
    if not os.access(folder, os.W_OK | os.X_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise UsageError(f"{option} {path}: cannot be written (permission denied)")
