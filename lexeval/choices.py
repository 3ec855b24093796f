"""The words a user chooses among on the command line: tests, corrections,
reports, formats, preference names. Plain constants that import nothing, so
that ``lexeval --help`` starts at once and every layer can name them."""

TESTS = ("t", "randomization", "none")
TEST_TITLES = {"t": "paired t-test", "randomization": "paired randomization test"}
CORRECTIONS = ("none", "holm", "holm-sidak", "bonferroni", "bh")
CORRECTION_TITLES = {"holm": "Holm", "holm-sidak": "Holm-Sidak", "bonferroni": "Bonferroni",
                     "bh": "Benjamini-Hochberg"}
REPORTS = ("ties", "agreement", "discrimination", "stability", "degradation")
FORMATS = ("text", "json", "csv", "table", "latex", "markdown")
TABLE_FORMATS = ("table", "latex", "markdown")

#: Pair preferences, in output order, with what --list-measures says of each.
PREFERENCES = {
    "LP": "lexiprecision: the first recall level where two runs' relevant ranks differ decides (+1 A, -1 B).",
    "rrLP": "1/p_A - 1/p_B at lexiprecision's deciding level (1/missing = 0).",
    "LR": "lexirecall: more relevant retrieved wins; equal counts: compare from the lowest relevant up.",
    "rrLR": "1/p_A - 1/p_B at lexirecall's deciding level.",
}
PREFERENCE_NAMES = tuple(PREFERENCES)
SIGN_PREFERENCES = ("LP", "LR")          # signs: sign test, and _win, _loss, _tie counts
PREFERENCE_SETS = {"all_prefs": PREFERENCE_NAMES}
DEFAULT_PREFERENCES = ("LP", "rrLP", "LR")
DEFAULT_SET = "official"
