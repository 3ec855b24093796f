"""The library takes what Python users hold (pytrec_eval and ranx dicts,
ranx objects, ir_measures tuples, DataFrames with ranx's columns) with the
same values as files, finds measures by any accepted name, says which
queries an average leaves out, warns instead of printing, and gives ranx's
compare report as a DataFrame."""

from __future__ import annotations

import gzip
import warnings

import numpy as np
import pytest
from conftest import EXAMPLES, run_cli, write

from lexeval import evaluate
from lexeval.evaluation import LexevalNote
from lexeval.stats.pairs import SignificanceOptions

QRELS = EXAMPLES / "cranfield" / "qrels.txt.gz"
RUNS = {"bm25okapi": EXAMPLES / "cranfield" / "runs" / "bm25okapi.gz",
        "lsi200": EXAMPLES / "cranfield" / "runs" / "lsi200.gz"}
MEASURES = ["map", "P.10", "ndcg_cut.10", "recip_rank", "num_ret", "LP", "LR"]


def _fields(path):
    return [line.split() for line in gzip.decompress(path.read_bytes()).decode().splitlines()]


def _qrels_dict():
    table: dict[str, dict[str, int]] = {}
    for qid, _, docno, grade in _fields(QRELS):
        table.setdefault(qid, {})[docno] = int(grade)
    return table


def _run_dict(path):
    table: dict[str, dict[str, float]] = {}
    for fields in _fields(path):
        table.setdefault(fields[0], {})[fields[2]] = float(fields[4])
    return table


@pytest.fixture(scope="module")
def from_files():
    return evaluate(str(QRELS), {name: str(path) for name, path in RUNS.items()}, MEASURES, warn=lambda text: None)


def _same(ev, reference):
    assert ev.run_names == reference.run_names
    for column in reference.columns:
        np.testing.assert_array_equal(ev.column(column.name).values, column.values, err_msg=column.name)
        np.testing.assert_array_equal(ev.summary(ev.column(column.name)), reference.summary(column))
    for name in reference.preference_names():
        np.testing.assert_array_equal(ev.preferences.values[name], reference.preferences.values[name])


def test_pytrec_eval_dicts(from_files):
    runs = {name: _run_dict(path) for name, path in RUNS.items()}
    _same(evaluate(_qrels_dict(), runs, MEASURES, warn=lambda text: None), from_files)


def test_ranx_objects_and_dataframes(from_files):
    ranx = pytest.importorskip("ranx")
    qrels = ranx.Qrels(_qrels_dict())
    runs = [ranx.Run(_run_dict(path), name=name) for name, path in RUNS.items()]
    _same(evaluate(qrels, runs, MEASURES, warn=lambda text: None), from_files)
    frames = {name: run.to_dataframe() for name, run in zip(RUNS, runs)}           # q_id, doc_id, score
    assert list(frames["lsi200"].columns) == ["q_id", "doc_id", "score"]
    _same(evaluate(qrels.to_dataframe(), frames, MEASURES, warn=lambda text: None), from_files)


def test_ir_measures_tuples(from_files):
    ir_measures = pytest.importorskip("ir_measures")
    qrels = [ir_measures.Qrel(f[0], f[2], int(f[3])) for f in _fields(QRELS)]
    runs = {name: (ir_measures.ScoredDoc(f[0], f[2], float(f[4])) for f in _fields(path))       # generators
            for name, path in RUNS.items()}
    _same(evaluate(qrels, runs, MEASURES, warn=lambda text: None), from_files)
    one = [ir_measures.ScoredDoc(f[0], f[2], float(f[4])) for f in _fields(RUNS["lsi200"])]
    alone = evaluate(iter(qrels), one, ["map"], warn=lambda text: None)
    assert alone.run_names == ["run"] and alone.summary(alone.column("map"))[0] == \
        from_files.summary(from_files.column("map"))[1]


def test_a_single_run_dict_and_a_list_of_them():
    qrels = {"1": {"a": 1, "b": 0}, "2": {"c": 2}}
    run = {"1": {"a": 0.5, "b": 0.9}, "2": {"c": 1.0}}
    other = {"1": {"a": 0.9}, "2": {"x": 1.0}}
    assert evaluate(qrels, run, ["map"]).summary_of("map").tolist() == [0.75]
    both = evaluate(qrels, [run, other], ["map"], warn=lambda text: None)
    assert both.run_names == ["run1", "run2"] and both.summary_of("map").tolist() == [0.75, 0.5]


def test_bad_python_inputs_are_input_errors():
    from lexeval.errors import InputError
    with pytest.raises(InputError, match=r"<run 1>: cannot read a list: give a path, .* a \{qid: \{docno: score\}\}"):
        evaluate({"1": {"a": 1}, "2": {"b": 1}}, {"1": [("a", 1.0)]}, ["map"])
    with pytest.raises(InputError, match="query 'q' holds a list"):
        evaluate({"q": {"a": 1}}, {"p": {"a": 1.0}, "q": [1.0]}, ["map"])
    with pytest.raises(InputError, match="is not a finite number"):
        evaluate({"1": {"a": float("nan")}}, {"1": {"a": 1.0}}, ["map"])


def test_measures_are_found_by_any_accepted_name(from_files):
    for name in ("ndcg_cut_10", "ndcg_cut.10", "nDCG@10", "ndcg@10", "NDCG@10"):
        assert from_files.column(name).name == "ndcg_cut_10"
    assert from_files.column("P@10").name == from_files.column("p@10").name == "P_10"
    assert from_files.column("MRR").name == from_files.column("rr").name == "recip_rank"
    assert from_files.p_values("nDCG@10").tolist() == from_files.tests.p["ndcg_cut_10"].tolist()
    assert from_files.p_values("lexiprecision").tolist() == from_files.tests.p["LP"].tolist()
    with pytest.raises(KeyError, match="not tested"):
        from_files.p_values("num_ret")
    with pytest.raises(KeyError, match="stands for 2 measures"):
        from_files.column("P.5,10")
    with pytest.raises(KeyError):
        from_files.column("bpref")
    frame = from_files.to_frame(per_query=False, measures=["nDCG@10", "lexiprecision"])
    assert set(frame["measure"]) == {"ndcg_cut_10", "ndcg_cut_10_p", "LP", "LP_win", "LP_loss", "LP_tie", "LP_p",
                                     "LP_score", "LP_rank"}


def test_per_query_values_say_which_queries_an_average_leaves_out(tmp_path):
    qrels = write(tmp_path / "qrels", "1 0 a 1\n2 0 b 1\n3 0 c 1\n")
    run = write(tmp_path / "run", "1 Q0 a 1 1.0 t\n2 Q0 x 1 1.0 t\n")            # lacks query 3
    ev = evaluate(str(qrels), [str(run)], ["map"], warn=lambda text: None)
    assert np.isnan(ev.values("map")[0, 2]) and ev.column("map").values[0, 2] == 0.0
    assert np.nanmean(ev.values("map"), axis=1) == pytest.approx(ev.summary_of("map"))
    complete = evaluate(str(qrels), [str(run)], ["map"], complete=True, warn=lambda text: None)
    assert not np.isnan(complete.values("map")).any()
    assert complete.values("map").mean() == pytest.approx(complete.summary_of("map")[0])


def test_notes_are_warnings_in_python_and_lines_on_the_command_line(tmp_path):
    qrels = write(tmp_path / "qrels", "1 0 a 1\n2 0 b 1\n")
    run = write(tmp_path / "run", "1 Q0 a 1 1.0 t\n7 Q0 b 1 1.0 t\n")
    with pytest.warns(LexevalNote) as notes:
        evaluate(str(qrels), [str(run)], ["map"])
    assert any("1 query not in the qrels, ignored" in str(note.message) for note in notes)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = run_cli(["-m", "map", qrels, run])
    assert result.code == 0 and "lexeval: " in result.err and "not in the qrels" in result.err


def test_compare_is_rankx_compare_report(from_files):
    pytest.importorskip("pandas")
    table = from_files.compare()
    assert list(table["run"]) == ["bm25okapi", "lsi200"]
    assert table["map"].tolist() == from_files.summary_of("map").tolist()
    assert table.loc[1, "map_better_than"] == "bm25okapi"            # lsi200's map is significantly higher
    assert table.loc[0, "map_better_than"] == ""
    ev = evaluate(str(QRELS), {name: str(path) for name, path in RUNS.items()}, MEASURES, warn=lambda text: None,
                  options=SignificanceOptions(baseline="bm25okapi"))
    table = ev.compare()
    text = run_cli(["--baseline", "bm25okapi", *sum((["-m", name] for name in MEASURES), []), QRELS,
                    *RUNS.values()]).lines()
    p = float(next(line.split("\t")[3] for line in text if line.split("\t")[1].strip() == "map_p"))
    assert np.isnan(table.loc[0, "map_p"]) and table.loc[1, "map_p"] == pytest.approx(p, rel=1e-3)
    assert table["map_vs_baseline"].tolist() == [0, 1]
    assert "LP_score" in table.columns and "LP_score_p" in table.columns


def test_ranx_objects_are_read_from_their_arrays(tmp_path):
    """ranx's typed dicts are read without to_dict(): identifiers of every
    length and script (ranx holds short ones as fixed-size characters),
    grades and scores equal to the same data from files."""
    ranx = pytest.importorskip("ranx")
    from lexeval.io.python_inputs import is_ranx
    qids = ["1", "q-22", "ü", "文3", "\U0001f600x"]
    docs = ["a", "dé", "長い文書の名前", "\U0001f4c4", "d" * 40, "x y"]
    qrels_dict = {q: {d: (i + j) % 3 for j, d in enumerate(docs)} for i, q in enumerate(qids)}
    run_dict = {q: {d: float((i * 7 + j * 3) % 11) / 10 + j / 1000 for j, d in enumerate(docs[::-1])}
                for i, q in enumerate(qids)}
    qrels, run = ranx.Qrels(qrels_dict), ranx.Run(run_dict, name="mixed")
    assert is_ranx(qrels) and is_ranx(run) and not is_ranx(run_dict)
    from_objects = evaluate(qrels, run, ["map", "P.3", "ndcg"], warn=lambda text: None)
    from_dicts = evaluate(qrels_dict, {"mixed": run_dict}, ["map", "P.3", "ndcg"], warn=lambda text: None)
    assert from_objects.run_names == ["mixed"] and from_objects.qids == from_dicts.qids
    for name in ("map", "P_3", "ndcg"):
        np.testing.assert_array_equal(from_objects.column(name).values, from_dicts.column(name).values)


def test_ranx_files_read_as_the_files_themselves(tmp_path):
    """ranx.Run.from_file holds docnos as fixed-size character arrays."""
    ranx = pytest.importorskip("ranx")
    qrels_path, run_path = tmp_path / "qrels.txt", tmp_path / "bm25okapi.trec"
    qrels_path.write_bytes(gzip.decompress((EXAMPLES / "cranfield" / "qrels.txt.gz").read_bytes()))
    run_path.write_bytes(gzip.decompress((EXAMPLES / "cranfield" / "runs" / "bm25okapi.gz").read_bytes()))
    by_ranx = evaluate(ranx.Qrels.from_file(str(qrels_path), kind="trec"),
                       ranx.Run.from_file(str(run_path), kind="trec"), ["map", "recip_rank", "num_rel_ret"])
    by_file = evaluate(str(qrels_path), str(run_path), ["map", "recip_rank", "num_rel_ret"])
    for name in ("map", "recip_rank", "num_rel_ret"):
        np.testing.assert_array_equal(by_ranx.column(name).values, by_file.column(name).values)
