"""Every ir_measures measure with every parameter ir_measures supports for it,
with and without a cutoff, per query against ir_measures itself on three
collections: graded (Cranfield, grades 0-4), binary (trec_eval's test
collection) and one with unjudged documents in the rankings (TREC DL 2019).

A name ir_measures computes, lexeval computes to the same values, or refuses
with a UsageError for a documented reason; a parameter ir_measures' definition
lacks is refused, never printed and ignored. The diversity measures need
subtopic judgements: tests/test_diversity.py compares them with ndeval.
"""

from __future__ import annotations

import gzip
import logging
import math

import pytest
from conftest import CONFORMANCE, CRANFIELD, DL19
from test_ranx_names import untied

from lexeval import evaluate
from lexeval.errors import UsageError
from lexeval.measures.names import output_names

ir_measures = pytest.importorskip("ir_measures")

COLLECTIONS = {     # qrels, run, highest grade
    "graded": (CRANFIELD / "qrels.txt.gz", CRANFIELD / "runs" / "bm25okapi.gz", 4),
    "binary": (CONFORMANCE / "qrels.test", CONFORMANCE / "results.test", 1),
    "unjudged": (DL19 / "qrels.txt", DL19 / "runs" / "input.bm25base_p.gz", 3),
}
DIVERSITY = {"AP_IA", "ERR_IA", "MAP_IA", "NRBP", "nNRBP", "P_IA", "StRecall", "alpha_DCG", "alpha_nDCG",
             "nERR_IA", "α_DCG", "α_nDCG"}
# a value of each parameter other than its default
OTHER_VALUE = {"rel": "2", "judged_only": "True", "p": "0.5", "T": "2.0", "min_rel": "1", "dcg": "'exp-log2'",
               "gains": "{0:0,1:1,2:3,3:7,4:15}", "beta": "2.0", "relative": "True", "normalize": "False",
               "alpha": "0.75"}
# where lexeval and ir_measures differ by design (the man page says why)
DIFFERENT = {
    "IPrec": "trec_eval 10.0 rounds the recall cutoff; pytrec_eval (trec_eval 9) truncated it",
}
# what ir_measures computes and lexeval refuses, and why
REFUSED = {
    "min_rel=max_rel": "a C/W/L gain scale from min_rel to max_rel needs max_rel above min_rel",
}
# parameters lexeval adds to ir_measures' definitions, and honours
EXTENDED = {"Compat": "rel= sets the lowest grade of the ideal ranking (lexeval's -l otherwise)"}
# ir_measures' gdeval provider prints five decimals
FIVE_DECIMALS = ("ERR", "dcg='exp-log2'")


def names_of(measure_name: str, measure, top_grade: int) -> list[str]:
    """The measure alone, and with each parameter at another value, each
    with and without a cutoff (with only, where ir_measures needs one)."""
    params = dict(measure.SUPPORTED_PARAMS)
    cutoff = params.pop("cutoff", None)
    base = {}
    if "max_rel" in params:
        base["max_rel"] = str(top_grade)
    if "recall" in params:
        base["recall"] = "0.3"
    settings = [dict(base)] + [{**base, key: OTHER_VALUE[key]} for key in params if key not in base]
    if "max_rel" in params and top_grade > 1:
        settings.append({**base, "max_rel": str(top_grade - 1)})
    cutoffs = [""] if cutoff is None else ["@5"] if cutoff.required else ["", "@5"]
    names = []
    for setting in settings:
        shown = ",".join(f"{key}={value}" for key, value in setting.items())
        names += [measure_name + (f"({shown})" if shown else "") + cut for cut in cutoffs]
    return names


def _lines(path):
    data = path.read_bytes()
    return (gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data).decode().splitlines()


def untied_plain(path, folder):
    """``untied`` for a file that is not gzipped."""
    packed = folder / (path.name + ".gz")
    packed.write_bytes(gzip.compress(path.read_bytes()))
    return untied(packed, folder)


def _refusal_reason(name: str, error: UsageError) -> str | None:
    if "must be above min_rel" in str(error):
        return REFUSED["min_rel=max_rel"]
    return None


@pytest.mark.parametrize("collection", COLLECTIONS)
def test_every_measure_and_parameter_equals_ir_measures(collection, tmp_path):
    logging.getLogger("ir_measures").setLevel(logging.ERROR)     # cwl_eval's notes on clipped grades
    qrels_path, run_path, top_grade = COLLECTIONS[collection]
    run_path = untied(run_path, tmp_path) if run_path.suffix == ".gz" else untied_plain(run_path, tmp_path)
    if collection == "graded":         # the first 90 of Cranfield's 225 queries: every grade, a third of the time
        kept = {str(qid) for qid in range(1, 91)}
        qrels_path = tmp_path / "qrels.txt"
        qrels_path.write_text("".join(line + "\n" for line in _lines(COLLECTIONS["graded"][0])
                                      if line.split()[0] in kept))
        run_path.write_text("".join(line + "\n" for line in _lines(run_path) if line.split()[0] in kept))
    qrels = [ir_measures.Qrel(f[0], f[2], int(f[3])) for f in (line.split() for line in _lines(qrels_path))]
    run = [ir_measures.ScoredDoc(f[0], f[2], float(f[4])) for f in (line.split() for line in _lines(run_path))]
    judged = {qrel.query_id for qrel in qrels}
    compared, refused, names = 0, [], []
    for measure_name, measure in sorted(ir_measures.measures.registry.items()):
        if measure_name in DIVERSITY:
            continue
        names += [(measure_name, name) for name in names_of(measure_name, measure, top_grade)]
    assert len(names) > 130
    for measure_name, name in names:
        try:
            theirs = {metric.query_id: metric.value
                      for metric in ir_measures.iter_calc([ir_measures.parse_measure(name)], qrels, run)}
        except (ValueError, ZeroDivisionError, AssertionError):     # ir_measures has no provider for it, or fails
            theirs = None
        try:
            ev = evaluate(str(qrels_path), [str(run_path)], [name], warn=lambda text: None)
        except UsageError as error:
            reason = _refusal_reason(name, error)
            assert theirs is None or reason, f"{name}: ir_measures computes it, lexeval refuses: {error}"
            refused.append(name)
            continue
        if theirs is None or measure_name in DIFFERENT:
            continue
        printed = output_names(name)
        assert len(printed) == 1, name
        ours = dict(zip(ev.qids, ev.column(printed[0]).values[0]))
        if measure_name == "NumQ":              # a summary: every query counts once
            assert sum(theirs.values()) == ev.summary(ev.column("num_q"))[0]
            continue
        tolerance = 5.01e-6 if any(part in name for part in FIVE_DECIMALS) else 1e-9
        for qid, value in theirs.items():
            if qid in judged:
                assert ours[qid] == pytest.approx(value, abs=tolerance), (name, qid)
                compared += 1
    assert compared > 1000 if collection != "binary" else compared > 300      # (query, name) pairs compared
    assert len(refused) < len(names) / 5, refused


WITHOUT_REL = sorted(name for name, measure in ir_measures.measures.registry.items()
                     if "rel" not in measure.SUPPORTED_PARAMS and name not in DIVERSITY | set(EXTENDED))


def test_the_measures_without_rel():
    assert len(WITHOUT_REL) >= 12 and {"nDCG", "ERR", "Judged", "NumQ", "SDCG"} <= set(WITHOUT_REL)


@pytest.mark.parametrize("measure_name", WITHOUT_REL)
def test_a_parameter_ir_measures_lacks_is_refused(measure_name):
    """rel= on a measure whose ir_measures definition has no rel (its value
    does not depend on the level) is an error, not a name with the value
    of rel=1."""
    measure = ir_measures.measures.registry[measure_name]
    params = {"max_rel": "3"} if "max_rel" in measure.SUPPORTED_PARAMS else {}
    params["rel"] = "2"
    cutoff = measure.SUPPORTED_PARAMS.get("cutoff")
    text = measure_name + "(" + ",".join(f"{k}={v}" for k, v in params.items()) + ")" + \
        ("@10" if cutoff is not None and cutoff.required else "")
    with pytest.raises(UsageError, match="rel"):
        output_names(text)


def test_numret_counts_retrieved_documents_at_the_grade():
    """NumRet(rel=N) counts retrieved documents of grade N or more, summed
    over queries (Cranfield bm25okapi: ir_measures gives 1096 and 881)."""
    qrels, run = CRANFIELD / "qrels.txt.gz", CRANFIELD / "runs" / "bm25okapi.gz"
    ev = evaluate(str(qrels), [str(run)], ["NumRet", "NumRet(rel=1)", "NumRet(rel=2)"])
    sums = {column.name: ev.summary(column)[0] for column in ev.columns}
    assert sums == {"num_ret": 22500, "num_rel_ret(rel=1)": 1096, "num_rel_ret(rel=2)": 881}
    want = {name: ir_measures.calc_aggregate([ir_measures.parse_measure(name)],
                                             ir_measures.read_trec_qrels(str(qrels)),
                                             ir_measures.read_trec_run(str(run)))
            for name in ("NumRet(rel=1)", "NumRet(rel=2)")}
    assert [math.isclose(sum(v.values()) * 225, s) for v, s in zip(want.values(), (1096, 881))]


@pytest.mark.parametrize("spelling,same_as", [("IPrec(recall=0.3)", "IPrec@0.3"), ("SetP(relative=True)", "SetRelP"),
                                              ("SetRelP(relative=False)", "SetP"), ("Judged", "judged_ret"),
                                              ("nDCG(dcg='exp-log2')@10", "nDCG(dcg=exp-log2)@10")])
def test_ir_measures_spellings_of_one_measure(spelling, same_as):
    assert output_names(spelling) == output_names(same_as)
