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


# ---------------------------------------------------------------- trec_eval's preference measures
# Written loop by loop from trec_eval 10.0's form_prefs_counts.c and
# m_prefs_*.c, for one query, without any of lexeval's arrays.

def prefs_ranking(docs_scores):
    """Document ids as trec_eval orders a run for preferences: score
    descending, ties by docno ascending."""
    return [doc for doc, _ in sorted(docs_scores, key=lambda pair: (-pair[1], pair[0].encode()))]


def trec_prefs(lines, ranking):
    """The fourteen prefs_* values of one query: ``lines`` are
    (group, subgroup, docno, level), ``ranking`` the retrieved docnos in order."""
    judged = sorted({docno for _, _, docno, _ in lines}, key=str.encode)
    retrieved = [d for d in ranking if d in set(judged)]
    njr = len(retrieved)
    rank = {d: i for i, d in enumerate(retrieved)}
    for d in judged:
        if d not in rank:
            rank[d] = len(rank)
    n = len(judged)
    counts = [[0] * n for _ in range(n)]
    groups = []
    for group in sorted({g for g, _, _, _ in lines}, key=str.encode):
        entries = [(s, d, v) for g, s, d, v in lines if g == group]
        subgroups = sorted({s for s, _, _ in entries}, key=str.encode)
        jg = {"ful_ret": 0, "poss_ret": 0, "ful_imp": 0, "poss_imp": 0, "notoccur": 0}
        if len(subgroups) == 1:
            levels = sorted({v for _, _, v in entries}, reverse=True)
            ecs = [sorted(rank[d] for _, d, v in entries if v == level) for level in levels]
            prefs = [(a, b) for i, ec1 in enumerate(ecs) for ec2 in ecs[i + 1:] for a in ec1 for b in ec2]
            rel_of = {rank[d]: (1 if v > 0 else 0) for _, d, v in entries}
            jg.update(kind="ec", ecs=ecs)
        else:
            pref = set()
            for s in subgroups:
                members = [(rank[d], v) for t, d, v in entries if t == s]
                pref |= {(a, b) for a, va in members for b, vb in members if va > vb}
            changed = True
            while changed:                     # transitive closure
                changed = False
                for a, b in list(pref):
                    for c, e in list(pref):
                        if b == c and (a, e) not in pref and a != e:
                            pref.add((a, e))
                            changed = True
            prefs = sorted(pref)
            last = {}
            for s in subgroups:
                for t, d, v in entries:
                    if t == s:
                        last[rank[d]] = v
            rel_of = {r: (1 if v > 0 else 0 if v == 0 else -1) for r, v in last.items()}
            jg.update(kind="pa", prefs=set(prefs))
        for a, b in prefs:
            counts[a][b] += 1
            if a < b:
                jg["ful_ret" if b < njr else "ful_imp" if a < njr else "notoccur"] += 1
            else:
                jg["poss_ret" if a < njr else "poss_imp" if b < njr else "notoccur"] += 1
        jg["poss_ret"] += jg["ful_ret"]
        jg["poss_imp"] += jg["ful_imp"]
        jg["num_rel"] = sum(1 for v in rel_of.values() if v == 1)
        jg["num_nonrel"] = sum(1 for v in rel_of.values() if v == 0)
        jg["num_rel_ret"] = sum(1 for r, v in rel_of.items() if v == 1 and r < njr)
        jg["num_nonrel_ret"] = sum(1 for r, v in rel_of.items() if v == 0 and r < njr)
        jg["rel_of"] = rel_of
        groups.append(jg)

    def div(a, b):
        return a / b if b else 0.0

    def nan_div(a, b):
        return a / b if b else float("nan")

    ful = sum(g["ful_ret"] + g["ful_imp"] for g in groups)
    poss = sum(g["poss_ret"] + g["poss_imp"] + g["notoccur"] for g in groups)

    def avg(ful_of, poss_of):
        total = 0.0
        for g in groups:
            if poss_of(g):
                total += ful_of(g) / poss_of(g)
        return total / len(groups) if total > 0 else 0.0

    def rnonrel(g, ret_only):
        r, nn = (g["num_rel_ret"], g["num_nonrel_ret"]) if ret_only else (g["num_rel"], g["num_nonrel"])
        if r >= nn:
            f = g["ful_ret"] + (0 if ret_only else g["ful_imp"]) + g["num_rel_ret"] * (r - nn)
            p = g["poss_ret"] + (0 if ret_only else g["poss_imp"] + g["notoccur"]) + g["num_rel"] * (r - nn)
            return nan_div(f, p)
        f = p = 0
        if g["kind"] == "ec":
            ecs = g["ecs"]
            keep = g["num_rel_ret"] if ret_only else g["num_rel"]
            new = ecs[-1][:keep]

            def usable(x):
                return x < njr if ret_only else True
            for i, ec1 in enumerate(ecs):
                for ec2 in ecs[i + 1:len(ecs) - 1]:
                    for x in filter(usable, ec1):
                        for y in filter(usable, ec2):
                            if x < y and x < njr:
                                f += 1
                            else:
                                p += 1
            for ec1 in ecs:
                for x in filter(usable, ec1):
                    for y in filter(usable, new):
                        if x < y and x < njr:
                            f += 1
                        else:
                            p += 1
        else:
            scan = njr if ret_only else n
            seen, first_dropped = 0, scan
            for i in range(scan):
                if g["rel_of"].get(i, -1) == 0:
                    seen += 1
                    if seen == g["num_rel"] + 1:
                        first_dropped = i
                        break

            def dropped(x):
                return x >= first_dropped and g["rel_of"].get(x, -1) == 0
            for a, b in g["prefs"]:
                if dropped(a) or dropped(b) or (ret_only and not (a < njr and b < njr)):
                    continue
                if a < b and a < njr:
                    f += 1
                else:
                    p += 1
        return nan_div(f, p + f)

    def rnonrel_avg(ret_only):
        total = 0.0
        for g in groups:
            total += rnonrel(g, ret_only)
        return total / len(groups) if total > 0 else 0.0

    def pair(both, one, none):
        total, count = 0.0, 0
        for i in range(n):
            for j in range(i + 1, n):
                if not (counts[i][j] or counts[j][i]):
                    continue
                kind = "both" if j < njr else "one" if i < njr else "none"
                if (kind == "both" and both) or (kind == "one" and one) or (kind == "none" and none):
                    count += 1
                    if kind != "none":
                        total += counts[i][j] / (counts[i][j] + counts[j][i])
        return div(total, count)

    ful_ret = sum(g["ful_ret"] for g in groups)
    return {
        "prefs_num_prefs_poss": poss, "prefs_num_prefs_ful": ful, "prefs_num_prefs_ful_ret": ful_ret,
        "prefs_simp": div(ful, poss), "prefs_pair": pair(True, True, True),
        "prefs_avgjg": avg(lambda g: g["ful_ret"] + g["ful_imp"],
                           lambda g: g["poss_ret"] + g["poss_imp"] + g["notoccur"]),
        "prefs_avgjg_Rnonrel": rnonrel_avg(False),
        "prefs_simp_ret": div(ful_ret, sum(g["poss_ret"] for g in groups)),
        "prefs_pair_ret": pair(True, False, False),
        "prefs_avgjg_ret": avg(lambda g: g["ful_ret"], lambda g: g["poss_ret"]),
        "prefs_avgjg_Rnonrel_ret": rnonrel_avg(True),
        "prefs_simp_imp": div(ful, sum(g["poss_ret"] + g["poss_imp"] for g in groups)),
        "prefs_pair_imp": pair(True, True, False),
        "prefs_avgjg_imp": avg(lambda g: g["ful_ret"] + g["ful_imp"], lambda g: g["poss_ret"] + g["poss_imp"]),
    }
