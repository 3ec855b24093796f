"""The library's front door: :func:`evaluate` on this machine, or with
``client=`` on a Dask cluster. It sits above both (the evaluation layer
does not know the cluster), so that the cluster's partitions can run the
one-machine code without an import circle."""


from collections.abc import Callable, Iterable
from typing import Any


def _keywords_checked(function):
    """``function`` refusing an unknown keyword with a did-you-mean (a
    :class:`~lexeval.errors.KeywordError`), not Python's bare TypeError."""
    import functools

    @functools.wraps(function)
    def checked(*args, **keywords):
        known = function.__code__.co_varnames[:function.__code__.co_argcount + function.__code__.co_kwonlyargcount]
        unknown = [key for key in keywords if key not in known]
        if unknown:
            import difflib

            from .errors import KeywordError
            close = difflib.get_close_matches(unknown[0], known, n=1, cutoff=0.6)
            raise KeywordError(f"{function.__name__}() has no keyword '{unknown[0]}'"
                               + (f": did you mean '{close[0]}'?" if close else
                                  f" (it takes {', '.join(known[2:])})"))
        return function(*args, **keywords)
    return checked


@_keywords_checked
def evaluate(qrels, runs, measures: str | Iterable | None = None, *,
             baseline: str | None = None, test: str = "t", correction: str | None = None, alpha: float = 0.05,
             ci: bool = False, confidence: float = 0.95, resamples: int = 2000, permutations: int = 10_000,
             seed: int | None = 0, hsd: bool = False,
             level: float = 1, depth: int | None = None, complete: bool = False, judged_only: bool = False,
             subtopics: bool = False, rel_format: str = "qrels", zscores: str | None = None, num_docs: int = 0,
             rarity_weight: float = 0.5, aggregate: str = "mean", pair_metrics: bool = False, bounds: bool = False,
             tie_order: str = "trec_eval", fill_qrels: str | None = None,
             options=None, jobs: int | None = None, verbose: bool = False,
             warn: Callable[[str], Any] | None = None, progress: Callable[[int, int], Any] | None = None,
             timings=None, client=None, per_query: bool | None = None, output_dir: str | None = None,
             output_format: str | None = None):
    """Evaluate runs against qrels: trec_eval's measures for each run and,
    with two or more runs, the pair preferences and every difference's test.

    Inputs
        ``qrels``: a path (any compression; ``irds:ID`` for an ir_datasets
        dataset), a DataFrame or pyarrow Table (qid, docno, relevance),
        pytrec_eval's or ranx's dict, ranx's Qrels, ir_measures' Qrel tuples.
        ``runs``: one run or a list of them (paths, tables, dicts, ranx Runs,
        ScoredDoc tuples), or a dict {name: run}.
        ``measures``: None (trec_eval's official set, plus LP, rrLP and LR
        with two or more runs), a name (``"map"``, or ``"nDCG@10 P@5"``), or
        any iterable of names or ir_measures measure objects (``[nDCG@10,
        AP]``), in any tool's spelling; the result keeps their order.

    Significance (the command line's --baseline, --test, ...)
        ``baseline`` (a run's name: test each run against it only),
        ``test`` (t, randomization or none), ``correction`` (None, holm,
        holm-sidak, bonferroni, bh), ``alpha``, ``ci`` (intervals and effect
        sizes, at ``confidence``; ``resamples`` for the bootstrap),
        ``permutations`` and ``seed`` (randomization test, resampling),
        ``hsd`` (Tukey HSD). ``options``: a
        :class:`~lexeval.stats.pairs.SignificanceOptions` instead of these.

    Reading and measuring (-l, -M, -c, -J, ...)
        ``level`` (a document is relevant at grade >= level; grades and
        level may be fractional), ``depth``
        (the top documents of each ranking), ``complete`` (every qrels
        query counts; a query a run lacks scores as an empty ranking),
        ``judged_only`` (unjudged documents removed), ``subtopics``
        (diversity qrels), ``rel_format`` (trec_eval's -R: qrels, prefs,
        qrels_prefs, qrels_jg), ``zscores`` (-Z: a file of qid measure mean
        sd), ``num_docs`` (-N), ``rarity_weight``, ``aggregate`` (mean,
        borda, mc4: how runs are ranked by a preference), ``pair_metrics``
        (every metric as a preference too), ``bounds`` (each measure's
        least and greatest value over the unjudged documents' grades,
        <name>_low and <name>_high), ``tie_order`` (trec_eval, input or
        expected: how tied scores are ordered, or every measure's expected
        value over their orders), ``fill_qrels`` (a qrels whose grades the
        documents ``qrels`` leaves unjudged take: a model filling a human
        pool's holes), ``jobs`` (threads and processes at most,
        in all; default LEXEVAL_JOBS, else the processors the process may
        use: its affinity and cgroup quota).

    Notes and progress
        ``warn(text)`` receives notes on the inputs (dropped queries, a file
        read as MS MARCO); by default they are :class:`LexevalNote`
        warnings pointing at the caller's line. ``verbose`` lists every
        run's dropped queries; ``progress(done, total)`` follows reading;
        ``timings`` (a :class:`~lexeval.timings.Timings`) the phases.

    On a Dask cluster
        ``client`` (a dask.distributed Client) evaluates there (paths and
        fsspec URLs); ``per_query`` brings the per-query values back
        (default True), ``output_dir`` has each partition write its
        per-query lines there instead, in ``output_format`` (text, json,
        csv). These three need a client.

    Returns an :class:`~lexeval.evaluation.Evaluation` (with ``client``, the
    cluster's result with the same summaries and tests). Raises
    :class:`~lexeval.errors.UsageError` for a bad argument and
    :class:`~lexeval.errors.InputError` for bad data (both ValueError; a
    missing file is also a FileNotFoundError).

    >>> ev = evaluate("qrels.txt", ["runA", "runB"], ["map", "P.10"])  # doctest: +SKIP
    >>> ev.summary_frame().pivot(index="run", columns="measure", values="value")  # doctest: +SKIP
    """
    given = dict(locals())                  # every keyword, as the option groups declare them
    given["correction"] = "none" if correction is None else correction       # the library's None: no correction
    from .choices import RECORD_FORMATS
    from .errors import InputError, UsageError
    from .evaluation import in_keywords
    from .options import Cluster, Evaluating, Hooks, Measuring, Options, Reading, Significance
    from .parameters import measure_names
    names = measure_names(measures)
    try:
        reading, measuring = Reading.pick(given, keywords=True), Measuring.pick(given, keywords=True)
        tests = Significance.pick(given, keywords=True)
        hooks = Hooks(warn=warn, progress=progress, timings=timings)
        if options is not None:
            if not isinstance(options, Significance):
                raise UsageError(f"options must be a SignificanceOptions, got {type(options).__name__}; or give "
                                 "baseline=, test=, correction=, ... as keywords")
            if tests != Significance():
                raise UsageError("give the tests either as options= or as keywords (baseline=, test=, ...), not both")
            tests = options
        if client is None:
            for name, value in (("per_query", per_query), ("output_dir", output_dir),
                                ("output_format", output_format)):
                if value is not None:
                    raise UsageError(f"{name} is for a cluster's call (client=...); on this machine every "
                                     "per-query value is in the result")
        cluster = None if client is None else Cluster(per_query=True if per_query is None else per_query,
                                                      output_dir=output_dir, output_format=output_format or "text")
        if cluster is not None and cluster.output_format not in RECORD_FORMATS:
            raise UsageError(f"output_format must be one of {', '.join(RECORD_FORMATS)}; got {output_format!r}")
        asked = Evaluating(tuple(names) if names is not None else None, Options(reading, measuring, tests))
        from .cpus import limited
        with limited(reading.jobs):         # every thread and process of the call within jobs=
            evaluation = run_evaluation(qrels, runs, asked, client=client, cluster=cluster, hooks=hooks)
    except UsageError as error:             # said as the library's keywords, not the command's flags
        raise type(error)(in_keywords(str(error))) from None
    except InputError as error:
        raise error.moved(message=in_keywords(error.message),
                          hint=in_keywords(error.hint) if error.hint else None) from None
    if names and len(evaluation.run_names) < 2:
        from .measures.names import select_measures
        asked_preferences = select_measures(names, 1).preferences
        if asked_preferences:
            from .evaluation import note
            (warn or note)(f"{', '.join(asked_preferences)} compare{'s' * (len(asked_preferences) == 1)} two runs: "
                           "with one run there is nothing to compare, and no preference is computed")
    return evaluation.in_order(names) if names else evaluation


def run_evaluation(qrels, runs, asked, *, client=None, cluster=None, for_reports=None, hooks=None):
    """:func:`evaluate` for callers whose values are checked already (the
    command line): what is ``asked`` (a :class:`~lexeval.options.Evaluating`)
    on this machine, or with ``client`` on a cluster (``cluster``: what
    comes back, a :class:`~lexeval.options.Cluster`; ``for_reports``: the
    reports' options, when reports will read the cluster's result).
    Parameter sets that trec_eval's words leave out are said once, through
    ``hooks.warn``."""
    from .measures.names import parameter_notes
    from .options import Hooks
    hooks = hooks or Hooks()
    notes = parameter_notes(asked.names)
    if asked.options.measuring.bounds or asked.options.reading.tie_order == "expected":
        from .evaluation import evaluation_notes
        from .io.runs import sources_of
        notes = notes + evaluation_notes(asked, len(sources_of(runs)))
    if notes:
        from .evaluation import note
        for line in notes:
            (hooks.warn or note)(line)
    if client is not None:
        from .cluster import evaluate_on_cluster
        return evaluate_on_cluster(client, qrels, runs, asked, cluster=cluster, for_reports=for_reports,
                                   hooks=hooks)
    from .evaluation import evaluate as on_this_machine
    return on_this_machine(qrels, runs, asked.measures, asked.options, extra_measures=asked.extra_measures,
                           keep_rows=asked.keep_rows, hooks=hooks)
