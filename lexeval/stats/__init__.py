"""Statistics over matrices of per-query values.

- ``distributions``: t and binomial tails (no scipy at start-up)
- ``significance``: paired tests, corrections, intervals, effect sizes, Tukey HSD
- ``pairs``: which test for which measure (``test_for``), pair summaries and tests
- ``gate``: the CI gate
"""
