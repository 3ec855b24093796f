"""Evaluate runs: from file names to matrices of per-query values.

This is the library face of the command line: ``evaluate(qrels, runs, ...)``
does everything ``lexeval`` does before formatting, and returns plain arrays.
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from . import measures as m
from . import significance as sig
from .errors import InputError, UsageError
from .names import select_measures
from .inputs import ParsedRun, Qrels, ReadOptions, Source, read_qrels, read_run
from .preferences import SIGN_PREFERENCES, Preferences, RunSpread, compute_preferences, rank_runs, run_pairs
from .rankings import Rankings, build_rankings
from .strings import shown

# ---------------------------------------------------------------- timings


class Timings:
    """Wall-clock seconds per phase of one evaluation (``--timings``).

    Phases are timed where the work happens; ``bytes_read`` is the input
    files' total size (0 unless all are plain files), for reading's MB/s.
    Per-query preferences are made while they are written: with ``-q``
    their time is part of "output"."""

    def __init__(self):
        self.seconds: dict[str, float] = {}
        self.bytes_read = 0
        self._start = time.perf_counter()

    @contextmanager
    def phase(self, name: str):
        """Add the time spent inside the ``with`` block to ``name``."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - start

    def line(self) -> str:
        """One line for standard error: each phase, then the total."""
        parts = []
        for name, seconds in self.seconds.items():
            text = f"{name} {seconds:.2f} s"
            if name == "reading" and self.bytes_read:
                megabytes = self.bytes_read / 1e6
                text += f" ({megabytes:.1f} MB, {megabytes / max(seconds, 1e-9):.0f} MB/s)"
            parts.append(text)
        parts.append(f"total {time.perf_counter() - self._start:.2f} s")
        return "timings: " + ", ".join(parts)


def timed(timings: Timings | None, name: str):
    """``timings.phase(name)``, or nothing when not timing."""
    return nullcontext() if timings is None else timings.phase(name)


# ---------------------------------------------------------------- reading


def sources_of(runs) -> list[Source]:
    """Runs as given to :func:`evaluate`: a path or a table, a list of
    them, or a dict {run name: path or table}."""
    if isinstance(runs, dict):
        return [Source(origin, str(name)) for name, origin in runs.items()]
    if isinstance(runs, (str, os.PathLike)) or not isinstance(runs, (list, tuple)):
        runs = [runs]
    return [origin if isinstance(origin, Source) else Source(origin) for origin in runs]


def check_sources(qrels: Source, runs: list[Source]) -> None:
    """Each file once, each run name once, standard input at most once."""
    if sum(source.path == "-" for source in runs + [qrels] if source.is_file) > 1:
        raise UsageError("standard input ('-') can be read only once")
    files: dict[tuple[int, int], str] = {}
    names: dict[str, str] = {}
    for source in runs:
        if source.is_file and source.path != "-":
            try:
                status = os.stat(source.path)
            except OSError:
                status = None                       # reading it will say what is wrong
            if status is not None:
                identity = (status.st_dev, status.st_ino)
                if identity in files:
                    raise InputError(source.path, f"the same file is given twice (also as {files[identity]})")
                files[identity] = source.path
        if source.name in names:
            raise InputError(source.path, f"two runs named '{source.name}' (also {names[source.name]}); "
                                          "rename one file, run names come from file names")
        names[source.name] = source.path


def _count(number: int, one: str, many: str) -> str:
    return f"{number} {one if number == 1 else many}"


def _quoted(qid: str) -> str:
    """A qid for a message: quoted, bytes that are not UTF-8 as \\xNN."""
    text = shown(qid.encode("utf-8", "surrogateescape"))
    return '"' + text.replace('"', '\\"') + '"'


#: Above this many runs with something left out, the notes are summed up in
#: one line each (``verbose`` lists every run).
NOTES_PER_RUN_UP_TO = 5


def coverage_notes(qrels: Qrels, runs: list[ParsedRun], level: int = 1, verbose: bool = False) -> list[str]:
    """What each run's queries left out, and which compared queries no run
    has: the silent drops a user should know of. One line per run for a few
    runs (or ``verbose``); for many, one line for the runs whose queries the
    qrels lack and one for the runs lacking qrels queries (how many, the worst
    case, the first example). A run none of whose queries is in the qrels
    (the classic "01" against "1") always gets its own line."""
    notes, unknown, lacking = [], [], []
    for run in runs:
        parts = []
        missing = np.flatnonzero(~run.present)
        if not run.present.any():
            notes.append(f"{run.path}: warning: none of its queries is in the qrels "
                         f"(first: {_quoted(run.unknown_qids[0])}): it scores 0")
            continue
        if run.num_unknown:
            parts.append(f"{_count(run.num_unknown, 'query', 'queries')} not in the qrels, ignored "
                         f"(first: {_quoted(run.unknown_qids[0])})")
            unknown.append(run)
        if len(missing):
            parts.append(f"lacks {len(missing)} of the {len(run.present)} qrels queries "
                         f"(first: {_quoted(qrels.qids[missing[0]])})")
            lacking.append((len(missing), run, missing[0]))
        if parts:
            notes.append(f"{run.path}: warning: " + "; ".join(parts))
    if not verbose and len({id(run) for run in unknown} | {id(item[1]) for item in lacking}) > NOTES_PER_RUN_UP_TO:
        notes = [note for note in notes if "none of its queries" in note]
        if unknown:
            worst = max(unknown, key=lambda run: run.num_unknown)
            notes.append(f"warning: {len(unknown)} of {len(runs)} runs have queries that are not in the qrels, "
                         f"ignored (most: {worst.path}, {_count(worst.num_unknown, 'query', 'queries')}, first: "
                         f"{_quoted(worst.unknown_qids[0])}); --verbose lists every run")
        if lacking:
            count, worst, first = max(lacking, key=lambda item: item[0])
            notes.append(f"warning: {len(lacking)} of {len(runs)} runs lack qrels queries (most: {worst.path} "
                         f"lacks {count} of the {len(worst.present)}, first: {_quoted(qrels.qids[first])}); "
                         "--verbose lists every run")
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


def _read_run_in_worker(source: Source, options: ReadOptions) -> ParsedRun:
    return read_run(source, _WORKER_QRELS, options)


def read_runs(sources: list[Source], qrels: Qrels, options: ReadOptions = ReadOptions(),
              jobs: int | None = None, progress=None) -> list[ParsedRun]:
    """Parse runs, in parallel processes when there are several big files.

    ``progress(done, total)`` is called after each run (for a progress bar).
    """
    global _WORKER_QRELS
    if jobs is None:
        jobs = os.cpu_count() or 1
    files = [source for source in sources if source.is_file and source.path != "-"]
    big = sum(os.path.getsize(s.path) for s in files if os.path.isfile(s.path)) > 50_000_000
    import multiprocessing
    if jobs <= 1 or len(sources) < 2 or not big or len(files) < len(sources) or \
            "fork" not in multiprocessing.get_all_start_methods():
        runs = []
        for done, source in enumerate(sources, start=1):
            runs.append(read_run(source, qrels, options))
            if progress:
                progress(done, len(sources))
        return runs
    _WORKER_QRELS = qrels  # inherited by forked workers
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        futures = [pool.submit(_read_run_in_worker, source, options) for source in sources]
        runs = []
        for done, future in enumerate(futures, start=1):
            runs.append(future.result())
            if progress:
                progress(done, len(sources))
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

    def to_frame(self, per_query: bool = True, summary: bool = True, library: str | None = None):
        """The results as a tidy table, one row per printed value: columns
        run (None on pair rows), pair ("A:B", None on run rows), measure,
        qid ("all" for summaries) and value. A pandas DataFrame, or a polars
        one (``library="polars"``, or when pandas is not installed)."""
        from .formatting import all_blocks, records
        columns: dict[str, list] = {"run": [], "pair": [], "measure": [], "qid": [], "value": []}
        runs = set(self.run_names)
        for record in records(all_blocks(self, per_query, summary)):
            is_run = record.key in runs
            columns["run"].append(record.key if is_run else None)
            columns["pair"].append(None if is_run else record.key)
            columns["measure"].append(record.measure)
            columns["qid"].append(record.qid)
            value = record.value
            columns["value"].append(value.item() if isinstance(value, np.generic) else value)
        if library in (None, "pandas"):
            try:
                import pandas
                return pandas.DataFrame(columns)
            except ImportError:
                if library == "pandas":
                    raise
        try:
            import polars
        except ImportError:
            raise ImportError("to_frame() needs pandas or polars: pip install pandas") from None
        return polars.DataFrame(columns, strict=False)

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
    correction: str = "none"        # none | holm | holm-sidak | bonferroni | bh
    hsd: bool = False
    alpha: float = 0.05
    baseline: str | None = None     # test only this run against each other run
    ci: bool = False                # confidence intervals and effect sizes of differences
    confidence: float = 0.95
    resamples: int = 2000           # bootstrap resamples for the intervals

    def __post_init__(self):
        from .names import CORRECTIONS, TESTS
        if self.test not in TESTS:
            raise UsageError(f"unknown test '{self.test}' (one of {', '.join(TESTS)})")
        if self.correction not in CORRECTIONS:
            raise UsageError(f"unknown correction '{self.correction}' (one of {', '.join(CORRECTIONS)})")
        if not 0.0 <= self.alpha <= 1.0:                       # also refuses NaN
            raise UsageError(f"alpha must be in [0, 1], got {self.alpha}")
        if not 0.0 < self.confidence < 1.0:
            raise UsageError(f"confidence must be in (0, 1), got {self.confidence}")


@dataclass
class PairTests:
    """p-values per measure for the tested pairs, (P,) each, corrected."""

    p: dict[str, np.ndarray]
    hsd_p: dict[str, np.ndarray]
    mean_difference: dict[str, np.ndarray]   # A minus B (preferences: mean preference of A)
    ci_low: dict[str, np.ndarray] = field(default_factory=dict)     # with --ci
    ci_high: dict[str, np.ndarray] = field(default_factory=dict)
    effect: dict[str, np.ndarray] = field(default_factory=dict)


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
    ci_low: dict[str, np.ndarray] = field(default_factory=dict)     # with --ci: percentile bootstrap
    ci_high: dict[str, np.ndarray] = field(default_factory=dict)
    effect: dict[str, np.ndarray] = field(default_factory=dict)


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
    with_ci = options is not None and options.ci
    low, high, effect = ({name: np.full(shape, np.nan) for name in names} if with_ci else {} for _ in range(3))
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
            if with_ci:
                low[name][where], high[name][where] = sig.bootstrap_interval(
                    rows_shown, options.confidence, options.resamples, options.seed)
                effect[name][where] = sig.effect_size(rows_shown)
    run_scores = {name: total / max(runs - 1, 1) for name, total in totals.items()}
    return PairSummary(mean, wins, losses, ties, raw_p, run_scores, low, high, effect)


def compute_pair_tests(evaluation: Evaluation, pairs: np.ndarray, options: SignificanceOptions) -> PairTests:
    """Every tested measure's p-values for ``pairs``, corrected per measure."""
    p, hsd_p, difference = {}, {}, {}
    ci_low, ci_high, effect = {}, {}, {}
    queries = int(evaluation.compared.sum())
    step = max(1, (1 << 21) // max(queries, 1))        # pairs per block: memory follows the block
    for column in evaluation.columns:
        if not testable(column):
            continue
        values = evaluation.compared_values(column).astype(np.float64)
        mean, raw = np.zeros(len(pairs)), np.ones(len(pairs))
        if options.ci:
            low, high, size = (np.full(len(pairs), np.nan) for _ in range(3))
        for start in range(0, len(pairs), step):
            block = pairs[start:start + step]
            gaps = values[block[:, 0]] - values[block[:, 1]]
            if queries:
                mean[start:start + step] = gaps.mean(axis=1)
            raw[start:start + step] = sig.randomization(gaps, options.permutations, options.seed) \
                if options.test == "randomization" else sig.one_sample_t(gaps)
            if options.ci:
                low[start:start + step], high[start:start + step] = \
                    sig.bootstrap_interval(gaps, options.confidence, options.resamples, options.seed) \
                    if options.test == "randomization" else sig.t_interval(gaps, options.confidence)
                size[start:start + step] = sig.effect_size(gaps)
        difference[column.name] = mean
        if options.ci:
            ci_low[column.name], ci_high[column.name], effect[column.name] = low, high, size
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
            if options.ci:
                ci_low[name], ci_high[name], effect[name] = \
                    summary.ci_low[name], summary.ci_high[name], summary.effect[name]
    return PairTests(p, hsd_p, difference, ci_low, ci_high, effect)


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
    if tests is None or options.baseline is None:
        raise UsageError("--gate needs two or more runs, --baseline RUN and a test (--test t or randomization)")
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
                      options: SignificanceOptions | None = None, timings: Timings | None = None) -> Evaluation:
    """Compute per-run measures and, with 2+ runs, pair preferences and tests.

    ``timings`` (a :class:`Timings`) receives the seconds spent on measures
    and on pairs (preferences and tests)."""
    options = options or SignificanceOptions()
    included = np.ones_like(rankings.present) if complete else rankings.present.copy()
    with timed(timings, "measures"):
        columns = compute_columns(rankings, requests)
    evaluation = Evaluation(rankings, columns, included,
                            compared=rankings.num_rel_per_query > 0, options=options,
                            requests=list(requests), complete=complete)
    if options.baseline is not None and options.baseline not in rankings.run_names:
        raise UsageError(f"--baseline '{options.baseline}' is not one of the runs: {', '.join(rankings.run_names)}")
    if rankings.num_runs < 2:
        return evaluation
    with timed(timings, "pairs"):
        if preference_names:
            evaluation.preferences = compute_preferences(evaluation.comparison, preference_names)
        evaluation.pairs = selected_pairs(rankings.run_names, options.baseline)
        if evaluation.preferences is not None:
            evaluation.pair_summary = summarize_pairs(evaluation, evaluation.pairs,
                                                      options if options.test != "none" else None)
        if options.test != "none":
            evaluation.tests = compute_pair_tests(evaluation, evaluation.pairs, options)
    return evaluation


def load(qrels, runs, level: int = 1, depth: int | None = None, jobs: int | None = None,
         progress=None, warn=None, keep_rows: bool = False, judged_only: bool = False,
         timings: Timings | None = None, verbose: bool = False) -> Rankings:
    """Read qrels and runs into Rankings (the arrays every measure uses).

    ``qrels`` and ``runs`` are as for :func:`evaluate`. ``depth`` keeps the
    top documents of each ranking (-M), ``judged_only`` then drops the
    unjudged ones (-J); ``keep_rows`` keeps document identities (for the
    rareness measures); ``warn(text)`` receives the notes on dropped queries
    and file formats (default: standard error); ``timings`` (a
    :class:`Timings`) the seconds and bytes of reading."""
    if depth is not None and depth < 1:
        raise UsageError("-M (depth) must be at least 1")
    if level < 0:
        raise UsageError("-l (relevance level) must be 0 or more")
    qrels_source = qrels if isinstance(qrels, Source) else Source(qrels)
    sources = sources_of(runs)
    if not sources:
        raise UsageError("no runs to evaluate")
    check_sources(qrels_source, sources)
    with timed(timings, "reading"):
        judgements = read_qrels(qrels_source)
        parsed = read_runs(sources, judgements, ReadOptions(depth, judged_only, keep_rows), jobs, progress)
        rankings = build_rankings(judgements, parsed, level)
    if timings is not None:
        sizes = [source.size() for source in [qrels_source, *sources]]
        # compressed files, standard input and tables have no size to divide by
        timings.bytes_read = sum(sizes) if all(sizes) else 0
    warn = warn or (lambda text: print(f"lexeval: {text}", file=sys.stderr))
    for run in parsed:
        if run.format != "run":
            warn(f"{run.path}: read as {run.format} (qid docid rank): score = -rank")
    for note in coverage_notes(judgements, parsed, level, verbose):
        warn(note)
    return rankings


def evaluate(qrels, runs, measures=None, level: int = 1, depth: int | None = None, complete: bool = False,
             jobs: int | None = None, options: SignificanceOptions | None = None, rarity_weight: float = 0.5,
             extra_measures=(), keep_rows: bool = False, progress=None, judged_only: bool = False,
             warn=None, timings: Timings | None = None, verbose: bool = False) -> Evaluation:
    """Evaluate runs against qrels: trec_eval's measures for each run, and
    with two or more runs the pair preferences and significance tests.

    ``qrels``: a path, or a table (pandas or polars DataFrame, pyarrow
    Table) with columns qid, docno and relevance (or grade). ``runs``: a
    path or table (columns qid, docno, score), a list of them, or a dict
    {run name: path or table}. The other arguments are the command line's:
    ``measures`` (-m values; None: the defaults), ``level`` (-l), ``depth``
    (-M), ``complete`` (-c), ``judged_only`` (-J), ``options`` (the tests),
    ``rarity_weight``. ``extra_measures`` are computed even when
    ``measures`` is None; ``keep_rows`` keeps document identities (the
    degradation report needs them); ``progress(done, total)`` follows the
    reading; ``warn(text)`` receives notes (default: standard error);
    ``timings`` (a :class:`Timings`) the seconds spent in each phase;
    ``verbose`` lists every run's dropped queries, however many runs.

    >>> ev = evaluate("qrels.txt", ["runA", "runB"], ["map", "P.10"])  # doctest: +SKIP
    >>> ev.column("map").values          # (runs, queries)  # doctest: +SKIP
    >>> ev.to_frame()                    # run, pair, measure, qid, value  # doctest: +SKIP
    """
    sources = sources_of(runs)
    if not 0.0 <= rarity_weight <= 1.0:
        raise UsageError(f"rarity_weight must be in [0, 1], got {rarity_weight}")
    selection = select_measures(measures, len(sources), extra=extra_measures)
    rankings = load(qrels, sources, level, depth, jobs, progress=progress, warn=warn, verbose=verbose,
                    keep_rows=keep_rows or selection.needs_documents, judged_only=judged_only, timings=timings)
    rankings.rarity_weight = rarity_weight
    return evaluate_rankings(rankings, selection.metrics, complete, selection.preferences, options, timings)
