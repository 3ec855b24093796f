"""The papers and tools behind each measure, as BibTeX (``lexeval --cite``,
the README's and the man page's *Citing*, the HTML page's footer).

A measure is cited by its row's ``defined_by`` (the tool whose definition
lexeval follows), by its name where a paper defines it, and a preference by
the paper that introduced it. lexeval itself is cited from CITATION.cff.
"""

from __future__ import annotations

from .choices import RPP_WEIGHTS

#: key -> (short reference for people, BibTeX entry)
CITATIONS: dict[str, tuple[str, str]] = {
    "lexeval": ("lexeval: trec_eval-compatible evaluation with lexiprecision and lexirecall (software).", """\
@software{lexeval,
  title = {lexeval: trec\\_eval-compatible retrieval evaluation with lexiprecision and lexirecall},
  author = {{The lexeval developers}},
  year = {2026},
  version = {VERSION},
  license = {MIT}
}"""),
    "trec_eval": ("C. Buckley and NIST. trec_eval 10.0, github.com/usnistgov/trec_eval.", """\
@misc{trec_eval,
  title = {trec\\_eval: the {TREC} evaluation program},
  author = {Buckley, Chris and Soboroff, Ian and {National Institute of Standards and Technology}},
  howpublished = {\\url{https://github.com/usnistgov/trec_eval}},
  note = {Version 10.0}
}"""),
    "lexiprecision": ("F. Diaz. Best-Case Retrieval Evaluation: Improving the Sensitivity of Reciprocal Rank with "
                      "Lexicographic Precision. EVIA 2023 (NTCIR-17); arXiv:2306.07908.", """\
@inproceedings{diaz:lexiprecision,
  title = {Best-Case Retrieval Evaluation: Improving the Sensitivity of Reciprocal Rank with Lexicographic Precision},
  author = {Diaz, Fernando},
  booktitle = {Proceedings of the 10th International Workshop on Evaluating Information Access (EVIA 2023),
               co-located with the 17th NTCIR Conference on the Evaluation of Information Access Technologies},
  year = {2023},
  eprint = {2306.07908},
  archivePrefix = {arXiv},
  primaryClass = {cs.IR}
}"""),
    "lexirecall": ("F. Diaz and B. Mitra. Recall, Robustness, and Lexicographic Evaluation. arXiv:2302.11370, "
                   "2023.", """\
@misc{diaz:lexirecall,
  title = {Recall, Robustness, and Lexicographic Evaluation},
  author = {Diaz, Fernando and Mitra, Bhaskar},
  year = {2023},
  eprint = {2302.11370},
  archivePrefix = {arXiv},
  primaryClass = {cs.IR}
}"""),
    "rpp": ("F. Diaz and A. Ferraro. Offline Retrieval Evaluation Without Evaluation Metrics. SIGIR 2022, "
            "599-609.", """\
@inproceedings{diaz:rpp,
  title = {Offline Retrieval Evaluation Without Evaluation Metrics},
  author = {Diaz, Fernando and Ferraro, Andres},
  booktitle = {Proceedings of the 45th International ACM SIGIR Conference on Research and Development in
               Information Retrieval},
  series = {SIGIR '22},
  pages = {599--609},
  year = {2022},
  publisher = {Association for Computing Machinery},
  doi = {10.1145/3477495.3532033}
}"""),
    "rareness": ("M. D. Türkmen, M. Lease and M. Kutlu. New Metrics to Encourage Innovation and Diversity in "
                 "Information Retrieval Approaches. ECIR 2024.", """\
@inproceedings{turkmen:innovation,
  title = {New Metrics to Encourage Innovation and Diversity in Information Retrieval Approaches},
  author = {T{\\"u}rkmen, Mehmet Deniz and Lease, Matthew and Kutlu, Mucahid},
  booktitle = {Advances in Information Retrieval (ECIR 2024)},
  series = {Lecture Notes in Computer Science},
  publisher = {Springer},
  year = {2024}
}"""),
    "ir_measures": ("S. MacAvaney, C. Macdonald and I. Ounis. Streamlining Evaluation with ir-measures. ECIR 2022.",
                    """\
@inproceedings{macavaney:irmeasures,
  title = {Streamlining Evaluation with ir-measures},
  author = {MacAvaney, Sean and Macdonald, Craig and Ounis, Iadh},
  booktitle = {Advances in Information Retrieval (ECIR 2022)},
  series = {Lecture Notes in Computer Science},
  volume = {13186},
  pages = {305--310},
  publisher = {Springer},
  year = {2022}
}"""),
    "ranx": ("E. Bassani. ranx: A Blazing-Fast Python Library for Ranking Evaluation and Comparison. ECIR 2022.", """\
@inproceedings{bassani:ranx,
  title = {ranx: A Blazing-Fast Python Library for Ranking Evaluation and Comparison},
  author = {Bassani, Elias},
  booktitle = {Advances in Information Retrieval (ECIR 2022)},
  series = {Lecture Notes in Computer Science},
  volume = {13186},
  pages = {259--264},
  publisher = {Springer},
  year = {2022}
}"""),
    "gdeval": ("O. Chapelle, D. Metzler, Y. Zhang and P. Grinspan. Expected reciprocal rank for graded relevance. "
               "CIKM 2009, 621-630.", """\
@inproceedings{chapelle:err,
  title = {Expected Reciprocal Rank for Graded Relevance},
  author = {Chapelle, Olivier and Metzler, Donald and Zhang, Ya and Grinspan, Pierre},
  booktitle = {Proceedings of the 18th ACM Conference on Information and Knowledge Management (CIKM '09)},
  pages = {621--630},
  year = {2009},
  doi = {10.1145/1645953.1646033}
}"""),
    "ndeval": ("C. L. A. Clarke et al. Novelty and diversity in information retrieval evaluation. SIGIR 2008, "
               "659-666.", """\
@inproceedings{clarke:novelty,
  title = {Novelty and Diversity in Information Retrieval Evaluation},
  author = {Clarke, Charles L. A. and Kolla, Maheedhar and Cormack, Gordon V. and Vechtomova, Olga and
            Ashkan, Azin and B{\\"u}ttcher, Stefan and MacKinnon, Ian},
  booktitle = {Proceedings of the 31st Annual International ACM SIGIR Conference on Research and Development in
               Information Retrieval},
  pages = {659--666},
  year = {2008}
}"""),
    "cwl_eval": ("L. Azzopardi, P. Thomas and A. Moffat. cwl_eval: An Evaluation Tool for Information Retrieval. "
                 "SIGIR 2019.", """\
@inproceedings{azzopardi:cwl,
  title = {cwl\\_eval: An Evaluation Tool for Information Retrieval},
  author = {Azzopardi, Leif and Thomas, Paul and Moffat, Alistair},
  booktitle = {Proceedings of the 42nd International ACM SIGIR Conference on Research and Development in
               Information Retrieval},
  pages = {1321--1324},
  year = {2019},
  doi = {10.1145/3331184.3331398}
}"""),
    "rbp": ("A. Moffat and J. Zobel. Rank-biased precision for measurement of retrieval effectiveness. ACM TOIS "
            "27(1), 2008.", """\
@article{moffat:rbp,
  title = {Rank-Biased Precision for Measurement of Retrieval Effectiveness},
  author = {Moffat, Alistair and Zobel, Justin},
  journal = {ACM Transactions on Information Systems},
  volume = {27},
  number = {1},
  pages = {2:1--2:27},
  year = {2008},
  doi = {10.1145/1416950.1416952}
}"""),
    "bpref": ("C. Buckley and E. M. Voorhees. Retrieval evaluation with incomplete information. SIGIR 2004, 25-32.",
              """\
@inproceedings{buckley:bpref,
  title = {Retrieval Evaluation with Incomplete Information},
  author = {Buckley, Chris and Voorhees, Ellen M.},
  booktitle = {Proceedings of the 27th Annual International ACM SIGIR Conference on Research and Development in
               Information Retrieval},
  pages = {25--32},
  year = {2004}
}"""),
}

# measures defined by a paper rather than by the tool they come from
_BY_MEASURE = {"tse": "lexirecall", "P_rare": "rareness", "P_rare_norm": "rareness", "map_rare": "rareness",
               "rbp": "rbp", "rbp_resid": "rbp", "bpref": "bpref", "gm_bpref": "bpref"}
_BY_TOOL = {"trec_eval": "trec_eval", "ir_measures": "ir_measures", "ranx": "ranx", "gdeval": "gdeval",
              "ndeval": "ndeval", "cwl_eval": "cwl_eval", "seeds": None}
_BY_PREFERENCE = {"LP": "lexiprecision", "rrLP": "lexiprecision", "LR": "lexirecall", "rrLR": "lexirecall",
                  **dict.fromkeys(RPP_WEIGHTS, "rpp")}


def keys_for(measure_names: list[str] | tuple[str, ...] = (), num_runs: int = 2) -> list[str]:
    """The citation keys behind the measures ``-m`` names: lexeval first,
    then in the order met. No names: the default call's (official, plus LP,
    rrLP and LR with 2+ runs)."""
    from .measures.names import select_measures
    selection = select_measures(list(measure_names), num_runs)
    return keys_of([request.measure for request in selection.metrics], selection.preferences)


def keys_of(measures, preference_names) -> list[str]:
    """The citation keys behind measure rows (the tool that defines them, or the paper that
    defines them) and preferences."""
    keys = ["lexeval"]
    for measure in measures:
        for key in (_BY_TOOL.get(measure.defined_by), _BY_MEASURE.get(measure.name)):
            if key and key not in keys:
                keys.append(key)
    for name in preference_names:
        if _BY_PREFERENCE[name] not in keys:
            keys.append(_BY_PREFERENCE[name])
    return keys


def bibtex(keys: list[str], version: str) -> str:
    """The BibTeX entries of ``keys``, separated by blank lines."""
    return "\n\n".join(CITATIONS[key][1].replace("VERSION", version) for key in keys) + "\n"


def references(keys: list[str]) -> list[str]:
    """Short references for people (the HTML page's footer)."""
    return [CITATIONS[key][0] for key in keys]
