#!/usr/bin/env bash
# Retrieval regression gate on the bundled Cranfield example.
#
#   examples/ci/gate.sh [BASELINE_RUN [CANDIDATE_RUN]]
#
# Exits 1 (and says why on stderr) if the candidate is significantly worse
# than the baseline (Holm-corrected, p < 0.05) on MAP, nDCG@10 or
# lexiprecision; prints a table of both runs either way.
set -u
cd "$(dirname "$0")/../.."
baseline=${1:-examples/cranfield/runs/bm25okapi.gz}
candidate=${2:-examples/cranfield/runs/bm25plus.gz}
name=$(basename "$baseline"); name=${name%.gz}; name=${name#input.}   # lexeval's run name

lexeval examples/cranfield/qrels.txt.gz "$baseline" "$candidate" \
    -m map -m ndcg_cut.10 -m LP \
    --baseline "$name" --gate map --gate ndcg_cut.10 --gate LP \
    --correction holm --format table
status=$?
case $status in
    0) echo "gate passed: $(basename "$candidate") is not significantly worse than $name" ;;
    1) echo "gate FAILED: see the lines above" ;;
    *) echo "lexeval could not evaluate the runs (exit $status)" ;;
esac
exit $status
