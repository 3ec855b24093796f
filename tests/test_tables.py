"""Tables for papers and people, intervals, effect sizes, corrections."""

import re
import shutil
import subprocess

import numpy as np
import pytest
from conftest import EXAMPLES, run_cli

from lexeval import SignificanceOptions, evaluate
from lexeval.output.tables import letter
from lexeval.stats.significance import correct

QRELS = EXAMPLES / "cranfield" / "qrels.txt.gz"
RUNS = [EXAMPLES / "cranfield" / "runs" / f"{name}.gz" for name in ("bm25okapi", "lsi200", "tfidf_title", "bm25l")]
MEASURES = ["-m", "map", "-m", "P.10", "-m", "ndcg_cut.10", "-m", "LP"]


def cells(markdown_text):
    """The table rows of Markdown output, as lists of cells."""
    rows = [line.strip("|").split(" | ") for line in markdown_text.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in row] for row in rows]


def test_markdown_letters_are_the_significant_wins():
    result = run_cli(["--format", "markdown", *MEASURES, QRELS, *RUNS])
    assert result.code == 0, result.err
    header, *rows = cells(result.out)
    assert header == ["Run", "map", "P_10", "ndcg_cut_10", "LP_score"]
    assert re.search(r"^\|---\|---:\|---:\|---:\|---:\|$", result.out, re.M)
    ev = evaluate(str(QRELS), [str(run) for run in RUNS], ["map", "P.10", "ndcg_cut.10", "LP"])
    for column, measure in enumerate(["map", "P_10", "ndcg_cut_10", "LP"], start=1):
        better = {run: set() for run in range(len(RUNS))}
        for row, (a, b) in enumerate(ev.pairs.tolist()):
            if ev.tests.p[measure][row] < 0.05:
                winner, loser = (a, b) if ev.tests.mean_difference[measure][row] > 0 else (b, a)
                better[winner].add(letter(loser))
        values = [float(re.sub(r"[*]|<sup>.*</sup>", "", row[column])) for row in rows]
        for run, row in enumerate(rows):
            shown = re.search(r"<sup>(\w+)</sup>", row[column])
            assert set(shown.group(1) if shown else "") == better[run], (measure, run)
            assert row[column].startswith("**") == (values[run] == max(values))
    assert [row[0] for row in rows] == ["(a) bm25okapi", "(b) lsi200", "(c) tfidf_title", "(d) bm25l"]
    assert "Paired t-test for metrics; sign test for LP and LR" in result.out


def test_latex_with_a_baseline_compiles():
    result = run_cli(["--format", "latex", *MEASURES, "--baseline", "bm25okapi", "--ci", "--correction", "holm",
                      QRELS, *RUNS])
    assert result.code == 0, result.err
    text = result.out
    assert text.count(r"\begin{tabular}{lrrrr}") == 1 and r"\toprule" in text and r"\bottomrule" in text
    assert r"bm25okapi (baseline)" in text and r"tfidf\_title" in text and r"ndcg\_cut\_10" in text
    assert r"$^\dagger$" in text and r"$\pm$" in text and "Holm correction" in text
    assert text.count(r"\\") == 1 + len(RUNS)                      # header and one row per run
    if not shutil.which("pdflatex"):
        pytest.skip("pdflatex is not installed: structure checked, not compiled")
    document = "\\documentclass{article}\n\\usepackage{booktabs}\n\\begin{document}\n" + text + "\\end{document}\n"
    folder = EXAMPLES.parent / ".pytest_cache" / "latex"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "table.tex").write_text(document)
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "table.tex"], cwd=folder,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-2000:]
    assert (folder / "table.pdf").stat().st_size > 1000


def test_many_measures_are_rows():
    result = run_cli(["--format", "markdown", "-m", "official", QRELS, *RUNS[:2]])
    header = cells(result.out)[0]
    assert header == ["Measure", "(a) bm25okapi", "(b) lsi200"]
    assert any(row[0] == "iprec_at_recall_0.50" for row in cells(result.out))


def test_reports_as_tables():
    for fmt, mark in (("markdown", "### ties"), ("latex", r"\begin{tabular}")):
        result = run_cli(["--format", fmt, "--report", "ties", "-m", "recip_rank", "-m", "LP", QRELS, *RUNS[:3]])
        assert result.code == 0 and mark in result.out and "recip" in result.out


@pytest.mark.parametrize("args,message", [
    (["-q"], "-q with --format table"), (["-n"], "-n with --format table"),
])
def test_table_refuses_options_it_cannot_show(args, message):
    result = run_cli(["--format", "table", *args, QRELS, *RUNS[:2]])
    assert result.code == 2 and result.out == "" and message in result.err


@pytest.mark.parametrize("columns", [80, 120, 200])
def test_table_fits_the_terminal(monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", str(columns))
    result = run_cli(["--format", "table", QRELS, *sorted((EXAMPLES / "cranfield" / "runs").glob("*.gz"))])
    assert result.code == 0
    widths = [len(line) for line in result.out.splitlines()]
    assert max(widths) <= columns
    for label in ("iprec_at_recall_0.00", "iprec_at_recall_1.00", "LP_score", "P_1000"):
        assert label in result.out                                   # no header cut to '…'
    assert "…" not in result.out


# ---------------------------------------------------------------- intervals and effect sizes


def _per_query(ev, name):
    return ev.compared_values(ev.column(name))


def test_t_intervals_and_effect_sizes_equal_scipys():
    from scipy import stats
    options = SignificanceOptions(ci=True, confidence=0.9)
    ev = evaluate(str(QRELS), [str(run) for run in RUNS], ["map", "P.10"], options=options)
    for name in ("map", "P_10"):
        values = _per_query(ev, name)
        for row, (a, b) in enumerate(ev.pairs.tolist()):
            differences = values[a] - values[b]
            low, high = stats.t.interval(0.9, len(differences) - 1, loc=differences.mean(),
                                         scale=stats.sem(differences))
            assert ev.tests.ci_low[name][row] == pytest.approx(low, abs=1e-12)
            assert ev.tests.ci_high[name][row] == pytest.approx(high, abs=1e-12)
            assert ev.tests.effect[name][row] == pytest.approx(differences.mean() / differences.std(ddof=1))


MASK = 2**64 - 1
GOLDEN = 0x9E3779B97F4A7C15


def splitmix(x):
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def poisson_weight_by_hand(seed, qid, draw):
    """The documented draw, in Python integers: key = BLAKE2b-64 of the qid,
    word = SplitMix64(SplitMix64(SplitMix64(key ^ base) + draw' * golden) ^ base),
    draw' = draw + 2**40; the top 53 bits against Poisson(1)'s distribution."""
    import hashlib
    import math
    base = splitmix((seed * GOLDEN + 0x632BE59BD9B4E019) & MASK)
    key = int.from_bytes(hashlib.blake2b(qid.encode(), digest_size=8).digest(), "little")
    word = splitmix(splitmix((splitmix(key ^ base) + (draw + 2**40) * GOLDEN) & MASK) ^ base)
    uniform, k, cumulative = word >> 11, 0, math.exp(-1.0)
    while uniform >= math.floor(min(cumulative, 1.0) * 2.0**53):
        k += 1
        cumulative += math.exp(-1.0) / math.factorial(k)
    return k


def poisson_bootstrap(differences, qids, confidence, resamples, seed):
    """The documented bootstrap: differences counted in units of 2**-40
    (so that sums are integers), each query drawn Poisson(1) times."""
    differences = np.rint(np.asarray(differences) * 2.0**40) / 2.0**40
    weights = np.array([[poisson_weight_by_hand(seed, qid, draw) for qid in qids] for draw in range(resamples)])
    means = (weights @ differences) / weights.sum(axis=1)
    return np.quantile(means, [(1 - confidence) / 2, (1 + confidence) / 2])


def test_bootstrap_intervals_equal_a_poisson_bootstrap_by_hand():
    """--ci's bootstrap: each query drawn Poisson(1) times per resample, from
    the counter-based generator keyed by (seed, qid, resample), so that any
    split of the queries draws the same; close to the classic bootstrap."""
    from scipy import stats
    options = SignificanceOptions(test="randomization", permutations=200, ci=True, resamples=300, seed=7)
    ev = evaluate(str(QRELS), [str(run) for run in RUNS[:3]], ["map", "LP", "rrLP"], options=options)
    values = _per_query(ev, "map")
    qids = ev.compared_qids
    for row, (a, b) in enumerate(ev.pairs.tolist()):
        differences = values[a] - values[b]
        low, high = poisson_bootstrap(differences, qids, 0.95, 300, 7)
        assert (ev.tests.ci_low["map"][row], ev.tests.ci_high["map"][row]) == pytest.approx((low, high), abs=1e-12)
        classic = stats.bootstrap((differences,), np.mean, confidence_level=0.95, n_resamples=4000,
                                  method="percentile", random_state=1).confidence_interval
        assert (low, high) == pytest.approx((classic.low, classic.high), abs=0.01)
    for name in ("LP", "rrLP"):
        preference = ev.preferences.values[name]
        for row in range(len(ev.pairs)):
            low, high = poisson_bootstrap(preference[row], qids, 0.95, 300, 7)
            assert ev.tests.ci_low[name][row] == pytest.approx(low, abs=1e-12)
            assert ev.tests.ci_high[name][row] == pytest.approx(high, abs=1e-12)


def test_ci_lines_in_text_json_and_csv():
    result = run_cli(["--ci", "-m", "map", "-m", "LP", QRELS, *RUNS[:2]])
    names = [line.split("\t")[1].strip() for line in result.lines() if line.startswith("bm25okapi:lsi200")]
    assert names == ["LP", "LP_win", "LP_loss", "LP_tie", "LP_p", "LP_ci_low", "LP_ci_high", "LP_effect",
                     "map_p", "map_ci_low", "map_ci_high", "map_effect"]
    as_json = run_cli(["--ci", "--format", "json", "-m", "map", QRELS, *RUNS[:2]])
    assert '"measure": "map_ci_low"' in as_json.out
    as_csv = run_cli(["--ci", "--format", "csv", "-m", "map", QRELS, *RUNS[:2]])
    assert "bm25okapi:lsi200,map_effect,all," in as_csv.out


def test_small_p_values_are_not_rounded_to_zero():
    result = run_cli(["-m", "map", QRELS, *RUNS[:3]])
    p_lines = [line for line in result.lines() if "\tmap_p " in line]
    assert any("e-" in line.split("\t")[3] for line in p_lines)          # e.g. 1.581e-10
    assert all(float(line.split("\t")[3]) > 0 for line in p_lines)


# ---------------------------------------------------------------- corrections


def plain_holm_sidak(p):
    order = sorted(range(len(p)), key=lambda i: p[i])
    adjusted, running = [0.0] * len(p), 0.0
    for step, index in enumerate(order):
        running = max(running, 1 - (1 - p[index]) ** (len(p) - step))
        adjusted[index] = min(1.0, running)
    return adjusted


def plain_benjamini_hochberg(p):
    order = sorted(range(len(p)), key=lambda i: p[i])
    adjusted, running = [0.0] * len(p), 1.0
    for step in range(len(p) - 1, -1, -1):
        index = order[step]
        running = min(running, p[index] * len(p) / (step + 1))
        adjusted[index] = min(1.0, running)
    return adjusted


@pytest.mark.parametrize("seed", range(5))
def test_corrections_equal_plain_implementations(seed):
    p = list(np.random.default_rng(seed).random(30) ** 3) + [0.5, 0.5, 1.0]
    # the plain formula loses digits to cancellation for tiny p: 1e-8 relative
    np.testing.assert_allclose(correct(np.array(p), "holm-sidak"), plain_holm_sidak(p), rtol=1e-8)
    np.testing.assert_allclose(correct(np.array(p), "bh"), plain_benjamini_hochberg(p), rtol=1e-12)


def test_list_measures_reads_well():
    listing = run_cli(["--list-measures"]).out
    entries = re.findall(r"^  (\S+) +(.+(?:\n {28}.+)*)", listing, re.M)
    descriptions = {name: " ".join(text.split()) for name, text in entries}
    for name in ("bpref", "iprec_at_recall.0,0.1", "G.1=3,2=9", "ndcg_rel.1=3,2=9", "rbp_resid.p=0.95", "tse",
                 "P_rare.5,10", "P_rare_norm.5,10", "map_rare", "rbp.p=0.95", "LP", "rrLP", "LR", "rrLR"):
        assert descriptions[name].endswith((".", ")")), (name, descriptions[name])
    # the meanings, not notes on the code (a docstring's reST roles or literals)
    assert not re.search(r":(func|mod|class|data|meth):|``", listing), re.search(r".*(:func:|``).*", listing)
    assert len({len(line) - len(line.lstrip()) for line in listing.splitlines() if line.startswith("  ")}) <= 2


def test_the_plain_table_is_riches_character_for_character():
    """Where styles would not show, lexeval lays the screen table out itself (a thousand runs in a fraction of
    a second): the same characters rich prints, for names of every width."""
    import io
    import random

    from rich.table import Table

    from lexeval.output.tables import _console, _print_plain
    random.seed(1)
    for _ in range(300):
        columns = random.randint(1, 6)
        header = ["run"] + [random.choice(["map", "P_10", "ndcg_cut_1000", "LP_score", "x"])
                            for _ in range(columns - 1)]
        rows = [[random.choice(["bm25", "é-run", "日本語", "a" * random.randint(1, 12)])] +
                [random.choice(["0.2842 ▲5", "0.1", "12", "0.2345 ▼1 ▲3"]) for _ in range(columns - 1)]
                for _ in range(random.randint(1, 5))]
        ours, theirs = io.StringIO(), io.StringIO()
        drawn = _print_plain(_console(ours, 80), header, rows)
        grid = Table()
        grid.add_column(header[0], style="bold", no_wrap=True)
        for name in header[1:]:
            grid.add_column(name, justify="right", no_wrap=True)
        for row in rows:
            grid.add_row(*row)
        _console(theirs, 80).print(grid)
        assert not drawn or ours.getvalue() == theirs.getvalue()
        assert drawn == (sum(max(len(r[c]) + (r[c] == "日本語") * 3 for r in [header, *rows])
                             for c in range(columns)) + 3 * columns + 1 <= 80)
