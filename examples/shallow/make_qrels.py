"""Make examples/shallow/qrels.txt: Cranfield's judgements cut down to a
shallow pool, the top 10 of one run (bm25okapi) per query, as a TREC track
judging one submission to depth 10 would leave them. Every other document
is unjudged, so a run that retrieves other documents (lsi200) is scored as
if they were not relevant: --bounds shows how far that could be wrong.

    python examples/shallow/make_qrels.py
"""

import collections
import gzip
from pathlib import Path

HERE = Path(__file__).parent
CRANFIELD = HERE.parent / "cranfield"
DEPTH = 10


def ranking(path: Path) -> dict[str, list[str]]:
    """Each query's documents in trec_eval's order (score descending, docno descending)."""
    lines = collections.defaultdict(list)
    with gzip.open(path, "rt") as run:
        for line in run:
            qid, _, docno, _, score, *_ = line.split()
            lines[qid].append((float(score), docno))
    return {qid: [docno for _, docno in sorted(docs, reverse=True)] for qid, docs in lines.items()}


def main() -> None:
    judged = collections.defaultdict(dict)
    with gzip.open(CRANFIELD / "qrels.txt.gz", "rt") as qrels:
        for line in qrels:
            qid, _, docno, grade = line.split()
            judged[qid][docno] = max(int(grade), 0)
    pooled = ranking(CRANFIELD / "runs" / "bm25okapi.gz")
    with open(HERE / "qrels.txt", "w") as out:
        for qid in judged:
            for docno in sorted(pooled.get(qid, [])[:DEPTH]):
                out.write(f"{qid} 0 {docno} {judged[qid].get(docno, 0)}\n")


if __name__ == "__main__":
    main()
