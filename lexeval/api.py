"""The library's front door: :func:`evaluate` on this machine, or with
``client=`` on a Dask cluster. It sits above both (the evaluation layer
does not know the cluster), so that the cluster's partitions can run the
one-machine code without an import circle."""

from __future__ import annotations


def evaluate(qrels, runs, measures=None, *, client=None, per_query: bool = True, output_dir: str | None = None,
             output_format: str = "text", **options):
    """Evaluate runs against qrels: trec_eval's measures for each run, and
    with two or more runs the pair preferences and significance tests.

    The arguments are those of :func:`lexeval.evaluation.evaluate` (paths,
    tables, pytrec_eval/ranx dicts, ranx objects, ir_measures tuples; the
    command line's options as keywords). ``client`` (a dask.distributed
    Client) evaluates on that cluster instead (paths and fsspec URLs only;
    see :mod:`lexeval.cluster`) and returns a
    :class:`lexeval.cluster.Combined` with the same summaries and tests
    (with ``per_query``, the per-query values too; with ``output_dir`` each
    partition writes its per-query lines there instead, as part files in
    ``output_format``).

    >>> ev = evaluate("qrels.txt", ["runA", "runB"], ["map", "P.10"])  # doctest: +SKIP
    >>> ev.column("map").values          # (runs, queries)  # doctest: +SKIP
    >>> ev.to_frame()                    # run, pair, measure, qid, value  # doctest: +SKIP
    """
    if client is not None:
        from .cluster import evaluate_on_cluster
        # the workers read with one process each, and what was read stays on them
        cluster_options = {key: value for key, value in options.items() if key not in ("jobs", "on_read")}
        return evaluate_on_cluster(client, qrels, runs, measures, per_query=per_query, output_dir=output_dir,
                                   output_format=output_format, **cluster_options)
    from .evaluation import evaluate as on_this_machine
    return on_this_machine(qrels, runs, measures, **options)
