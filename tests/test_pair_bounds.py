"""--bounds for pairs: the least and greatest mean difference between two
runs under one assignment of grades shared by both, against enumeration of
every shared assignment (each query's unjudged documents of either run,
each with every grade 0..G), evaluated without --bounds."""

import itertools
import random

import numpy as np
import pytest
from conftest import write_trec as write

from lexeval import evaluate
from lexeval.bounds.pairs import bounded_differences
from lexeval.loading import load
from lexeval.measures.names import select_measures

SHAPES = ["7", "0007", "d1", "D1", "clueweb12-0000tw-00-00012", "a.b:c/d", "dóc-β", "x" * 30, "10", "1e5",
          "-3", "ZZ", "é", "0", "00", "Q0"]
ASKED = ["P.1,3,5", "hits.3", "hits", "set_P", "dcg", "dcg_cut.3", "dcg_exp.3", "dcg_burges", "recip_rank",
         "recip_rank.2", "success.1,3", "hit_rate", "recall.2,5", "set_recall", "Rprec", "Rprec_mult.0.5,1.5",
         "ndcg", "ndcg_cut.2,5", "ndcg_exp.3", "ndcg_burges", "nDCG(gains={1:3})@4"]


PREFERENCES = ["LP", "rrLP", "LR", "rrLR"]


def collection(seed: int, top_grade: int, most_holes: int = 6):
    """Two or three runs sharing documents; each query's unjudged documents
    of all runs together at most ``most_holes``."""
    rng = random.Random(seed)
    qrels, runs = {}, [{} for _ in range(rng.randint(2, 3))]
    for q in range(rng.randint(1, 3)):
        qid = rng.choice(["q", "301", "1.5"]) + str(q)
        docs = rng.sample(SHAPES, rng.randint(3, 10))
        holes = docs[:rng.randint(1, min(most_holes, len(docs) - 1))]
        judged = docs[len(holes):]
        qrels[qid] = {doc: rng.choice([0, 0] + list(range(1, top_grade + 1))) for doc in judged}
        qrels[qid][judged[0]] = max(qrels[qid][judged[0]], 1)            # every query compared
        if rng.random() < 0.3:
            qrels[qid][holes[0]] = -1                                     # judged -1: unjudged too
        for run in runs:
            if rng.random() < 0.1:
                continue
            run[qid] = rng.sample(docs, rng.randint(1, len(docs)))
    return qrels, runs




def enumerated_differences(tmp, qrels, runs, a, b, level):
    """{(name, qid): (least, greatest)} of A's value minus B's over every shared assignment."""
    top = max(0, *(g for judged in qrels.values() for g in judged.values()))
    new_qrels, run_a, run_b, owner = {}, {}, {}, {}
    for qid in qrels:
        docs = set(runs[a].get(qid, [])) | set(runs[b].get(qid, []))
        holes = sorted(d for d in docs if d not in qrels[qid] or qrels[qid][d] < 0)
        for number, grades in enumerate(itertools.product(range(top + 1), repeat=len(holes))):
            name = f"e_{qid}_{number}"
            new_qrels[name] = {**qrels[qid], **dict(zip(holes, grades))}
            if qid in runs[a]:
                run_a[name] = runs[a][qid]
            if qid in runs[b]:
                run_b[name] = runs[b][qid]
            owner[name] = qid
    qrels_path, paths = write(tmp, "every", new_qrels, [run_a, run_b])
    ev = evaluate(qrels_path, paths, ASKED + PREFERENCES, level=level, complete=True, warn=lambda _: None)
    out: dict = {}
    for column in ev.columns:
        for position, qid in enumerate(ev.qids):
            if qid not in owner:
                continue
            difference = column.values[0, position] - column.values[1, position]
            low, high = out.get((column.name, owner[qid]), (np.inf, -np.inf))
            out[(column.name, owner[qid])] = (min(low, difference), max(high, difference))
    for name in PREFERENCES:
        values = dict(zip(ev.compared_qids, ev.preferences.values[name][0].tolist()))
        for qid in ev.qids:
            if qid in owner:
                value = values.get(qid, 0.0)
                low, high = out.get((name, owner[qid]), (np.inf, -np.inf))
                out[(name, owner[qid])] = (min(low, value), max(high, value))
    return out


@pytest.mark.parametrize("seed,top_grade,level", [(seed, top, level) for seed in range(8)
                                                  for top, level in ((1, 1), (2, 1), (2, 2))])
@pytest.mark.parametrize("kernel,asked", [("on", ASKED), ("off", ASKED), ("on", ["P.1,3,5", "hits.3"])])
def test_pair_bounds_equal_the_extremes_over_every_shared_assignment(tmp_path, monkeypatch, seed, top_grade, level,
                                                                     kernel, asked):
    """Every column (and, alone, the cutoffs the kernel counts only to)."""
    monkeypatch.setenv("LEXEVAL_KERNEL", kernel)
    qrels, runs = collection(seed, top_grade)
    qrels_path, paths = write(tmp_path, "case", qrels, runs)
    ev = evaluate(qrels_path, paths, asked, level=level, complete=True, warn=lambda _: None, bounds=True)
    requests = select_measures(asked, len(runs)).metrics
    pairs = np.array([(a, b) for a in range(len(runs)) for b in range(len(runs)) if a != b])
    compared = ev.rankings.num_rel_per_query > 0
    found = bounded_differences(ev.rankings, requests, pairs, compared, PREFERENCES)
    bounds = {name: (found.low[name], found.high[name]) for name in found.sums}
    compared_qids = [qid for qid, on in zip(ev.qids, compared.tolist()) if on]
    if not compared_qids:
        pytest.skip("no query has a document at the level: nothing is compared")
    for p, (a, b) in enumerate(pairs.tolist()):
        expected = enumerated_differences(tmp_path, qrels, runs, a, b, level)
        for name, (low, high) in bounds.items():
            lows = [expected[(name, qid)][0] for qid in compared_qids]
            highs = [expected[(name, qid)][1] for qid in compared_qids]
            assert low[p] == pytest.approx(np.mean(lows), abs=1e-12), (name, a, b)
            assert high[p] == pytest.approx(np.mean(highs), abs=1e-12), (name, a, b)


@pytest.mark.parametrize("kernel", ["on", "off"])
def test_a_bound_of_zero_is_zero_not_a_rounding_either_side(tmp_path, monkeypatch, kernel):
    """P.15's greatest difference is exactly 0 where A can at best tie B
    (the fragile mark reads its sign): A holds judged relevant d1 and
    unjudged h, B judged relevant d1 and d2: h relevant ties them."""
    monkeypatch.setenv("LEXEVAL_KERNEL", kernel)
    qrels = {"q1": {"d1": 1, "d2": 1, "d3": 0}}
    runs = [{"q1": ["d1", "h", "d3"]}, {"q1": ["d1", "d2", "d3"]}]
    qrels_path, paths = write(tmp_path, "zero", qrels, runs)
    ev = evaluate(qrels_path, paths, ["P.3,15"], complete=True, bounds=True, warn=lambda _: None)
    found = bounded_differences(ev.rankings, select_measures(["P.3,15"], 2).metrics, np.array([[0, 1]]),
                                ev.rankings.num_rel_per_query > 0)
    for name in ("P_3", "P_15"):
        assert found.high[name][0] == 0.0 and found.low[name][0] < 0, name


GRADED = ["ndcg", "ndcg_cut.3,10", "ndcg_exp", "nDCG(gains={1:3,2:5,3:6})@8"]


@pytest.mark.parametrize("seed", range(4))
def test_graded_ndcg_pair_bounds_of_the_kernel_equal_every_chain_tried(tmp_path, monkeypatch, seed):
    """nDCG with three positive gains and up to 14 unjudged documents a query (too many to enumerate every
    assignment): the kernel's Dinkelbach iteration, its lists merged and its counts capped at the depth, against
    the reference, which tries every chain of the layers' counts."""
    rng = random.Random(seed)
    qrels, runs = {}, [{} for _ in range(3)]
    for q in range(3):
        docs = [f"d{k}" for k in range(rng.randint(16, 30))]
        holes = rng.randint(8, 14)
        qrels[f"q{q}"] = {doc: rng.randint(0, 3) for doc in docs[holes:]}
        qrels[f"q{q}"][docs[holes]] = max(1, qrels[f"q{q}"][docs[holes]])
        for run in runs:
            run[f"q{q}"] = rng.sample(docs, rng.randint(1, len(docs)))
    qrels_path, paths = write(tmp_path, "graded", qrels, runs)
    pairs = np.array([(a, b) for a in range(3) for b in range(3) if a != b])
    found = {}
    for kernel in ("on", "off"):
        monkeypatch.setenv("LEXEVAL_KERNEL", kernel)
        ev = evaluate(qrels_path, paths, GRADED, complete=True, warn=lambda _: None, bounds=True)
        made = bounded_differences(ev.rankings, select_measures(GRADED, 3).metrics, pairs,
                                   ev.rankings.num_rel_per_query > 0)
        found[kernel] = {name: (made.low[name], made.high[name]) for name in made.sums}
    assert set(found["on"]) == set(found["off"]) >= {"ndcg", "ndcg_cut_3", "ndcg_cut_10"}
    for name, (low, high) in found["on"].items():
        np.testing.assert_allclose(low, found["off"][name][0], rtol=0, atol=1e-12, err_msg=name)
        np.testing.assert_allclose(high, found["off"][name][1], rtol=0, atol=1e-12, err_msg=name)


DEEP = ["Rprec", "Rprec_mult.0.5,1.5", "P.5,40,150", "hits.20", "recall.30", "set_P", "set_recall", "recip_rank",
        "success.5", "dcg_cut.25", "ndcg_cut.30", "ndcg"]


def _deep_collection(tmp_path, rng, runs_count: int, level: int, queries: int = 3):
    """Rankings of up to 300 documents, half of them unjudged and shared between runs at nearby ranks."""
    qrels, runs = {}, [{} for _ in range(runs_count)]
    for q in range(queries):
        pool = [f"d{q}-{k}" for k in range(rng.randint(200, 400))]
        judged = rng.sample(pool, len(pool) // 2)
        qrels[f"q{q}"] = {doc: int(rng.random() < 0.25) * (rng.choice([1, 2]) if level == 2 else 1) for doc in judged}
        qrels[f"q{q}"][judged[0]] = max(level, 1)
        for run in runs:
            noise = rng.random() * 40                    # each run the pool's order, shuffled a little
            place = {doc: k + rng.gauss(0, noise) for k, doc in enumerate(pool)}
            order = sorted(pool, key=place.__getitem__)
            run[f"q{q}"] = order[:rng.randint(50, 300)]
    return write(tmp_path, "deep", qrels, runs)


@pytest.mark.parametrize("seed,level", [(0, 1), (1, 2), (2, 0)])
def test_pair_bounds_of_the_kernel_on_deep_rankings_equal_the_reference(tmp_path, monkeypatch, seed, level):
    """Rankings of up to 300 documents, half of them unjudged and shared between runs at nearby ranks (so that
    R-precision's search over the numbers of holes, and the lists of each hole's runs, have work to do), with LR
    reading the shared holes the columns counted: the kernel against the reference, for the pairs in order and
    shuffled (both orders), with room for every pair of a run at once, a few, or one at a time without the
    per-query table (the scratch cells), and without the AVX2 paths. At -l 1, at -l 0 (where every judged
    document, and so every unjudged one, is relevant) and at -l 2 over grades 0 to 2 (the kernel's relevant
    counts come from the codes and the level; nDCG's graded chains, which the level leaves alone, are left to
    the test above: their reference is slow on rankings this deep)."""
    from lexeval.bounds import kernel as pair_kernel
    from lexeval.compiled import _exact
    rng = random.Random(seed)
    runs_count = 7
    qrels_path, paths = _deep_collection(tmp_path, rng, runs_count, level)
    ordered = np.array([(a, b) for a in range(runs_count) for b in range(a + 1, runs_count)])
    measures = DEEP if level < 2 else [name for name in DEEP if "dcg" not in name]
    shuffled = np.array(rng.sample([(a, b) for a in range(runs_count) for b in range(runs_count) if a != b], 30))

    def bounds(pairs, kernel, cells):
        monkeypatch.setenv("LEXEVAL_KERNEL", kernel)
        monkeypatch.setattr(pair_kernel, "SCRATCH_CELLS", cells)
        rankings = load(qrels_path, paths, keep_holes=True, level=level, warn=lambda _: None)   # the pairs' bounds
        made = bounded_differences(rankings, select_measures(measures, runs_count).metrics, pairs,
                                   rankings.num_rel_per_query > 0, ["LP", "LR"])
        return {name: (made.low[name], made.high[name]) for name in made.sums}

    def scalar(*arguments):              # bounds(*arguments) without the AVX2 paths
        before = _exact.vectors(False)
        try:
            return bounds(*arguments)
        finally:
            _exact.vectors(before)

    for pairs in (ordered, shuffled):
        expected = bounds(pairs, "off", 1 << 22)
        assert set(expected) >= {"Rprec", "P_40", "recip_rank", "LR"} | ({"ndcg_cut_30"} if level < 2 else set())
        for cells, vectors in ((1, True), (700, True), (1 << 22, True), (1 << 22, False)):
            found = bounds(pairs, "on", cells) if vectors else scalar(pairs, "on", cells)
            assert set(found) == set(expected)
            for name, (low, high) in found.items():
                np.testing.assert_allclose(low, expected[name][0], rtol=0, atol=1e-12, err_msg=f"{name} {cells}")
                np.testing.assert_allclose(high, expected[name][1], rtol=0, atol=1e-12, err_msg=f"{name} {cells}")


@pytest.mark.parametrize("seed", [3, 4])
def test_pair_bounds_with_few_partners_and_pairs_apart_equal_the_reference(tmp_path, monkeypatch, seed):
    """The columns the default call bounds (R-precision, P at cutoffs, the reciprocal rank: partners only above
    the first relevant, so that most holes meet their pairs in the kernel's loop without partners), for the
    pairs in order, in groups cut by the scratch cells (a group of one A starting past A + 1 passes the runs
    before it), and for pairs far apart (a baseline against some runs): the kernel against the reference."""
    from lexeval.bounds import kernel as pair_kernel
    rng = random.Random(seed)
    runs_count = 8
    qrels_path, paths = _deep_collection(tmp_path, rng, runs_count, 1)
    ordered = np.array([(a, b) for a in range(runs_count) for b in range(a + 1, runs_count)])
    apart = np.array([(0, 3), (0, 4), (0, 7), (2, 6), (2, 7), (5, 7)])

    def bounds(pairs, kernel, cells):
        monkeypatch.setenv("LEXEVAL_KERNEL", kernel)
        monkeypatch.setattr(pair_kernel, "SCRATCH_CELLS", cells)
        rankings = load(qrels_path, paths, keep_holes=True, warn=lambda _: None)
        made = bounded_differences(rankings, select_measures(["Rprec", "P.5,40,150", "recip_rank"],
                                                             runs_count).metrics, pairs,
                                   rankings.num_rel_per_query > 0, ["LR"])
        return {name: (made.low[name], made.high[name]) for name in made.sums}

    def narrowed(widest, *arguments):    # bounds(*arguments) with the vector paths up to ``widest`` (0: none)
        from lexeval.compiled import _exact
        before = _exact.vectors(widest > 0, widest)
        try:
            return bounds(*arguments)
        finally:
            _exact.vectors(before)

    for pairs in (ordered, apart):
        expected = bounds(pairs, "off", 1 << 22)
        assert set(expected) == {"Rprec", "P_5", "P_40", "P_150", "recip_rank", "LR"}
        # R-precision's fused pass (the whole table's budget) on every path: AVX-512's where the processor has it,
        # AVX2's and the portable one
        for cells, widest in ((1, 2), (700, 2), (1300, 2), (1 << 22, 2), (1 << 22, 1), (1 << 22, 0)):
            found = narrowed(widest, pairs, "on", cells)
            for name, (low, high) in found.items():
                np.testing.assert_allclose(low, expected[name][0], rtol=0, atol=1e-12, err_msg=f"{name} {cells}")
                np.testing.assert_allclose(high, expected[name][1], rtol=0, atol=1e-12, err_msg=f"{name} {cells}")


@pytest.mark.parametrize("narrow_up_to", [32767, 0])
def test_groups_of_every_width_in_the_fused_pass_equal_the_reference(tmp_path, monkeypatch, narrow_up_to):
    """More runs than one vector of slots holds (19: the first As' groups take two vectors, the last ones' one),
    so that R-precision's fused pass and the counts it keeps at P's depths run over groups of different widths
    in the same tables, on every vector path: the kernel against the reference, with LP and LR, the documents'
    numbers in int16 and (the highest int16 number lowered to 0) in int32."""
    from lexeval.bounds import kernel as pair_kernel
    from lexeval.compiled import _exact
    from lexeval.io import kernel as reading_kernel
    monkeypatch.setattr(reading_kernel, "NARROW_IDS_UP_TO", narrow_up_to)
    rng = random.Random(5)
    runs_count = 19
    qrels_path, paths = _deep_collection(tmp_path, rng, runs_count, 1, queries=2)
    ordered = np.array([(a, b) for a in range(runs_count) for b in range(a + 1, runs_count)])

    def bounds(kernel, widest=2):
        monkeypatch.setenv("LEXEVAL_KERNEL", kernel)
        monkeypatch.setattr(pair_kernel, "SCRATCH_CELLS", 1 << 22)
        before = _exact.vectors(widest > 0, widest)
        try:
            rankings = load(qrels_path, paths, keep_holes=True, warn=lambda _: None)
            assert rankings.hole_ids.dtype == (np.int16 if narrow_up_to else np.int32)
            made = bounded_differences(rankings, select_measures(["Rprec", "P.5,40,150"], runs_count).metrics,
                                       ordered, rankings.num_rel_per_query > 0, ["LP", "LR"])
        finally:
            _exact.vectors(before)
        return {name: (made.low[name], made.high[name]) for name in made.sums}

    expected = bounds("off")
    assert set(expected) == {"Rprec", "P_5", "P_40", "P_150", "LP", "LR"}
    for widest in (2, 1, 0):
        found = bounds("on", widest)
        for name, (low, high) in found.items():
            np.testing.assert_allclose(low, expected[name][0], rtol=0, atol=1e-12, err_msg=f"{name} {widest}")
            np.testing.assert_allclose(high, expected[name][1], rtol=0, atol=1e-12, err_msg=f"{name} {widest}")


@pytest.mark.parametrize("queries", [3, 9])
def test_pairs_dealt_to_threads_give_the_bounds_of_one_thread(tmp_path, monkeypatch, queries):
    """The kernel's work on several threads: where the queries are fewer than twice the threads, the pairs in
    parts of whole rows (one run's pairs), dealt down and back up the parts so that the short rows (more work per
    pair) are shared: every pair in one part, each part's rows in order (the kernel's lists are passed once);
    else the queries taken one at a time by whichever thread is free, every pair in each, the threads' sums added
    up. Bounds equal, bit for bit, to one thread's (LR's too, which reads the shared holes the threads count);
    pairs out of order stay one range."""
    from lexeval.bounds import kernel as pair_kernel
    rng = random.Random(7)
    runs_count = 10
    qrels_path, paths = _deep_collection(tmp_path, rng, runs_count, 1, queries)
    ordered = np.array([(a, b) for a in range(runs_count) for b in range(a + 1, runs_count)])
    for parts in (2, 3, 4):
        dealt = pair_kernel.dealt_rows(ordered, parts)
        assert dealt is not None and len(dealt) == parts
        assert sorted(np.concatenate(dealt).tolist()) == list(range(len(ordered)))
        for index in dealt:
            assert np.all(np.diff(index) > 0)                           # the part's pairs in order
            rows = np.unique(ordered[index, 0])                         # and whole rows
            assert np.array_equal(index, np.flatnonzero(np.isin(ordered[:, 0], rows)))
    assert pair_kernel.dealt_rows(ordered[::-1].copy(), 2) is None
    assert pair_kernel.dealt_rows(ordered, 1) is None

    def bounds(parts, measures=("Rprec", "P.5,40", "recip_rank"), preferences=("LR",)):
        monkeypatch.setattr(pair_kernel, "cores", lambda: parts)
        rankings = load(qrels_path, paths, keep_holes=True, warn=lambda _: None)
        made = bounded_differences(rankings, select_measures(list(measures), runs_count).metrics if measures else [],
                                   ordered, rankings.num_rel_per_query > 0, list(preferences))
        return {name: (made.low[name], made.high[name]) for name in made.sums}

    alone = bounds(1)
    assert set(alone) == {"Rprec", "P_5", "P_40", "recip_rank", "LR"}
    # the preferences alone: LR counting the shared holes itself, rrLR reading each ranking's list
    lexical = ("LP", "LR", "rrLP", "rrLR")
    alone_lexical = bounds(1, (), lexical)
    assert set(alone_lexical) == set(lexical)
    for parts in (2, 3):
        for expected, found in ((alone, bounds(parts)), (alone_lexical, bounds(parts, (), lexical))):
            for name, (low, high) in expected.items():
                assert np.array_equal(found[name][0], low) and np.array_equal(found[name][1], high), (name, parts)


def test_r_precision_bounds_past_int32_products_equal_counting(tmp_path, monkeypatch):
    """Two rankings of 50,000 and 5,000 documents, nearly all unjudged, 2,000 shared: R + the unjudged
    documents pass 46,340, where the kernel's scan compares its fractions in 64-bit products. Its R-precision bounds
    against the greatest and least over every number m of relevant unjudged documents, counted with numpy: at
    the depth R + m, the best m are first those in A's top only (+1), then those in both or neither (0)."""
    rng = np.random.default_rng(5)
    shared = [f"s{k}" for k in range(2_000)]
    own = [[f"a{k}" for k in range(48_000)], [f"b{k}" for k in range(3_000)]]      # A's greatest past 46,340
    judged = {f"j{k}": int(k % 3 == 0) for k in range(60)}
    rankings = []
    for side in own:
        docs = np.array(shared + side + list(judged)[:40 + 10 * len(rankings)], dtype=object)
        rankings.append(list(docs[rng.permutation(len(docs))]))
    qrels_path, paths = write(tmp_path, "wide", {"q1": judged}, [{"q1": docs} for docs in rankings])
    monkeypatch.setenv("LEXEVAL_KERNEL", "on")
    loaded = load(qrels_path, paths, keep_holes=True, warn=lambda _: None)
    made = bounded_differences(loaded, select_measures(["Rprec"], 2).metrics, np.array([(0, 1)]),
                               loaded.num_rel_per_query > 0)
    num_rel = sum(judged.values())
    deepest = max(len(docs) for docs in rankings) + num_rel + 60_000
    rank = [{doc: k + 1 for k, doc in enumerate(docs)} for docs in rankings]
    holes = sorted((set(rank[0]) | set(rank[1])) - set(judged))
    assert num_rel + len(holes) > 46_340
    never = deepest + 1
    rank_a = np.array([rank[0].get(h, never) for h in holes])
    rank_b = np.array([rank[1].get(h, never) for h in holes])

    def within(ranks):               # per depth d (0 .. deepest): how many of ranks are <= d
        return np.cumsum(np.bincount(np.minimum(ranks, never), minlength=never + 1))[:deepest + 1]

    relevant = [np.array([rank[side][doc] for doc, grade in judged.items() if grade and doc in rank[side]])
                for side in (0, 1)]
    judged_difference = within(relevant[0]) - within(relevant[1])
    both = within(np.maximum(rank_a, rank_b))
    many = np.arange(len(holes) + 1)
    reach = num_rel + many
    plus, minus = (within(rank_a) - both)[reach], (within(rank_b) - both)[reach]
    zero = len(holes) - plus - minus
    best = judged_difference[reach] + np.minimum(many, plus) - np.maximum(0, many - plus - zero)
    worst = judged_difference[reach] - np.minimum(many, minus) + np.maximum(0, many - minus - zero)
    assert made.high["Rprec"][0] == (best / reach).max()
    assert made.low["Rprec"][0] == (worst / reach).min()


def test_the_kernels_sums_equal_its_per_query_values_summed(tmp_path, monkeypatch):
    """The kernel sums each pair's bounds over the queries on the exact grid (no per-query values kept): the
    same sums, limb for limb, as its per-query values summed by fixed_sums, for values below 1, below 2 (int64's
    cast), up to 2**22 (int128's); a value past 2**22, or NaN, gives None (the caller sums per-query values), and
    so does the whole sum: ``column_sums`` then sums per-query values block by block, to the same sums."""
    from lexeval.bounds import kernel as pair_kernel
    from lexeval.stats import limbs
    from lexeval.stats.sums import Sums, fixed_sums
    monkeypatch.setenv("LEXEVAL_KERNEL", "on")
    rng = random.Random(3)
    qrels, runs = {}, [{} for _ in range(5)]
    for q in range(4):
        pool = [f"d{q}-{k}" for k in range(60)]
        qrels[f"q{q}"] = {doc: int(rng.random() < 0.3) for doc in rng.sample(pool, 30)}
        qrels[f"q{q}"][pool[0]] = 1
        for run in runs:
            run[f"q{q}"] = rng.sample(pool, rng.randint(10, 60))
    qrels_path, paths = write(tmp_path, "sums", qrels, runs)
    plans = []
    real = pair_kernel.column_sums
    monkeypatch.setattr(pair_kernel, "column_sums",
                        lambda plan, *rest: plans.append((plan, *rest)) or real(plan, *rest))
    rankings = load(qrels_path, paths, keep_holes=True, warn=lambda _: None)
    pairs = np.array([(a, b) for a in range(5) for b in range(5) if a != b])
    whole = bounded_differences(rankings, select_measures(DEEP, 5).metrics, pairs, rankings.num_rel_per_query > 0)
    (holes, per_segment, columns, relevance, per_query), _, compared, _, _ = plans[0]

    for scale, on_grid in ((1.0, True), (3.0, True), (1e6, True), (1e7, False), (float("nan"), False)):
        scaled = (*columns[:5], np.asarray(columns[5]) * scale)
        summed = pair_kernel.difference_sums(holes, per_segment, pairs, compared, scaled, relevance, per_query)
        low, high = pair_kernel.difference_bounds(holes, per_segment, pairs, compared, scaled, relevance, per_query)
        assert (summed is not None) == on_grid, scale
        if on_grid:
            assert 2 <= np.abs(high).max() < 2 ** 22 or scale == 1.0
            for column in range(len(columns[0])):
                for side, values in enumerate((low, high)):
                    kernel_sums = Sums(limbs.trim(summed[side, column]), np.zeros(len(pairs)))
                    assert kernel_sums.units == fixed_sums(values[column]).units, (scale, column, side)
    monkeypatch.setattr(pair_kernel, "difference_sums", lambda *arguments: None)
    by_blocks = bounded_differences(rankings, select_measures(DEEP, 5).metrics, pairs,
                                    rankings.num_rel_per_query > 0)
    monkeypatch.setattr(pair_kernel, "column_sums", lambda plan, pairs, compared, shared, block:
                        real(plan, pairs, compared, shared, 3))
    by_small_blocks = bounded_differences(rankings, select_measures(DEEP, 5).metrics, pairs,
                                          rankings.num_rel_per_query > 0)
    for name in whole.sums:
        for found in (by_blocks, by_small_blocks):
            assert [side.units for side in found.sums[name]] == [side.units for side in whole.sums[name]], name
