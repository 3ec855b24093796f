"""The site's generated pages, made from lexeval itself when the site is
built: a page per family of measures from the measure table (the source of
``--list-measures``), the preferences, and the changelog."""

from __future__ import annotations

import inspect
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent.parent

#: kernel module -> (page, title, what the family is)
FAMILIES = {
    "counts": ("counts", "Counts", "What was retrieved and judged: the counts trec_eval prints."),
    "precision": ("precision", "Precision, recall and ranks", "AP, P@k, recall@k, R-precision, the reciprocal rank, "
                  "success and their kin, as trec_eval computes them."),
    "gains": ("gains", "Gains: DCG, nDCG, RBP", "Graded measures with trec_eval's gain levels."),
    "gdeval": ("exponential", "Exponential gains: ERR and nDCG", "gdeval's and ranx's measures with gains 2^g - 1."),
    "sets": ("sets", "Set measures", "Measures of the retrieved set, whatever its order."),
    "incomplete": ("incomplete", "Incomplete judgements", "bpref, infAP and the share of documents judged."),
    "diversity": ("diversity", "Diversity", "ndeval's measures over subtopics (--subtopics)."),
    "prefs": ("prefs", "Preference judgements", "trec_eval's prefs_* measures (-R prefs, -R qrels_prefs)."),
    "groups": ("groups", "Judgement groups", "trec_eval's measures over several assessors (-R qrels_jg)."),
    "compat": ("compat", "Compatibility and accuracy", "ir_measures' own measures."),
    "cwl": ("cwl", "C/W/L measures", "cwl_eval's user models (ir_measures' INST, INSQ, BPM, SDCG, NERR)."),
    "seeds": ("seeds", "From the papers", "Total search efficiency and the rareness measures of the papers lexeval "
              "comes from."),
}


def _family(measure) -> str:
    if measure.compute is None:
        return "counts"
    kernel = inspect.unwrap(measure.compute)
    module = getattr(kernel, "__module__", "") or ""
    name = module.rsplit(".", 1)[-1]
    return name if name in FAMILIES else "precision"


def _measure_pages() -> dict[str, str]:
    from lexeval.choices import PREFERENCE_ALIASES, PREFERENCES
    from lexeval.citations import keys_of, references
    from lexeval.measures.registry import MEASURES
    pages: dict[str, list[str]] = {}
    for measure in MEASURES:
        family = _family(measure)
        page, title, about = FAMILIES[family]
        lines = pages.setdefault(page, [f"# {title}", "", about, ""])
        cited = references(keys_of([measure], [])[1:])
        lines += [f"## `{measure.name}`", "", f"Ask for it as `-m {measure.example()}`.", "",
                  measure.description(), "", f"Names: {measure.aliases()[1:-1]}.", ""]
        if cited:
            lines += ["References: " + " ".join(cited), ""]
    preference = ["# Pair preferences", "", "Computed for every pair of runs (`-m NAME`); the sign test for LP and "
                  "LR, a one-sample t-test for the others.", ""]
    for name, text in PREFERENCES.items():
        also = [alias for alias, target in PREFERENCE_ALIASES.items() if target == name]
        cited = references(keys_of([], [name])[1:])
        preference += [f"## `{name}`", "", text, ""] + ([f"Also: {', '.join(also)}.", ""] if also else []) + \
            ([f"References: {' '.join(cited)}", ""] if cited else [])
    out = {f"measures/{page}.md": "\n".join(lines) for page, lines in pages.items()}
    out["measures/preferences.md"] = "\n".join(preference)
    index = ["# Measures", "", "Every measure lexeval computes, generated from its measure table: the same source "
             "as `lexeval --list-measures`. Each family's page gives every measure's syntax, its names in the other "
             "tools, its defaults, what `--bounds` and `--tie-order expected` do with it, and its references.", ""]
    index += [f"- [{FAMILIES[family][1]}]({FAMILIES[family][0]}.md)" for family in FAMILIES
              if f"measures/{FAMILIES[family][0]}.md" in out]
    index += ["- [Pair preferences](preferences.md)", ""]
    out["measures/index.md"] = "\n".join(index)
    return out


def on_files(files, config):
    generated = _measure_pages()
    generated["changelog.md"] = (ROOT / "CHANGELOG.md").read_text()
    for path, content in generated.items():
        files.append(File.generated(config, path, content=content))
    for picture in ("html-page.png", "html-page-baseline.png"):      # the examples' screenshots, not copied
        files.append(File.generated(config, f"img/{picture}", abs_src_path=str(ROOT / "examples" / picture)))
    return files
