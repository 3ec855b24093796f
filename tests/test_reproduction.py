"""--report reproduction against repro_eval 0.5.0 itself (Breuer et al.,
SIGIR 2020): KTU and RBO per cutoff, RMSE, nRMSE, ER, DeltaRI and the
paired and unpaired t-tests, on the bundled Cranfield runs and on random
runs with tied scores and identifiers of every shape; every value to 1e-9."""

from __future__ import annotations

import copy
import gzip
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import CRANFIELD, run_cli

repro_eval = pytest.importorskip("repro_eval")
pytest.importorskip("pytrec_eval")

from repro_eval.measure import document_order, effectiveness, overall_effects, statistics  # noqa: E402
from repro_eval.util import break_ties, evaluate_run, load_qrels, load_run, trim_run  # noqa: E402

import lexeval  # noqa: E402
from lexeval.reports import ReportOptions, run_reports  # noqa: E402
from lexeval.stats.similarity import kendall_tau_union, rbo_normalized  # noqa: E402

#: lexeval's name of a measure -> repro_eval's (ir_measures') name
NAMES = {"map": "AP", "P_10": "P@10", "ndcg_cut_10": "nDCG@10", "recip_rank": "RR", "bpref": "Bpref",
         "Rprec": "Rprec", "ndcg": "nDCG", "recall_100": "R@100"}
CUTOFFS = (3, 10, 50)


def _plain(source, target):
    data = source.read_bytes()
    target.write_bytes(gzip.decompress(data) if str(source).endswith(".gz") else data)
    return str(target)


def _scores(qrels_path, run_path):
    import ir_measures
    measures = [ir_measures.parse_measure(name) for name in NAMES.values()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate_run(measures, load_qrels(qrels_path), break_ties(load_run(run_path)))


def _lexeval(qrels, runs, names, original, reproduced, replication=None, per_query=False):
    evaluation = lexeval.evaluate(qrels, runs, list(NAMES) + ["LP"], warn=lambda _: None)
    lines = run_reports(evaluation, ["reproduction"], ReportOptions(
        original=original, reproduced=reproduced, replication_qrels=replication, cutoffs=CUTOFFS, per_query=per_query,
        runs=tuple(lexeval.io.source.Source(path, name) for path, name in zip(runs, names)),
        warn=lambda _: None))
    return {(line.measure, line.parameter): line.value for line in lines}


def _check_against_repro_eval(qrels, paths, got, replicated_qrels=None):
    """paths: original baseline, original advanced, reproduced baseline, reproduced advanced."""
    runs = [break_ties(load_run(path)) for path in paths]
    scores = [_scores(qrels, paths[0]), _scores(qrels, paths[1])]
    scores += [_scores(replicated_qrels or qrels, paths[2]), _scores(replicated_qrels or qrels, paths[3])]
    ob, oa, rb, ra = scores
    er = overall_effects.ER(orig_score_a=oa, orig_score_b=ob, rep_score_a=ra, rep_score_b=rb)
    dri = overall_effects.DRI(orig_score_a=oa, orig_score_b=ob, rep_score_a=ra, rep_score_b=rb)
    paired = replicated_qrels is None
    p = {"baseline": statistics.ttest(ob, rb, rpd=paired), "advanced": statistics.ttest(oa, ra, rpd=paired)}
    checked = 0
    for ours, theirs in NAMES.items():
        assert got[(ours, "ER")] == pytest.approx(er[theirs], abs=1e-9, nan_ok=True)
        assert got[(ours, "DeltaRI")] == pytest.approx(dri[theirs], abs=1e-9, nan_ok=True)
        for role in ("baseline", "advanced"):
            assert got[(ours, f"p:{role}")] == pytest.approx(p[role][theirs], abs=1e-9, nan_ok=True)
        checked += 4
    if paired:
        rmse = {"baseline": effectiveness.RMSE(ob, rb), "advanced": effectiveness.RMSE(oa, ra)}
        nrmse = {"baseline": effectiveness.nRMSE(ob, rb), "advanced": effectiveness.nRMSE(oa, ra)}
        for ours, theirs in NAMES.items():
            for role in ("baseline", "advanced"):
                assert got[(ours, f"RMSE:{role}")] == pytest.approx(rmse[role][theirs], abs=1e-9)
                assert got[(ours, f"nRMSE:{role}")] == pytest.approx(nrmse[role][theirs], abs=1e-9, nan_ok=True)
                checked += 2
        for k in CUTOFFS:
            trimmed = [copy.deepcopy(run) for run in runs]
            for run in trimmed:
                trim_run(run, k)
            for role, (o, r) in (("baseline", (0, 2)), ("advanced", (1, 3))):
                ktu = document_order.KTU(trimmed[o], trimmed[r], trim_thresh=k)
                rbo = document_order.RBO(trimmed[o], trimmed[r], p=0.95, depth=k, pbar=False, per_topic=False)
                assert got[(f"KTU@{k}", role)] == pytest.approx(ktu, abs=1e-9)
                assert got[(f"RBO@{k}", role)] == pytest.approx(rbo, abs=1e-9)
                checked += 2
    else:
        assert not any(key[0].startswith(("KTU", "RBO")) or key[1].startswith("RMSE") for key in got)
    return checked


def test_cranfield_reproducibility_equals_repro_eval(tmp_path):
    names = ["bm25okapi", "bm25plus", "bm25s_lucene", "bm25l"]
    qrels = _plain(CRANFIELD / "qrels.txt.gz", tmp_path / "qrels")
    paths = [_plain(CRANFIELD / "runs" / f"{name}.gz", tmp_path / name) for name in names]
    got = _lexeval(qrels, paths, names, ("bm25okapi", "bm25plus"), ("bm25s_lucene", "bm25l"))
    assert _check_against_repro_eval(qrels, paths, got) == 76


def _random_collection(tmp_path, seed, queries=12, depth=30, pool=60, qrels_name="qrels"):
    """Runs of one pool with tied scores, docnos and qids of many shapes."""
    rng = np.random.default_rng(seed)
    shapes = ["d{}", "DOC-{:06d}", "{}", "x" * 30 + "{}", "é{}", "a.b/{}"]
    qids = [f"q{q}" if q % 3 else f"{q:03d}-topic" for q in range(queries)]
    lines = []
    docs = {qid: [shapes[rng.integers(len(shapes))].format(rng.integers(10_000)) for _ in range(pool)] for qid in qids}
    docs = {qid: list(dict.fromkeys(found)) for qid, found in docs.items()}
    for qid in qids:
        judged = rng.choice(len(docs[qid]), size=len(docs[qid]) // 2, replace=False)
        grades = rng.integers(0, 3, size=len(judged))
        grades[0] = 1
        lines += [f"{qid} 0 {docs[qid][j]} {g}\n" for j, g in zip(judged.tolist(), grades.tolist())]
    (tmp_path / qrels_name).write_text("".join(lines), encoding="utf-8")
    paths = []
    for number in range(4):
        out = []
        for qid in qids:
            chosen = rng.choice(len(docs[qid]), size=min(depth, len(docs[qid])), replace=False)
            scores = np.round(rng.normal(size=len(chosen)), 1)          # ties, broken by docno
            ranked = sorted(zip(scores.tolist(), [docs[qid][c] for c in chosen.tolist()]), reverse=True)
            out += [f"{qid} Q0 {doc} {rank} {score} run{number}\n" for rank, (score, doc) in enumerate(ranked, 1)]
        path = tmp_path / f"run{number}"
        path.write_text("".join(out), encoding="utf-8")
        paths.append(str(path))
    return str(tmp_path / qrels_name), paths


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_runs_reproducibility_equals_repro_eval(tmp_path, seed):
    qrels, paths = _random_collection(tmp_path, seed)
    names = ["run0", "run1", "run2", "run3"]
    got = _lexeval(qrels, paths, names, ("run0", "run1"), ("run2", "run3"))
    assert _check_against_repro_eval(qrels, paths, got) == 76


@pytest.mark.parametrize("seed", [4, 5])
def test_random_runs_replicability_equals_repro_eval(tmp_path, seed):
    qrels, paths = _random_collection(tmp_path, seed)
    (tmp_path / "other").mkdir()
    other_qrels, other_paths = _random_collection(tmp_path / "other", seed + 100, queries=9)
    runs = paths[:2] + other_paths[2:]
    got = _lexeval(qrels, runs, ["run0", "run1", "run2", "run3"], ("run0", "run1"), ("run2", "run3"),
                   replication=other_qrels)
    assert _check_against_repro_eval(qrels, runs, got, replicated_qrels=other_qrels) == 32


def test_preferences_effect_ratio_and_sign_test(tmp_path):
    """LP's effect is the advanced run's mean preference over the baseline;
    its p is the sign test of each original run against its reproduction."""
    from scipy.stats import binomtest
    qrels, paths = _random_collection(tmp_path, 7)
    evaluation = lexeval.evaluate(qrels, paths, ["map", "LP"], warn=lambda _: None)
    got = _lexeval(qrels, paths, ["run0", "run1", "run2", "run3"], ("run0", "run1"), ("run2", "run3"))

    def lp(a, b):
        return evaluation.preferences.values["LP"][evaluation.preferences.pairs.index((min(a, b), max(a, b)))] * \
            (1 if a < b else -1)
    assert got[("LP", "ER")] == pytest.approx(lp(3, 2).mean() / lp(1, 0).mean(), abs=1e-12)
    against = lp(2, 0)
    wins, losses = int((against > 0).sum()), int((against < 0).sum())
    assert got[("LP", "p:baseline")] == pytest.approx(binomtest(wins, wins + losses).pvalue, abs=1e-12)


def test_per_query_lines_and_their_mean(tmp_path):
    qrels, paths = _random_collection(tmp_path, 8)
    got = _lexeval(qrels, paths, ["run0", "run1", "run2", "run3"], ("run0", "run1"), ("run2", "run3"),
                   per_query=True)
    per_query = [value for (measure, parameter), value in got.items()
                 if measure == "KTU@10" and parameter.startswith("baseline:")]
    assert len(per_query) == 12
    assert got[("KTU@10", "baseline")] == pytest.approx(np.nanmean(per_query), abs=1e-12)


def test_identical_runs_reproduce_perfectly(tmp_path):
    qrels, paths = _random_collection(tmp_path, 9)
    copies = [tmp_path / "copy0", tmp_path / "copy1"]
    for source, target in zip(paths[:2], copies):
        target.write_bytes(Path(source).read_bytes())
    got = _lexeval(qrels, paths[:2] + [str(c) for c in copies], ["run0", "run1", "copy0", "copy1"],
                   ("run0", "run1"), ("copy0", "copy1"))
    for k in CUTOFFS:
        assert got[(f"KTU@{k}", "baseline")] == pytest.approx(1.0)
    # RBO@k counts overlap over k ranks: runs 30 deep reach 1 only where k <= 30 (as repro_eval's)
    assert got[("RBO@10", "advanced")] == pytest.approx(1.0)
    assert got[("RBO@50", "advanced")] < 1.0
    assert got[("map", "RMSE:baseline")] == 0.0
    assert got[("map", "ER")] == pytest.approx(1.0)
    assert got[("map", "DeltaRI")] == pytest.approx(0.0)
    assert got[("map", "p:advanced")] == 1.0


def test_similarity_functions_by_hand():
    # the sorted union of a..d: a=0 b=1 c=2 d=3; pairs of (0,1,2) against (1,0,3): tau-b = 1/3
    assert kendall_tau_union(["a", "b", "c"], ["b", "a", "d"]) == pytest.approx(1 / 3)
    # overlaps 0, 2, 2 at depths 1..3: (0 + p*2/2 + p^2*2/3) / (1 + p + p^2)
    p = 0.5
    assert rbo_normalized(["a", "b", "c"], ["b", "a", "d"], p, 3) == \
        pytest.approx((p * 1 + p * p * 2 / 3) / (1 + p + p * p))


def test_cli_errors_and_output(tmp_path):
    qrels, paths = _random_collection(tmp_path, 10)
    base = ["--report", "reproduction", "-m", "map", qrels, *paths]
    missing = run_cli(base)
    assert missing.code == 2 and "--original" in missing.err and "error:" in missing.err
    unknown = run_cli([*base, "--original", "run0,run1", "--reproduced", "run2,nosuch"])
    assert unknown.code == 2 and "'nosuch' is not one of the runs" in unknown.err and not unknown.out
    single = run_cli([*base, "--original", "run0", "--reproduced", "run2,run3"])
    assert single.code == 2 and "BASE_RUN,ADV_RUN" in single.err
    alone = run_cli(["-m", "map", "--original", "run0,run1", qrels, *paths])
    assert alone.code == 2 and "add --report reproduction" in alone.err
    good = run_cli([*base, "--original", "run0,run1", "--reproduced", "run2,run3", "--cutoffs", "5,10",
                    "--format", "csv"])
    assert good.code == 0, good.err
    assert "reproduction,KTU@5,baseline," in good.out and "reproduction,map,ER," in good.out
    assert "KTU@1000" not in good.out
