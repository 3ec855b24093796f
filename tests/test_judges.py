"""--report judges against independent implementations: scipy's kendalltau,
spearmanr, pearsonr and ttest_rel, scikit-learn's cohen_kappa_score, the
krippendorff package, naive references of tau_ap (Yilmaz, Aslam and
Robertson 2008) and extrapolated RBO (Webber, Moffat and Zobel 2010) written
from the papers' formulas, and pytrec_eval for the per-query scores; on the
bundled Cranfield runs with the seeded perturbation of examples/ and on
random collections with identifiers of every shape."""

from __future__ import annotations

import gzip
import subprocess
import sys
from collections import Counter, defaultdict

import numpy as np
import pytest
from conftest import CRANFIELD, EXAMPLES, run_cli

pytrec_eval = pytest.importorskip("pytrec_eval")
sklearn_metrics = pytest.importorskip("sklearn.metrics")
krippendorff = pytest.importorskip("krippendorff")
from scipy import stats  # noqa: E402

RUN_NAMES = ["bm25okapi", "lsi200", "tfidf_title", "pisa_dph", "count_cos", "bm25l"]


def read_qrels(path) -> dict[str, dict[str, int]]:
    opener = gzip.open if str(path).endswith(".gz") else open
    out: dict[str, dict[str, int]] = defaultdict(dict)
    with opener(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            qid, _, docno, grade = line.split()
            out[qid][docno] = int(grade)
    return dict(out)


def read_run(path) -> dict[str, dict[str, float]]:
    opener = gzip.open if str(path).endswith(".gz") else open
    out: dict[str, dict[str, float]] = defaultdict(dict)
    with opener(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            qid, _, docno, _, score, *_ = line.split()
            out[qid][docno] = float(score)
    return dict(out)


def ranked(run: dict[str, float]) -> list[str]:
    """trec_eval's order: score descending, then docno descending."""
    return [doc for doc, _ in sorted(run.items(), key=lambda item: (item[1], item[0]), reverse=True)]


def tau_ap_naive(truth: list[float], compared: list[float]) -> float:
    """Yilmaz et al.'s formula, item by item; ties broken by position in the list."""
    n = len(truth)
    order = sorted(range(n), key=lambda i: (-compared[i], i))
    truth_order = sorted(range(n), key=lambda i: (-truth[i], i))
    place = {run: position for position, run in enumerate(truth_order)}
    total = 0.0
    for i in range(1, n):
        correct = sum(1 for j in range(i) if place[order[j]] < place[order[i]])
        total += correct / i
    return 2.0 / (n - 1) * total - 1.0


def rbo_ext_naive(first: list[float], second: list[float], p: float) -> float:
    """Webber et al.'s eq. 32 with explicit sets, at depth k = len."""
    n = len(first)
    a = sorted(range(n), key=lambda i: (-first[i], i))
    b = sorted(range(n), key=lambda i: (-second[i], i))
    total = sum(len(set(a[:d]) & set(b[:d])) / d * p ** d for d in range(1, n + 1))
    return len(set(a) & set(b)) / n * p ** n + (1 - p) / p * total


def per_query(qrels, run, measure):
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {measure})
    return {qid: values[measure] for qid, values in evaluator.evaluate(run).items()}


def lines_of(output: str) -> dict[tuple[str, str], float]:
    """The JSON records, by (measure, parameter)."""
    import json
    records = [json.loads(line) for line in output.splitlines()]
    return {(record["measure"], record["qid"]): float("nan" if record["value"] is None else record["value"])
            for record in records}


@pytest.fixture(scope="module")
def cranfield():
    other = EXAMPLES / "cranfield" / "qrels-perturbed.txt.gz"
    runs = [CRANFIELD / "runs" / f"{name}.gz" for name in RUN_NAMES]
    result = run_cli(["--report", "judges", "--compare-qrels", other, "-m", "map", "-m", "P.10", "-m", "LP", "-q",
                      "--format", "json", CRANFIELD / "qrels.txt.gz", *runs])
    assert result.code == 0, result.err
    return result, read_qrels(CRANFIELD / "qrels.txt.gz"), read_qrels(other), [read_run(r) for r in runs]


def test_the_bundled_second_set_is_its_scripts_output(tmp_path):
    made = subprocess.run([sys.executable, str(EXAMPLES / "perturb_qrels.py"), str(CRANFIELD / "qrels.txt.gz"),
                           "--seed", "1", "--flip", "0.2", "--drop", "0.1"], capture_output=True, check=True).stdout
    assert made == gzip.decompress((EXAMPLES / "cranfield" / "qrels-perturbed.txt.gz").read_bytes())


def test_partial_coverage_is_said_once(cranfield):
    result, first, second, _ = cranfield
    common = len(set(first) & set(second))
    assert common < len(first)
    notes = [line for line in result.err.splitlines() if "compared on the" in line]
    assert len(notes) == 1 and f"compared on the {common} both judge" in notes[0]


@pytest.mark.parametrize("measure,trec_name", [("map", "map"), ("P_10", "P_10")])
def test_leaderboard_correlations_equal_scipy(cranfield, measure, trec_name):
    result, first, second, runs = cranfield
    got = lines_of(result.out)
    common = sorted(set(first) & set(second))
    boards = []
    for qrels in (first, second):
        restricted = {qid: qrels[qid] for qid in common}
        boards.append([np.mean(list(per_query(restricted, run, trec_name).values())) for run in runs])
    x, y = boards
    for run, a, b in zip(RUN_NAMES, x, y):
        assert got[(measure, f"score:qrels.txt:{run}")] == pytest.approx(a, abs=1e-12)
        assert got[(measure, f"score:qrels-perturbed.txt:{run}")] == pytest.approx(b, abs=1e-12)
    name = "qrels-perturbed.txt"
    assert got[(measure, f"tau_b:{name}")] == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
    assert got[(measure, f"spearman:{name}")] == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
    assert got[(measure, f"pearson:{name}")] == pytest.approx(stats.pearsonr(x, y).statistic, abs=1e-12)
    assert got[(measure, f"tau_ap:{name}")] == pytest.approx(tau_ap_naive(x, y), abs=1e-12)
    assert got[(measure, f"rbo:{name}")] == pytest.approx(rbo_ext_naive(x, y, 0.9), abs=1e-12)


def test_significance_agreement_equals_paired_t_tests(cranfield):
    result, first, second, runs = cranfield
    got = lines_of(result.out)
    common = sorted(set(first) & set(second))
    values = [[per_query({q: qrels[q] for q in common}, run, "map") for run in runs] for qrels in (first, second)]
    counts = Counter()
    for a in range(len(runs)):
        for b in range(a + 1, len(runs)):
            verdicts = []
            for per_run in values:
                x = [per_run[a].get(q, 0.0) for q in common]
                y = [per_run[b].get(q, 0.0) for q in common]
                test = stats.ttest_rel(x, y)
                verdicts.append((test.pvalue < 0.05, np.sign(np.mean(np.subtract(x, y)))))
            (sig_a, dir_a), (sig_b, dir_b) = verdicts
            counts["same_significant" if sig_a and sig_b and dir_a == dir_b else
                   "opposite_significant" if sig_a and sig_b else
                   "only_first" if sig_a else "only_compared" if sig_b else "neither"] += 1
    for name in ("same_significant", "opposite_significant", "only_first", "only_compared", "neither"):
        assert got[("map", f"{name}:qrels-perturbed.txt")] == counts[name], name


def test_document_agreement_equals_sklearn_and_krippendorff(cranfield):
    result, first, second, _ = cranfield
    got = lines_of(result.out)
    pairs = [(grade, second[qid][docno]) for qid in first if qid in second
             for docno, grade in first[qid].items() if docno in second[qid]]
    a, b = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    name = "qrels-perturbed.txt"
    assert got[("documents", f"shared:{name}")] == len(pairs)
    assert got[("documents", f"cohen_kappa:{name}")] == pytest.approx(
        sklearn_metrics.cohen_kappa_score(a >= 1, b >= 1), abs=1e-12)
    for weights in ("linear", "quadratic"):
        assert got[("documents", f"kappa_{weights}:{name}")] == pytest.approx(
            sklearn_metrics.cohen_kappa_score(a, b, weights=weights), abs=1e-12)
    assert got[("documents", f"krippendorff_alpha:{name}")] == pytest.approx(
        krippendorff.alpha(reliability_data=[a, b], level_of_measurement="ordinal"), abs=1e-12)
    for (g, h), count in Counter(pairs).items():
        assert got[("documents", f"grades_{g}_{h}:{name}")] == count
    # per query, AutoJudge's universe (every document either set judges): tests/test_judges_autojudge.py


def test_judged_share_from_the_files(cranfield):
    result, first, second, runs = cranfield
    got = lines_of(result.out)
    common = set(first) & set(second)
    for name, qrels in (("qrels.txt", first), ("qrels-perturbed.txt", second)):
        for run_name, run in zip(RUN_NAMES, runs):
            shares = [sum(doc in qrels[qid] for doc in ranked(run[qid])[:10]) / 10 for qid in run if qid in common]
            assert got[("judged@10", f"share:{name}:{run_name}")] == pytest.approx(np.mean(shares), abs=1e-12)


def test_bootstrap_intervals_hold_the_estimate_and_repeat():
    args = ["--report", "judges", "--compare-qrels", EXAMPLES / "cranfield" / "qrels-perturbed.txt.gz", "--ci",
            "--resamples", "200", "-m", "map", "--format", "json", CRANFIELD / "qrels.txt.gz",
            *[CRANFIELD / "runs" / f"{name}.gz" for name in RUN_NAMES]]
    once, again = run_cli(args), run_cli(args)
    assert once.code == 0, once.err
    assert once.out == again.out
    got = lines_of(once.out)
    for what in ("tau_b", "spearman", "pearson", "rbo", "tau_ap"):
        low, high = got[("map", f"{what}_low:qrels-perturbed.txt")], got[("map", f"{what}_high:qrels-perturbed.txt")]
        assert -1 <= low <= high <= 1
    assert got[("map", "pearson_low:qrels-perturbed.txt")] <= got[("map", "pearson:qrels-perturbed.txt")] <= \
        got[("map", "pearson_high:qrels-perturbed.txt")]


def _collection(tmp_path, seed, name="qrels", qids=None):
    """Docnos and qids of many shapes, some one another's prefixes."""
    rng = np.random.default_rng(seed)
    qids = qids or ["1", "10", "q-α", "Q 2".replace(" ", "_"), "x" * 40]
    shapes = ["d{}", "d{}0", "DOC-{:05d}", "é{}", "{}", "a/b.{}"]
    docs = {qid: list(dict.fromkeys(shapes[rng.integers(len(shapes))].format(rng.integers(300)) for _ in range(40)))
            for qid in qids}
    lines = [f"{qid} 0 {doc} {rng.integers(0, 3)}\n" for qid in qids for doc in docs[qid]
             if rng.random() < 0.7]
    (tmp_path / name).write_text("".join(lines), encoding="utf-8")
    return tmp_path / name, docs


def test_identifiers_of_every_shape_join_exactly(tmp_path):
    qrels, docs = _collection(tmp_path, 1)
    other, _ = _collection(tmp_path, 2, "other")
    rng = np.random.default_rng(3)
    runs = []
    for number in range(3):
        lines = [f"{qid} Q0 {doc} {rank} {-rank} r{number}\n" for qid, found in docs.items()
                 for rank, doc in enumerate(rng.permutation(found)[:15].tolist(), 1)]
        path = tmp_path / f"r{number}"
        path.write_text("".join(lines), encoding="utf-8")
        runs.append(path)
    result = run_cli(["--report", "judges", "--compare-qrels", other, "-m", "map", "--format", "json", qrels, *runs])
    assert result.code == 0, result.err
    got = lines_of(result.out)
    first, second = read_qrels(qrels), read_qrels(other)
    pairs = [(g, second[q][d]) for q in first if q in second for d, g in first[q].items() if d in second[q]]
    assert got[("documents", "shared:other")] == len(pairs)
    a, b = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
    assert got[("documents", "kappa_quadratic:other")] == pytest.approx(
        sklearn_metrics.cohen_kappa_score(a, b, weights="quadratic"), abs=1e-12)


def test_errors_name_the_files(tmp_path):
    qrels, docs = _collection(tmp_path, 4)
    disjoint, _ = _collection(tmp_path, 5, "disjoint", qids=["900", "901"])
    run = tmp_path / "run"
    run.write_text("".join(f"{qid} Q0 {doc} 1 1.0 r\n" for qid, found in docs.items() for doc in found[:1]),
                   encoding="utf-8")
    run2 = tmp_path / "run2"
    run2.write_text("".join(f"{qid} Q0 {doc} 1 1.0 s\n" for qid, found in docs.items() for doc in found[1:2]),
                    encoding="utf-8")
    none = run_cli(["--report", "judges", "--compare-qrels", disjoint, "-m", "map", qrels, run, run2])
    assert none.code == 2 and "no query in common" in none.err and str(disjoint) in none.err and not none.out
    unshared = tmp_path / "unshared"
    unshared.write_text("".join(f"{qid} 0 other-{n} 1\n" for qid in docs for n in range(3)), encoding="utf-8")
    nothing = run_cli(["--report", "judges", "--compare-qrels", unshared, "-m", "map", qrels, run, run2])
    assert nothing.code == 2 and "no document judged in both" in nothing.err and str(unshared) in nothing.err
    alone = run_cli(["--report", "judges", "-m", "map", qrels, run, run2])
    assert alone.code == 2 and "--compare-qrels" in alone.err
    stray = run_cli(["--compare-qrels", qrels, "-m", "map", qrels, run, run2])
    assert stray.code == 2 and "add --report judges" in stray.err
    piped = run_cli(["--report", "judges", "--compare-qrels", qrels, "-m", "map", qrels, "-", run2],
                    stdin=run.read_bytes())
    assert piped.code == 2 and "a second time" in piped.err


def test_list_reports_names_every_report():
    from lexeval.choices import REPORTS
    result = run_cli(["--list-reports"])
    assert result.code == 0
    listed = [line.split()[0] for line in result.out.splitlines()[1:]]
    assert listed == list(REPORTS)


def test_the_library_call_equals_the_command_line(cranfield):
    import lexeval
    from lexeval.reports import ReportOptions, run_reports
    result = cranfield[0]
    evaluation = lexeval.evaluate(CRANFIELD / "qrels.txt.gz", [CRANFIELD / "runs" / f"{name}.gz" for name in RUN_NAMES],
                                  ["map", "P.10", "LP"], warn=lambda _: None)
    lines = run_reports(evaluation, ["judges"], ReportOptions(
        compare_qrels=(str(EXAMPLES / "cranfield" / "qrels-perturbed.txt.gz"),), per_query=True))
    got = lines_of(result.out)
    assert len(lines) == len(got)
    for line in lines:
        assert line.value == pytest.approx(got[(line.measure, line.parameter)], abs=1e-12, nan_ok=True)
