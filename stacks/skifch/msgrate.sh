#!/bin/bash
# The SkifCh paper's MsgRate study and its what-ifs. Prints, per message size, the rate of raw
# SkifCh, of MPI over SkifCh and of MPI on InfiniBand QDR, the ratio SkifCh / MPI over SkifCh and
# MPI over SkifCh without matching (adapter sorting, the what-if that isolates the matching cost);
# then the what-ifs at 8 B and 64 KiB; plots the curves (stacks/skifch/msgrate.png).
# Usage: stacks/skifch/msgrate.sh [ITERATIONS] (default 300; about two minutes).
set -euo pipefail
cd "$(dirname "$0")/../.."
N=${1:-300}
A=platforms/skif-aurora.yaml
IB=platforms/sibsutis-numa-ib.yaml
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
run() { # platform sets program sizes -> rows "size rate"
  # shellcheck disable=SC2086
  build/bin/icsim run -p "$1" -n 2 --place cyclic --host-timing off $2 "$3" -m "$4" -i "$N" -x 20 | grep -v '^#'
}
run $A "" skifch_msgrate 1:65536 > "$OUT/sk"
run $A "" osu_msgrate 1:65536 > "$OUT/mpi"
run $A "--set skifch/mpi-matching=false" osu_msgrate 1:65536 > "$OUT/nomatch"
run $IB "" osu_msgrate 1:65536 > "$OUT/ib"
join "$OUT/sk" "$OUT/mpi" | join - "$OUT/nomatch" | join - "$OUT/ib" > "$OUT/all"
printf "%8s %14s %16s %10s %18s %14s\n" size "SkifCh msg/s" "MPI/SkifCh msg/s" "ratio" "MPI/SkifCh no-match" "MPI/IB msg/s"
awk '{ printf "%8d %14.0f %16.0f %10.2f %18.0f %14.0f\n", $1, $2, $3, $2 / $3, $4, $5 }' "$OUT/all"

echo
echo "what-ifs (rates in messages/s at 8 B and 64 KiB; ratio = SkifCh / MPI over SkifCh at 8 B)"
printf "%-34s %12s %12s %12s %12s %7s\n" study "SkifCh 8B" "MPI 8B" "SkifCh 64K" "MPI 64K" ratio
studies=(
  "baseline|"
  "receive buffer 16 KiB|--set skifch/recv-buffer=16KiB"
  "receive buffer 1 MiB|--set skifch/recv-buffer=1MiB"
  "torus links 2.5 GB/s|--set network/link-bandwidth=2.5GBps"
  "torus links 0.625 GB/s|--set network/link-bandwidth=0.625GBps"
  "matching 0.1 us + 0.005 us/entry|--set skifch/match-base=0.1us --set skifch/match-entry=0.005us"
  "matching 1 us + 0.05 us/entry|--set skifch/match-base=1us --set skifch/match-entry=0.05us"
)
for s in "${studies[@]}"; do
  name=${s%%|*}; sets=${s#*|}
  a=$(run $A "$sets" skifch_msgrate 8:8 | awk '{print $2}'); b=$(run $A "$sets" osu_msgrate 8:8 | awk '{print $2}')
  c=$(run $A "$sets" skifch_msgrate 65536:65536 | awk '{print $2}'); d=$(run $A "$sets" osu_msgrate 65536:65536 | awk '{print $2}')
  printf "%-34s %12.0f %12.0f %12.0f %12.0f %7.2f\n" "$name" "$a" "$b" "$c" "$d" "$(echo "$a / $b" | bc -l)"
done

gnuplot <<GP
set terminal png size 900,560
set output 'stacks/skifch/msgrate.png'
set title 'MsgRate (rank 0 sends, rank 1 receives): simulated, no published numbers'
set logscale x 2
set logscale y
set xlabel 'message size (bytes)'
set ylabel 'messages/s'
set key bottom left
plot '$OUT/all' using 1:2 with linespoints pt 7 title 'SkifCh, 3-D torus', \
     '$OUT/all' using 1:3 with linespoints pt 5 title 'MPI over SkifCh, 3-D torus', \
     '$OUT/all' using 1:4 with linespoints pt 4 title 'MPI over SkifCh, no matching (what-if)', \
     '$OUT/all' using 1:5 with linespoints pt 9 title 'MPI, InfiniBand QDR'
GP
echo "plot: stacks/skifch/msgrate.png"
