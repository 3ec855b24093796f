"""The measure table: one row per measure names it, its kernel, its
parameters and defaults, its summary rule, its syntax example and its help;
named sets. A measure with parsed parameters is a request
(:mod:`lexeval.measures.requests`).

Every kernel takes a :class:`~lexeval.rankings.Rankings` and its parsed
parameters and returns per-segment values: shape (S,) for a single value,
(S, k) for k cutoffs. Definitions follow trec_eval 10.0 to the last digit
(order of floating-point operations included); where trec_eval has a bug,
the intended definition is used and the README says so.

Adding a measure: write its kernel in the module of its family, add one row
to ``MEASURES``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..errors import UsageError
from . import expected as tied
from . import prefs
from .base import CUTOFFS, FRACTIONS, GAINS, MIN_GEO_MEAN, NONE, VALUES, whole_ranking
from .compat import compat
from .counts import num_nonrel_judged_ret, num_rel, num_rel_ret, num_ret
from .cwl import CONTINUATIONS, CWL_EXAMPLES, CWL_HELP, cwl_measure
from .cwl import check as cwl_check
from .diversity import alpha_dcg, alpha_ndcg, ap_ia, err_ia, nerr_ia, nnrbp, nrbp, p_ia, subtopic_recall
from .gains import (
    binary_g,
    dcg,
    dcg_cut,
    g_measure,
    ideal_dcg,
    ndcg,
    ndcg_cut,
    ndcg_rel,
    rank_biased_precision,
    rbp_residual,
    rndcg,
)
from .gdeval import dcg_exponential, expected_reciprocal_rank, ndcg_exponential
from .groups import P_avgjg, Rprec_mult_avgjg, map_avgjg
from .incomplete import bpref, inferred_ap, judged, judged_by_fill, judged_by_qrels, unjudged
from .precision import (
    accuracy,
    average_precision,
    eleven_point_average,
    f1,
    hits,
    interpolated_precision,
    map_cut,
    precision,
    r_precision,
    r_precision_multiples,
    recall,
    recip_rank,
    recip_rank_cut,
    relative_precision,
    success,
    yaap,
)
from .seeds import (
    rare_average_precision,
    rare_precision,
    rare_precision_bounded,
    total_search_efficiency,
)
from .sets import (
    rel_string,
    set_f,
    set_map,
    set_precision,
    set_recall,
    set_relative_precision,
    utility,
)

# ---------------------------------------------------------------- the table


SUMMARY_MEAN = "mean"
SUMMARY_SUM = "sum"
SUMMARY_NUM_REL = "num_rel"      # sum; with -c, trec_eval counts every judgement above 0
SUMMARY_GEOMETRIC = "geometric"
SUMMARY_COUNT = "count"
SUMMARY_RUNID = "runid"
SUMMARY_NONE = "none"

DEFAULT_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
R_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


REAL, COUNT, TEXT = "real", "count", "text"     # what a measure's values are
BOUND = "bound"       # a real measure's bound (--bounds): printed as the measure, never tested
QRELS, PREFS, QRELS_JG = "qrels", "prefs", "qrels_jg"   # judgements a measure reads (-R)


#: Measures that read a grade as an integer (relstring prints its digit): refused with fractional grades
INTEGER_GRADES = frozenset({"relstring"})


def check_fractional(requests, bounds: bool, path: str) -> None:
    """Fractional grades (io.fractional) reach every measure but those of
    :data:`INTEGER_GRADES`, and not --bounds: a UsageError says so."""
    if bounds:
        raise UsageError(f"--bounds with fractional grades ({path}): the bounds give the unjudged documents each "
                         "integer grade up to the highest; evaluate fractional grades without --bounds")
    refused = sorted({req.output_names()[0] for req in requests if req.measure.name in INTEGER_GRADES})
    if refused:
        raise UsageError(f"{', '.join(refused)}: read integer grades, and {path} holds fractional ones (such as "
                         "0.5); ask for gain-based or binary measures (ndcg, map, P, ...)")

# How --bounds finds a measure's least and greatest value over the unjudged documents' grades
# (lexeval.bounds.sweeps and .gains say why each is exact); "" where lexeval has no exact bounds.
BOUNDS_UNIFORM = "uniform"        # every unjudged document given one grade, each grade tried
BOUNDS_THRESHOLD = "threshold"    # the unjudged documents above the cutoff relevant, or those below
BOUNDS_PRECISION = "precision"    # the top or bottom m unjudged documents relevant, every m (AP)
BOUNDS_DEPTH = "depth"            # the same, for precision at an R-dependent depth (Rprec)
BOUNDS_GAIN = "gain"              # nDCG: grades by layers, Dinkelbach's method for the greatest
BOUNDS_FIXED = "fixed"            # the value does not read the judgements (num_ret)
BOUNDS_HOLES = "holes"            # it measures the holes themselves (unj, judged, rbp_resid): judged, they vanish
# How --bounds finds the bounds of two runs' difference under one assignment shared by both (lexeval.bounds.pairs
# says why each is exact); "" where it does not
PAIR_LINEAR, PAIR_FIRST, PAIR_RECALL, PAIR_DEPTH, PAIR_GAIN = "linear", "first", "recall", "depth", "gain"
ORDER_FREE = "order-free"          # the value reads the set retrieved, not its order: ties change nothing
BOUNDS_WORDS = {"": "--bounds: no exact bounds (refused).", BOUNDS_FIXED: "--bounds: reads no judgement.",
                BOUNDS_HOLES: "--bounds: none (it measures the unjudged documents themselves).",
                "exact": "--bounds: exact."}


@dataclass(frozen=True)
class Measure:
    """One row of the measure table: everything lexeval knows of a measure."""

    name: str
    compute: Callable | None
    params: str = NONE
    defaults: tuple = ()
    summary: str = SUMMARY_MEAN
    value: str = REAL                 # REAL (tested between runs), COUNT or TEXT (not tested)
    per_query: bool = True            # False: summary line only (gm_map)
    zero_when_missing: bool = False   # trec_eval forces 0 for a query the run lacks (-c)
    needs_documents: bool = False     # compares documents across runs (rareness)
    graded: bool = False              # reads grades as gains (a relevance floor changes it)
    subtopics: bool = False           # a diversity measure: needs subtopic judgements
    uses_num_docs: bool = False       # reads the collection's size (-N)
    judgements: str = QRELS           # the -R format it needs: qrels (any), prefs (prefs, qrels_prefs), qrels_jg
    label: str = ""                   # printed name's stem when not the name (recip_rank_cut: recip_rank)
    cutoff_form: str | None = None    # the row that takes cutoffs, for NAME.k (recip_rank.10)
    ir_names: tuple[str, ...] = ()    # ir_measures' names (case-insensitive) for this row
    ranx_names: tuple[str, ...] = ()  # ranx's names (name@k, name@k-lN) for this row
    ndeval_names: tuple[str, ...] = ()  # ndeval's names (alpha-nDCG@20, MAP-IA)
    pref_eval_names: tuple[str, ...] = ()  # pref_eval's metric keys (rp, p@k), lower case
    param_names: tuple[str, ...] = ()  # the named parameters it takes (name=value), where the table checks them
    cutoff_param: str | None = None    # the named parameter that another tool's @k sets (RBP@10: depth=10)
    option_names: tuple[str, ...] = ()  # keyword options of its kernel another tool's syntax sets (alpha, beta)
    check: Callable | None = field(default=None, compare=False)   # check(pairs): UsageError for bad parameters
    defined_by: str = "trec_eval"         # where its definition comes from (--list-measures)
    syntax: str = ""                  # how to ask for it with parameters, where the rule below does not fit
    bounds: str = ""                  # how --bounds finds its exact bounds (BOUNDS_*), "" if it does not
    pair_bounds: str = ""             # how --bounds bounds two runs' difference (PAIR_*), "" if it does not
    expected: Callable | str | None = field(default=None, compare=False)  # its kernel under --tie-order
                                      # expected (measures.expected), ORDER_FREE, or None: refused there
    help: str = field(default="", compare=False)

    @property
    def stem(self) -> str:
        return self.label or self.name

    @property
    def integer(self) -> bool:
        return self.value == COUNT

    @property
    def text(self) -> bool:
        return self.value == TEXT

    def example(self) -> str:
        """How to ask for it with parameters, e.g. P.5,10 or ndcg.1=3,2=9."""
        if self.syntax:
            return self.syntax
        if self.params in (CUTOFFS, FRACTIONS):
            shown = self.defaults[:2] if len(self.defaults) > 1 else (self.defaults or (10,))
            return f"{self.stem}." + ",".join(f"{v:g}" for v in shown)
        if self.params == GAINS:
            return f"{self.name}.1=3,2=9"
        return self.name

    def aliases(self) -> str:
        """Its names in other tools, for --list-measures."""
        cutoff = "@k" if self.params in (CUTOFFS, FRACTIONS) else ""
        parts = [f"{tool} {', '.join(name + cutoff for name in names)}" for tool, names in
                 (("ir_measures", self.ir_names), ("ranx", self.ranx_names), ("ndeval", self.ndeval_names),
                  ("pref_eval", self.pref_eval_names)) if names]
        return f"(from {self.defined_by}" + ("; " + "; ".join(parts) if parts else "") + ")"

    def description(self) -> str:
        """The help of --list-measures: the row's, or the kernel's docstring's
        first paragraph without a leading 'name:', and the defaults."""
        text = " ".join(self.help.split())
        head, colon, rest = text.partition(": ")
        if colon and head.split(".")[0].split(" ")[0] in (self.name, self.stem):
            starts_a_word = rest[:2].isalpha() and rest[:2].islower()        # not "a*relret", not "nDCG"
            text = rest[:1].upper() + rest[1:] if starts_a_word else rest
        if self.defaults and self.params in (CUTOFFS, FRACTIONS, VALUES):
            text += " Default: " + ",".join(f"{v:g}" for v in self.defaults) + "."
        if not self.per_query and "summary only" not in text:
            text += " Summary only: no per-query lines."
        if self.compute is not None and not self.text and self.judgements == QRELS:
            text += " " + BOUNDS_WORDS.get(self.bounds, BOUNDS_WORDS["exact"])
            if self.bounds not in BOUNDS_WORDS and self.value == REAL:
                text = text[:-1] + (", and of two runs' differences." if self.pair_bounds else
                                    ", not of two runs' differences.")
            text += " --tie-order expected: " + ("refused." if self.expected is None else "ties change nothing."
                                                 if self.expected == ORDER_FREE else "closed form.")
        return text


def _row(name, compute, **options) -> Measure:
    """A table row; its help defaults to the kernel's docstring's first paragraph."""
    if "help" not in options and compute is not None and compute.__doc__:
        options["help"] = compute.__doc__.strip().split("\n\n")[0].replace("``", "")
    return Measure(name, compute, **options)


#: Every per-run measure, in trec_eval's order (output follows this order).
MEASURES: tuple[Measure, ...] = (
    _row("runid", None, summary=SUMMARY_RUNID, per_query=False, value=TEXT,
         help="The run's id: the tag column of its last line."),
    _row("num_q", None, summary=SUMMARY_COUNT, per_query=False, value=COUNT, ir_names=("NumQ",),
         help="Number of queries evaluated."),
    _row("num_ret", num_ret, expected=ORDER_FREE, bounds=BOUNDS_FIXED, summary=SUMMARY_SUM, value=COUNT,
         ir_names=("NumRet",)),
    _row("num_rel", num_rel, expected=ORDER_FREE, bounds=BOUNDS_UNIFORM, summary=SUMMARY_NUM_REL, value=COUNT,
         ir_names=("NumRel",)),
    _row("num_rel_ret", num_rel_ret, expected=ORDER_FREE, bounds=BOUNDS_UNIFORM, summary=SUMMARY_SUM, value=COUNT,
         ir_names=("NumRelRet",)),
    _row("map", average_precision, expected=tied.average_precision, bounds=BOUNDS_PRECISION, ir_names=("AP", "MAP"),
         ranx_names=("map",),
         pref_eval_names=("ap",)),
    _row("gm_map", average_precision, expected=tied.average_precision, bounds=BOUNDS_PRECISION,
         summary=SUMMARY_GEOMETRIC, per_query=False,
         help="Geometric mean over queries of average precision (summary only)."),
    _row("Rprec", r_precision, pair_bounds=PAIR_DEPTH, expected=tied.r_precision, bounds=BOUNDS_DEPTH,
         ir_names=("Rprec",),
         ranx_names=("r-precision", "r_precision"),
         pref_eval_names=("rp",)),
    _row("bpref", bpref, ir_names=("Bpref",), ranx_names=("bpref",)),
    _row("recip_rank", recip_rank, pair_bounds=PAIR_FIRST, expected=tied.recip_rank, bounds=BOUNDS_UNIFORM,
         cutoff_form="recip_rank_cut",
         ir_names=("RR", "MRR"),
         ranx_names=("mrr",),
         pref_eval_names=("rr",)),
    _row("iprec_at_recall", interpolated_precision, params=FRACTIONS, defaults=RECALL_POINTS,
         ir_names=("IPrec",)),
    _row("P", precision, pair_bounds=PAIR_LINEAR, expected=tied.precision, bounds=BOUNDS_UNIFORM, params=CUTOFFS,
         defaults=DEFAULT_CUTOFFS,
         ir_names=("P", "Precision"),
         ranx_names=("precision",), pref_eval_names=("p",)),
    _row("relstring", rel_string, params=VALUES, defaults=(10.0,), summary=SUMMARY_NONE, value=TEXT,
         syntax="relstring.20"),
    _row("recall", recall, pair_bounds=PAIR_RECALL, expected=tied.recall, bounds=BOUNDS_THRESHOLD, params=CUTOFFS,
         defaults=DEFAULT_CUTOFFS,
         ir_names=("R", "Recall"),
         ranx_names=("recall",), pref_eval_names=("r",)),
    _row("infAP", inferred_ap, ir_names=("infAP",)),
    _row("gm_bpref", bpref, summary=SUMMARY_GEOMETRIC, per_query=False,
         help="Geometric mean over queries of bpref (summary only)."),
    _row("Rprec_mult", r_precision_multiples, pair_bounds=PAIR_DEPTH, expected=tied.r_precision_multiples,
         bounds=BOUNDS_DEPTH,
         params=FRACTIONS, defaults=R_MULTIPLES),
    _row("utility", utility, expected=ORDER_FREE, bounds=BOUNDS_UNIFORM, params=VALUES, defaults=(1.0, -1.0, 0.0, 0.0),
         zero_when_missing=True, uses_num_docs=True,
         syntax="utility.1,-1,0,0"),
    _row("11pt_avg", eleven_point_average, params=VALUES, defaults=RECALL_POINTS,
         syntax="11pt_avg.0.25,0.5,0.75"),
    _row("binG", binary_g),
    _row("G", g_measure, params=GAINS, graded=True),
    _row("dcg", dcg, pair_bounds=PAIR_LINEAR, expected=tied.dcg, bounds=BOUNDS_UNIFORM, params=GAINS,
         ranx_names=("dcg",), graded=True),
    _row("ideal_dcg", ideal_dcg, expected=ORDER_FREE, bounds=BOUNDS_UNIFORM, params=GAINS, graded=True),
    _row("ndcg", ndcg, pair_bounds=PAIR_GAIN, expected=tied.ndcg, bounds=BOUNDS_GAIN, params=GAINS,
         ir_names=("nDCG",), ranx_names=("ndcg",),
         pref_eval_names=("ndcg",), graded=True),
    _row("ndcg_rel", ndcg_rel, params=GAINS, graded=True),
    _row("Rndcg", rndcg, params=GAINS, graded=True),
    _row("ndcg_cut", ndcg_cut, pair_bounds=PAIR_GAIN, expected=tied.ndcg_cut, bounds=BOUNDS_GAIN, params=CUTOFFS,
         defaults=DEFAULT_CUTOFFS,
         ir_names=("nDCG",),
         ranx_names=("ndcg",),
         pref_eval_names=("ndcg",), option_names=("gains",),
         graded=True),
    _row("map_cut", map_cut, expected=tied.map_cut, bounds=BOUNDS_PRECISION, params=CUTOFFS, defaults=DEFAULT_CUTOFFS,
         ir_names=("AP", "MAP"),
         ranx_names=("map",), pref_eval_names=("ap",)),
    _row("relative_P", relative_precision, expected=tied.relative_precision, bounds=BOUNDS_THRESHOLD, params=CUTOFFS,
         defaults=DEFAULT_CUTOFFS),
    _row("success", success, pair_bounds=PAIR_FIRST, expected=tied.success, bounds=BOUNDS_UNIFORM, params=CUTOFFS,
         defaults=(1, 5, 10),
         ir_names=("Success", "HR",
         "HitRate"),
         ranx_names=("hit_rate",)),
    _row("set_P", set_precision, pair_bounds=PAIR_LINEAR, expected=ORDER_FREE, bounds=BOUNDS_UNIFORM, ir_names=("P",
         "SetP"),
         ranx_names=("precision",)),
    _row("set_relative_P", set_relative_precision, expected=ORDER_FREE, bounds=BOUNDS_UNIFORM, ir_names=("SetRelP",)),
    _row("set_recall", set_recall, pair_bounds=PAIR_RECALL, expected=ORDER_FREE, bounds=BOUNDS_UNIFORM, ir_names=("R",
         "Recall", "SetR")),
    _row("set_map", set_map, expected=ORDER_FREE, bounds=BOUNDS_UNIFORM, ir_names=("SetAP",)),
    _row("set_F", set_f, expected=ORDER_FREE, bounds=BOUNDS_UNIFORM, params=VALUES, defaults=(1.0,), syntax="set_F.0.5",
         ir_names=("SetF",), ranx_names=("f1",)),
    _row("num_nonrel_judged_ret", num_nonrel_judged_ret, expected=ORDER_FREE, bounds=BOUNDS_UNIFORM,
         summary=SUMMARY_SUM, value=COUNT),
    # preference judgements (-R prefs, -R qrels_prefs)
    *(_row(name, prefs.kernel(name), judgements=PREFS,
           **({"summary": SUMMARY_SUM, "value": COUNT} if name in prefs.COUNTS else {})) for name in prefs.NAMES),
    # several judgement groups of the same queries (-R qrels_jg)
    _row("map_avgjg", map_avgjg, judgements=QRELS_JG),
    _row("P_avgjg", P_avgjg, params=CUTOFFS, defaults=DEFAULT_CUTOFFS, judgements=QRELS_JG),
    _row("Rprec_mult_avgjg", Rprec_mult_avgjg, params=FRACTIONS, defaults=R_MULTIPLES, judgements=QRELS_JG),
    _row("yaap", yaap),
    _row("rbp", rank_biased_precision, params=GAINS, syntax="rbp.p=0.95", ir_names=("RBP",), graded=True,
         param_names=("p", "depth"), cutoff_param="depth"),
    _row("rbp_resid", rbp_residual, bounds=BOUNDS_HOLES, params=GAINS, syntax="rbp_resid.p=0.95", graded=True),
    _row("unj", unjudged, expected=tied.unjudged, bounds=BOUNDS_HOLES, params=CUTOFFS, defaults=(5, 10, 20)),
    # cutoff forms trec_eval lacks (ir_measures' RR@k and Judged@k)
    _row("recip_rank_cut", recip_rank_cut, pair_bounds=PAIR_FIRST, expected=tied.recip_rank_cut,
         bounds=BOUNDS_UNIFORM, params=CUTOFFS,
         defaults=(10,), label="recip_rank",
         ir_names=("RR", "MRR"), ranx_names=("mrr",), pref_eval_names=("rr",), defined_by="ir_measures"),
    _row("judged", judged, expected=tied.judged, bounds=BOUNDS_HOLES, params=CUTOFFS, defaults=(5, 10, 20),
         ir_names=("Judged",),
         defined_by="ir_measures"),
    _row("judged_qrels", judged_by_qrels, bounds=BOUNDS_HOLES, params=CUTOFFS, defaults=(10,)),
    _row("judged_fill", judged_by_fill, bounds=BOUNDS_HOLES, params=CUTOFFS, defaults=(10,)),
    _row("judged_ret", whole_ranking(judged), expected=whole_ranking(tied.judged), bounds=BOUNDS_HOLES,
         cutoff_form="judged", ir_names=("Judged",),
         defined_by="ir_measures",
         help="judged_ret: fraction of the retrieved documents that is in the qrels (ir_measures' Judged "
              "without a cutoff)."),
    # exponential gains, as gdeval and learning-to-rank papers compute them
    _row("err", expected_reciprocal_rank, bounds=BOUNDS_UNIFORM, params=CUTOFFS, defaults=(20,), ir_names=("ERR",),
         graded=True,
         defined_by="gdeval"),
    _row("ndcg_burges", whole_ranking(ndcg_exponential), pair_bounds=PAIR_GAIN,
         expected=whole_ranking(tied.ndcg_exponential),
         bounds=BOUNDS_GAIN, ranx_names=("ndcg_burges",), graded=True,
         defined_by="ranx",
         help="ndcg_burges: nDCG of the whole ranking with gains 2^grade - 1 (ranx's ndcg_burges without a cutoff)."),
    _row("dcg_burges", whole_ranking(dcg_exponential), pair_bounds=PAIR_LINEAR,
         expected=whole_ranking(tied.dcg_exponential),
         bounds=BOUNDS_UNIFORM, ranx_names=("dcg_burges",), graded=True,
         defined_by="ranx",
         help="dcg_burges: DCG of the whole ranking with gains 2^grade - 1 (ranx's dcg_burges without a cutoff)."),
    _row("dcg_exp", dcg_exponential, pair_bounds=PAIR_LINEAR, expected=tied.dcg_exponential, bounds=BOUNDS_UNIFORM,
         params=CUTOFFS,
         defaults=(20,),
         ranx_names=("dcg_burges",), graded=True,
         defined_by="ranx"),
    _row("ndcg_exp", ndcg_exponential, pair_bounds=PAIR_GAIN, expected=tied.ndcg_exponential, bounds=BOUNDS_GAIN,
         params=CUTOFFS,
         defaults=(20,),
         ranx_names=("ndcg_burges",), graded=True,
         defined_by="gdeval"),
    # diversity over subtopics, as ndeval computes them (with --subtopics judgements)
    _row("alpha_ndcg", alpha_ndcg, params=CUTOFFS, defaults=(5, 10, 20), subtopics=True,
         ir_names=("alpha_nDCG", "α_nDCG"), ndeval_names=("alpha-nDCG",), defined_by="ndeval", option_names=("alpha",)),
    _row("alpha_dcg", alpha_dcg, params=CUTOFFS, defaults=(5, 10, 20), subtopics=True,
         ir_names=("alpha_DCG", "α_DCG"), defined_by="ndeval", option_names=("alpha",)),
    _row("err_ia", err_ia, params=CUTOFFS, defaults=(5, 10, 20), subtopics=True,
        ir_names=("ERR_IA",), ndeval_names=("ERR-IA",), defined_by="ndeval"),
    _row("nerr_ia", nerr_ia, params=CUTOFFS, defaults=(5, 10, 20), subtopics=True,
        ir_names=("nERR_IA",), ndeval_names=("nERR-IA",), defined_by="ndeval"),
    _row("nrbp", nrbp, subtopics=True, ir_names=("NRBP",), ndeval_names=("NRBP",), defined_by="ndeval",
         option_names=("alpha", "beta")),
    _row("nnrbp", nnrbp, subtopics=True, ir_names=("nNRBP",), ndeval_names=("nNRBP",), defined_by="ndeval",
         option_names=("alpha", "beta")),
    _row("p_ia", p_ia, params=CUTOFFS, defaults=(5, 10, 20), subtopics=True,
        ir_names=("P_IA",), ndeval_names=("P-IA",), defined_by="ndeval"),
    _row("ap_ia", ap_ia, subtopics=True, ir_names=("AP_IA", "MAP_IA"), ndeval_names=("MAP-IA",), defined_by="ndeval"),
    _row("strec", subtopic_recall, params=CUTOFFS, defaults=(5, 10, 20), subtopics=True,
         ir_names=("StRecall",), ndeval_names=("strec",), defined_by="ndeval"),
    # ranx's and recommender systems' cutoff measures
    _row("hits", whole_ranking(hits), pair_bounds=PAIR_LINEAR, expected=whole_ranking(tied.hits), bounds=BOUNDS_UNIFORM,
         cutoff_form="hits_cut", ranx_names=("hits",),
         defined_by="ranx",
         help="hits: relevant documents retrieved, averaged over queries (ranx's hits without a cutoff)."),
    _row("hits_cut", hits, pair_bounds=PAIR_LINEAR, expected=tied.hits, bounds=BOUNDS_UNIFORM, params=CUTOFFS,
         defaults=(10,), label="hits",
         ranx_names=("hits",),
         defined_by="ranx"),
    _row("hit_rate", whole_ranking(success), pair_bounds=PAIR_FIRST, expected=whole_ranking(tied.success),
         bounds=BOUNDS_UNIFORM,
         cutoff_form="success", ranx_names=("hit_rate",),
         defined_by="ranx",
         help="hit_rate: 1 if a relevant document is retrieved (ranx's hit_rate without a cutoff)."),
    _row("dcg_cut", dcg_cut, pair_bounds=PAIR_LINEAR, expected=tied.dcg_cut, bounds=BOUNDS_UNIFORM, params=CUTOFFS,
         defaults=(10,),
         ranx_names=("dcg",), graded=True,
         defined_by="ranx"),
    _row("F1", f1, expected=tied.f1, bounds=BOUNDS_THRESHOLD, params=CUTOFFS, defaults=(10,), ir_names=("F1",),
         ranx_names=("f1",),
         defined_by="ranx"),
    # ir_measures' own: compatibility with an ideal ranking, accuracy of the order of pairs
    _row("compat", compat, params=GAINS, ir_names=("Compat",), defined_by="ir_measures", syntax="compat.p=0.8",
         param_names=("p", "normalize"), check=lambda pairs: _named_only("compat", pairs, ("p", "normalize"))),
    _row("accuracy", whole_ranking(accuracy), cutoff_form="accuracy_cut", ir_names=("Accuracy",),
         defined_by="ir_measures", help="accuracy: accuracy.k over the whole ranking (ir_measures' Accuracy)."),
    _row("accuracy_cut", accuracy, params=CUTOFFS, defaults=(10,), label="accuracy", ir_names=("Accuracy",),
         defined_by="ir_measures"),
    # cwl_eval's C/W/L measures (ir_measures' INST, INSQ, BPM, SDCG, NERR8-11)
    *(_row(name, cwl_measure(name), params=GAINS, ir_names=(name.upper(),), graded=True, defined_by="cwl_eval",
           param_names=CONTINUATIONS[name][1], cutoff_param="k" if "k" in CONTINUATIONS[name][1] else None,
           check=lambda pairs, name=name: cwl_check(name, pairs),
           syntax=f"{name}." + ",".join(f"{key}={value}" for key, value in CWL_EXAMPLES[name]), help=CWL_HELP[name])
      for name in CONTINUATIONS),
    # measures from the seeds that trec_eval lacks
    _row("tse", total_search_efficiency, defined_by="seeds"),
    _row("P_rare", rare_precision, params=CUTOFFS, defaults=DEFAULT_CUTOFFS, needs_documents=True, defined_by="seeds"),
    _row("P_rare_norm", rare_precision_bounded, params=CUTOFFS, defaults=DEFAULT_CUTOFFS,
         needs_documents=True, defined_by="seeds"),
    _row("map_rare", rare_average_precision, needs_documents=True, defined_by="seeds"),
)

MEASURE_BY_NAME = {measure.name: measure for measure in MEASURES}
MEASURE_ORDER = {measure.name: index for index, measure in enumerate(MEASURES)}

#: Named sets, as trec_eval's nicknames.
MEASURE_SETS: dict[str, tuple[str, ...]] = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec",
                 "bpref", "recip_rank", "iprec_at_recall", "P"),
    # yaap is in trec_eval's table but in none of its sets
    "all_trec": tuple(m.name for m in MEASURES[:MEASURE_ORDER["unj"] + 1]
                      if m.name not in ("dcg", "ideal_dcg", "yaap") and m.judgements == QRELS),
    # trec_eval's sets over preference judgements and judgement groups
    "all_prefs": ("runid", "num_q") + tuple(m.name for m in MEASURES if m.judgements == PREFS),
    "prefs": ("runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
              "prefs_simp", "prefs_pair", "prefs_avgjg"),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
    "seeds": ("tse", "P_rare", "P_rare_norm", "map_rare"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"),
}


def _named_only(name: str, pairs, accepted: tuple[str, ...]) -> None:
    """UsageError for a named parameter ``name`` does not take."""
    unknown = sorted({key for key, _ in pairs} - set(accepted))
    if unknown:
        raise UsageError(f"measure '{name}': no parameter '{unknown[0]}' (it takes {', '.join(accepted)})")


def geometric_mean_log(values: np.ndarray) -> np.ndarray:
    """log(max(v, MIN_GEO_MEAN)): what trec_eval sums for gm_ measures."""
    return np.log(np.maximum(values, MIN_GEO_MEAN))
