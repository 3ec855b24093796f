"""Evaluate runs: from file names to matrices of per-query values.

This is the library face of the command line: ``evaluate(qrels, runs, ...)``
does everything ``lexeval`` does before formatting, and returns plain arrays.
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from . import measures as m
from . import significance as sig
from .errors import InputError, UsageError
from .inputs import ParsedRun, Qrels, read_qrels, read_run, run_name
from .preferences import SIGN_PREFERENCES, Preferences, RunSpread, compute_preferences, rank_runs, run_pairs
from .rankings import Rankings, build_rankings
from .strings import shown

DEFAULT_SET = "official"

# ir_measures-style spellings (case-insensitive): plain names, and NAME@k
PLAIN_ALIASES = {"ap": "map", "rr": "recip_rank", "mrr": "recip_rank", "rprec": "Rprec"}
CUTOFF_ALIASES = {"p": "P", "r": "recall", "recall": "recall", "ndcg": "ndcg_cut",
                  "success": "success", "ap": "map_cut"}


@dataclass
class Selection:
    """What to compute: per-run measure requests and pair preference names."""

    metrics: list[m.MeasureRequest]
    preferences: list[str] = field(default_factory=list)

    @property
    def needs_documents(self) -> bool:
        """Whether a measure compares documents across runs (rareness)."""
        return any(req.measure.needs_documents for req in self.metrics)


def output_names(text: str) -> list[str]:
    """The printed names a -m value stands for (P.5,10 -> P_5, P_10)."""
    names = []
    for item in _one_measure(text.strip()):
        names.extend([item] if isinstance(item, str) else item.output_names())
    return names


def _one_measure(text: str) -> list[m.MeasureRequest] | list[str]:
    """Requests named by one -m value (a name, name.params, set, or alias)."""
    from .preferences import PREFERENCE_NAMES, PREFERENCE_SETS
    if text in m.MEASURE_SETS:
        return [m.request(name) for name in m.MEASURE_SETS[text]]
    if text in PREFERENCE_SETS:
        return list(PREFERENCE_SETS[text])
    if text in PREFERENCE_NAMES:
        return [text]
    if text in m.MEASURE_BY_NAME:
        return [m.request(text)]
    base, dot, raw = text.partition(".")
    if dot and base in m.MEASURE_BY_NAME:
        return [m.request(base, raw)]
    base, at, raw = text.partition("@")
    if at and base.lower() in CUTOFF_ALIASES:
        return [m.request(CUTOFF_ALIASES[base.lower()], raw)]
    if text.lower() in PLAIN_ALIASES:
        return [m.request(PLAIN_ALIASES[text.lower()])]
    base, underscore, raw = text.rpartition("_")
    if underscore and base in m.MEASURE_BY_NAME and \
            m.MEASURE_BY_NAME[base].params in (m.CUTOFFS, m.FRACTIONS):
        return [m.request(base, raw)]
    raise UsageError(f"unknown measure '{text}' (lexeval --list-measures shows them all)")


def select_measures(names: list[str] | tuple[str, ...] | None, num_runs: int = 1,
                    extra: list[str] | tuple[str, ...] = ()) -> Selection:
    """Parse -m values. With none given: trec_eval's official set, plus
    LP, rrLP and LR when there are two or more runs. ``extra`` names (the
    gate's measures) are added either way."""
    from .preferences import DEFAULT_PREFERENCES, PREFERENCE_NAMES
    if not names:
        names = [DEFAULT_SET] + (list(DEFAULT_PREFERENCES) if num_runs > 1 else [])
    names = list(names) + list(extra)
    metrics: list[m.MeasureRequest] = []
    preferences: list[str] = []
    for text in names:
        for item in _one_measure(text.strip()):
            if isinstance(item, str):
                if item not in preferences:
                    preferences.append(item)
            else:
                metrics.append(item)
    preferences.sort(key=PREFERENCE_NAMES.index)
    return Selection(m.merge_requests(metrics), preferences)


# ---------------------------------------------------------------- reading


def check_paths(paths: list[str]) -> None:
    """Each file once, each run name once, standard input at most once."""
    if sum(path == "-" for path in paths) > 1:
        raise UsageError("standard input ('-') can be read only once")
    files: dict[tuple[int, int], str] = {}
    names: dict[str, str] = {}
    for path in paths:
        if path != "-":
            try:
                status = os.stat(path)
            except OSError:
                status = None                       # reading it will say what is wrong
            if status is not None:
                identity = (status.st_dev, status.st_ino)
                if identity in files:
                    raise InputError(path, f"the same file is given twice (also as {files[identity]})")
                files[identity] = path
        name = run_name(path)
        if name in names:
            raise InputError(path, f"two runs named '{name}' (also {names[name]}); "
                                   "rename one file, run names come from file names")
        names[name] = path


def _count(number: int, one: str, many: str) -> str:
    return f"{number} {one if number == 1 else many}"


def _quoted(qid: str) -> str:
    """A qid for a message: quoted, bytes that are not UTF-8 as \\xNN."""
    text = shown(qid.encode("utf-8", "surrogateescape"))
    return '"' + text.replace('"', '\\"') + '"'


def coverage_notes(qrels: Qrels, runs: list[ParsedRun], level: int = 1) -> list[str]:
    """What each run's queries left out, one line per run at most, and which
    compared queries no run has: the silent drops a user should know of."""
    notes = []
    for run in runs:
        parts = []
        missing = np.flatnonzero(~run.present)
        if not run.present.any():
            parts.append(f"none of its queries is in the qrels (first: {_quoted(run.unknown_qids[0])}): "
                         "it scores 0")
        else:
            if run.num_unknown:
                parts.append(f"{_count(run.num_unknown, 'query', 'queries')} not in the qrels, ignored "
                             f"(first: {_quoted(run.unknown_qids[0])})")
            if len(missing):
                parts.append(f"lacks {len(missing)} of the {len(run.present)} qrels queries "
                             f"(first: {_quoted(qrels.qids[missing[0]])})")
        if parts:
            notes.append(f"{run.path}: warning: " + "; ".join(parts))
    if any(run.present.any() and not run.present.all() for run in runs):
        notes.append("note: a query a run lacks is left out of that run's averages (-c counts it) "
                     "and is an empty ranking in comparisons")
    if len(runs) > 1:
        nobody = ~np.any([run.present for run in runs], axis=0)
        relevant = np.flatnonzero(nobody & (qrels.num_relevant(level) > 0)).tolist()
        if relevant:
            notes.append(f"note: {_count(len(relevant), 'qrels query', 'qrels queries')} with relevant "
                         f"documents in none of the runs (first: {_quoted(qrels.qids[relevant[0]])}): every "
                         "run ties there in comparisons")
    return notes


_WORKER_QRELS: Qrels | None = None


def _read_run_in_worker(path: str, depth: int | None, keep_rows: bool) -> ParsedRun:
    return read_run(path, _WORKER_QRELS, depth, keep_rows)


def read_runs(paths: list[str], qrels: Qrels, depth: int | None = None,
              jobs: int | None = None, progress=None, keep_rows: bool = False) -> list[ParsedRun]:
    """Parse runs, in parallel processes when there are several big files.

    ``progress(done, total)`` is called after each run (for a progress bar).
    """
    global _WORKER_QRELS
    if jobs is None:
        jobs = os.cpu_count() or 1
    big = sum(os.path.getsize(p) for p in paths if p != "-" and os.path.isfile(p)) > 50_000_000
    if jobs <= 1 or len(paths) < 2 or not big or "-" in paths:
        runs = []
        for done, path in enumerate(paths, start=1):
            runs.append(read_run(path, qrels, depth, keep_rows))
            if progress:
                progress(done, len(paths))
        return runs
    import multiprocessing
    if "fork" not in multiprocessing.get_all_start_methods():
        return read_runs(paths, qrels, depth, jobs=1, progress=progress, keep_rows=keep_rows)
    _WORKER_QRELS = qrels  # inherited by forked workers
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        futures = [pool.submit(_read_run_in_worker, path, depth, keep_rows) for path in paths]
        runs = []
        for done, future in enumerate(futures, start=1):
            runs.append(future.result())
            if progress:
                progress(done, len(paths))
    _WORKER_QRELS = None
    return runs


# ---------------------------------------------------------------- evaluation


@dataclass
class Column:
    """One printed measure: values (R, Q) for every run and query."""

    name: str
    measure: m.Measure
    values: np.ndarray


@dataclass
class Evaluation:
    """Per-run measure values for every run and qrels query, and the
    comparisons between runs.

    ``included[r, q]`` says whether query q counts in run r's averages (the
    run has it, or -c asked for every query), as trec_eval decides per run.
    ``compared[q]`` says whether query q takes part in comparisons (it has a
    relevant document; elsewhere every run ties). Preferences, tests and
    reports see only compared queries (``comparison``).
    """

    rankings: Rankings
    columns: list[Column]
    included: np.ndarray          # (R, Q) bool
    compared: np.ndarray          # (Q,) bool
    preferences: Preferences | None = None   # (P, compared queries) pair preferences
    pairs: np.ndarray | None = None          # (P, 2) pairs printed and tested, command-line order
    pair_summary: "PairSummary | None" = None
    tests: "PairTests | None" = None
    options: "SignificanceOptions | None" = None
    requests: list = field(default_factory=list)   # the measure requests computed
    complete: bool = False

    @cached_property
    def comparison(self) -> Rankings:
        """The rankings over the compared queries only."""
        return self.rankings.restrict(self.compared)

    @property
    def compared_qids(self) -> list[str]:
        return self.comparison.qids

    def compared_values(self, column: "Column") -> np.ndarray:
        """(R, compared queries) a column's values where runs are compared."""
        return column.values[:, self.compared]

    @property
    def run_names(self) -> list[str]:
        return self.rankings.run_names

    @property
    def qids(self) -> list[str]:
        return self.rankings.qids

    def column(self, name: str) -> Column:
        for column in self.columns:
            if column.name == name:
                return column
        raise KeyError(name)

    def num_queries(self) -> np.ndarray:
        """(R,) queries evaluated per run."""
        return self.included.sum(axis=1)

    def summary(self, column: Column) -> np.ndarray:
        """(R,) the 'all' value of a column, as trec_eval computes it."""
        kind = column.measure.summary
        count = self.num_queries()
        if kind == m.SUMMARY_RUNID:
            return np.array(self.rankings.run_tags, dtype=object)
        if kind == m.SUMMARY_COUNT:
            return count
        values = np.where(self.included, column.values, 0)
        if kind == m.SUMMARY_NUM_REL and self.complete:
            # trec_eval's -c summary counts every judgement above grade 0,
            # whatever -l says (m_num_rel.c); its per-query lines follow -l
            return np.full(len(count), int(self.rankings.level_counts[:, 1:].sum()))
        if kind in (m.SUMMARY_SUM, m.SUMMARY_NUM_REL):
            return values.sum(axis=1)
        if kind == m.SUMMARY_GEOMETRIC:
            logs = np.where(self.included, m.geometric_mean_log(column.values), 0.0)
            total = np.cumsum(logs, axis=1)[:, -1] if logs.shape[1] else np.zeros(len(count))
            return np.where(count > 0, np.exp(total / np.maximum(count, 1)), 0.0)
        total = np.cumsum(values.astype(np.float64), axis=1)[:, -1] if values.shape[1] \
            else np.zeros(len(count))   # left to right, as trec_eval adds
        return np.where(count > 0, total / np.maximum(count, 1), 0.0)


    def preference_names(self) -> list[str]:
        return list(self.preferences.names) if self.preferences else []

    def reevaluate(self, rankings: Rankings) -> "Evaluation":
        """The same measures and preferences on other rankings (e.g. with
        labels removed), without significance tests."""
        return evaluate_rankings(rankings, self.requests, self.complete, self.preference_names(),
                                 SignificanceOptions(test="none"))

    def run_preference_scores(self, name: str) -> np.ndarray:
        """(R, Q) each run's mean preference ``name`` against the others."""
        if self.pair_summary is None:
            self.pair_summary = summarize_pairs(self, np.zeros(0, dtype=np.int64), None)
        return self.pair_summary.run_scores[name]

    def run_preference_summary(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(R,) score (mean over queries) and rank (1 = best) for ``name``."""
        scores = self.run_preference_scores(name)
        mean = np.cumsum(scores, axis=1)[:, -1] / scores.shape[1] if scores.shape[1] else \
            np.zeros(len(scores))
        return mean, rank_runs(mean)

def compute_columns(rankings: Rankings, requests: list[m.MeasureRequest]) -> list[Column]:
    """Every requested measure's (R, Q) values."""
    columns = []
    for req in requests:
        if req.measure.compute is None:       # runid, num_q: summary only
            columns.append(Column(req.output_names()[0], req.measure,
                                  np.zeros((rankings.num_runs, rankings.num_queries))))
            continue
        values = req.compute(rankings)
        if req.measure.zero_when_missing:
            values = np.where(rankings.present.reshape(-1, 1), values, 0)
        for index, name in enumerate(req.output_names()):
            columns.append(Column(name, req.measure, rankings.as_matrix(values[:, index])))
    return columns


@dataclass
class SignificanceOptions:
    """How differences are tested (CONTRACT section 5)."""

    test: str = "t"                 # t | randomization | none
    permutations: int = 10_000
    seed: int | None = 0
    correction: str = "none"        # none | holm | bonferroni
    hsd: bool = False
    alpha: float = 0.05
    baseline: str | None = None     # test only this run against each other run


@dataclass
class PairTests:
    """p-values per measure for the tested pairs, (P,) each, corrected."""

    p: dict[str, np.ndarray]
    hsd_p: dict[str, np.ndarray]
    mean_difference: dict[str, np.ndarray]   # A minus B (preferences: mean preference of A)


def testable(column: Column) -> bool:
    """Real-valued per-query metrics get tests; counts and text do not."""
    return column.measure.per_query and not column.measure.text and not column.measure.integer


def selected_pairs(run_names: list[str], baseline: str | None) -> np.ndarray:
    """(P, 2) the pairs to print and test: all, or those with the baseline."""
    pairs = np.array(run_pairs(len(run_names)), dtype=np.int64).reshape(-1, 2)
    if baseline is None:
        return pairs
    if baseline not in run_names:
        raise UsageError(f"--baseline '{baseline}' is not one of the runs: {', '.join(run_names)}")
    index = run_names.index(baseline)
    return pairs[(pairs[:, 0] == index) | (pairs[:, 1] == index)]


@dataclass
class PairSummary:
    """Per printed pair (``Evaluation.pairs``) and preference: the mean over
    compared queries, wins, losses and ties (P,) each; the raw p-values of
    the preference tests (before correction); and every run's per-query
    score (R, Q) against all other runs. One pass over all pairs, a block
    at a time, makes them all."""

    mean: dict[str, np.ndarray]
    wins: dict[str, np.ndarray]
    losses: dict[str, np.ndarray]
    ties: dict[str, np.ndarray]
    raw_p: dict[str, np.ndarray]
    run_scores: dict[str, np.ndarray]


def pair_rows(preferences: Preferences, pairs: np.ndarray) -> np.ndarray:
    """Row of each of ``pairs`` in the preferences' pair list."""
    runs = preferences.rankings.num_runs
    a, b = pairs[:, 0], pairs[:, 1]
    # pairs come from itertools.combinations: row of (a, b), a < b
    return a * (2 * runs - a - 1) // 2 + (b - a - 1)


def summarize_pairs(evaluation: Evaluation, pairs: np.ndarray, options: "SignificanceOptions | None") -> PairSummary:
    """Means, counts and (with ``options``) raw test p-values of the
    preferences of ``pairs``, and every run's scores; memory follows a block
    of pairs, not all pairs x queries."""
    preferences = evaluation.preferences
    runs, queries = preferences.rankings.num_runs, preferences.rankings.num_queries
    names = preferences.names
    printed = np.full(len(preferences.pairs), -1, dtype=np.int64)
    printed[pair_rows(preferences, pairs)] = np.arange(len(pairs))
    shape = len(pairs)
    mean = {name: np.zeros(shape) for name in names}
    wins, losses, ties = ({name: np.zeros(shape, dtype=np.int64) for name in names} for _ in range(3))
    raw_p = {name: np.ones(shape) for name in names} if options is not None else {}
    totals = {name: np.zeros((runs, queries)) for name in names}
    for rows, values, _ in preferences.blocks():
        spread = RunSpread(preferences.pair_array[rows])
        slot = printed[rows]
        shown = slot >= 0
        for name, block in values.items():
            spread.add(totals[name], block)
            if not shown.any():
                continue
            rows_shown, where = block[shown], slot[shown]
            if queries:   # added left to right, as the per-query lines read
                mean[name][where] = np.cumsum(rows_shown, axis=1)[:, -1] / queries
            wins[name][where] = (rows_shown > 0).sum(axis=1)
            losses[name][where] = (rows_shown < 0).sum(axis=1)
            ties[name][where] = (rows_shown == 0).sum(axis=1)
            if options is not None:
                raw_p[name][where] = sig.sign_test(rows_shown) if name in SIGN_PREFERENCES \
                    else sig.one_sample_t(rows_shown)
    run_scores = {name: total / max(runs - 1, 1) for name, total in totals.items()}
    return PairSummary(mean, wins, losses, ties, raw_p, run_scores)


def compute_pair_tests(evaluation: Evaluation, pairs: np.ndarray, options: SignificanceOptions) -> PairTests:
    """Every tested measure's p-values for ``pairs``, corrected per measure."""
    p, hsd_p, difference = {}, {}, {}
    queries = int(evaluation.compared.sum())
    step = max(1, (1 << 21) // max(queries, 1))        # pairs per block: memory follows the block
    for column in evaluation.columns:
        if not testable(column):
            continue
        values = evaluation.compared_values(column).astype(np.float64)
        mean, raw = np.zeros(len(pairs)), np.ones(len(pairs))
        for start in range(0, len(pairs), step):
            block = pairs[start:start + step]
            gaps = values[block[:, 0]] - values[block[:, 1]]
            if queries:
                mean[start:start + step] = gaps.mean(axis=1)
            raw[start:start + step] = sig.randomization(gaps, options.permutations, options.seed) \
                if options.test == "randomization" else sig.one_sample_t(gaps)
        difference[column.name] = mean
        p[column.name] = sig.correct(raw, options.correction)
        if options.hsd:
            hsd_p[column.name] = sig.tukey_hsd(values, pairs)
    summary = evaluation.pair_summary
    if summary is not None:
        for name in evaluation.preference_names():
            difference[name] = summary.mean[name]
            p[name] = sig.correct(summary.raw_p[name], options.correction)
            if options.hsd:
                hsd_p[name] = sig.tukey_hsd(summary.run_scores[name], pairs)
    return PairTests(p, hsd_p, difference)


@dataclass
class GateFailure:
    run: str
    measure: str
    difference: float     # run minus baseline (preferences: mean preference of run)
    p: float


def gate_failures(evaluation: Evaluation, gates: list[str], margin: float = 0.0) -> list[GateFailure]:
    """Runs worse than the baseline on a gate measure by more than ``margin``
    with p < alpha (after correction)."""
    tests, pairs, options = evaluation.tests, evaluation.pairs, evaluation.options
    baseline = evaluation.run_names.index(options.baseline)
    failures = []
    for gate in gates:
        if gate not in tests.p:
            raise UsageError(f"--gate {gate}: not a tested measure here "
                             f"(tested: {', '.join(tests.p) or 'none'})")
        for row, (a, b) in enumerate(pairs):
            other = b if a == baseline else a
            sign = 1.0 if other == a else -1.0          # differences are A minus B
            difference = sign * tests.mean_difference[gate][row]
            p = tests.p[gate][row]
            if difference < -margin and p < options.alpha:
                failures.append(GateFailure(evaluation.run_names[other], gate, float(difference), float(p)))
    return failures


def evaluate_rankings(rankings: Rankings, requests: list[m.MeasureRequest],
                      complete: bool = False, preference_names: list[str] | None = None,
                      options: SignificanceOptions | None = None) -> Evaluation:
    """Compute per-run measures and, with 2+ runs, pair preferences and tests."""
    options = options or SignificanceOptions()
    included = np.ones_like(rankings.present) if complete else rankings.present.copy()
    evaluation = Evaluation(rankings, compute_columns(rankings, requests), included,
                            compared=rankings.num_rel_per_query > 0, options=options,
                            requests=list(requests), complete=complete)
    if preference_names and rankings.num_runs > 1:
        evaluation.preferences = compute_preferences(evaluation.comparison, preference_names)
    if rankings.num_runs > 1:
        evaluation.pairs = selected_pairs(rankings.run_names, options.baseline)
        if evaluation.preferences is not None:
            evaluation.pair_summary = summarize_pairs(evaluation, evaluation.pairs,
                                                      options if options.test != "none" else None)
        if options.test != "none":
            evaluation.tests = compute_pair_tests(evaluation, evaluation.pairs, options)
    return evaluation


def load(qrels_path: str, run_paths: list[str], level: int = 1, depth: int | None = None,
         jobs: int | None = None, progress=None, warn=None, keep_rows: bool = False) -> Rankings:
    """Read qrels and runs into Rankings (the arrays every measure uses).
    ``keep_rows`` keeps document identities (for the rareness measures);
    ``warn(text)`` receives the notes on dropped queries (default: stderr)."""
    if depth is not None and depth < 1:
        raise UsageError("-M (depth) must be at least 1")
    if level < 0:
        raise UsageError("-l (relevance level) must be 0 or more")
    check_paths(run_paths + ([qrels_path] if qrels_path == "-" else []))
    qrels = read_qrels(qrels_path)
    runs = read_runs(run_paths, qrels, depth, jobs, progress, keep_rows)
    rankings = build_rankings(qrels, runs, level)
    warn = warn or (lambda text: print(f"lexeval: {text}", file=sys.stderr))
    for note in coverage_notes(qrels, runs, level):
        warn(note)
    return rankings


def evaluate(qrels_path: str, run_paths: list[str], measures=None, level: int = 1,
             depth: int | None = None, complete: bool = False, jobs: int | None = None,
             options: SignificanceOptions | None = None, rarity_weight: float = 0.5,
             extra_measures=(), keep_rows: bool = False, progress=None) -> Evaluation:
    """Evaluate runs against qrels: trec_eval's measures for each run, and
    with two or more runs the pair preferences and significance tests.

    ``extra_measures`` are computed even when ``measures`` is None (the
    defaults); ``keep_rows`` keeps document identities (needed by the
    degradation report); ``progress(done, total)`` follows the reading.

    >>> ev = evaluate("qrels.txt", ["runA", "runB"], ["map", "P.10"])  # doctest: +SKIP
    >>> ev.column("map").values          # (runs, queries)  # doctest: +SKIP
    """
    selection = select_measures(measures, len(run_paths), extra=extra_measures)
    rankings = load(qrels_path, run_paths, level, depth, jobs, progress=progress,
                    keep_rows=keep_rows or selection.needs_documents)
    rankings.rarity_weight = rarity_weight
    return evaluate_rankings(rankings, selection.metrics, complete, selection.preferences, options)
