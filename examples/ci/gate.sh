#!/usr/bin/env bash
# A retrieval regression gate: fails (exit 1) when a candidate run is
# significantly worse than the baseline, and says so in a way CI reads.
#
#   gate.sh QRELS BASELINE CANDIDATE [CANDIDATE ...]
#
# Works from any folder, on any file names and compressions (.gz, .bz2, .xz,
# .zst, Parquet): each run is named on the command line (NAME=PATH) after its
# file name without folders, compression suffix and a leading "input.".
# Settings, from the environment:
#   GATE_MEASURES    gate measures, separated by spaces   (default: map ndcg_cut.10 LP)
#   GATE_CORRECTION  correction over the candidates        (default: holm)
#   GATE_ALPHA       significance level                    (default: 0.05)
#   GATE_MARGIN      drops smaller than this are tolerated (default: 0)
#   GATE_REPORT      JUnit XML report to write             (default: lexeval-gate.xml)
#   LEXEVAL          the lexeval command                   (default: lexeval)
# Where GITHUB_STEP_SUMMARY is set (GitHub Actions), lexeval appends a
# Markdown table of the verdicts to it.
# Exit status: 0 passed, 1 a candidate failed, 2 bad usage or input.
set -u
if [ $# -lt 3 ]; then
    echo "usage: gate.sh QRELS BASELINE CANDIDATE [CANDIDATE ...]" >&2
    exit 2
fi
qrels=$1
shift

run_name() {        # lexeval's run name of a path: no folders, no compression suffix, no "input."
    local name
    name=$(basename "$1")
    for suffix in .gz .bz2 .xz .zst .parquet; do name=${name%"$suffix"}; done
    name=${name#input.}
    printf '%s' "$name"
}

names=() runs=()
for path in "$@"; do
    name=$(run_name "$path")
    [ -n "$name" ] || name=run
    base=$name n=1
    while printf '%s\n' "${names[@]}" | grep -qxF -- "$name"; do   # two files of one name: bm25, bm25-2
        n=$((n + 1)); name="$base-$n"
    done
    names+=("$name")
    runs+=("$name=$path")
done

measures=() gates=()
for measure in ${GATE_MEASURES:-map ndcg_cut.10 LP}; do
    measures+=(-m "$measure")
    gates+=(--gate "$measure")
done

"${LEXEVAL:-lexeval}" "$qrels" "${runs[@]}" "${measures[@]}" \
    --baseline "${names[0]}" "${gates[@]}" \
    --correction "${GATE_CORRECTION:-holm}" --alpha "${GATE_ALPHA:-0.05}" --gate-margin "${GATE_MARGIN:-0}" \
    --gate-report "${GATE_REPORT:-lexeval-gate.xml}" --format table
