"""From files, tables and Python objects to plain arrays: raw blocks
(``blocks``), fields (``textfile``, the compiled ``kernel``), identifiers
(``strings``), sources and run names (``source``), qrels and runs
(``inputs``), trec_eval's order (``order``), and the small files read whole
(``subtopics``, ``grouped``, ``zscores``)."""
