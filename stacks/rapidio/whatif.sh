#!/bin/bash
# What-if studies of the RapidIO controller: each a --set away from niisi-rapidio-4.
# Prints osu_latency / osu_bw at a few sizes per study and plots osu_bw for all of them
# (stacks/rapidio/whatif.png). Runs in about a minute.
set -euo pipefail
cd "$(dirname "$0")/../.."
P=platforms/niisi-rapidio-4.yaml
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
studies=(
  "baseline|"
  "16 dedicated queues|--set rapidio/dedicated-queues=16"
  "hardware-programmed large transfers|--set rapidio/manual-programming=false"
  "driver instructions halved|--set rapidio/mx-instructions=10000 --set rapidio/mx-large-instructions=2590 --set rapidio/mailbox-message-instructions=1812 --set rapidio/control-instructions=500 --set rapidio/program-instructions=100"
  "4x link speed (768 MB/s)|--set network/link-bandwidth=768MBps"
)
printf "%-38s %12s %12s %12s %12s %12s\n" study "lat 1B us" "lat 64K us" "lat 4M us" "bw 64K MB/s" "bw 4M MB/s"
i=0
for s in "${studies[@]}"; do
  name=${s%%|*}; sets=${s#*|}
  # shellcheck disable=SC2086
  build/bin/icsim run -p $P -n 2 --place 2x1 --host-timing off $sets osu_latency -m 1:4194304 -i 20 -x 2 > "$OUT/lat$i"
  # shellcheck disable=SC2086
  build/bin/icsim run -p $P -n 2 --place 2x1 --host-timing off $sets osu_bw -m 1:4194304 > "$OUT/bw$i"
  v() { awk -v s="$2" '$1 == s { print $2 }' "$1"; }
  printf "%-38s %12s %12s %12s %12s %12s\n" "$name" "$(v "$OUT/lat$i" 1)" "$(v "$OUT/lat$i" 65536)" \
    "$(v "$OUT/lat$i" 4194304)" "$(v "$OUT/bw$i" 65536)" "$(v "$OUT/bw$i" 4194304)"
  i=$((i + 1))
done
# one-sided operations: NWRITE/NREAD payload 8 B (controller) vs 256 B (standard)
for io in 8B 256B; do
  for g in put get; do
    flag=""; [ $g = get ] && flag=-g
    # shellcheck disable=SC2086
    r=$(build/bin/icsim run -p $P -n 2 --place 2x1 --host-timing off --set rapidio/io-payload-bytes=$io \
        osu_put_latency $flag -W 64 -m 4096:65536 -i 5 -x 1 | awk '$1 == 4096 { a = $2 } $1 == 65536 { b = $2 } END { print a, b }')
    printf "MPI_%s with %-4s IO payload: %s us per 4 KiB op, %s us per 64 KiB op\n" "$g" "$io" ${r% *} ${r#* }
  done
done
plot="plot"
for ((k = 0; k < i; k++)); do
  name=${studies[$k]%%|*}
  plot="$plot '$OUT/bw$k' using 1:2 with linespoints title '$name',"
done
gnuplot <<GP
set terminal pngcairo size 900,560 noenhanced
set output 'stacks/rapidio/whatif.png'
set title 'osu_bw on niisi-rapidio-4: what-if studies (icsim)'
set logscale xy
set xlabel 'message size (bytes)'
set ylabel 'MB/s'
set key left top
set grid
${plot%,}
GP
echo "plot: stacks/rapidio/whatif.png"
