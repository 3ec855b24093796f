"""The words a user chooses among on the command line: tests, corrections,
reports, formats, preference names. Plain constants that import nothing, so
that ``lexeval --help`` starts at once and every layer can name them."""

TESTS = ("t", "randomization", "none")
TEST_TITLES = {"t": "paired t-test", "randomization": "paired randomization test"}
CORRECTIONS = ("none", "holm", "holm-sidak", "bonferroni", "bh")
CORRECTION_TITLES = {"holm": "Holm", "holm-sidak": "Holm-Sidak", "bonferroni": "Bonferroni",
                     "bh": "Benjamini-Hochberg"}
REPORTS = ("ties", "agreement", "discrimination", "stability", "degradation", "power", "reproduction",
           "judges", "reusability", "score-ties")
FORMATS = ("text", "json", "csv", "table", "latex", "markdown", "html")
#: The gate's rules: fail where significantly worse, or pass only where shown not worse by the margin.
GATE_TESTS = ("worse", "non-inferiority")
#: How documents with tied scores are ordered: trec_eval's (docno descending), the file's line order, or
#: every order at once (each measure's expected value over them).
TIE_ORDERS = ("trec_eval", "input", "expected")
#: The formats written record by record (and --output's part files).
RECORD_FORMATS = FORMATS[:3]
#: trec_eval's judgement formats (-R): a qrels, or judgements with a group per line.
REL_FORMATS = ("qrels", "prefs", "qrels_prefs", "qrels_jg")
GROUPED_FORMATS = REL_FORMATS[1:]
TABLE_FORMATS = ("table", "latex", "markdown")
#: Formats of summary values only: -q and -n mean nothing there.
SUMMARY_FORMATS = TABLE_FORMATS + ("html",)

#: Pair preferences, in output order, with what --list-measures says of each.
PREFERENCES = {
    "LP": "lexiprecision: the first recall level where two runs' relevant ranks differ decides (+1 A, -1 B).",
    "rrLP": "1/p_A - 1/p_B at lexiprecision's deciding level (1/missing = 0).",
    "LR": "lexirecall: more relevant retrieved wins; equal counts: compare from the lowest relevant up.",
    "rrLR": "1/p_A - 1/p_B at lexirecall's deciding level.",
    "RPP": "recall-paired preference: over recall levels i, +1/m where A's i-th relevant ranks higher (or only "
           "B's is missing), -1/m where B's does; in [-1, 1] (pref_eval's rpp).",
    "invRPP": "RPP with weights 1/i normalised to sum 1: the top recall levels count most (pref_eval's invrpp).",
    "dcgRPP": "RPP with weights 1/log2(i+1) normalised to sum 1 (pref_eval's dcgrpp).",
    "gRPP": "graded RPP: sum over grades g of m_g RPP(relevant = grade >= g) / sum m_g.",
    "ginvRPP": "graded invRPP, as gRPP.",
    "gdcgRPP": "graded dcgRPP, as gRPP.",
}
PREFERENCE_NAMES = tuple(PREFERENCES)
#: Other tools' names for the preferences: pref_eval's metric keys, and the papers' sgnLP and sgnLR.
PREFERENCE_ALIASES = {"lexiprecision": "LP", "sgnLP": "LP", "rrlexiprecision": "rrLP", "lexirecall": "LR",
                      "sgnLR": "LR", "rpp": "RPP", "invrpp": "invRPP", "dcgrpp": "dcgRPP"}
SIGN_PREFERENCES = ("LP", "LR")          # signs: sign test, and _win, _loss, _tie counts
RPP_WEIGHTS = {"RPP": "uniform", "invRPP": "inverse", "dcgRPP": "dcg",
               "gRPP": "uniform", "ginvRPP": "inverse", "gdcgRPP": "dcg"}
PREFERENCE_SETS = {
    # lexiprecision and lexirecall; "all_prefs" up to lexeval 0.2, a name now trec_eval's (-R prefs)
    "lexicographic": ("LP", "rrLP", "LR", "rrLR"),
    # pref_eval's average case ("rpp" up to lexeval 0.4: pref_eval's rpp is RPP alone)
    "recall_paired": ("RPP", "invRPP", "dcgRPP"),
    "graded_rpp": ("gRPP", "ginvRPP", "gdcgRPP"),
    "all_preferences": PREFERENCE_NAMES,
}
DEFAULT_PREFERENCES = ("LP", "rrLP", "LR")
DEFAULT_SET = "official"

#: How runs are ranked from per-query preferences (<pref>_score, <pref>_rank).
AGGREGATES = ("mean", "borda", "mc4")
#: Which relevant labels the degradation report keeps.
LABEL_POLICIES = ("random", "pool")
