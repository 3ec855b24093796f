"""Everything that turns an evaluation into text, tables or figures.

- ``records``: the one record stream (key, measure, qid, value) and the
  text, json and csv writers
- ``tables``: summary tables for people (rich) and papers (LaTeX, Markdown)
- ``frame``: the record stream as a DataFrame (``Evaluation.to_frame``)
- ``plots``: the reports' figures (matplotlib)
"""
