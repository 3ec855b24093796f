"""The documents a run ranks, by name: for the few analyses that compare
two rankings document by document (the reproduction report's Kendall's tau
union and rank-biased overlap), where relevance codes are not enough."""

from __future__ import annotations

import numpy as np

from .runs import check_rereadable
from .source import Source
from .textfile import RUN_LAYOUTS


def ranked_documents(given, qids: list[str], depth: int | None = None) -> list[list[bytes]]:
    """(Q,) per query of ``qids``, the run's docnos in trec_eval's order
    (score descending, then docno descending byte-wise), the top ``depth``
    if given; an empty list for a query the run lacks. ``given`` is what
    :func:`lexeval.evaluate` takes as a run (a path, a Source, a table)."""
    check_rereadable([given], "the reproduction report")
    source = given if isinstance(given, Source) else Source(given)
    query_of = {qid.encode("utf-8", "surrogateescape"): index for index, qid in enumerate(qids)}
    queries, scores, docnos = [], [], []
    for piece in source.blocks(RUN_LAYOUTS):
        per_group = np.array([query_of.get(qid, -1) for qid in piece.change_qids], dtype=np.int64)
        queries.append(piece.per_line(per_group))
        scores.append(np.asarray(piece.number, dtype=np.float64))
        docnos += piece.docnos.to_list()
    if not queries:
        return [[] for _ in qids]
    query, score = np.concatenate(queries), np.concatenate(scores)
    by_docno = np.empty(len(docnos), dtype=np.int64)
    by_docno[sorted(range(len(docnos)), key=docnos.__getitem__)] = np.arange(len(docnos))
    order = np.lexsort((-by_docno, -score, query))
    order = order[query[order] >= 0]
    ranked: list[list[bytes]] = [[] for _ in qids]
    for line in order.tolist():
        documents = ranked[int(query[line])]
        if depth is None or len(documents) < depth:
            documents.append(docnos[line])
    return ranked

