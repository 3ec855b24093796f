"""Lexicographic preferences between every pair of runs, per query.

A run's *position vector* for a query is the sorted ranks p_1 < ... < p_k
of the relevant documents it retrieved; the m - k unretrieved ones are
imputed below everything (pessimistic imputation: Diaz, "Recall,
Robustness, and Lexicographic Evaluation", section 2.2), so an unretrieved
position is worse than any retrieved one and two unretrieved positions are
equal.

- LP (lexiprecision: Diaz, "Best-Case Retrieval Evaluation", eq. 3): compare
  p top-down; the first recall level i* where the runs differ decides, the
  higher-ranked one wins.
- rrLP (eq. 2): 1/p^A_i* - 1/p^B_i* (1/unretrieved = 0).
- LR (lexirecall: Diaz, "Recall, Robustness, and Lexicographic Evaluation",
  eq. 11): the run that retrieved more relevant
  documents wins; with equal counts, compare from the lowest retrieved
  relevant document upward, the smaller position wins.
- rrLR: the reciprocal-rank difference at lexirecall's deciding level.

The parts: ``orders`` (the relevant ranks and their lexicographic orders,
from which a pair's sign and deciding level come), ``recall_paired`` (the
RPPs), ``pairs`` (pairs of runs and their rows), ``source`` (what the sums,
the output and the reports read: the computed preferences, and those a
cluster gathered).
"""

from .orders import (
    NO_SPLIT,
    Lex,
    LexOrder,
    RangeMinimum,
    RelevantRanks,
    decide_reference,
    level_tie_counts,
    lexicographic_order,
    lexirecall_sequences,
    reciprocal_difference,
    reciprocal_difference_reference,
    sorted_sequences,
)
from .pairs import RunSpread, pair_rows, pair_signs, pairs_of_rows, rank_runs, run_pairs
from .recall_paired import RecallPaired, rpp_weights
from .source import GatheredPreferences, PairSource, Preferences, compute_preferences

__all__ = ["NO_SPLIT", "GatheredPreferences", "Lex", "LexOrder", "PairSource", "Preferences", "RangeMinimum",
           "RecallPaired", "RelevantRanks", "RunSpread", "compute_preferences", "decide_reference",
           "level_tie_counts", "lexicographic_order", "lexirecall_sequences", "pair_rows", "pair_signs",
           "pairs_of_rows", "rank_runs", "reciprocal_difference", "reciprocal_difference_reference", "run_pairs",
           "rpp_weights", "sorted_sequences"]
