"""Per-run measures: kernels grouped by family, the table that names them
all, and the parser of every name a user types.

- ``base``: parameter kinds and shared helpers
- ``counts``, ``precision``, ``incomplete``, ``sets``, ``gains``, ``seeds``:
  the kernels, one function per measure
- ``registry``: the table (one row per measure: names, aliases, syntax,
  help, parameters), named sets
- ``requests``: a measure with its parameters parsed, and the merging of
  several -m values' requests
- ``names``: ``-m`` values (trec_eval's and ir_measures' syntax) into requests
"""

from .names import Selection, output_names, parse_measure, select_measures
from .registry import MEASURE_BY_NAME, MEASURE_SETS, MEASURES, Measure, geometric_mean_log
from .requests import MeasureRequest, merge_requests, parse_params, request

__all__ = ["MEASURES", "MEASURE_BY_NAME", "MEASURE_SETS", "Measure", "MeasureRequest", "Selection",
           "geometric_mean_log", "merge_requests", "output_names", "parse_measure", "parse_params", "request",
           "select_measures"]
