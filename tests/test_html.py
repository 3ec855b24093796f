"""``--format html``: one self-contained page, the same options as every
format, its data equal to the text output's, and (where Chromium is
installed) rendered by a real browser without a script error, showing
every run and every summary value, with a screenshot that is not blank."""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
from conftest import EXAMPLES, ROOT, run_cli, write

from lexeval import evaluate

QRELS = EXAMPLES / "cranfield" / "qrels.txt.gz"
RUNS = sorted((EXAMPLES / "cranfield" / "runs").glob("*.gz"))
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def page_data(page: str) -> dict:
    match = re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S)
    assert match, "no data in the page"
    return json.loads(match.group(1))


def floats(text: str) -> np.ndarray:
    return np.frombuffer(base64.b64decode(text), dtype="<f4")


class _Tags(HTMLParser):
    """Every tag and attribute of a page, to look for what would reach the network."""

    def __init__(self):
        super().__init__()
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))


def test_the_page_is_self_contained_and_holds_the_evaluation():
    result = run_cli(["--format", "html", "-m", "map", "-m", "P.10", "-m", "LP", QRELS, *RUNS[:4]])
    assert result.code == 0, result.err
    page = result.out
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    parser = _Tags()
    parser.feed(page)
    for tag, attrs in parser.tags:               # nothing fetched: no src, no stylesheet link, no import
        assert "src" not in attrs and not (tag == "link" and attrs.get("rel") == "stylesheet"), (tag, attrs)
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "") and "https://" not in page
    data = page_data(page)
    names = [path.name[:-3] for path in RUNS[:4]]
    assert data["runs"] == names
    text = run_cli(["-m", "map", "-m", "P.10", "-m", "LP", QRELS, *RUNS[:4]]).lines()
    summary = {(line.split("\t")[0], line.split("\t")[1].strip()): line.split("\t")[3]
               for line in text if line.split("\t")[2] == "all" and ":" not in line.split("\t")[0]}
    for (run, measure), value in summary.items():
        assert data["summary"]["cells"][measure][names.index(run)][0] == value, (run, measure)
    ev = evaluate(str(QRELS), [str(path) for path in RUNS[:4]], ["map", "P.10", "LP"], warn=lambda text: None)
    # the pair matrix's p-values are the tests' (pairs in command-line order)
    np.testing.assert_allclose(floats(data["measures"]["map"]["p"]), ev.tests.p["map"], rtol=1e-6)
    np.testing.assert_allclose(floats(data["preferences"]["LP"]["mean"]), ev.pair_summary.mean["LP"], rtol=1e-6)
    # per-query values over the compared queries, as float32
    np.testing.assert_allclose(floats(data["measures"]["map"]["values"][0]),
                               ev.compared_values(ev.column("map"))[0], rtol=1e-6)


def test_the_same_options_as_every_format():
    baseline = run_cli(["--format", "html", "--baseline", RUNS[1].name[:-3], "--correction", "holm", "--ci",
                        "--test", "randomization", "--permutations", "200", "--aggregate", "borda", "-l", "2",
                        QRELS, *RUNS[:3]])
    assert baseline.code == 0, baseline.err
    data = page_data(baseline.out)
    assert data["summary"]["baseline"] == 1 and data["ci"] and data["test"] == "randomization"
    assert "Holm correction" in data["summary"]["caption"] and "randomization" in data["summary"]["caption"]
    assert "ci_low" in data["measures"]["map"]
    p = floats(data["measures"]["map"]["p"])
    assert np.isnan(p[1]) and not np.isnan(p[[0, 2]]).any()     # only the baseline's pairs (0:1, 1:2) are tested
    for bad, message in ((["-q"], "-q with --format html"), (["-n"], "-n with --format html")):
        refused = run_cli(["--format", "html", *bad, QRELS, *RUNS[:2]])
        assert refused.code == 2 and refused.out == "" and message in refused.err


def test_reports_are_on_the_page():
    result = run_cli(["--format", "html", "--report", "ties", "--report", "discrimination", "-m", "recip_rank",
                      "-m", "LP", QRELS, *RUNS[:3]])
    assert result.code == 0, result.err
    reports = page_data(result.out)["reports"]
    text = run_cli(["--report", "ties", "--report", "discrimination", "-m", "recip_rank", "-m", "LP", QRELS,
                    *RUNS[:3]]).lines()
    expected = {(f[0], f[1].strip(), f[2]): float(f[3]) for f in (line.split("\t") for line in text)}
    shown = {(group["report"], group["measure"], str(parameter)): value
             for group in reports for parameter, value in group["rows"]}
    assert shown.keys() == expected.keys()
    assert all(shown[key] == pytest.approx(value, abs=5e-5) for key, value in expected.items())


def test_bad_input_prints_no_page(tmp_path):
    run = write(tmp_path / "run", "1 Q0 a 1 1.0 t\n1 Q0 a 2 0.5 t\n")
    result = run_cli(["--format", "html", QRELS, run])
    assert result.code == 2 and result.out == "" and "appears twice" in result.err


def test_python_to_html_and_the_notebook_frame():
    ev = evaluate(str(QRELS), [str(path) for path in RUNS[:2]], ["map"], warn=lambda text: None)
    page = ev.to_html()
    assert page_data(page)["runs"] == [path.name[:-3] for path in RUNS[:2]]
    # a notebook shows a small summary (the repr's table), not the whole page; the page is one call away
    summary = ev._repr_html_()
    assert len(summary.encode()) < 4000 and "<table>" in summary and "<iframe" not in summary
    assert "<td>bm25l</td>" in summary and ">map</th>" in summary and "ev.page()" in summary
    frame = ev.page()._repr_html_()
    assert frame.startswith("<iframe srcdoc=") and "&lt;!DOCTYPE html&gt;" in frame and ev.page() == page


def test_the_assets_are_files_of_their_own():
    web = ROOT / "lexeval" / "output" / "web"
    assert {path.name for path in web.iterdir()} >= {"page.html", "page.css", "page.js"}
    source = (ROOT / "lexeval" / "output" / "html_page.py").read_text()
    assert "<table" not in source and "function " not in source
    node = shutil.which("node")
    if node:                                    # the script is checked as what it is
        done = subprocess.run([node, "--check", str(web / "page.js")], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr


# ---------------------------------------------------------------- in a real browser


def _png_pixels(path: Path) -> np.ndarray:
    """The pixels of a PNG, (height, width, channels)."""
    image = pytest.importorskip("PIL.Image")           # Pillow comes with matplotlib, a test extra
    with image.open(path) as picture:
        return np.asarray(picture.convert("RGB"), dtype=np.int32)


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (apt-get install chromium)")
def test_chromium_renders_the_page(tmp_path):
    args = ["-m", "map", "-m", "P.10", "-m", "ndcg_cut.10", "-m", "LP", "-m", "LR", QRELS, *RUNS]
    page = tmp_path / "page.html"
    page.write_text(run_cli(["--format", "html", *args]).out)
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--allow-file-access-from-files"]
    done = subprocess.run([CHROMIUM, *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True,
                          timeout=120)
    dom = done.stdout
    assert 'data-ready="true"' in dom, done.stderr[-2000:]
    assert "data-errors" not in dom and "Uncaught" not in done.stderr
    rendered = re.sub(r"<script.*?</script>", "", dom, flags=re.S)
    text = run_cli(args).lines()
    for line in text:
        key, measure, qid, value = line.split("\t")
        if qid == "all" and ":" not in key:       # every run's summary value, as the text prints it
            assert f">{value}<" in rendered or f">{value}<span" in rendered, (key, measure, value)
    for path in RUNS:
        assert f">{path.name[:-3]}<" in rendered
    shot = tmp_path / "shot.png"
    subprocess.run([CHROMIUM, *flags, "--window-size=1200,1600", f"--screenshot={shot}", page.as_uri()],
                   capture_output=True, timeout=120)
    pixels = _png_pixels(shot)
    assert pixels.std() > 20                     # not blank: text, a coloured matrix, a chart
    # the matrix draws significant wins in its dark blue: some pixels are that colour
    rgb = pixels[..., :3].reshape(-1, 3)
    assert ((np.abs(rgb - [0x21, 0x66, 0xac]).sum(axis=1)) < 30).sum() > 500


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (apt-get install chromium)")
def test_identifiers_of_every_shape_render(tmp_path):
    """Bytes that are not UTF-8 (held as lone surrogates) once crashed
    Chromium in the page's text: they show as \\xNN, as in lexeval's
    messages; HTML's own characters stay text."""
    qrels = tmp_path / "qrels"
    qrels.write_bytes(b"q<1> 0 d&1 1\nq<1> 0 d2 0\n\xff\xfe 0 d3 1\n")
    odd = tmp_path / 'run<b>&"x'
    odd.write_bytes(b"q<1> Q0 d&1 1 2 t<a>\nq<1> Q0 d2 2 1 t<a>\n\xff\xfe Q0 d3 1 1 \xe9\n")
    plain = tmp_path / "plain"
    plain.write_bytes(b"q<1> Q0 d2 1 2 u\nq<1> Q0 d&1 2 1 u\n\xff\xfe Q0 zz 1 1 u\n")
    page = tmp_path / "page.html"
    result = run_cli(["--format", "html", qrels, odd, plain])
    assert result.code == 0, result.err
    page.write_text(result.out, encoding="utf-8")
    data = page_data(result.out)
    assert data["queries"] == ["q<1>", "\\xff\\xfe"] and data["runs"][0] == 'run<b>&"x'
    done = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and 'data-ready="true"' in done.stdout
    assert "run&lt;b&gt;&amp;\"x" in done.stdout and "data-errors" not in done.stdout


# ---------------------------------------------------------------- a page to send (issue 39)


def _dom(page_path: Path, *extra: str) -> str:
    done = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", *extra, "--dump-dom",
                           page_path.as_uri()], capture_output=True, text=True, timeout=120)
    assert 'data-ready="true"' in done.stdout and "data-errors" not in done.stdout, done.stderr[-2000:]
    return done.stdout


def test_provenance_names_every_input_with_its_digest(tmp_path):
    import hashlib
    args = ["--format", "html", "-m", "map", "-l", "2", "--seed", "7", QRELS, *RUNS[:3]]
    result = run_cli(args)
    assert result.code == 0, result.err
    facts = page_data(result.out)["provenance"]
    assert facts["command"] == "lexeval " + " ".join(str(a) for a in args)
    assert facts["options"]["relevance_level"] == 2 and facts["options"]["seed"] == 7
    for item, path in zip(facts["inputs"], [QRELS, *RUNS[:3]]):
        assert item["path"] == str(path) and item["bytes"] == path.stat().st_size
        assert item["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    assert facts["reproduce"].endswith(facts["command"]) and facts["lexeval"] in facts["reproduce"]
    record = json.loads(run_cli(["--provenance", "--format", "json", "-m", "map", QRELS, RUNS[0]]).lines()[0])
    assert record["key"] == "provenance" and record["value"]["inputs"][1]["name"] == RUNS[0].name[:-3]
    refused = run_cli(["--provenance", "-m", "map", QRELS, RUNS[0]])
    assert refused.code == 2 and "--format json" in refused.err and not refused.out
    if CHROMIUM:
        page = tmp_path / "page.html"
        page.write_text(result.out)
        dom = _dom(page)
        for item in facts["inputs"]:
            assert f"<code>{item['sha256']}</code>" in dom and f">{item['name']}<" in dom


def _deuteranopia(rgb) -> np.ndarray:
    """Machado, Oliveira and Fernandes (2009), deuteranopia at severity 1, on linear RGB."""
    matrix = np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                       [-0.011820, 0.042940, 0.968881]])
    linear = (np.asarray(rgb, dtype=float) / 255) ** 2.2
    return np.clip(matrix @ linear, 0, 1) ** (1 / 2.2) * 255


def test_the_sign_colours_differ_for_every_reader():
    css = (ROOT / "lexeval" / "output" / "web" / "page.css").read_text()
    colour = {name: [int(value[i:i + 2], 16) for i in (0, 2, 4)]
              for name, value in re.findall(r"--(better|worse): #([0-9a-f]{6})", css)}
    seen = _deuteranopia(colour["better"]) - _deuteranopia(colour["worse"])
    assert np.abs(seen).sum() > 150                      # blue and orange stay apart without green-red vision


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (apt-get install chromium)")
def test_every_coloured_cell_carries_a_sign_and_the_views_hold_their_data(tmp_path):
    page = tmp_path / "page.html"
    result = run_cli(["--format", "html", QRELS, *RUNS])
    page.write_text(result.out)
    data = page_data(result.out)
    dom = _dom(page)
    cells = re.findall(r'<td class="(better-significant|better|worse-significant|worse|even)"[^>]*>([^<]*)<', dom)
    assert len(cells) == len(RUNS) * (len(RUNS) - 1)
    assert all(text and text[0] in "+\u2212=\u25b2\u25bc" for _, text in cells)
    # one name column; the picker's groups; a readable default, best first by the first measure shown
    assert "runid" not in data["summary"]["columns"]
    assert re.search(r'id="picker-count">9 of \d+ measures shown<', dom)
    order = re.findall(r'<tr data-run="(\d+)"', dom)
    maps = [float(data["summary"]["cells"]["map"][int(run)][0]) for run in order]
    assert maps == sorted(maps, reverse=True)
    # figures and tables hold what their CSV downloads hold
    rows = dict(re.findall(r'data-figure="(\w+)" data-csv-rows="(\d+)"', dom))
    compared = len(data["queries"])
    assert rows == {"forest": str(len(RUNS)), "topic": str(compared), "scatter": str(compared),
                    "differences": str(compared)}
    assert dom.count("<tr><th scope=\"row\">") >= compared          # the per-query table, a row per query
    for title in ("95% t interval over 225 queries", "query, by median map over the 12 runs"):
        assert title in dom
    # the summary's LaTeX and Markdown are --format latex's and markdown's
    assert data["exports"]["latex"] == run_cli(["--format", "latex", QRELS, *RUNS]).out
    assert data["exports"]["markdown"] == run_cli(["--format", "markdown", QRELS, *RUNS]).out
    # every control is reachable by keyboard: native controls, and sortable headers in the tab order
    assert all('tabindex="0"' in header for header in re.findall(r'<th scope="col"[^>]*>', dom.split(
        'id="summary-table"')[1].split("</thead>")[0]))


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (apt-get install chromium)")
def test_with_a_baseline_every_run_faces_it_with_an_interval(tmp_path):
    page = tmp_path / "page.html"
    result = run_cli(["--format", "html", "--baseline", "bm25okapi", "-m", "map", "-m", "LP", QRELS, *RUNS])
    page.write_text(result.out)
    data = page_data(result.out)
    ev = evaluate(str(QRELS), [str(p) for p in RUNS], ["map", "LP"], baseline="bm25okapi", warn=lambda _: None)
    baseline = ev.run_names.index("bm25okapi")
    forest = data["forest"]["measures"]["map"]
    values = ev.compared_values(ev.column("map"))
    np.testing.assert_allclose(floats(forest["difference"]), (values - values[baseline]).mean(axis=1), atol=1e-6)
    p = floats(forest["p"])
    for row, (a, b) in enumerate(ev.pairs.tolist()):
        assert p[b if a == baseline else a] == pytest.approx(ev.tests.p["map"][row], rel=1e-6)
    dom = _dom(page)
    column = dom.split('class="matrix baseline-column"')[1].split("</table>")[0]
    assert column.count('<th scope="row">') == len(RUNS) - 1 and "95% interval" in column


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (apt-get install chromium)")
def test_many_runs_draw_on_a_canvas_with_compact_pairs(tmp_path, monkeypatch):
    """Past 60 runs the matrix is a canvas; past COMPACT_PAIRS pairs p is a byte whose verdict is exact."""
    import lexeval.output.html_page as html_page
    monkeypatch.setattr(html_page, "COMPACT_PAIRS", 100)
    rng = np.random.default_rng(3)
    qrels = write(tmp_path / "qrels", "".join(f"q{q} 0 d{d} {int(rng.random() < 0.3)}\n"
                                              for q in range(8) for d in range(30)))
    runs = []
    for run in range(64):
        lines = [f"q{q} Q0 d{d} {rank} {30 - rank} r{run}\n" for q in range(8)
                 for rank, d in enumerate(rng.permutation(30)[:12].tolist(), 1)]
        runs.append(write(tmp_path / f"r{run:02d}", "".join(lines)))
    ev = evaluate(str(qrels), [str(r) for r in runs], ["map", "LP"], warn=lambda _: None)
    page = ev.to_html(command="lexeval ...")
    data = page_data(page)
    assert data["compact"] and "p_bytes" in data["measures"]["map"] and data["preferences"]["LP"]["mean"] is None
    code = np.frombuffer(base64.b64decode(data["measures"]["map"]["p_bytes"]), dtype=np.uint8)
    assert ((code & 128) > 0).tolist() == (ev.tests.p["map"] < 0.05).tolist()
    path = tmp_path / "page.html"
    path.write_text(page)
    dom = _dom(path)
    assert "<canvas" in dom and 'class="matrix"' not in dom


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (apt-get install chromium)")
def test_the_newer_reports_draw_their_figures(tmp_path):
    """judges (a leaderboard scatter per measure), reusability (drops), power (queries against delta) and
    reproduction (ER against DeltaRI), each with a caption and its CSV."""
    result = run_cli(["--format", "html", "--report", "judges", "--report", "reusability", "--report", "power",
                      "--report", "reproduction", "--original", "tfidf_cos,bm25okapi", "--reproduced",
                      "tfidf_sublin,bm25s_lucene", "--compare-qrels", EXAMPLES / "cranfield" / "qrels-perturbed.txt.gz",
                      "-m", "map", "-m", "LP", QRELS, *RUNS])
    assert result.code == 0, result.err
    page = tmp_path / "page.html"
    page.write_text(result.out)
    dom = _dom(page)
    captions = re.findall(r'<figcaption class="caption">([^<]*)</figcaption>', dom)
    for words in ("under qrels.txt (across) and qrels-perturbed.txt (up)", "contributed to the pool",
                  "Queries a paired t-test needs", "effect ratio against its delta relative improvement"):
        assert any(words in caption for caption in captions), words
    rows = [int(n) for n in re.findall(r'data-figure="report\d+" data-csv-rows="(\d+)"', dom)]
    # map, LP and the reports' reference measure (recip_rank): a leaderboard scatter and a drop chart each
    assert rows.count(len(RUNS)) == 6


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (apt-get install chromium)")
def test_report_tables_and_axes_read_right(tmp_path):
    """Each report's tables on the page are the --format table ones, laid
    out for its figures; the charts' tick labels differ from each other
    (small drops need more digits), and a chart of runs names them under
    its bars, not 0.00, 10.00, 20.00."""
    from lexeval.output.report_tables import report_grids
    from lexeval.reports import ReportOptions, run_reports
    args = ["--report", "reusability", "--report", "judges", "--compare-qrels",
            f"llm={EXAMPLES / 'cranfield' / 'qrels-perturbed.txt.gz'}", "-m", "map", QRELS, *RUNS]
    result = run_cli(["--format", "html", *args])
    assert result.code == 0, result.err
    page = tmp_path / "page.html"
    page.write_text(result.out)
    dom = _dom(page)
    ev = evaluate(str(QRELS), [str(path) for path in RUNS], ["map"], warn=lambda text: None)
    lines = run_reports(ev, ["reusability", "judges"], ReportOptions(
        compare_qrels={"llm": str(EXAMPLES / "cranfield" / "qrels-perturbed.txt.gz")}, warn=lambda text: None))
    for grid in report_grids(lines):
        assert f">{grid.title}. {grid.note}</caption>" in dom, grid.title
        for row in grid.rows:                       # every row, its cells in order
            cells = "".join(f'<th scope="row" class="label">{cell}</th>' if column < grid.labels else f"<td>{cell}</td>"
                            for column, cell in enumerate(row))
            assert cells in dom, row
    assert "-0.0000" not in re.sub(r"<script.*?</script>", "", dom, flags=re.S)
    charts = re.findall(r'<svg[^>]*aria-label="map: each run\'s drop[^"]*".*?</svg>', dom, flags=re.S)
    assert len(charts) == 1
    for svg in charts:
        texts = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
        numbers = [text for text in texts if re.fullmatch(r"-?[0-9.]+", text)]
        assert len(numbers) == len(set(numbers)) >= 2, numbers          # y ticks that differ
        assert not any(text in ("10.00", "20.00") for text in texts)
        assert all(path.name[:-3][:15] in " ".join(texts) for path in RUNS)     # the runs under their bars


@pytest.mark.skipif(CHROMIUM is None, reason="needs Chromium (apt-get install chromium)")
def test_the_page_prints(tmp_path):
    """Printing keeps the header, the summary and the figures: Chromium's PDF of the page has pages of them."""
    page = tmp_path / "page.html"
    page.write_text(run_cli(["--format", "html", "-m", "map", "-m", "LP", QRELS, *RUNS[:4]]).out)
    pdf = tmp_path / "page.pdf"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", f"--print-to-pdf={pdf}",
                    page.as_uri()], capture_output=True, timeout=120)
    data = pdf.read_bytes()
    assert data.startswith(b"%PDF") and data.count(b"/Type /Page") - data.count(b"/Type /Pages") >= 2
    css = (ROOT / "lexeval" / "output" / "web" / "page.css").read_text()
    printed = css.split("@media print")[1]
    assert ".controls" in printed and "button" in printed and "max-height: none" in printed
