"""The names and files users bring: ir_measures' syntax, MRR@10 and
Judged@k, trec_eval's -J, MS MARCO run files, and tables in memory."""

import gzip

import numpy as np
import pytest
from conftest import CONFORMANCE, EXAMPLES, run_cli, write

from lexeval import evaluate
from lexeval.measures.names import output_names

ir_measures = pytest.importorskip("ir_measures")
pytrec_eval = pytest.importorskip("pytrec_eval")

QRELS = EXAMPLES / "cranfield" / "qrels.txt.gz"
RUNS = sorted((EXAMPLES / "cranfield" / "runs").glob("*.gz"))

#: ir_measures name -> the name lexeval prints (trec_eval's, where it has one)
PRINTED = {
    "nDCG@10": "ndcg_cut_10", "nDCG": "ndcg", "AP": "map", "AP@100": "map_cut_100", "RR": "recip_rank",
    "RR@10": "recip_rank_10", "R@1000": "recall_1000", "P(rel=2)@10": "P_10(rel=2)", "Judged@10": "judged_10",
    "Success@1": "success_1", "Rprec": "Rprec", "Bpref": "bpref", "infAP": "infAP", "NumRet": "num_ret",
    "NumRel": "num_rel", "NumRelRet": "num_rel_ret", "RBP(p=0.8)": "rbp_p=0.8(rel=1)", "P@10": "P_10",
}
#: where ir_measures spells the same measure differently (its RBP needs rel)
IR_SPELLING = {"RBP(p=0.8)": "RBP(p=0.8,rel=1)"}


def read(path, column, kind):
    table = {}
    with (gzip.open(path, "rt") if str(path).endswith(".gz") else open(path)) as handle:
        for line in handle:
            fields = line.split()
            table.setdefault(fields[0], {})[fields[2]] = kind(fields[column])
    return table


def test_printed_names():
    assert {name: output_names(name)[0] for name in PRINTED} == PRINTED
    assert output_names("MRR@10") == output_names("recip_rank.10") == output_names("recip_rank_10") == \
        ["recip_rank_10"]


def trec_ordered(ranking):
    """The same run with scores -rank in trec_eval's order (ir_measures'
    Judged breaks score ties by docno ascending; trec_eval, and lexeval,
    by docno descending)."""
    import reference as ref
    return {qid: {doc: -rank for rank, doc in enumerate(ref.ranked(list(docs.items())), start=1)}
            for qid, docs in ranking.items()}


@pytest.mark.parametrize("run", RUNS, ids=lambda p: p.name)
def test_ir_measures_names_equal_ir_measures(run):
    qrels, ranking = read(QRELS, 3, int), trec_ordered(read(run, 4, float))
    ours = evaluate(str(QRELS), [str(run)], list(PRINTED))
    for name, printed in PRINTED.items():
        measure = ir_measures.parse_measure(IR_SPELLING.get(name, name))
        want = {row.query_id: row.value for row in ir_measures.iter_calc([measure], qrels, ranking)}
        got = ours.column(printed).values[0]
        np.testing.assert_allclose(got, [want[qid] for qid in ours.qids], rtol=0, atol=1e-12, err_msg=name)


def test_reciprocal_rank_at_ten_is_ms_marcos(tmp_path):
    """MRR@10 (MS MARCO): 1/rank of the first relevant document within the
    top 10, else 0."""
    qrels = write(tmp_path / "qrels", "q1 0 r 1\nq2 0 r 1\nq3 0 r 1\n")
    lines = []
    for qid, position in (("q1", 3), ("q2", 11), ("q3", 10)):
        for rank in range(1, 13):
            lines.append(f"{qid} Q0 {'r' if rank == position else f'n{rank}'} {rank} {100 - rank} t")
    run = write(tmp_path / "run", "\n".join(lines) + "\n")
    result = run_cli(["-q", "-m", "MRR@10", "-m", "RR", qrels, run])
    values = {(line.split("\t")[0].strip(), line.split("\t")[1]): line.split("\t")[2] for line in result.lines()}
    assert values[("recip_rank_10", "q1")] == "0.3333" and values[("recip_rank", "q1")] == "0.3333"
    assert values[("recip_rank_10", "q2")] == "0.0000" and values[("recip_rank", "q2")] == "0.0909"
    assert values[("recip_rank_10", "q3")] == "0.1000"
    assert values[("recip_rank_10", "all")] == f"{(1 / 3 + 0 + 0.1) / 3:6.4f}"


def test_judged_at_k_counts_judged_documents(tmp_path):
    """Judged@3: of the top 3, how many have a judgement (of any grade)."""
    qrels = write(tmp_path / "qrels", "q 0 a 1\nq 0 b 0\nq 0 z -1\n")
    run = write(tmp_path / "run", "q Q0 a 1 5 t\nq Q0 x 2 4 t\nq Q0 b 3 3 t\nq Q0 y 4 2 t\nq Q0 z 5 1 t\n")
    assert run_cli(["-m", "Judged@3", "-m", "judged.1,5,10", qrels, run]).lines() == [
        "judged_1              \tall\t1.0000", "judged_3              \tall\t0.6667",
        "judged_5              \tall\t0.6000",          # z is in the qrels (grade -1)
        "judged_10             \tall\t0.6000"]          # 5 documents only: over 5, as ir_measures


@pytest.mark.parametrize("qrels,run", [(CONFORMANCE / "qrels.test", CONFORMANCE / "results.test"),
                                       (CONFORMANCE / "qrels.rel_level", CONFORMANCE / "results.test")]
                         + [(QRELS, run) for run in RUNS[:4]])
def test_judged_only_equals_trec_evals(qrels, run):
    """-J: pytrec_eval's judged_docs_only_flag runs trec_eval's own code."""
    measures = ["map", "P", "num_ret", "num_rel_ret", "ndcg", "bpref", "recip_rank", "Rprec", "recall",
                "infAP", "set_F", "success", "ndcg_cut", "map_cut"]
    want = pytrec_eval.RelevanceEvaluator(read(qrels, 3, int), set(measures),
                                          judged_docs_only_flag=True).evaluate(read(run, 4, float))
    ours = evaluate(str(qrels), [str(run)], measures, judged_only=True)
    checked = 0
    for column in ours.columns:
        np.testing.assert_allclose(column.values[0], [want[q][column.name] for q in ours.qids], atol=1e-12,
                                   err_msg=column.name)
        checked += 1
    assert checked > 40
    plain = evaluate(str(qrels), [str(run)], ["num_ret"])
    assert (ours.column("num_ret").values <= plain.column("num_ret").values).all()


def test_ms_marco_run_files(tmp_path):
    """qid<TAB>docid<TAB>rank: read as such, score = -rank, said once."""
    trec = EXAMPLES / "cranfield" / "runs" / "bm25okapi.gz"
    rows = [line.split() for line in gzip.decompress(trec.read_bytes()).decode().splitlines()]
    marco = write(tmp_path / "bm25.tsv", "".join(f"{q}\t{d}\t{r}\n" for q, _, d, r, _, _ in rows))
    want = run_cli(["-m", "map", "-m", "ndcg_cut.10", "-m", "recip_rank.10", QRELS, trec])
    got = run_cli(["-m", "map", "-m", "ndcg_cut.10", "-m", "recip_rank.10", QRELS, marco])
    assert got.code == 0 and got.lines()[1:] == want.lines()[1:]
    assert got.err.count("read as MS MARCO (qid docid rank): score = -rank") == 1
    mixed = write(tmp_path / "mixed.tsv", marco.read_text() + "1 Q0 doc 1 2.5 tag\n")
    result = run_cli([QRELS, mixed])
    assert result.code == 2 and result.out == ""
    assert f"{mixed}:{len(rows) + 1}: 6 columns" in result.err and "one format per file" in result.err


def _tables():
    pandas = pytest.importorskip("pandas")
    qrels = pandas.read_csv(QRELS, sep=" ", names=["qid", "iter", "docno", "relevance"],
                            dtype={"qid": str, "docno": str})
    runs = {}
    for path in RUNS[:3]:
        frame = pandas.read_csv(path, sep=" ", names=["qid", "Q0", "docno", "rank", "score", "tag"],
                                dtype={"qid": str, "docno": str})
        runs[path.name[:-3]] = frame[["qid", "docno", "score"]]          # PyTerrier's shape
    return qrels, runs


def test_dataframes_give_the_numbers_files_give():
    qrels, runs = _tables()
    from_files = evaluate(str(QRELS), [str(path) for path in RUNS[:3]], ["map", "ndcg_cut.10", "LP", "rrLR"])
    from_tables = evaluate(qrels, runs, ["map", "ndcg_cut.10", "LP", "rrLR"])
    assert from_tables.run_names == from_files.run_names
    for a, b in zip(from_files.columns, from_tables.columns):
        np.testing.assert_array_equal(a.values, b.values, err_msg=a.name)
    for name in ("LP", "rrLR"):
        np.testing.assert_array_equal(from_files.preferences.values[name], from_tables.preferences.values[name])
    np.testing.assert_array_equal(from_files.tests.p["map"], from_tables.tests.p["map"])
    frame = from_tables.to_frame()
    assert list(frame.columns) == ["run", "pair", "measure", "qid", "value", "text"]
    row = frame[(frame.run == "bm25okapi") & (frame.measure == "map") & (frame.qid == "all")]
    assert row.value.iloc[0] == pytest.approx(from_files.summary(from_files.column("map"))[1], abs=1e-15)
    assert set(frame.pair.dropna()) == {"bm25l:bm25okapi", "bm25l:bm25plus", "bm25okapi:bm25plus"}


def test_arrow_and_polars_tables_and_integer_qids():
    qrels, runs = _tables()
    import pyarrow as pa
    want = evaluate(qrels, runs, ["map"]).column("map").values
    arrow = {name: pa.Table.from_pandas(frame, preserve_index=False) for name, frame in runs.items()}
    np.testing.assert_array_equal(evaluate(pa.Table.from_pandas(qrels), arrow, ["map"]).column("map").values, want)
    polars = pytest.importorskip("polars")
    as_polars = {name: polars.from_pandas(frame) for name, frame in runs.items()}
    np.testing.assert_array_equal(evaluate(polars.from_pandas(qrels), as_polars, ["map"]).column("map").values,
                                  want)
    numeric = {name: frame.astype({"qid": int}) for name, frame in runs.items()}
    np.testing.assert_array_equal(evaluate(qrels.astype({"qid": int}), numeric, ["map"]).column("map").values,
                                  want)


def test_table_errors_name_the_table_and_row():
    pandas = pytest.importorskip("pandas")
    from lexeval.errors import InputError
    qrels = pandas.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "relevance": [1, 0]})
    run = pandas.DataFrame({"qid": ["1", "1", "1"], "docno": ["a", "b", "a"], "score": [3.0, 2.0, 1.0]})
    repeated = r"<table mine>: row 3: document 'a' appears twice for query '1' \(first in row 1\)"
    with pytest.raises(InputError, match=repeated):
        evaluate(qrels, {"mine": run}, ["map"])
    with pytest.raises(InputError, match="no column 'score'"):
        evaluate(qrels, {"mine": run.rename(columns={"score": "points"})}, ["map"])


@pytest.mark.parametrize("name,message", [
    ("XYZ@10", "not a measure lexeval knows in ir_measures' syntax"),    # INST and ERR@10 exist now
    ("INST@10", "INST takes no cutoff"),
    ("Success", "needs a cutoff"),
    ("Rprec@10", "takes no cutoff"),
    ("P(foo=1)@5", "does not know the parameter 'foo'"),
    ("P(rel=x)@5", "rel must be an integer grade"),
])
def test_unknown_names_say_why(tmp_path, name, message):
    qrels = write(tmp_path / "qrels", "1 0 a 1\n")
    run = write(tmp_path / "run", "1 Q0 a 1 1.0 t\n")
    result = run_cli(["-m", name, qrels, run])
    assert result.code == 2 and message in result.err
