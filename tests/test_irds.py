"""Qrels by ir_datasets id (irds:ID), offline: a real dataset's qrels placed
where ir_datasets keeps them (IR_DATASETS_HOME), and a diversity dataset
registered through ir_datasets' own registry from a local file."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from conftest import DL19, run_cli, write

RUNS = sorted((DL19 / "runs").glob("*.gz"))[:2]


def lexeval(*args, env=None):
    return subprocess.run([sys.executable, "-m", "lexeval", *map(str, args)], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=120)


def test_a_dataset_id_reads_its_qrels_from_ir_datasets_cache(tmp_path):
    pytest.importorskip("ir_datasets")
    home = tmp_path / "ir_datasets"
    (home / "msmarco-passage" / "trec-dl-2019").mkdir(parents=True)
    # the official DL 2019 passage judgements, where ir_datasets keeps its download of them
    shutil.copy(DL19 / "qrels.txt", home / "msmarco-passage" / "trec-dl-2019" / "qrels")
    by_id = lexeval("-m", "map", "-m", "ndcg_cut.10", "-q", "irds:msmarco-passage/trec-dl-2019/judged", *RUNS,
                    env={"IR_DATASETS_HOME": str(home)})
    by_file = lexeval("-m", "map", "-m", "ndcg_cut.10", "-q", DL19 / "qrels.txt", *RUNS)
    assert by_id.returncode == by_file.returncode == 0, by_id.stderr
    assert by_id.stdout == by_file.stdout and by_id.stdout.count("\tall\t") > 4


def test_diversity_qrels_by_id_with_subtopics(tmp_path):
    ir_datasets = pytest.importorskip("ir_datasets")
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecSubQrels
    from ir_datasets.util import LocalDownload
    qrels = write(tmp_path / "diversity.qrels", "q1 1 a 1\nq1 2 a 1\nq1 2 b 1\nq1 3 c 1\nq2 1 x 1\nq2 2 y 1\n")
    run = write(tmp_path / "run", "q1 Q0 a 1 9 t\nq1 Q0 z 2 8 t\nq1 Q0 c 3 7 t\nq2 Q0 y 1 9 t\nq2 Q0 x 2 8 t\n")
    name = "lexeval-test/diversity"
    if name not in ir_datasets.registry:
        ir_datasets.registry.register(name, Dataset(TrecSubQrels(LocalDownload(qrels), {0: "not", 1: "relevant"})))
    measures = ["-m", "alpha_nDCG@5", "-m", "ERR_IA@5", "-m", "map", "-q"]
    by_id = run_cli([*measures, f"irds:{name}", run])
    by_file = run_cli([*measures, "--subtopics", qrels, run])
    assert by_id.code == by_file.code == 0, by_id.err
    assert by_id.out == by_file.out and "alpha_ndcg_5" in by_id.out
    flat = run_cli(["-m", "map", f"irds:{name}", run])
    assert flat.code == 2 and "judged twice" in flat.err and "--subtopics" in flat.err


def test_without_ir_datasets_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "ir_datasets", None)       # import ir_datasets raises ImportError
    result = run_cli(["irds:msmarco-passage/trec-dl-2019/judged", RUNS[0]])
    assert result.code == 2 and result.out == ""
    assert result.err.startswith("lexeval: error: irds:msmarco-passage/trec-dl-2019/judged: reading qrels by "
                                 "ir_datasets id needs the ir_datasets package")
    assert "[irds]" in result.err


@pytest.mark.parametrize("qrels,message", [("irds:", "name a dataset after irds:"),
                                           ("irds:no/such/dataset", "ir_datasets has no dataset 'no/such/dataset'")])
def test_bad_dataset_ids(qrels, message):
    pytest.importorskip("ir_datasets")
    result = run_cli([qrels, RUNS[0]])
    assert result.code == 2 and result.out == "" and message in result.err


def test_a_dataset_without_subtopics_refuses_them(tmp_path):
    ir_datasets = pytest.importorskip("ir_datasets")
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels
    from ir_datasets.util import LocalDownload
    name = "lexeval-test/plain"
    if name not in ir_datasets.registry:
        ir_datasets.registry.register(name, Dataset(TrecQrels(LocalDownload(DL19 / "qrels.txt"), {})))
    result = run_cli(["--subtopics", f"irds:{name}", RUNS[0]])
    assert result.code == 2 and "have no subtopics" in result.err
    plain = run_cli(["-m", "P.5", f"irds:{name}", RUNS[0]])
    assert plain.code == 0 and plain.out == run_cli(["-m", "P.5", DL19 / "qrels.txt", RUNS[0]]).out
