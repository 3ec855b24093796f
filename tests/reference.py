"""Naive reference implementations, written for the tests as plainly as
possible: one query, one ranking, Python loops, textbook definitions."""

import gzip
import math


def ranked(docs_scores):
    """Documents in trec_eval order: score descending, docno descending
    (byte-wise; docnos may be str or bytes)."""
    def as_bytes(doc):
        return doc if isinstance(doc, bytes) else doc.encode()
    return [doc for doc, _ in sorted(docs_scores, key=lambda ds: (-ds[1], [-b for b in as_bytes(ds[0])] + [0]))]


def relevant_flags(ranking, judgements, level=1):
    return [judgements.get(doc, -1) >= level for doc in ranking]


def num_rel(judgements, level=1):
    return sum(1 for grade in judgements.values() if grade >= level)


def average_precision(ranking, judgements):
    found, total = 0, 0.0
    for rank, rel in enumerate(relevant_flags(ranking, judgements), start=1):
        if rel:
            found += 1
            total += found / rank
    r = num_rel(judgements)
    return total / r if r else 0.0


def precision_at(ranking, judgements, k):
    return sum(relevant_flags(ranking[:k], judgements)) / k


def recall_at(ranking, judgements, k):
    r = num_rel(judgements)
    return sum(relevant_flags(ranking[:k], judgements)) / r if r else 0.0


def reciprocal_rank(ranking, judgements):
    for rank, rel in enumerate(relevant_flags(ranking, judgements), start=1):
        if rel:
            return 1.0 / rank
    return 0.0


def r_precision(ranking, judgements):
    r = num_rel(judgements)
    return sum(relevant_flags(ranking[:r], judgements)) / r if r else 0.0


def success_at(ranking, judgements, k):
    return 1.0 if any(relevant_flags(ranking[:k], judgements)) else 0.0


def bpref(ranking, judgements):
    r = num_rel(judgements)
    nonrel_judged = sum(1 for g in judgements.values() if 0 <= g < 1)
    score, nonrel_seen = 0.0, 0
    for doc in ranking:
        grade = judgements.get(doc)
        if grade is None or grade < 0:
            continue
        if grade < 1:
            nonrel_seen += 1
        else:
            score += 1.0 if nonrel_seen == 0 else 1.0 - min(nonrel_seen, r) / min(nonrel_judged, r)
    return score / r if r else 0.0


def ndcg_at(ranking, judgements, k):
    gains = [max(judgements.get(doc, 0), 0) for doc in ranking[:k]]
    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(gains))
    ideal = sorted((g for g in judgements.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg > 0 else 0.0


def interpolated_precision_at(ranking, judgements, fraction):
    r = num_rel(judgements)
    flags = relevant_flags(ranking, judgements)
    needed = math.floor(fraction * r + 0.5)
    precisions, found = [], 0
    for rank, rel in enumerate(flags, start=1):
        found += rel
        precisions.append((found, found / rank))
    if needed > found or not ranking:
        return 0.0
    # highest precision at any rank where recall has reached `needed`
    return max([p for f, p in precisions if f >= max(needed, 1)], default=0.0)


def set_f(ranking, judgements):
    found = sum(relevant_flags(ranking, judgements))
    if not found:
        return 0.0
    p, r = found / len(ranking), found / num_rel(judgements)
    return 2 * p * r / (p + r)


def unjudged_at(ranking, judgements, k):
    return sum(1 for doc in ranking[:k] if judgements.get(doc, -1) < 0) / k


# ---------------------------------------------------------------- preferences

INF = float("inf")


def positions(ranking, judgements, level=1):
    """Sorted 1-based ranks of the relevant retrieved documents."""
    return [rank for rank, doc in enumerate(ranking, start=1) if judgements.get(doc, -1) >= level]


def lexiprecision(p_a, p_b, m):
    """(sign, rr) of run A over run B: first recall level where they differ."""
    a = list(p_a) + [INF] * (m - len(p_a))
    b = list(p_b) + [INF] * (m - len(p_b))
    for x, y in zip(a, b):
        if x != y:
            return (1 if x < y else -1), (0 if x == INF else 1 / x) - (0 if y == INF else 1 / y)
    return 0, 0.0


def lexirecall(p_a, p_b, m):
    """(sign, rr) of run A over run B: more relevant retrieved wins, then
    compare from the lowest retrieved relevant document upward."""
    if len(p_a) != len(p_b):
        level = max(len(p_a), len(p_b))
        a = p_a[level - 1] if len(p_a) >= level else INF
        b = p_b[level - 1] if len(p_b) >= level else INF
        return (1 if len(p_a) > len(p_b) else -1), (0 if a == INF else 1 / a) - (0 if b == INF else 1 / b)
    for x, y in zip(reversed(p_a), reversed(p_b)):
        if x != y:
            return (1 if x < y else -1), 1 / x - 1 / y
    return 0, 0.0


def recall_paired(p_a, p_b, m, weighting="uniform"):
    """Recall-paired preference, walked level by level as its definition
    reads: weights w_i (1, 1/i or 1/log2(i+1), i = 1..m) normalised to sum
    1; stop when both are missing; -w_i when only A's is missing, +w_i when
    only B's is; +w_i when A's ranks higher, -w_i when lower."""
    raw = [1.0 if weighting == "uniform" else 1.0 / i if weighting == "inverse" else 1.0 / math.log2(i + 1)
           for i in range(1, m + 1)]
    total = sum(raw)
    a = list(p_a) + [None] * (m - len(p_a))
    b = list(p_b) + [None] * (m - len(p_b))
    value = 0.0
    for weight, x, y in zip(raw, a, b):
        if x is None and y is None:
            break
        if x is None or (y is not None and x > y):
            value -= weight / total
        elif y is None or x < y:
            value += weight / total
    return value


def graded_recall_paired(ranking_a, ranking_b, judgements, level=1, weighting="uniform"):
    """sum over the query's grades g >= level of m_g RPP(relevant = grade >= g) / sum m_g."""
    grades = sorted({g for g in judgements.values() if g >= level})
    total = weight = 0.0
    for g in grades:
        m_g = num_rel(judgements, g)
        value = recall_paired(positions(ranking_a, judgements, g), positions(ranking_b, judgements, g), m_g,
                              weighting)
        total += m_g * value
        weight += m_g
    return total / weight if weight else 0.0


# ---------------------------------------------------------------- seed measures

def total_search_efficiency(ranking, judgements):
    p = positions(ranking, judgements)
    return 1 / p[-1] if p and len(p) == num_rel(judgements) else 0.0


def runs_retrieving(doc, rankings, depth):
    """S_d: how many of the rankings hold ``doc`` in their top ``depth``."""
    return sum(1 for other in rankings if doc in other[:depth])


def rare_precision(ranking, judgements, rankings, k, alpha):
    total = 0.0
    for doc in ranking[:k]:
        if judgements.get(doc, -1) >= 1:
            total += 1 + alpha * (1 - runs_retrieving(doc, rankings, k) / len(rankings))
    return total / k


def rare_precision_bounded(ranking, judgements, rankings, k, alpha):
    runs = len(rankings)
    total = 0.0
    for doc in ranking[:k]:
        if judgements.get(doc, -1) >= 1:
            bounded = 1 - (runs_retrieving(doc, rankings, k) - 1) / (runs - 1) if runs > 1 else 1.0
            total += (1 - alpha) + alpha * bounded
    return total / k


def rare_average_precision(ranking, judgements, rankings, alpha):
    """Mean over relevant documents of P_rare at their rank, rarity counted
    over the whole rankings."""
    total, gained = 0.0, 0.0
    for rank, doc in enumerate(ranking, start=1):
        if judgements.get(doc, -1) >= 1:
            gained += 1 + alpha * (1 - runs_retrieving(doc, rankings, 10 ** 9) / len(rankings))
            total += gained / rank
    r = num_rel(judgements)
    return total / r if r else 0.0


# ---------------------------------------------------------------- files, plainly read

def read_collection(qrels_path, run_paths):
    """({qid: {docno: grade}}, [{qid: ranked docnos}] per run), read line by line."""
    qrels: dict = {}
    for line in qrels_path.read_text().splitlines():
        qid, _, docno, grade = line.split()
        qrels.setdefault(qid, {})[docno] = int(grade)
    rankings = []
    for path in run_paths:
        run: dict = {}
        for line in gzip.decompress(path.read_bytes()).decode().splitlines():
            qid, _, docno, _, score = line.split()[:5]
            run.setdefault(qid, []).append((docno, float(score)))
        rankings.append({qid: ranked(docs) for qid, docs in run.items()})
    return qrels, rankings
