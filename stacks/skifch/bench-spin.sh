#!/bin/bash
# What skipping a spinning receive's empty polls buys (sim/mpi/layer.h, icsim_poll_until): the
# skifch-msgrate case's program (raw SkifCh MsgRate, rank 1 spinning on SkifCh_Recv) run with its
# empty polls skipped (the default) and simulated one by one (--every-poll), at the platform's poll
# cost and at a cheap one (more polls per wait). Prints wall time of each, the ratio, and the largest
# relative difference between the two runs' rates (rounding of the simulated clock can move one
# refusal or credit by a fraction of a nanosecond; the figures are otherwise the same).
# Usage: stacks/skifch/bench-spin.sh [POLL-INSTRUCTIONS...] (default: 200 6; about 8 minutes, most of
# it the one-by-one run at 6).
set -euo pipefail
cd "$(dirname "$0")/../.."
[ $# -gt 0 ] || set -- 200 6
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
run() { # mode poll-instructions -> rows "size rate" in $OUT/mode-pi, wall seconds on stdout
  local t0 t1
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086
  build/bin/icsim run -p platforms/skif-aurora.yaml -n 2 --place cyclic --host-timing off $1 \
    --set nodes/poll-instructions="$2" build/workloads/skifch_msgrate -m 1:65536 -i 300 -x 20 |
    grep -v '^#' > "$OUT/${1:-skip}-$2"
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'
}
printf "%-18s %14s %16s %8s %22s\n" "poll instructions" "skipped (s)" "one by one (s)" ratio "largest rate difference"
for pi in "$@"; do
  a=$(run "" "$pi")
  b=$(run --every-poll "$pi")
  d=$(join "$OUT/skip-$pi" "$OUT/--every-poll-$pi" |
      awk '{ r = ($2 - $3) / $3; if (r < 0) r = -r; if (r > m) m = r } END { printf "%.1e", m }')
  printf "%-18s %14.2f %16.2f %8.0f %22s\n" "$pi" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { print b / a }')" "$d"
done
