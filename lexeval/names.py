"""Names the command line offers, without importing numpy or scipy (so
that ``lexeval --help`` starts fast): tests, corrections, reports, output
formats and the pair preferences."""

TESTS = ("t", "randomization", "none")
CORRECTIONS = ("none", "holm", "bonferroni")
REPORTS = ("ties", "agreement", "discrimination", "stability", "degradation")
FORMATS = ("text", "json", "csv", "table")
PREFERENCE_NAMES = ("LP", "rrLP", "LR", "rrLR")
