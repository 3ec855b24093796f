"""Evaluation sharded by query on a Dask cluster.

The data flow, from files to the printed lines:

1. **Read** (workers): every input is cut into pieces the workers read
   themselves: text (plain or gzipped) in byte ranges ending at a line
   break (``dask.bytes.read_bytes``; a gzipped file is one piece), Parquet
   by row group. Paths are local or any fsspec URL.
2. **Shuffle** (the engine): the judged qids are cut into K ranges in byte
   order (trec_eval's query order); each piece splits its lines into K
   buckets by the range of their qid; bucket k of every piece of every file
   goes to partition k, so a query's judgements and every run's lines for it
   meet there. The engine moves the buckets; a lost worker's tasks are run
   again.
3. **Evaluate** (workers): each partition is evaluated by the code one
   machine uses (:func:`lexeval.evaluation.evaluate`) and returns only its
   :class:`~lexeval.stats.totals.Totals` (sums over its queries), a few
   counts for the notes and, with ``-q``, its per-query values.
4. **Conclude** (client): the totals are added and concluded as on one
   machine. Sums are exact integers and random draws are keyed by (seed,
   qid, draw); trec_eval's means, which add floats left to right in qid
   order, are folded through the partitions in range order (only the
   running sums travel). So every printed number equals the one-machine
   call's.

An error in a piece names the original file and line (Parquet: row).

The modules, in the order of that flow: :mod:`.client` (the command's quiet
client, and the code it ships to workers that lack it), :mod:`.pieces`
(steps 1-2, on the workers), :mod:`.partition` (step 3), :mod:`.combine`
(step 4) and :mod:`.run` (the call that submits them).
"""

from .client import connect
from .combine import Combined
from .run import evaluate_on_cluster

__all__ = ["Combined", "connect", "evaluate_on_cluster"]
