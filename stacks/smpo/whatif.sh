#!/bin/bash
# What-if studies of the SMPO stack: each a --set (or a --place file) away from vniief-smpo.
# Prints osu_latency / osu_bw at a few sizes per study, NPB MG class S placed well and badly,
# and plots osu_bw for every study (stacks/smpo/whatif.png). Runs in about a minute.
set -euo pipefail
cd "$(dirname "$0")/../.."
P=platforms/vniief-smpo.yaml
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
studies=(
  "baseline (4 KiB packets, CRC 6.7 clocks/B, mmap)|"
  "256 B packets|--set smpo/hardware-buffer=256B"
  "1 KiB packets|--set smpo/hardware-buffer=1KiB"
  "8 KiB packets|--set smpo/hardware-buffer=8KiB"
  "free checksums (0 clocks/B)|--set smpo/checksum-cycles-per-byte=0"
  "costly checksums (16 clocks/B)|--set smpo/checksum-cycles-per-byte=16"
  "copy on send (no mmap)|--set smpo/mmap-driver-buffer=false"
)
printf "%-46s %11s %11s %11s %12s %12s\n" study "lat 0B us" "lat 64K us" "lat 1M us" "bw 64K MB/s" "bw 1M MB/s"
i=0
for s in "${studies[@]}"; do
  name=${s%%|*}; sets=${s#*|}
  # shellcheck disable=SC2086
  build/bin/icsim run -p $P -n 2 --place 0,1 --host-timing off $sets osu_latency -m 0:1048576 -i 10 -x 1 > "$OUT/lat$i"
  # shellcheck disable=SC2086
  build/bin/icsim run -p $P -n 2 --place 0,1 --host-timing off $sets osu_bw -m 1:1048576 -i 5 -x 1 -W 16 > "$OUT/bw$i"
  v() { awk -v s="$2" '$1 == s { print $2 }' "$1"; }
  printf "%-46s %11s %11s %11s %12s %12s\n" "$name" "$(v "$OUT/lat$i" 0)" "$(v "$OUT/lat$i" 65536)" \
    "$(v "$OUT/lat$i" 1048576)" "$(v "$OUT/bw$i" 65536)" "$(v "$OUT/bw$i" 1048576)"
  i=$((i + 1))
done
# transit hops against placement: a stencil code (NPB MG, class S, 8 ranks)
for place in near far; do
  build/bin/icsim run -p $P -n 8 --place stacks/smpo/placement-$place.conf --host-timing off \
    --stats "$OUT/mg-$place.json" mg S > "$OUT/mg-$place.out"
  grep -q SUCCESSFUL "$OUT/mg-$place.out"
  st() { grep "\"$1\"" "$OUT/mg-$place.json" | head -1 | sed 's/.*"value": \([^,]*\),.*/\1/'; }
  t=$(grep '"simulated_time_s"' "$OUT/mg-$place.json" | sed 's/.*: \([^,]*\),/\1/')
  printf "NPB MG S, 8 ranks, placement-%s.conf: %.4f s simulated, transit hops %s (packets %s), shared-memory messages %s\n" \
    "$place" "$t" "$(st transit_hops)" "$(st packet_transit_hops)" "$(st shm_messages)"
done
plot="plot"
for ((k = 0; k < i; k++)); do
  name=${studies[$k]%%|*}
  plot="$plot '$OUT/bw$k' using 1:2 with linespoints title '$name',"
done
gnuplot <<GP
set terminal pngcairo size 900,560 noenhanced
set output 'stacks/smpo/whatif.png'
set title 'osu_bw between neighbouring modules of vniief-smpo: what-if studies (icsim; assumed values, no published figure)'
set logscale xy
set xlabel 'message size (bytes)'
set ylabel 'MB/s'
set key left top
set grid
${plot%,}
GP
echo "plot: stacks/smpo/whatif.png"
