"""Licence and citation: LICENSE, CITATION.cff, --cite's BibTeX, the README's
and the man page's Citing, the HTML page's footer."""

import re

import pytest
from conftest import CRANFIELD, ROOT, run_cli

from lexeval import __version__

RUNS = [CRANFIELD / "runs" / "bm25okapi.gz", CRANFIELD / "runs" / "lsi200.gz"]


def entries(bibtex: str) -> dict[str, str]:
    """BibTeX keys -> entry text; every entry's braces balance."""
    found = {}
    for block in bibtex.strip().split("\n\n"):
        match = re.match(r"@(\w+)\{([^,]+),", block)
        assert match, block
        assert block.count("{") == block.count("}"), block
        found[match[2]] = block
    return found


def test_cite_without_measures_cites_the_default_call():
    result = run_cli(["--cite"])
    assert result.code == 0 and result.err == ""
    cited = entries(result.out)
    assert list(cited) == ["lexeval", "trec_eval", "buckley:bpref", "diaz:lexiprecision", "diaz:lexirecall"]
    assert f"version = {{{__version__}}}" in cited["lexeval"]
    assert "2306.07908" in cited["diaz:lexiprecision"] and "2302.11370" in cited["diaz:lexirecall"]


@pytest.mark.parametrize("measures,keys", [
    (["LP"], ["lexeval", "diaz:lexiprecision"]),
    (["rrLR", "tse"], ["lexeval", "diaz:lexirecall"]),
    (["RPP", "map"], ["lexeval", "trec_eval", "diaz:rpp"]),
    (["P_rare.10", "nDCG@10"], ["lexeval", "trec_eval", "turkmen:innovation"]),
    (["ERR@20", "Compat", "alpha_nDCG@10", "SDCG(max_rel=3)@10", "ndcg_burges"],
     ["lexeval", "chapelle:err", "macavaney:irmeasures", "clarke:novelty", "azzopardi:cwl", "bassani:ranx"]),
    (["bpref", "RBP(p=0.8)"], ["lexeval", "trec_eval", "buckley:bpref", "moffat:rbp"]),
])
def test_cite_names_the_papers_behind_the_measures(measures, keys):
    result = run_cli(["--cite", *[a for name in measures for a in ("-m", name)]])
    assert result.code == 0
    assert sorted(entries(result.out)) == sorted(keys)


def test_cite_with_files_given_still_reads_nothing(tmp_path):
    result = run_cli(["--cite", "-m", "LP", tmp_path / "no-such-qrels", tmp_path / "no-such-run"])
    assert result.code == 0 and "diaz:lexiprecision" in result.out


def test_cite_with_an_unknown_measure_is_an_error():
    result = run_cli(["--cite", "-m", "mapp"])
    assert result.code == 2 and result.out == "" and "did you mean map" in result.err


def test_without_cite_qrels_and_runs_are_still_required():
    assert run_cli([]).err.endswith("lexeval: error: Missing argument 'QRELS'.\n")
    only_qrels = run_cli([CRANFIELD / "qrels.txt.gz"])
    assert only_qrels.code == 2 and only_qrels.err.endswith("lexeval: error: Missing argument 'RUN...'.\n")


def test_licence_and_citation_files():
    licence = (ROOT / "LICENSE").read_text()
    assert licence.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in licence
    assert 'license = { text = "MIT" }' in (ROOT / "pyproject.toml").read_text()
    yaml = pytest.importorskip("yaml")
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert citation["cff-version"] == "1.2.0" and citation["version"] == __version__
    assert citation["license"] == "MIT" and citation["title"].startswith("lexeval")
    titles = [reference["title"] for reference in citation["references"]]
    assert any("Lexicographic Precision" in title for title in titles)
    assert "Recall, Robustness, and Lexicographic Evaluation" in titles


@pytest.mark.parametrize("page", ["README.md", "man/lexeval.1"])
def test_readme_and_man_page_cite_the_papers(page):
    text = (ROOT / page).read_text()
    assert re.search(r"^(## Citing|\.SH CITING)$", text, re.MULTILINE)
    for reference in ("arXiv:2306.07908", "arXiv:2302.11370", "10.1145/3477495.3532033", "ECIR 2024",
                      "usnistgov/trec_eval"):
        assert reference in text, reference


def test_the_html_page_names_the_papers():
    result = run_cli(["--format", "html", "-m", "map", "-m", "LP", "-m", "LR", CRANFIELD / "qrels.txt.gz", *RUNS])
    footer = result.out[result.out.index('<details id="citing">'):]
    footer = footer[:footer.index("</details>")]
    items = re.findall(r"<li>(.*?)</li>", footer)
    assert len(items) == 4
    assert items[0].startswith("lexeval") and items[1].startswith("C. Buckley and NIST")
    assert "Lexicographic Precision" in items[2] and "Lexicographic Evaluation" in items[3]
