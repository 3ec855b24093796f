"""Fractional grades (a language model's probability, an average of
judges): gain-based measures take the grade as the gain, binary and set
measures count grade >= -l (fractional too); hand-worked nDCG and AP,
random collections against a naive reference, integer qrels unchanged,
every input form, the judges report's thresholds, refusals and bad input."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import CRANFIELD, run_cli, write_trec

import lexeval


def values(output: str) -> dict[tuple[str, str], float]:
    got = {}
    for line in output.splitlines():
        name, qid, value = line.split("\t")
        got[(name.strip(), qid)] = float(value)
    return got


def test_hand_worked_ndcg_and_ap(tmp_path):
    """Grades 0.5, 2 and 0.25 ranked in that order, a fourth document (1.5)
    not retrieved. nDCG: DCG = 0.5/log2(2) + 2/log2(3) + 0.25/log2(4) =
    0.5 + 1.261860 + 0.125 = 1.886860; the ideal 2, 1.5, 0.5, 0.25 gives
    2 + 1.5/log2(3) + 0.5/2 + 0.25/log2(5) = 2 + 0.946395 + 0.25 + 0.107669
    = 3.304064; nDCG = 0.571072. AP at -l 1 (relevant: 2 and
    1.5): the one found at rank 2, precision 1/2, over 2 relevant: 0.25.
    At -l 0.5 (0.5, 2, 1.5): ranks 1 and 2, (1 + 1) / 3 = 0.666667."""
    qrels, runs = write_trec(tmp_path, "hand", {"q": {"a": 0.5, "b": 2, "c": 0.25, "d": 1.5}},
                             [{"q": ["a", "b", "c"]}])
    got = values(run_cli(["-m", "ndcg", "-m", "map", "-m", "P.3", qrels, runs["run0"]]).out)
    assert got[("ndcg", "all")] == 0.5711
    assert round(1.886860 / 3.304064, 6) == 0.571072
    assert got[("map", "all")] == 0.25 and got[("P_3", "all")] == pytest.approx(1 / 3, abs=5e-5)
    lenient = values(run_cli(["-l", "0.5", "-m", "map", "-m", "P.3", qrels, runs["run0"]]).out)
    assert lenient[("map", "all")] == pytest.approx(2 / 3, abs=5e-5)
    assert lenient[("P_3", "all")] == pytest.approx(2 / 3, abs=5e-5)


def naive(grades: dict[str, float], ranking: list[str], level: float, cutoff: int) -> dict[str, float]:
    """nDCG (linear gains, log2 discount), nDCG@k, P@k, recall@k and AP at
    relevance level ``level``, from their definitions."""
    gain = [max(grades.get(d, 0.0), 0.0) for d in ranking]
    ideal = sorted((g for g in grades.values() if g > 0), reverse=True)
    dcg = lambda gains, k=None: sum(g / math.log2(i + 2) for i, g in enumerate(gains[:k]))  # noqa: E731
    relevant = {d for d, g in grades.items() if g >= level}
    hits = [d in relevant for d in ranking]
    precision_at = [sum(hits[:i + 1]) / (i + 1) for i in range(len(hits))]
    return {"ndcg": dcg(gain) / dcg(ideal) if dcg(ideal) else 0.0,
            f"ndcg_cut_{cutoff}": dcg(gain, cutoff) / dcg(ideal, cutoff) if dcg(ideal, cutoff) else 0.0,
            f"P_{cutoff}": sum(hits[:cutoff]) / cutoff,
            f"recall_{cutoff}": sum(hits[:cutoff]) / len(relevant) if relevant else 0.0,
            "map": sum(p for p, hit in zip(precision_at, hits) if hit) / len(relevant) if relevant else 0.0}


DOCNOS = ["d1", "D-0001", "é", "x" * 30, "a/b.c", "10", "1", "q1d", "__", "Ω9"]


@pytest.mark.parametrize("seed", range(6))
def test_random_fractional_collections_equal_the_definitions(tmp_path, seed):
    rng = np.random.default_rng(seed)
    qrels, rankings = {}, {}
    for q in range(4):
        docs = list(rng.permutation(DOCNOS)[:int(rng.integers(3, 9))])
        qrels[f"q{q}"] = {d: float(rng.choice([0, 0.25, 0.5, 1, 1.25, 2.5, 3])) for d in docs}
        if not any(g >= 1 for g in qrels[f"q{q}"].values()):
            qrels[f"q{q}"][docs[0]] = 1.25
        rankings[f"q{q}"] = list(rng.permutation(DOCNOS)[:int(rng.integers(1, 8))])
    path, runs = write_trec(tmp_path, f"r{seed}", qrels, [rankings])
    for level in (1, 0.5, 1.25, 2):
        result = run_cli(["-q", "-l", str(level), "-m", "ndcg", "-m", "ndcg_cut.5", "-m", "P.5", "-m", "recall.5",
                          "-m", "map", path, runs["run0"]])
        assert result.code == 0, result.err
        got = values(result.out)
        for qid, grades in qrels.items():
            for name, expected in naive(grades, rankings[qid], level, 5).items():
                if name.startswith("ndcg") or any(g >= level for g in grades.values()):
                    assert got[(name, qid)] == pytest.approx(expected, abs=5e-5), (qid, name, level)


def test_integer_qrels_read_as_before(tmp_path):
    """Grades written 1.0 are integers: the same output as 1, byte for byte;
    and -l 1.5 on integer grades is -l 2."""
    text = (CRANFIELD / "qrels.txt.gz")
    import gzip
    lines = gzip.decompress(text.read_bytes()).decode().splitlines()
    decimal = tmp_path / "decimal.qrels"
    decimal.write_text("".join(f"{q} {i} {d} {g}.0\n" for q, i, d, g in (line.split() for line in lines)))
    run = CRANFIELD / "runs" / "bm25l.gz"
    plain = run_cli(["-q", "-m", "all_trec", text, run])
    again = run_cli(["-q", "-m", "all_trec", decimal, run])
    assert plain.code == again.code == 0 and plain.out == again.out
    assert run_cli(["-l", "1.5", "-m", "map", text, run]).out == run_cli(["-l", "2", "-m", "map", text, run]).out


def test_every_input_form_reads_fractional_grades(tmp_path):
    pandas = pytest.importorskip("pandas")
    judged = {"q1": {"a": 0.5, "b": 2.25, "c": 0.0}, "q2": {"x": 1.5, "y": 0.75}}
    ranked = {"q1": {"a": 3.0, "b": 2.0, "c": 1.0}, "q2": {"y": 2.0, "x": 1.0}}
    path, runs = write_trec(tmp_path, "forms", judged, [{q: list(docs) for q, docs in ranked.items()}])
    from_file = lexeval.evaluate(path, [runs["run0"]], ["ndcg", "map"], warn=lambda _: None)
    from_dict = lexeval.evaluate(judged, {"run0": ranked}, ["ndcg", "map"], warn=lambda _: None)
    frame = pandas.DataFrame([(q, d, g) for q, docs in judged.items() for d, g in docs.items()],
                             columns=["query_id", "doc_id", "relevance"])
    from_frame = lexeval.evaluate(frame, {"run0": ranked}, ["ndcg", "map"], warn=lambda _: None)
    for name in ("ndcg", "map"):
        a, b, c = (np.nan_to_num(e.values(name)) for e in (from_file, from_dict, from_frame))
        np.testing.assert_allclose(a, b)
        np.testing.assert_allclose(a, c)
    bad = pandas.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "relevance": [float("inf")]})
    with pytest.raises(lexeval.InputError, match="not a finite number"):
        lexeval.evaluate(bad, {"run0": ranked}, ["map"])


def test_gain_levels_and_exponential_gains_read_the_grade(tmp_path):
    """ndcg with a gain for grade 2.5 (trec_eval's level=gain form), and
    2^g - 1 gains (nDCG with dcg='exp-log2')."""
    path, runs = write_trec(tmp_path, "gains", {"q": {"a": 2.5, "b": 0.5}}, [{"q": ["b", "a"]}])
    got = values(run_cli(["-m", "ndcg.2.5=10", "-m", "nDCG(dcg='exp-log2')", path, runs["run0"]]).out)
    dcg = 0.5 + 10 / math.log2(3)
    assert got[("ndcg_2.5=10", "all")] == pytest.approx(dcg / (10 + 0.5 / math.log2(3)), abs=5e-5)
    exp = (2 ** 0.5 - 1) + (2 ** 2.5 - 1) / math.log2(3)
    ideal = (2 ** 2.5 - 1) + (2 ** 0.5 - 1) / math.log2(3)
    assert got[("ndcg_burges", "all")] == pytest.approx(exp / ideal, abs=5e-5)


def test_scaled_grades_leave_normalised_measures_as_they_were(tmp_path):
    """Grades halved (0, 0.5, 1 for 0, 1, 2): nDCG and the C/W/L measures,
    whose gains are normalised by the ideal or by max_rel, print the same;
    so do binary measures at the halved level."""
    rng = np.random.default_rng(12)
    judged = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in range(10)} for q in range(4)}
    for grades in judged.values():
        grades["d0"] = 2
    ranking = [{q: list(rng.permutation(list(docs))) for q, docs in judged.items()}]
    whole, runs = write_trec(tmp_path, "whole", judged, ranking)
    halved, _ = write_trec(tmp_path, "halved", {q: {d: g / 2 for d, g in docs.items()} for q, docs in judged.items()},
                           [])
    measures = ["-m", "ndcg", "-m", "ndcg_cut.5", "-m", "INST(T=2)", "-m", "rbp", "-m", "map"]
    plain = run_cli(["-q", *measures, whole, runs["run0"]])
    scaled = run_cli(["-q", "-l", "0.5", *measures, halved, runs["run0"]])
    assert plain.code == scaled.code == 0, scaled.err
    assert plain.out == scaled.out and "inst_T=2" in plain.out


def test_measures_of_integer_grades_and_bounds_are_refused(tmp_path):
    path, runs = write_trec(tmp_path, "refused", {"q": {"a": 0.5, "b": 1}}, [{"q": ["a", "b"]}])
    relstring = run_cli(["-m", "relstring", path, runs["run0"]])
    assert relstring.code == 2 and "relstring" in relstring.err and "fractional" in relstring.err
    bounds = run_cli(["--bounds", "-m", "ndcg", path, runs["run0"]])
    assert bounds.code == 2 and "--bounds with fractional grades" in bounds.err and not bounds.out


@pytest.mark.parametrize("line,message", [("q 0 a nan", "grade 'nan' is not a finite number"),
                                          ("q 0 a 1e999", "grade '1e999' is not a finite number"),
                                          ("q 0 a half", "grade 'half' is not a number")])
def test_bad_grades_name_the_file_and_line(tmp_path, line, message):
    qrels = tmp_path / "bad.qrels"
    qrels.write_text(f"q 0 b 0.5\n{line}\n")
    run = tmp_path / "run"
    run.write_text("q Q0 a 1 1 t\n")
    result = run_cli(["-m", "map", qrels, run])
    assert result.code == 2 and result.err.strip() == f"lexeval: error: {qrels}:2: {message}" and not result.out


def test_judged_twice_names_the_lines_of_a_fractional_file(tmp_path):
    qrels = tmp_path / "twice.qrels"
    qrels.write_text("# a comment\nq 0 a 0.5\n\nq 0 a 1\n")
    run = tmp_path / "run"
    run.write_text("q Q0 a 1 1 t\n")
    result = run_cli(["-m", "map", qrels, run])
    assert result.code == 2 and f"{qrels}:4:" in result.err and "line 2" in result.err


def test_the_judges_report_bins_fractional_grades_at_the_level(tmp_path):
    """A set of probabilities against integer grades: the per-query figures
    count grade >= -l on each side, the pooled confusion names each grade."""
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(4)
    first = {f"q{q}": {f"d{d}": int(rng.integers(0, 3)) for d in range(12)} for q in range(5)}
    second = {q: {d: round(float(rng.random()) * 2, 2) for d in docs} for q, docs in first.items()}
    runs = [{q: list(rng.permutation(list(docs))) for q, docs in first.items()} for _ in range(3)]
    path, paths = write_trec(tmp_path, "first", first, runs)
    other, _ = write_trec(tmp_path, "second", second, [])
    result = run_cli(["--report", "judges", "--compare-qrels", other, "-q", "-l", "1", "-m", "map", path,
                      *paths.values()])
    assert result.code == 0, result.err
    got = {}
    for line in result.out.splitlines():
        _, measure, parameter, value = line.split("\t")
        got[(measure.strip(), parameter)] = float(value)
    kappas = []
    for qid in first:
        a = np.array([first[qid][d] >= 1 for d in sorted(first[qid])])
        b = np.array([second[qid][d] >= 1 for d in sorted(first[qid])])
        if len(set(a)) > 1 or len(set(b)) > 1:
            kappa = sklearn_metrics.cohen_kappa_score(a, b)
            kappas.append(kappa)
            assert got[("documents", f"cohen_kappa:second.qrels:{qid}")] == pytest.approx(kappa, abs=5e-5)
    assert got[("documents", "cohen_kappa_mean:second.qrels")] == pytest.approx(np.mean(kappas), abs=5e-5)
    grade = next(g for g in second["q0"].values() if not float(g).is_integer())
    assert any(key[1].startswith("grades_") and key[1].endswith(f"_{grade:g}:second.qrels") for key in got)


def test_a_fractional_file_with_crlf_line_ends_reads_as_lf(tmp_path):
    run = tmp_path / "run"
    run.write_text("q Q0 b 1 2 t\nq Q0 a 2 1 t\n")
    for end in ("\n", "\r\n"):
        qrels = tmp_path / "ends.qrels"
        qrels.write_bytes(f"q 0 a 0.5{end}q 0 b 2{end}".encode())
        result = run_cli(["-m", "ndcg", qrels, run])
        assert result.code == 0 and values(result.out)[("ndcg", "all")] == 1.0, result.err
