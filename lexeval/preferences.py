"""Lexicographic preferences between pairs of runs (filled in below)."""

PREFERENCE_NAMES = ["LP", "rrLP", "LR", "rrLR"]
PREFERENCE_SETS = {"all_prefs": tuple(PREFERENCE_NAMES)}
DEFAULT_PREFERENCES = ("LP", "rrLP", "LR")
