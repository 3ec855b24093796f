"""The library as Python users write it: keywords, measure objects and
iterables, exceptions they catch, a short repr, tidy frames, PyTerrier's
baseline comparison, the paper's tables."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import CRANFIELD, EXAMPLES, run_cli, write
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lexeval
from lexeval import evaluate

QRELS = str(CRANFIELD / "qrels.txt.gz")
RUNS = [str(CRANFIELD / "runs" / f"{name}.gz") for name in ("bm25okapi", "lsi200", "tfidf_title")]
TOY = EXAMPLES / "toy"


@pytest.fixture(scope="module")
def ev():
    return evaluate(QRELS, RUNS, ["nDCG@10", "map", "LP"], baseline="bm25okapi", correction="holm")


def test_keywords_are_the_options_object():
    from lexeval.stats.pairs import SignificanceOptions
    by_keywords = evaluate(QRELS, RUNS, ["map", "LP"], baseline="lsi200", test="randomization", permutations=500,
                           seed=3, correction="bh", ci=True)
    by_options = evaluate(QRELS, RUNS, ["map", "LP"], options=SignificanceOptions(
        baseline="lsi200", test="randomization", permutations=500, seed=3, correction="bh", ci=True))
    for name in ("map", "LP"):
        np.testing.assert_array_equal(by_keywords.p_values(name), by_options.p_values(name))
    np.testing.assert_array_equal(by_keywords.tests.ci_low["map"], by_options.tests.ci_low["map"])


def test_the_keywords_are_visible_in_help():
    import inspect
    parameters = inspect.signature(evaluate).parameters
    for keyword in ("baseline", "test", "correction", "alpha", "ci", "level", "depth", "complete", "judged_only",
                    "permutations", "seed", "aggregate", "subtopics", "rel_format", "zscores", "num_docs"):
        assert parameters[keyword].kind is inspect.Parameter.KEYWORD_ONLY, keyword
        assert f"``{keyword}``" in evaluate.__doc__, keyword


@pytest.mark.parametrize("measures", [
    "ndcg_cut.10 map", ["nDCG@10", "AP"], ("nDCG@10", "AP"), np.array(["nDCG@10", "AP"]),
    (name for name in ["nDCG@10", "AP"]),
])
def test_measures_in_every_form_in_the_order_given(measures):
    ev = evaluate(QRELS, RUNS[:1], measures)
    assert [column.name for column in ev.columns] == ["ndcg_cut_10", "map"]     # trec_eval's table has map first


def test_ir_measures_objects_and_a_pandas_index():
    ir_measures = pytest.importorskip("ir_measures")
    pandas = pytest.importorskip("pandas")
    objects = evaluate(QRELS, RUNS[:1], [ir_measures.nDCG @ 10, ir_measures.AP, ir_measures.P(rel=2) @ 5])
    assert [column.name for column in objects.columns] == ["ndcg_cut_10", "map", "P_5(rel=2)"]
    indexed = evaluate(QRELS, RUNS[:1], pandas.Index(["P@5", "RR"]))
    assert [column.name for column in indexed.columns] == ["P_5", "recip_rank"]
    one = evaluate(QRELS, RUNS[:1], ir_measures.nDCG @ 10)
    assert [column.name for column in one.columns] == ["ndcg_cut_10"]


def test_the_errors_are_exported_value_errors():
    assert issubclass(lexeval.UsageError, ValueError) and issubclass(lexeval.InputError, ValueError)
    assert not issubclass(lexeval.UsageError, lexeval.InputError)
    assert not issubclass(lexeval.InputError, lexeval.UsageError)


@pytest.mark.parametrize("keywords,message", [
    ({"level": -1}, "level must be 0 or more, got -1"),
    ({"level": "x"}, "level must be a number"),
    ({"level": float("nan")}, "level must be a number"),
    ({"level": float("inf")}, "level must be a finite number 0 or more, got inf"),
    ({"alpha": float("-inf")}, "alpha must be a finite number in [0, 1], got -inf"),
    ({"depth": "10"}, "depth must be an integer"),
    ({"alpha": 2}, "alpha must be in [0, 1]"),
    ({"correction": "holmes"}, "correction must be one of none, holm"),
    ({"permutations": 0}, "permutations must be 1 or more"),
    ({"seed": "x"}, "seed must be an integer"),
    ({"rel_format": "csv"}, "rel_format must be one of qrels, prefs"),
    ({"aggregate": "median"}, "aggregate must be one of mean, borda, mc4"),
    ({"complete": "yes"}, "complete must be True or False"),
    ({"options": {"correction": "holm"}}, "options must be a SignificanceOptions"),
    ({"per_query": True}, "per_query is for a cluster's call"),
    ({"output_dir": "out"}, "output_dir is for a cluster's call"),
    ({"measures": [10]}, "measures[0] must be a measure name, got 10 (int)"),
    ({"measures": []}, "measures is empty"),
    ({"measures": "mapp"}, "did you mean map"),
    ({"baseline": "nope"}, "baseline 'nope' is not one of the runs: bm25okapi, lsi200, tfidf_title"),
    ({"timings": {}}, "timings must be a lexeval.timings.Timings (or None), got {}"),
    ({"progress": 3}, "progress must be a callable (or None), got 3"),
])
def test_bad_keywords_are_usage_errors_that_name_the_keyword(keywords, message):
    measures = keywords.pop("measures", "map")
    with pytest.raises(lexeval.UsageError) as caught:
        evaluate(QRELS, RUNS, measures, **keywords)
    assert message in str(caught.value)
    flags = str(caught.value).replace("lexeval --list-measures", "")     # the catalogue is the command's
    assert " -l" not in flags and "--" not in flags


def test_paths_raise_what_python_raises(tmp_path):
    with pytest.raises(FileNotFoundError) as missing:
        evaluate(str(tmp_path / "nope"), RUNS[:1])
    assert isinstance(missing.value, lexeval.InputError) and str(missing.value).endswith("nope: no such file")
    with pytest.raises(IsADirectoryError):
        evaluate(QRELS, [str(tmp_path)])


BAD_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=True),
                       st.text(max_size=4), st.lists(st.integers(), max_size=2), st.just(object()))
KEYWORDS = ["baseline", "test", "correction", "alpha", "ci", "confidence", "resamples", "permutations", "seed",
            "hsd", "level", "depth", "complete", "judged_only", "subtopics", "rel_format", "zscores", "num_docs",
            "rarity_weight", "aggregate", "pair_metrics", "options", "jobs", "verbose", "warn", "progress",
            "timings", "phases", "per_query", "output_dir", "output_format", "measures"]


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(KEYWORDS), BAD_VALUES, min_size=1, max_size=3))
def test_random_bad_keywords_raise_only_lexevals_errors(keywords):
    measures = keywords.pop("measures", ["map", "LP"])
    try:
        evaluate(str(TOY / "qrels.txt"), [str(TOY / "runA"), str(TOY / "runB")], measures, **keywords,
                 **({} if "warn" in keywords else {"warn": lambda text: None}))
    except (lexeval.UsageError, lexeval.InputError):
        pass


ODD_INPUTS = [
    ({}, {"q": {"d": 1.0}}), ({"q": {"d": 1}}, {}), ([], [("q", "d", 1.0)]),
    ({"q": {"d": 1}}, {"q": {"d": float("nan")}}), ({1: {"d": 1}, "1": {"e": 1}}, {"1": {"d": 1.0}}),
    ({"q": {"d": 1}}, (x for x in [])), ({"q": {"d": 1}}, {"run": {}}), ({"q": {"d": "1"}}, {"q": {"d": 1.0}}),
    ({"q": {"d": 1}}, {"q": {"d": None}}), ({"q": {"d": 1}}, 42), (None, {"q": {"d": 1.0}}),
]


@pytest.mark.parametrize("qrels,run", ODD_INPUTS)
def test_odd_inputs_raise_only_lexevals_errors(qrels, run):
    try:
        evaluate(qrels, run, "map", warn=lambda text: None)
    except (lexeval.UsageError, lexeval.InputError):
        pass


def test_empty_dataframes_are_input_errors():
    pandas = pytest.importorskip("pandas")
    empty_qrels = pandas.DataFrame({"qid": [], "docno": [], "relevance": []})
    empty_run = pandas.DataFrame({"qid": [], "docno": [], "score": []})
    with pytest.raises(lexeval.InputError, match="no judgements"):
        evaluate(empty_qrels, RUNS[:1])
    with pytest.raises(lexeval.InputError, match="no lines|empty"):
        evaluate(QRELS, empty_run)


def test_warnings_point_at_the_callers_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        evaluate(str(TOY / "qrels.txt"), [str(TOY / "runA")], ["map", "LP"]); line = _line()  # noqa: E702
    notes = [w for w in caught if issubclass(w.category, lexeval.evaluation.LexevalNote)]
    assert notes and all(w.filename == __file__ and w.lineno == line for w in notes)
    assert any("LP compares two runs" in str(w.message) for w in notes)


def _line() -> int:
    import inspect
    return inspect.currentframe().f_back.f_lineno


def test_repr_is_short_and_equality_is_identity(ev):
    text = repr(ev)
    assert len(text.splitlines()) <= 40 and len(text) < 4000
    assert text.startswith("<lexeval Evaluation: 3 runs x 225 queries, 2 measures, preferences LP; 2 pairs tested "
                           "(t test, correction holm, baseline bm25okapi)>")
    assert "\nbm25okapi " in text and " 0.3524   0.2842 " in text
    many = evaluate(QRELS, [str(path) for path in sorted((CRANFIELD / "runs").glob("*.gz"))], pair_metrics=False)
    assert len(repr(many).splitlines()) <= 40
    assert ev == ev and ev != evaluate(QRELS, RUNS, ["nDCG@10", "map", "LP"]) and ev != 3


@pytest.mark.parametrize("output_format", ["latex", "markdown"])
def test_paper_tables_equal_the_command_lines(ev, output_format):
    result = run_cli(["--format", output_format, "-m", "nDCG@10", "-m", "map", "-m", "LP", "--baseline", "bm25okapi",
                      "--correction", "holm", QRELS, *RUNS])
    ordered = evaluate(QRELS, RUNS, ["map", "nDCG@10", "LP"], baseline="bm25okapi", correction="holm")
    assert (ordered.to_latex() if output_format == "latex" else ordered.to_markdown()) == result.out


def test_tidy_frames_reshape_as_they_come(ev):
    pytest.importorskip("pandas")
    wide = ev.summary_frame().pivot(index="run", columns="measure", values="value")
    assert wide.loc["bm25okapi", "map"] == pytest.approx(0.2842, abs=5e-5)
    assert list(wide.columns) == sorted(["ndcg_cut_10", "map", "LP_score", "LP_rank"])
    per_query = ev.query_frame()
    means = per_query.groupby(["run", "measure"])["value"].mean()
    assert means[("lsi200", "map")] == pytest.approx(ev.summary_of("map")[1], abs=1e-12)
    records = ev.to_frame()
    assert records["value"].dtype == float and records.groupby("measure")["value"].mean()["map"] > 0
    assert records.loc[records["measure"] == "runid", "text"].notna().all() if "runid" in set(records["measure"]) \
        else True
    pairs = ev.pair_frame()
    assert set(pairs["pair"]) == {"lsi200:bm25okapi", "tfidf_title:bm25okapi"}      # run:baseline
    lp = pairs[(pairs["measure"] == "LP") & (pairs["pair"] == "lsi200:bm25okapi")].iloc[0]
    assert (lp["win"], lp["loss"], lp["tie"]) == (103, 110, 12)
    assert lp["mean"] == pytest.approx(-0.0311, abs=5e-5)


@pytest.mark.parametrize("library,kind", [("numpy", dict), ("polars", None), ("pandas", None)])
def test_frames_in_the_library_asked(ev, library, kind):
    if library != "numpy":
        module = pytest.importorskip(library)
        kind = module.DataFrame
    frame = ev.summary_frame(library=library)
    assert isinstance(frame, kind)
    with pytest.raises(lexeval.UsageError, match="library must be one of"):
        ev.summary_frame(library="numpyy")


def test_asking_for_what_was_not_computed_says_what_was(ev):
    with pytest.raises(KeyError, match="computed here: ndcg_cut_10, map, LP"):
        ev.column("P@10")
    with pytest.raises(KeyError, match="computed here"):
        ev.to_frame(measures=["P@10"])
    single = evaluate(QRELS, RUNS[:2], ["map"])
    with pytest.raises(KeyError, match="LP"):
        single.run_preference_summary("LP")


def test_baseline_comparison_as_pyterrier(ev):
    pytest.importorskip("pandas")
    from scipy import stats

    from lexeval.stats.significance import correct
    table = ev.compare(baseline="bm25okapi", correction="holm").set_index("name")
    values = ev.column("map").values[:, ev.compared]
    raw = [stats.ttest_rel(values[index], values[0]).pvalue for index in (1, 2)]
    assert table.loc[["lsi200", "tfidf_title"], "map p-value"].tolist() == pytest.approx(raw, rel=1e-9)
    assert table.loc[["lsi200", "tfidf_title"], "map p-value corrected"].tolist() == \
        pytest.approx(correct(np.array(raw), "holm").tolist(), rel=1e-9)
    assert table.loc["tfidf_title", "map diff"] == pytest.approx(0.2064 - 0.2842, abs=1e-4)
    difference = values[1] - values[0]
    assert table.loc["lsi200", "map +"] == (difference > 0).sum()
    # the preferences are each run's against the baseline, not against all runs
    assert table.loc["lsi200", "LP"] == pytest.approx(-(110 - 103) / 225, abs=1e-12)
    assert (table.loc["lsi200", "LP +"], table.loc["lsi200", "LP -"]) == (103, 110)
    assert np.isnan(table.loc["bm25okapi", "map p-value"]) and np.isnan(table.loc["bm25okapi", "map +"])


def test_a_baseline_comparison_needs_the_baselines_tests(ev):
    with pytest.raises(lexeval.UsageError, match="evaluate with baseline='lsi200'"):
        ev.compare(baseline="lsi200")
    with pytest.raises(lexeval.UsageError, match="not one of the runs"):
        ev.compare(baseline="nope")
    unbased = evaluate(QRELS, RUNS, ["map"])
    assert len(unbased.compare(baseline="lsi200", library="numpy")["name"]) == 3


def test_help_shows_the_keywords():
    import pydoc
    text = pydoc.render_doc(lexeval.evaluate, renderer=pydoc.plaintext)
    assert "baseline: str | None = None" in text and "correction: str | None = None" in text


def test_a_table_of_runs_written_by_hand(tmp_path):
    """A user's own small files: the keywords reach the numbers."""
    qrels = write(tmp_path / "qrels", "q1 0 a 2\nq1 0 b 1\nq2 0 c 1\n")
    run = write(tmp_path / "run", "q1 Q0 b 1 3 t\nq1 Q0 a 2 2 t\nq2 Q0 x 1 1 t\nq2 Q0 c 2 0.5 t\n")
    at_two = evaluate(str(qrels), str(run), "P@1 map", level=2)
    assert at_two.summary_of("P@1").tolist() == [0.0] and at_two.summary_of("map").tolist() == [0.25]
    at_one = evaluate(str(qrels), str(run), "P@1", level=1, depth=1)
    assert at_one.summary_of("P@1").tolist() == [0.5]


def test_a_pair_in_either_order(ev):
    forward, backward = ev.pair("bm25okapi:lsi200"), ev.pair("lsi200:bm25okapi")
    assert set(forward) == {"LP", "ndcg_cut_10", "map"}
    assert (forward["LP"]["win"], forward["LP"]["loss"], forward["LP"]["tie"]) == (110, 103, 12)
    assert (backward["LP"]["win"], backward["LP"]["loss"]) == (103, 110)
    for measure in forward:
        assert backward[measure]["mean"] == -forward[measure]["mean"]
        assert backward[measure]["p"] == forward[measure]["p"]
    assert forward["map"]["mean"] == pytest.approx(0.2842 - 0.3043, abs=1e-4)
    with pytest.raises(KeyError, match="not a pair"):
        ev.pair("bm25okapi:nope")
    with pytest.raises(KeyError, match="was not tested"):
        ev.pair("lsi200:tfidf_title")
