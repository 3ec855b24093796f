"""trec_eval's measures over preference judgements (``-R prefs`` and
``-R qrels_prefs``; m_prefs_*.c and form_prefs_counts.c), to the last digit.

A judgement group (JG, e.g. one user) holds subgroups; within a subgroup a
document with a higher level is preferred to one with a lower level. A JG
with one subgroup prefers by level across all its documents; a JG with
several unites their preferences and adds the transitive ones (A > B in one
subgroup and B > C in another give A > C; a cycle is an error). Level 0
means non-relevant, above 0 relevant.

For a ranking, each preference A > B of a JG is

- fulfilled among the retrieved (``ret``): both retrieved, A above B;
- possible among the retrieved: both retrieved;
- fulfilled implied (``imp``): A retrieved, B not; possible implied: one retrieved;
- not occurring: neither retrieved (possible, never fulfilled).

The measures (per query; the counts' summaries are sums, the rest means):

- prefs_num_prefs_poss, prefs_num_prefs_ful, prefs_num_prefs_ful_ret: counts;
- prefs_simp: fulfilled / possible over every JG's preferences;
- prefs_pair: over document pairs, the share of the pair's preferences (from
  all JGs) that the ranking fulfils, averaged over the pairs;
- prefs_avgjg: fulfilled / possible per JG, averaged over the JGs;
- prefs_avgjg_Rnonrel: as prefs_avgjg with each JG's non-relevant documents
  counted as if there were R of them (R its relevant documents): fewer add
  R (R - N) fulfilled preferences, more keep the first R in the ranking;
- _ret variants count only preferences with both documents retrieved, _imp
  variants those with at least one.

Quirks kept from trec_eval 10.0, so that numbers agree: in the Rnonrel
recount of a single-subgroup JG, every document of the JG (the non-relevant
ones too) is compared with the R kept non-relevant ones; the _ret recount
of a JG with subgroups keeps the first R (all relevant, not only retrieved)
non-relevant documents; a JG whose recount has no preference makes the
query's Rnonrel value 0 (0/0 poisons trec_eval's sum).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np

from ..errors import InputError
from ..rankings import Rankings

#: Output order of the fourteen values (trec_eval's table order).
NAMES = ("prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair",
         "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
         "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp")
#: Elements of a (runs, pairs) block computed at once; bounds memory per query.
BLOCK = 1 << 23


@dataclass(frozen=True)
class Group:
    """One judgement group of a query: its documents as the query's local
    indices (docno order), and its preferences as positions among them,
    ``docs[preferred[k]]`` preferred to ``docs[over[k]]``."""

    docs: np.ndarray        # (n,) distinct documents of the JG
    relevant: np.ndarray    # (n,) int8: 1 relevant, 0 non-relevant, -1 neither (negative level, subgroups)
    preferred: np.ndarray   # (P,) positions in docs
    over: np.ndarray        # (P,)
    lowest: np.ndarray | None   # (n,) bool, single subgroup: the lowest level's documents; None with subgroups

    @property
    def num_rel(self) -> int:
        return int((self.relevant == 1).sum())

    @property
    def num_nonrel(self) -> int:
        return int((self.relevant == 0).sum())


@dataclass(frozen=True)
class PreferenceIndex:
    """Per ordinary qrels row, its query's local document index (docno
    order); per query, the judgement lines grouped (built into JGs when a
    query is evaluated, so that their pairs are held one query at a time)."""

    local_of_row: np.ndarray            # (J,) int64
    query_of: dict                      # qid -> query index here (rankings may hold fewer queries)
    num_docs: np.ndarray                # (Q,) documents judged per query
    lines: list                         # per query: [(group, subgroup, local doc, level, line number)]
    path: str

    @classmethod
    def build(cls, qrels, judgements) -> PreferenceIndex:
        """``qrels``: the ordinary Qrels made from ``judgements`` (GroupedJudgements)."""
        qid_bytes = [qid.encode("utf-8", "surrogateescape") for qid in qrels.qids]
        docnos = [qrels.docnos[int(line)] for line in qrels.line_of_row]
        query_of_row = qrels.query_index.astype(np.int64)
        order = sorted(range(len(docnos)), key=lambda row: (int(query_of_row[row]), docnos[row]))
        local_of_row = np.empty(len(docnos), dtype=np.int64)
        num_docs = np.bincount(query_of_row, minlength=len(qid_bytes))
        starts = np.concatenate(([0], np.cumsum(num_docs)[:-1]))
        local_of_row[order] = np.arange(len(order)) - starts[query_of_row[order]]
        local_of = {(qid_bytes[int(query_of_row[row])], docnos[row]): (int(query_of_row[row]), int(local_of_row[row]))
                    for row in range(len(docnos))}
        lines: list[list] = [[] for _ in qid_bytes]
        for qid, group, subgroup, docno, level, number in zip(judgements.qid, judgements.group, judgements.subgroup,
                                                              judgements.docno, judgements.level.tolist(),
                                                              judgements.line.tolist()):
            query, local = local_of[(qid, docno)]
            lines[query].append((group, subgroup, local, level, number))
        return cls(local_of_row, {qid: q for q, qid in enumerate(qrels.qids)}, num_docs, lines, judgements.path)

    def groups(self, query: int, qid: str) -> list[Group]:
        """The query's JGs in group order (byte order of their names)."""
        by_group: dict[bytes, list] = {}
        for entry in self.lines[query]:
            by_group.setdefault(entry[0], []).append(entry)
        return [self._group(qid, name, by_group[name]) for name in sorted(by_group)]

    def _group(self, qid: str, name: bytes, entries: list) -> Group:
        subgroups = sorted({entry[1] for entry in entries})
        docs = np.array(sorted({entry[2] for entry in entries}), dtype=np.int64)
        position = {int(doc): i for i, doc in enumerate(docs)}
        where = f"query '{qid}', judgement group '{name.decode('utf-8', 'backslashreplace')}'"
        if len(subgroups) == 1:
            level = np.empty(len(docs))
            for _, _, local, value, _ in entries:
                level[position[local]] = value
            preferred, over = np.nonzero(level[:, None] > level[None, :])
            return Group(docs, (level > 0).astype(np.int8), preferred, over, level == level.min())
        # several subgroups: a preference matrix closed under transitivity
        n = len(docs)
        prefers = np.zeros((n, n), dtype=bool)
        last_level = {}
        zero, positive = np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)
        for subgroup in subgroups:
            members = [(position[e[2]], e[3]) for e in entries if e[1] == subgroup]
            index = np.array([i for i, _ in members], dtype=np.int64)
            level = np.array([v for _, v in members])
            prefers[np.ix_(index, index)] |= level[:, None] > level[None, :]
            for i, value in members:
                last_level[i] = value
                zero[i] |= value == 0
                positive[i] |= value > 0
        if (zero & positive).any():
            doc = int(np.flatnonzero(zero & positive)[0])
            raise InputError(self.path, f"{where}: a document has both level 0 (non-relevant) and a level "
                                        f"above 0 (document {doc + 1} of the group in docno order)")
        closure = prefers | np.eye(n, dtype=bool)
        while True:                              # square until nothing changes: the transitive closure
            wider = (closure.astype(np.float32) @ closure.astype(np.float32)) > 0
            if (wider == closure).all():
                break
            closure = wider
        np.fill_diagonal(closure, False)
        if (closure & closure.T).any():
            raise InputError(self.path, f"{where}: inconsistent preferences (a document is both preferred and "
                                        "not preferred to another, directly or through others)")
        relevant = np.array([1 if last_level[i] > 0 else 0 if last_level[i] == 0 else -1 for i in range(n)],
                            dtype=np.int8)
        preferred, over = np.nonzero(closure)
        return Group(docs, relevant, preferred, over, None)


def prefs_values(r: Rankings) -> np.ndarray:
    """(S, 14) every prefs_* value of every segment, in ``NAMES`` order;
    computed once per Rankings (all fourteen measures share the counts)."""
    cached = r.__dict__.get("_prefs_values")
    if cached is None:
        cached = r.__dict__["_prefs_values"] = _compute(r)
    return cached


def _docid_ranks(r: Rankings, index: PreferenceIndex):
    """Per query: (runs, local docs) trec_eval's internal ranks, judged
    retrieved documents 0..NJR-1 in rank order, the others NJR.. in docno
    order; and (runs,) NJR, the judged documents retrieved."""
    rows = cast(np.ndarray, r.qrels_rows)
    judged = np.flatnonzero(rows >= 0)
    segment = r.segment_of(judged)
    local = index.local_of_row[rows[judged]]
    first = np.searchsorted(segment, np.arange(r.num_segments))
    position = np.arange(len(judged)) - first[segment]
    by_query = np.argsort(segment % r.num_queries, kind="stable")
    bounds = np.searchsorted((segment % r.num_queries)[by_query], np.arange(r.num_queries + 1))
    for query in range(r.num_queries):
        chosen = by_query[bounds[query]:bounds[query + 1]]
        ranks = np.full((r.num_runs, int(index.num_docs[index.query_of[r.qids[query]]])), -1, dtype=np.int64)
        ranks[segment[chosen] // r.num_queries, local[chosen]] = position[chosen]
        retrieved = ranks >= 0
        num_ret = retrieved.sum(axis=1)
        unretrieved_order = np.cumsum(~retrieved, axis=1) - 1
        yield query, np.where(retrieved, ranks, num_ret[:, None] + unretrieved_order), num_ret


def _ratio(numerator, denominator):
    """trec_eval's guarded ratios: 0 where the denominator is 0."""
    numerator = np.asarray(numerator, dtype=np.float64)
    out = np.zeros(np.broadcast_shapes(numerator.shape, np.shape(denominator)))
    np.divide(numerator, denominator, out=out, where=np.asarray(denominator) != 0)
    return out


def _quotient(numerator, denominator):
    """An unguarded ratio, as trec_eval's Rnonrel divides: 0/0 is NaN."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(numerator, dtype=np.float64) / np.asarray(denominator, dtype=np.float64)


def _sequential_sum(columns: list[np.ndarray], width: int) -> np.ndarray:
    """Left-to-right sum over JGs, as trec_eval's loop adds."""
    total = np.zeros(width)
    for column in columns:
        total = total + column
    return total


def _kept_first(ranks: np.ndarray, members: np.ndarray, count: np.ndarray) -> np.ndarray:
    """(runs, n) bool: of ``members`` (n,) bool, the ``count`` (runs,) with the
    smallest ranks in each run."""
    order = np.where(members[None, :], ranks, np.iinfo(np.int64).max)
    position = np.argsort(np.argsort(order, axis=1, kind="stable"), axis=1, kind="stable")
    return members[None, :] & (position < count[:, None])


def _count_above(ranks: np.ndarray, take_x: np.ndarray, take_y: np.ndarray) -> np.ndarray:
    """(runs,) per run, the pairs (x, y) with take_x[x], take_y[y] and
    ranks[x] < ranks[y]; ranks (runs, n) are distinct within a run."""
    runs, n = ranks.shape
    if runs == 0 or n == 0:
        return np.zeros(runs, dtype=np.int64)
    beyond = int(ranks.max()) + 1                   # marks a y not taken: above every rank
    offset = (np.arange(runs, dtype=np.int64) * (beyond + 1))[:, None]
    y_sorted = np.sort(np.where(take_y, ranks, beyond), axis=1) + offset
    at_most = np.searchsorted(y_sorted.ravel(), (ranks + offset).ravel(), side="right").reshape(runs, n)
    at_most -= np.arange(runs, dtype=np.int64)[:, None] * n      # taken y ranked at or above x
    above = take_y.sum(axis=1)[:, None] - at_most
    return np.where(take_x, above, 0).sum(axis=1)


@dataclass(frozen=True)
class _Placed:
    """A JG's documents and preferences placed in a block of runs: (runs, n)
    ranks and retrieved flags of its documents, (runs, P) of each side of
    each preference."""

    doc_ranks: np.ndarray
    doc_ret: np.ndarray
    rank_i: np.ndarray
    rank_j: np.ndarray
    ret_i: np.ndarray
    ret_j: np.ndarray


def _group_values(group: Group, ranks: np.ndarray, num_ret: np.ndarray) -> dict[str, np.ndarray]:
    """(runs,) counts and Rnonrel terms of one JG."""
    runs = len(num_ret)
    doc_ranks = ranks[:, group.docs]
    doc_ret = doc_ranks < num_ret[:, None]
    placed = _Placed(doc_ranks, doc_ret, doc_ranks[:, group.preferred], doc_ranks[:, group.over],
                     doc_ret[:, group.preferred], doc_ret[:, group.over])
    ret_i, ret_j = placed.ret_i, placed.ret_j
    out = {"ful_ret": (ret_j & (placed.rank_i < placed.rank_j)).sum(axis=1), "poss_ret": (ret_i & ret_j).sum(axis=1),
           "ful_imp": (ret_i & ~ret_j).sum(axis=1), "poss_imp": (ret_i ^ ret_j).sum(axis=1),
           "possible": np.full(runs, len(group.preferred), dtype=np.int64),
           "num_rel_ret": (doc_ret & (group.relevant == 1)).sum(axis=1),
           "num_nonrel_ret": (doc_ret & (group.relevant == 0)).sum(axis=1)}
    out["rnonrel"] = _rnonrel(group, placed, out, retrieved_only=False)
    out["rnonrel_ret"] = _rnonrel(group, placed, out, retrieved_only=True)
    return out


def _rnonrel(group: Group, placed: _Placed, counts, retrieved_only: bool) -> np.ndarray:
    """(runs,) fulfilled / possible of prefs_avgjg_Rnonrel (or _ret) for one JG."""
    num_rel, num_nonrel = group.num_rel, group.num_nonrel
    runs = len(placed.doc_ranks)
    if retrieved_only:
        big_r, big_n = counts["num_rel_ret"], counts["num_nonrel_ret"]
        fulfilled, possible = counts["ful_ret"], counts["poss_ret"]
    else:
        big_r, big_n = np.full(runs, num_rel), np.full(runs, num_nonrel)
        fulfilled = counts["ful_ret"] + counts["ful_imp"]
        possible = counts["possible"]
    padded = _quotient(fulfilled + counts["num_rel_ret"] * (big_r - big_n), possible + num_rel * (big_r - big_n))
    recount = big_r < big_n
    if not recount.any():
        return padded
    doc_ranks, doc_ret, ret_i, ret_j = placed.doc_ranks, placed.doc_ret, placed.ret_i, placed.ret_j
    above = placed.rank_i < placed.rank_j
    if group.lowest is not None:
        # single subgroup: preferences above the lowest level, then every JG
        # document against the first k of the lowest level (trec_eval's recalculate)
        pairs = np.broadcast_to(~group.lowest[group.over][None, :], above.shape)
        kept = _kept_first(doc_ranks, group.lowest, np.minimum(big_r, group.lowest.sum()))
        compared = np.ones_like(doc_ret)            # x: every document of the JG
        if retrieved_only:
            pairs, kept, compared = pairs & ret_i & ret_j, kept & doc_ret, doc_ret
        ful = (pairs & ret_i & above).sum(axis=1) + _count_above(doc_ranks, doc_ret, kept)
        poss = pairs.sum(axis=1) + compared.sum(axis=1) * kept.sum(axis=1)
    else:
        # subgroups: drop the non-relevant documents after the first num_rel (in rank order)
        nonrel = group.relevant == 0
        kept_nonrel = _kept_first(doc_ranks, nonrel, np.full(runs, num_rel))
        dropped = nonrel[None, :] & ~kept_nonrel
        if retrieved_only:
            dropped &= doc_ret
        pairs = ~dropped[:, group.preferred] & ~dropped[:, group.over]
        if retrieved_only:
            pairs &= ret_i & ret_j
        ful = (pairs & ret_i & above).sum(axis=1)
        poss = pairs.sum(axis=1)
    return np.where(recount, _quotient(ful, poss), padded)


def _pair_shares(groups: list[Group], ranks: np.ndarray, num_ret: np.ndarray, num_docs: int):
    """(runs,) prefs_pair, prefs_pair_ret, prefs_pair_imp: per document pair,
    the share of its preferences (over all JGs) the ranking fulfils."""
    runs = len(num_ret)
    if not groups or not any(len(g.preferred) for g in groups):
        return np.zeros(runs), np.zeros(runs), np.zeros(runs)
    preferred = np.concatenate([g.docs[g.preferred] for g in groups])     # as the query's local indices
    over = np.concatenate([g.docs[g.over] for g in groups])
    if len(groups) == 1:       # one JG's preferences are distinct pairs, never reversed: nothing to unite
        a, b = preferred, over
        low_first: np.ndarray = np.ones(len(a))                       # a preferred to b, once
        high_first: np.ndarray = np.zeros(len(a))
    else:
        low, high = np.minimum(preferred, over), np.maximum(preferred, over)
        keys, pair = np.unique(low * num_docs + high, return_inverse=True)
        low_first = np.bincount(pair, weights=preferred < over, minlength=len(keys))   # low preferred to high
        high_first = np.bincount(pair, weights=preferred > over, minlength=len(keys))
        a, b = keys // num_docs, keys % num_docs
    limit = num_ret[:, None]
    rank_a, rank_b = ranks[:, a], ranks[:, b]
    ret_a, ret_b = rank_a < limit, rank_b < limit
    share = np.where(rank_a < rank_b, low_first, high_first) / (low_first + high_first)
    both, one = ret_a & ret_b, ret_a ^ ret_b
    share_both = np.where(both, share, 0.0).sum(axis=1)
    share_any = share_both + np.where(one, share, 0.0).sum(axis=1)
    return (_ratio(share_any, len(a)), _ratio(share_both, both.sum(axis=1)),
            _ratio(share_any, (both | one).sum(axis=1)))


def _compute(r: Rankings) -> np.ndarray:
    index: PreferenceIndex = r.prefs
    values = np.zeros((r.num_runs, r.num_queries, len(NAMES)))
    for query, all_ranks, all_num_ret in _docid_ranks(r, index):
        groups = index.groups(index.query_of[r.qids[query]], r.qids[query])
        step = max(1, BLOCK // max(sum(len(g.preferred) for g in groups), 1))
        for first in range(0, r.num_runs, step):        # a block of runs at a time: memory runs x pairs
            ranks, num_ret = all_ranks[first:first + step], all_num_ret[first:first + step]
            values[first:first + step, query] = _query_values(groups, ranks, num_ret, all_ranks.shape[1])
    return values.reshape(r.num_segments, len(NAMES))


def _query_values(groups: list[Group], ranks: np.ndarray, num_ret: np.ndarray, num_docs: int) -> np.ndarray:
    """(runs, 14) one query's values for a block of runs."""
    counts = [_group_values(group, ranks, num_ret) for group in groups]
    runs = len(num_ret)

    def total(*names):
        return sum(c[name] for c in counts for name in names) if counts else np.zeros(runs, dtype=np.int64)

    def averaged(fulfilled, possible):
        terms = [_ratio(sum(c[n] for n in fulfilled), sum(c[n] for n in possible)) for c in counts]
        summed = _sequential_sum(terms, runs)
        return np.where(summed > 0, summed / max(len(counts), 1), 0.0)

    possible_all = total("possible")
    fulfilled_all = total("ful_ret", "ful_imp")
    rnonrel = _sequential_sum([c["rnonrel"] for c in counts], runs)
    rnonrel_ret = _sequential_sum([c["rnonrel_ret"] for c in counts], runs)
    pair, pair_ret, pair_imp = _pair_shares(groups, ranks, num_ret, num_docs)
    with np.errstate(invalid="ignore"):      # NaN > 0 is False, as in C
        rnonrel = np.where(rnonrel > 0, rnonrel / max(len(counts), 1), 0.0)
        rnonrel_ret = np.where(rnonrel_ret > 0, rnonrel_ret / max(len(counts), 1), 0.0)
    return np.stack([
        possible_all, fulfilled_all, total("ful_ret"),
        _ratio(fulfilled_all, possible_all), pair,
        averaged(("ful_ret", "ful_imp"), ("possible",)), rnonrel,
        _ratio(total("ful_ret"), total("poss_ret")), pair_ret,
        averaged(("ful_ret",), ("poss_ret",)), rnonrel_ret,
        _ratio(fulfilled_all, total("poss_ret", "poss_imp")), pair_imp,
        averaged(("ful_ret", "ful_imp"), ("poss_ret", "poss_imp")),
    ], axis=1)


#: What each value is, for --list-measures (in ``NAMES`` order).
DESCRIPTIONS = {
    "prefs_num_prefs_poss": "preferences possible, retrieved or not (summary: sum).",
    "prefs_num_prefs_ful": "preferences fulfilled, implied ones included (A retrieved, B not); neither retrieved "
                           "counts as a failure (summary: sum).",
    "prefs_num_prefs_ful_ret": "preferences fulfilled with both documents retrieved (summary: sum).",
    "prefs_simp": "preferences fulfilled over preferences possible (all JGs' together).",
    "prefs_pair": "per document pair, the share of its preferences (from every JG) fulfilled, averaged over the "
                  "pairs.",
    "prefs_avgjg": "fulfilled over possible within each judgement group, averaged over the groups.",
    "prefs_avgjg_Rnonrel": "as prefs_avgjg, with each group's non-relevant documents counted as R (its relevant "
                           "ones), akin to bpref.",
    "prefs_simp_ret": "as prefs_simp, over preferences whose two documents are retrieved.",
    "prefs_pair_ret": "as prefs_pair, over pairs whose two documents are retrieved.",
    "prefs_avgjg_ret": "as prefs_avgjg, over preferences whose two documents are retrieved.",
    "prefs_avgjg_Rnonrel_ret": "as prefs_avgjg_Rnonrel, over retrieved documents, R and N the relevant and "
                               "non-relevant retrieved.",
    "prefs_simp_imp": "as prefs_simp, over preferences with at least one document retrieved.",
    "prefs_pair_imp": "as prefs_pair, over pairs with at least one document retrieved.",
    "prefs_avgjg_imp": "as prefs_avgjg, over preferences with at least one document retrieved.",
}
#: The values that are counts (summed over queries, printed as integers).
COUNTS = ("prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret")


def kernel(name: str):
    """The kernel of one prefs_* measure: (S,) its column of :func:`prefs_values`."""
    position = NAMES.index(name)

    def values(r: Rankings, _=()) -> np.ndarray:
        return prefs_values(r)[:, position]
    values.__name__ = name
    values.__doc__ = f"{name}: {DESCRIPTIONS[name]}"
    return values
