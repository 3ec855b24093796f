"""Every option lexeval takes, declared once: name (a field of its group), type, bounds, default, flags,
help and the layer that reads it (its group). From them come click's options (:mod:`lexeval.cli.command`),
the library's keyword checks (:func:`check`), the flags that notes and errors name (:data:`FLAG_OF_KEYWORD`),
and the test that ``--help``, the man page and ``help(lexeval.evaluate)`` agree.

The groups, and who reads them: :class:`Reading` (``io``, ``rankings``),
:class:`Measuring` (``measures``, ``preferences``), :class:`Significance`
(``stats``), :class:`Gate`, :class:`Reports`, :class:`Output` (``cli``,
``reports``, ``output``), :class:`Cluster` (``cluster``), and
:class:`Compatibility` and :class:`Actions` (other tools' flags and the
flags that print and exit; ``cli``).

Plain dataclasses: importing it imports nothing heavy (``--help`` starts at once).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, fields

from . import choices as chosen
from .checks import _bad, _shown, boolean, choice, integer, path, real, text
from .errors import UsageError
from .timings import Timings

FLAG, INTEGER, REAL, CHOICE, TEXT, PATH, TEXTS, REALS = "flag", "integer", "real", "choice", "text", "path", \
    "texts", "reals"


@dataclass(frozen=True)
class Spec:
    """One option's declaration (a field's metadata)."""

    kind: str = TEXT                 # FLAG, INTEGER, REAL, CHOICE, TEXT, PATH; TEXTS, REALS (repeatable)
    flags: tuple[str, ...] = ()      # the command line's; none: the library's alone
    help: str = ""                   # --help's text
    low: float | None = None         # bounds of a number
    high: float | None = None
    closed: bool = True              # [low, high], else (low, high)
    choices: tuple[str, ...] = ()
    optional: bool = False           # None is a value (the option's absence)
    metavar: str | None = None
    show_default: bool = False
    hidden: bool = False             # not in --help (another tool's flag)
    keyword: bool = True             # lexeval.evaluate takes it, by the field's name
    bounded_by_click: bool = True    # the command line's type checks the bounds (else the check does, after)
    cli: str | None = None           # a command-line type or parser of its own (see lexeval.cli.options.CLI_KINDS)
    folder: bool = False             # a PATH that names a folder, not a file
    empty: bool = False              # an empty TEXT is a value (the command says what it lacks)
    whole: bool = False              # a REAL that is a whole number is kept as an int (-l 1 stays 1)


def option(default, **spec):
    """A group's field that is an option: its default and its :class:`Spec`."""
    made = Spec(**spec)
    if isinstance(default, (list, tuple)):
        return field(default=tuple(default), metadata={"spec": made})
    return field(default=default, metadata={"spec": made})


def specs(group) -> dict[str, Spec]:
    """{field name: Spec} of a group (class or instance), in declaration order."""
    return {item.name: item.metadata["spec"] for item in fields(group) if "spec" in item.metadata}


class Group:
    """An option group: every value checked by its declaration when made."""

    def __post_init__(self):
        for name, spec in specs(self).items():
            object.__setattr__(self, name, check(name, spec, getattr(self, name)))

    @classmethod
    def pick(cls, values: dict, keywords: bool = False):
        """The group made of the entries of ``values`` that are its options
        (``keywords``: those :func:`lexeval.evaluate` takes)."""
        return cls(**{name: values[name] for name, spec in specs(cls).items()
                      if name in values and (spec.keyword or not keywords)})


# ---------------------------------------------------------------- checks


def check(name: str, spec: Spec, value):
    """``value`` of option ``name`` as its declaration wants it, or a
    :class:`~lexeval.errors.UsageError` naming the keyword."""
    kind = spec.kind
    if kind == FLAG:
        return None if value is None and spec.optional else boolean(name, value)
    if kind == INTEGER:
        return integer(name, value, None if spec.low is None else int(spec.low), spec.optional)
    if kind == REAL:
        number = real(name, value, spec.low if spec.low is not None else -math.inf, spec.high, spec.closed,
                      spec.optional)
        return int(number) if spec.whole and number is not None and float(number).is_integer() else number
    if kind == CHOICE:
        return choice(name, value, spec.choices, spec.optional)
    if kind == PATH:
        return path(name, value, spec.optional)
    if kind in (TEXTS, REALS):
        if value is None or isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise _bad(name, f"must be a list, got {_shown(value)}")
        items = tuple(value)
        if kind == REALS:
            return tuple(real(name, item, spec.low if spec.low is not None else -math.inf, spec.high, spec.closed)
                         for item in items)
        return items
    if spec.cli is not None and value is not None and not isinstance(value, str):
        return value                        # a value its own parser made (--fractions, NAME=PATH)
    if spec.empty and value == "":
        return value
    return text(name, value, spec.optional)


# ---------------------------------------------------------------- the groups


@dataclass(frozen=True)
class Reading(Group):
    """How qrels and runs are read into rankings (-l, -M, -c, -J, -R, -Z, -N, --subtopics, --jobs, -v)."""

    level: float = option(1, kind=REAL, low=0, whole=True, flags=("-l",), metavar="LEVEL", show_default=True,
                          bounded_by_click=False, help="A document is relevant iff its grade >= LEVEL (0.5 too).")
    depth: int | None = option(None, kind=INTEGER, low=1, optional=True, flags=("-M",), metavar="DEPTH",
                               cli="depth", help="Use only the top DEPTH documents of every ranking.")
    complete: bool = option(False, kind=FLAG, flags=("-c",),
                            help="Average over every qrels query; a query missing from a run scores as an empty "
                                 "ranking (and gets per-query lines with -q).")
    judged_only: bool = option(False, kind=FLAG, flags=("-J",),
                               help="Judged documents only: unjudged documents are removed from every ranking "
                                    "(after -M) before anything is computed, as trec_eval's -J.")
    zscores: str | None = option(None, kind=PATH, optional=True, flags=("-Z", "--zscores"), metavar="FILE",
                                 help="Print every measure as a z-score, Z<measure>: (value - mean) / sd with the "
                                      "mean and sd of each query and measure from FILE (lines 'qid measure mean "
                                      "sd'), as trec_eval's -Z; -1000000 where FILE has none.")
    num_docs: int = option(0, kind=INTEGER, low=0, flags=("-N",), metavar="NUM", show_default=True,
                           help="Documents in the collection (trec_eval's -N), for utility's non-relevant "
                                "unretrieved term.")
    rel_format: str = option("qrels", kind=CHOICE, choices=chosen.REL_FORMATS, flags=("-R",), metavar="FORMAT",
                             show_default=True, cli="judgement_format",
                             help="trec_eval's judgement format of QRELS: qrels; prefs ('qid group subgroup docno "
                                  "level', preference judgements, for the prefs_* measures); qrels_prefs (a qrels "
                                  "read as preferences, its second column the judgement group); qrels_jg (a qrels "
                                  "whose second column names the judgement group, e.g. the assessor, for map_avgjg, "
                                  "P_avgjg, Rprec_mult_avgjg). Other measures read each document's highest grade "
                                  "over the groups (prefs: 1 if some level is above 0). Diversity judgements: "
                                  "--subtopics.")
    subtopics: bool = option(False, kind=FLAG, flags=("--subtopics",),
                             help="QRELS holds diversity judgements, 'qid subtopic docno grade' (a docno once per "
                                  "subtopic); ordinary measures use each document's highest grade. Implied by a "
                                  "diversity measure (alpha_nDCG@k, ERR_IA@k, NRBP, P_IA@k, AP_IA, StRecall@k...).")
    tie_order: str = option("trec_eval", kind=CHOICE, choices=chosen.TIE_ORDERS, flags=("--tie-order",),
                            show_default=True,
                            help="How documents with tied scores are ordered: trec_eval (docno descending, as "
                                 "trec_eval), input (the run's line order, as ranx), or expected (every measure "
                                 "is its expected value over every order of the tied documents, in closed form; "
                                 "measures without one, and the preferences, are refused).")
    jobs: int | None = option(None, kind=INTEGER, low=1, optional=True, flags=("--jobs",), metavar="N",
                              help="Threads and processes at most, in all (1: strictly serial). Default: "
                                   "LEXEVAL_JOBS, else the processors this process may use (affinity, cgroup quota).")
    verbose: bool = option(False, kind=FLAG, flags=("-v", "--verbose"),
                           help="List every run's dropped queries on standard error (many runs: summed up).")
    fill_qrels: str | None = option(None, kind=TEXT, optional=True, flags=("--fill-qrels",), metavar="FILE",
                                    help="Documents QRELS leaves unjudged take FILE's grade (a model's judgements "
                                         "filling a human pool's holes); judged_fill.10 says how much of each run.")


@dataclass(frozen=True)
class Measuring(Group):
    """What is computed: the measures (-m), and how preferences rank runs."""

    measures: tuple[str, ...] = option((), kind=TEXTS, flags=("-m", "--measure"), metavar="NAME[.PARAMS]",
                                       keyword=False,      # lexeval.evaluate's third argument
                                       help="Measure to compute (repeatable): trec_eval names and parameters "
                                            "(P.5,10  ndcg_cut.10  ndcg.1=3,2=9  recip_rank.10), ir_measures' names "
                                            "(nDCG@10  AP  RR@10  P(rel=2)@10  Judged@10), sets (official, "
                                            "all_trec, set, seeds, lexicographic; trec_eval's all_prefs and "
                                            "qrels_jg with -R), preferences (LP, rrLP, LR, rrLR). Default: official "
                                            "(+ LP, rrLP, LR with 2+ runs); with -R prefs or qrels_prefs: prefs; "
                                            "with -R qrels_jg: qrels_jg. --list-measures shows them all.")
    rarity_weight: float = option(0.5, kind=REAL, low=0, high=1, flags=("--rarity-weight",), metavar="W",
                                  show_default=True,
                                  help="alpha of the rareness measures P_rare, P_rare_norm, map_rare (0: P and map).")
    aggregate: str = option("mean", kind=CHOICE, choices=chosen.AGGREGATES, flags=("--aggregate",), show_default=True,
                            help="How <pref>_score and <pref>_rank rank the runs from per-query preferences: mean "
                                 "preference, borda (Borda count over the per-query orders), mc4 (Markov-chain "
                                 "aggregation).")
    bounds: bool = option(False, kind=FLAG, flags=("--bounds",),
                          help="Also each measure's least and greatest value over every grade (0 up to the qrels' "
                               "highest) the unjudged documents a ranking holds could get: <measure>_low, _high "
                               "(per query with -q), and for pairs _fragile. Exact (--list-measures says which).")
    pair_metrics: bool = option(False, kind=FLAG, flags=("--pair-metrics",),
                                help="Also every metric as a preference: per pair, the mean difference (<measure>), "
                                     "<measure>_win, _loss and _tie over the queries (per query with -q).")


@dataclass(frozen=True)
class Significance(Group):
    """How differences are tested: the test, its correction, HSD, intervals."""

    test: str = option("t", kind=CHOICE, choices=chosen.TESTS, flags=("--test",), show_default=True,
                       help="Paired test for per-run metrics (none: no p-values).")
    permutations: int = option(10_000, kind=INTEGER, low=1, flags=("--permutations",), show_default=True,
                               help="Sign flips for --test randomization.")
    seed: int | None = option(0, kind=INTEGER, optional=True, flags=("--seed",), show_default=True,
                              help="Random seed of --test randomization and of the reports' sampling.")
    correction: str = option("none", kind=CHOICE, choices=chosen.CORRECTIONS, flags=("--correction",),
                             show_default=True,
                             help="Adjust each measure's p-values over all pairs printed.")
    alpha: float = option(0.05, kind=REAL, low=0, high=1, flags=("--alpha",), show_default=True,
                          help="Significance level for the gate and the table's markers.")
    ci: bool = option(False, kind=FLAG, flags=("--ci",),
                      help="Also confidence intervals of every tested difference (<measure>_ci_low, _ci_high) and "
                           "standardized effect sizes (<measure>_effect: mean difference over its standard "
                           "deviation); t-based with --test t, percentile bootstrap over queries otherwise and for "
                           "preferences.")
    confidence: float = option(0.95, kind=REAL, low=0, high=1, closed=False, flags=("--confidence",), metavar="C",
                               show_default=True, help="Confidence level of --ci.")
    resamples: int = option(2000, kind=INTEGER, low=10, flags=("--resamples",), metavar="N", show_default=True,
                            help="Bootstrap resamples of the queries for --ci (seeded by --seed).")
    hsd: bool = option(False, kind=FLAG, flags=("--hsd",),
                       help="Also Tukey HSD p-values (<measure>_hsd_p), two-way ANOVA over runs and queries.")
    baseline: str | None = option(None, kind=TEXT, optional=True, flags=("--baseline",), metavar="RUN",
                                  help="Compare (and test) every run with this run only (its name, e.g. 'bm25').")


@dataclass(frozen=True)
class Gate(Group):
    """The CI gate: --gate measures, their margin, rule and report."""

    gates: tuple[str, ...] = option((), kind=TEXTS, flags=("--gate",), metavar="MEASURE", keyword=False,
                                    help="With --baseline: exit 1 if a run is significantly worse than the baseline "
                                         "on MEASURE (repeatable, e.g. --gate map --gate LP).")
    gate_margin: float = option(0.0, kind=REAL, low=0, flags=("--gate-margin",), metavar="D", show_default=True,
                                keyword=False, help="Tolerate drops smaller than D on gate measures.")
    gate_test: str = option("worse", kind=CHOICE, choices=chosen.GATE_TESTS, flags=("--gate-test",), show_default=True,
                            keyword=False,
                            help="The gate's rule: worse (fail where a run is significantly worse than the baseline "
                                 "by more than the margin) or non-inferiority (pass only where a one-sided t-test "
                                 "shows a run is not worse by --gate-margin D or more). Either way a warning says "
                                 "where the gate's power to see a drop of D is below 0.8, and how many queries would "
                                 "give 0.8.")
    gate_report: str | None = option(None, kind=TEXT, optional=True, flags=("--gate-report",), metavar="FILE",
                                     keyword=False,
                                     help="With --gate: write the verdicts as a JUnit XML report to FILE (a test case "
                                          "per candidate run and gate measure; GitHub, GitLab and Jenkins read it). "
                                          "Where GITHUB_STEP_SUMMARY is set, the gate also appends a Markdown table to "
                                          "that file.")


@dataclass(frozen=True)
class Reports(Group):
    """--report names and their knobs (the command's; the library's are
    :class:`lexeval.reports.ReportOptions`)."""

    reports: tuple[str, ...] = option((), kind=TEXTS, flags=("--report",), choices=chosen.REPORTS, keyword=False,
                                      help="Print an analysis instead of the measures (repeatable): ties, agreement, "
                                           "discrimination, stability, degradation, power (queries needed to see "
                                           "--delta), reproduction (repro_eval's measures of --original against "
                                           "--reproduced), judges (other judgements, --compare-qrels), reusability "
                                           "(leave-one-run/group-out), score-ties (each run's measures over the "
                                           "orders of its tied scores). --list-reports says more. Needs 2+ runs.")
    reference: str = option("recip_rank", kind=TEXT, flags=("--reference",), metavar="MEASURE", show_default=True,
                            keyword=False, help="Reference measure of the agreement and stability reports.")
    trials: int = option(1000, kind=INTEGER, low=1, flags=("--trials",), show_default=True, keyword=False,
                         help="Random halves of the queries for the stability report.")
    fractions: tuple[float, ...] = option((1.0, 0.8, 0.6, 0.4, 0.2), kind=TEXT, flags=("--fractions",),
                                          show_default=True, keyword=False, cli="fractions",
                                          help="Fractions of relevant labels kept, for the degradation report.")
    samples: int = option(10, kind=INTEGER, low=1, flags=("--samples",), show_default=True, keyword=False,
                          help="Random label removals per fraction, for the degradation report.")
    label_policy: str = option("random", kind=CHOICE, choices=chosen.LABEL_POLICIES, flags=("--label-policy",),
                               show_default=True, keyword=False,
                               help="Which relevant labels the degradation report keeps: random, or pool (those of "
                                    "the documents most runs retrieve, as pref_eval's pool policy).")
    deltas: tuple[float, ...] = option((), kind=REALS, low=0, flags=("--delta",), metavar="D", keyword=False,
                                       help="The power report's minimum detectable difference (repeatable; default: "
                                            "a quarter, a half and one standard deviation of a paired difference, "
                                            "per measure).")
    power: float = option(0.8, kind=REAL, low=0, high=1, flags=("--power",), metavar="P", show_default=True,
                          keyword=False, help="The power the power report asks for (the gate's warning is at 0.8).")
    original: tuple[str, str] | None = option(None, kind=TEXT, optional=True, flags=("--original",),
                                              metavar="BASE,ADV", keyword=False, cli="run_pair",
                                              help="The reproduction report's original baseline and advanced runs "
                                                   "(run names).")
    reproduced: tuple[str, str] | None = option(None, kind=TEXT, optional=True, flags=("--reproduced",),
                                                metavar="BASE,ADV", keyword=False, cli="run_pair",
                                                help="The reproduction report's reproduced baseline and advanced runs "
                                                     "(run names).")
    replication_qrels: str | None = option(None, kind=TEXT, optional=True, flags=("--replication-qrels",),
                                           metavar="FILE", keyword=False,
                                           help="Evaluate the --reproduced runs on these judgements (another "
                                                "collection): the reproduction report then measures replicability "
                                                "(ER, DeltaRI, unpaired t-test).")
    cutoffs: tuple[int, ...] = option((5, 10, 20, 50, 100, 1000), kind=TEXT, flags=("--cutoffs",), metavar="K,...",
                                      show_default=True, keyword=False, cli="cutoffs",
                                      help="Ranks of the reproduction report's KTU@k and RBO@k.")
    rbo_p: float | None = option(None, kind=REAL, low=0, high=1, optional=True, flags=("--rbo-p",), metavar="P",
                                 keyword=False,
                                 help="Persistence of rank-biased overlap, in (0, 1) (default: 0.95 in the "
                                      "reproduction report, as repro_eval; 0.9 in the judges report).")
    compare_qrels: tuple = option((), kind=TEXTS, flags=("--compare-qrels",), metavar="FILE", keyword=False,
                                  help="The judges report's other judgement sets (repeatable; any qrels format "
                                       "lexeval reads): each one's leaderboards, significance and grades against "
                                       "QRELS'.")
    judged_at: int = option(10, kind=INTEGER, low=1, flags=("--judged-at",), metavar="K", show_default=True,
                            keyword=False, help="The judges report's depth for each run's share of judged documents.")
    top_runs: int = option(10, kind=INTEGER, low=1, flags=("--top-runs",), metavar="K", show_default=True,
                           keyword=False, help="The judges report's correlations over the first set's top K too.")
    run_groups: str | None = option(None, kind=TEXT, optional=True, flags=("--run-groups",), metavar="FILE",
                                    keyword=False, help="The judges report's run groups: lines 'run<TAB>group' "
                                                        "(changes per group, permutation tests between them).")
    group_by: str | None = option(None, kind=TEXT, optional=True, flags=("--group-by",), metavar="SEPARATOR",
                                  keyword=False, empty=True,
                                  help="Group runs by name, up to SEPARATOR (a team's runs, as TREC does): the "
                                       "reusability report takes them out by group, the judges report compares "
                                       "groups (as --run-groups); default: each run alone.")
    pool_depth: int = option(100, kind=INTEGER, low=1, flags=("--pool-depth",), metavar="K", show_default=True,
                             keyword=False, help="The depth the reusability report's pool was made to.")


@dataclass(frozen=True)
class Output(Group):
    """How the command prints: --format, -q, -n, --plot, --timings, --provenance."""

    per_query: bool = option(False, kind=FLAG, flags=("-q",), keyword=False, help="Also print a line per query.")
    no_summary: bool = option(False, kind=FLAG, flags=("-n",), keyword=False, help="No summary ('all') lines.")
    format: str = option("text", kind=CHOICE, choices=chosen.FORMATS, flags=("--format",), show_default=True,
                         keyword=False,
                         help="Output format: text (trec_eval's), json and csv (four columns); table (for people, "
                              "fitted to the terminal), latex and markdown (a table of summary values for a paper); "
                              "html (one self-contained page: summary table, pair matrices, per-query differences, "
                              "reports).")
    plot_dir: str | None = option(None, kind=PATH, optional=True, folder=True, flags=("--plot",), metavar="DIR",
                                  keyword=False,
                                  help="Write the reports' figures (PNG and SVG) to DIR; needs lexeval[plot].")
    timings: bool = option(False, kind=FLAG, flags=("--timings",), keyword=False,
                           help="After the output, print on standard error the seconds spent reading (with MB/s), "
                                "on measures, on pairs (--bounds': when waited for) and on output; with --cluster, "
                                "the workers' processor seconds and peak memory.")
    provenance: bool = option(False, kind=FLAG, flags=("--provenance",), keyword=False,
                              help="With --format json: a first record (key 'provenance') naming the command as "
                                   "typed, each input's size and SHA-256 prefix, the options that change numbers, "
                                   "lexeval's version and the date (the HTML page always shows them).")


@dataclass(frozen=True)
class Cluster(Group):
    """Where the evaluation runs: a Dask cluster, and what comes back from it."""

    cluster: str | None = option(None, kind=TEXT, optional=True, flags=("--cluster",), metavar="ADDRESS",
                                 keyword=False,
                                 help="Evaluate on a Dask cluster, sharded by query: a scheduler's address "
                                      "(tcp://host:8786), or 'local' for this machine's cores. Inputs are paths or "
                                      "fsspec URLs (s3://, gs://, file://) the workers read themselves, or '-' (read "
                                      "here); the output is the same as on one machine. Needs lexeval[dask] here; "
                                      "workers need Dask and lexeval's dependencies.")
    output_dir: str | None = option(None, kind=TEXT, optional=True, flags=("--output",), metavar="DIR",
                                    help="With -q: write the per-query lines to DIR (a folder or fsspec URL) as part "
                                         "files (part-00000.txt ..., one per --cluster partition, else one), whole "
                                         "or not at all; the summary lines still go to standard output.")
    per_query: bool | None = option(None, kind=FLAG, optional=True)           # the library's: bring -q's values back
    output_format: str | None = option(None, kind=CHOICE, choices=chosen.FORMATS[:3], optional=True)


@dataclass(frozen=True)
class Compatibility(Group):
    """Other tools' flags: what lexeval does with them, or says instead (the command's)."""

    results_format: str = option("trec_results", kind=TEXT, flags=("-T",), metavar="FORMAT", show_default=True,
                                 keyword=False,
                                 help="trec_eval's results format: trec_results (MS MARCO run files are recognised "
                                      "by themselves).")
    debug_level: str | None = option(None, kind=TEXT, optional=True, flags=("-D",), metavar="LEVEL", hidden=True,
                                     keyword=False)
    per_query_pref_eval: bool = option(False, kind=FLAG, flags=("--query_eval_wanted",), hidden=True, keyword=False)
    no_summary_pref_eval: bool = option(False, kind=FLAG, flags=("--nosummary",), hidden=True, keyword=False)
    topk: int | None = option(None, kind=INTEGER, low=1, optional=True, flags=("--topk",), hidden=True,
                              keyword=False)
    pref_eval_qrels: str | None = option(None, kind=TEXT, optional=True, flags=("--qrels",), hidden=True,
                                         keyword=False)
    pref_eval_measure_set: str | None = option(None, kind=TEXT, optional=True, flags=("--measure_set",),
                                               hidden=True, keyword=False)
    pref_eval_binary: str | None = option(None, kind=TEXT, optional=True, flags=("-b", "--binary_relevance"),
                                          hidden=True, keyword=False)
    pref_eval_floor: str | None = option(None, kind=TEXT, optional=True, flags=("-f", "--relevance_floor"),
                                         hidden=True, keyword=False)
    pref_eval_query_fraction: str | None = option(None, kind=TEXT, optional=True, flags=("--query_fraction",),
                                                  hidden=True, keyword=False)
    pref_eval_label_fraction: str | None = option(None, kind=TEXT, optional=True, flags=("--label_fraction",),
                                                  hidden=True, keyword=False)
    pref_eval_label_policy: str | None = option(None, kind=TEXT, optional=True, flags=("--label_fraction_policy",),
                                                hidden=True, keyword=False)
    obsolete_o: bool = option(False, kind=FLAG, flags=("-o",), hidden=True, keyword=False)


@dataclass(frozen=True)
class Actions(Group):
    """Flags that print something and exit (the command's)."""

    list_reports: bool = option(False, kind=FLAG, flags=("--list-reports",), keyword=False, cli="list_reports",
                                help="List the reports with one line each, and exit.")
    list_measures: bool = option(False, kind=FLAG, flags=("--list-measures",), keyword=False, cli="list_measures",
                                 help="List every measure with its syntax, defaults and a description, and exit.")
    cite: bool = option(False, kind=FLAG, flags=("--cite",), keyword=False,
                        help="Print BibTeX entries for lexeval and the papers and tools behind the measures asked "
                             "with -m (or behind the default call), and exit; QRELS and RUN may be left out.")
    version: bool = option(False, kind=FLAG, flags=("--version",), keyword=False, cli="version",
                           help="Show the version and exit.")


GROUPS = (Reading, Measuring, Significance, Gate, Reports, Output, Cluster, Compatibility, Actions)


def declared() -> list[tuple[type, str, Spec]]:
    """(group, option name, Spec) of every option of every group."""
    return [(group, name, spec) for group in GROUPS for name, spec in specs(group).items()]


#: What the notes' and errors' options are called on the command line, and from Python.
FLAG_OF_KEYWORD: dict[str, str] = {name: spec.flags[0] for _, name, spec in declared() if spec.flags and spec.keyword}
KEYWORD_OF_FLAG: dict[str, str] = {flag: (f"{name}=True" if spec.kind == FLAG else name)
                                   for _, name, spec in declared() if spec.keyword for flag in spec.flags}


def as_flags(error: UsageError) -> UsageError:
    """A keyword's error in the command line's words: ``-l must be 0 or more``."""
    if error.keyword not in FLAG_OF_KEYWORD:
        return error
    return UsageError(f"{FLAG_OF_KEYWORD[error.keyword]} {error.rule}")


@dataclass(frozen=True)
class Options:
    """Every group the evaluation reads, as the library takes them."""

    reading: Reading = field(default_factory=Reading)
    measuring: Measuring = field(default_factory=Measuring)
    significance: Significance = field(default_factory=Significance)

    @classmethod
    def of(cls, **keywords) -> Options:
        """The groups of :func:`lexeval.evaluate`'s flat keywords of reading,
        measuring and testing (``Options.of(level=2, baseline="bm25")``)."""
        groups: dict[str, type[Group]] = {"reading": Reading, "measuring": Measuring, "significance": Significance}
        known = [name for group in groups.values() for name, spec in specs(group).items() if spec.keyword]
        unknown = [key for key in keywords if key not in known]
        if unknown:
            import difflib

            from .errors import KeywordError
            close = difflib.get_close_matches(unknown[0], known, n=1, cutoff=0.6)
            raise KeywordError(f"no option '{unknown[0]}'" + (f": did you mean '{close[0]}'?" if close else ""))
        return cls(**{key: group.pick(keywords, keywords=True) for key, group in groups.items()})


@dataclass(frozen=True)
class Evaluating:
    """One evaluation asked for: the measures (-m values; None: the
    defaults), the options, the measures computed even when none are named
    (the gate's, a report's reference), and whether documents' identities
    are kept (the reports that remove labels need them)."""

    measures: tuple | None = None
    options: Options = field(default_factory=Options)
    extra_measures: tuple = ()
    keep_rows: bool = False

    def __post_init__(self):
        if self.measures is not None:
            object.__setattr__(self, "measures", tuple(self.measures))
        object.__setattr__(self, "extra_measures", tuple(self.extra_measures))

    @property
    def names(self) -> list[str]:
        """Every -m value and extra measure, for the notes on their parameter sets."""
        return [*(self.measures or ()), *self.extra_measures]


def library_hook(name: str, value) -> None:
    """A hook the library takes: a callable (warn, progress, ...) or None; ``timings`` a Timings or None."""
    wanted = "lexeval.timings.Timings" if name == "timings" else "callable"
    if value is not None and not (isinstance(value, Timings) if name == "timings" else callable(value)):
        raise _bad(name, f"must be a {wanted} (or None), got {_shown(value)}")


@dataclass(frozen=True)
class Hooks:
    """What the caller follows an evaluation by (not options: they change nothing computed)."""

    warn: Callable | None = None          # (text): notes on the inputs (default: LexevalNote warnings)
    progress: Callable | None = None      # (done, total): the runs read
    timings: Timings | None = None        # seconds per phase
    phases: Callable | None = None        # (label, done, total): measures, pairs and tests
    on_read: Callable | None = None       # (qrels, runs): what was read (a cluster adds up the notes)

    def __post_init__(self):
        for name in ("warn", "progress", "timings", "phases", "on_read"):
            library_hook(name, getattr(self, name))
