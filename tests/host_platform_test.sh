#!/bin/sh
# validate/host/host-platform on machines described by files (a fake sysfs tree, cpuinfo, meminfo
# and a saved `icsim calibrate-host --memory` output): nothing is measured (--clock and
# --memory-lines given), so the test is fast and the same everywhere. Checks that the sizes, ways
# and cores are the files' own, that a CPU in validate/host/cpu-table.txt gets its row (origin spec),
# that one outside it still gets a platform icsim accepts with the assumed terms named, and that a
# cpuinfo without the CPU's identity is refused with a message.
#   tests/host_platform_test.sh SOURCE_DIR BUILD_DIR
set -u
src=$1 build=$2
gen=$src/validate/host/host-platform
icsim=$build/bin/icsim
[ -x "$icsim" ] || { echo "no $icsim"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/host_platform_test.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# a machine of 2 sockets x 2 cores, 48 KiB 12-way L1d, 2 MiB 16-way L2, 60 MiB 15-way L3 per socket
mk_cpu() { # $1 cpu, $2 package, $3 core
  d=$work/sys/cpu$1
  mkdir -p "$d/topology" "$d/cache/index0" "$d/cache/index1" "$d/cache/index2" "$d/cache/index3"
  echo "$2" >"$d/topology/physical_package_id"; echo "$3" >"$d/topology/core_id"
  set -- "$d/cache/index0" 1 Data 48K 12 "$1" \
         "$d/cache/index1" 1 Instruction 32K 8 "$1" \
         "$d/cache/index2" 2 Unified 2048K 16 "$1" \
         "$d/cache/index3" 3 Unified 61440K 15 0-1
  while [ $# -ge 6 ]; do
    echo "$2" >"$1/level"; echo "$3" >"$1/type"; echo "$4" >"$1/size"; echo "$5" >"$1/ways_of_associativity"
    echo 64 >"$1/coherency_line_size"; echo "$6" >"$1/shared_cpu_list"
    shift 6
  done
}
mk_cpu 0 0 0; mk_cpu 1 0 1; mk_cpu 2 1 0; mk_cpu 3 1 1
printf 'MemTotal:       16384000 kB\n' >"$work/meminfo"
cat >"$work/memory.txt" <<'EOF'
# icsim calibrate-host --memory, 2026-01-01, 4 cores online, load average 0.10 at start
# working set  copy 1 core   copy 4 cores   latency (one dependent load per line)   random update
#       16 KiB     100.0 GB/s     300.0 GB/s       1.0 ns      1.00 ns
#       32 KiB      90.0 GB/s     280.0 GB/s       1.0 ns      1.00 ns
#      256 KiB      75.0 GB/s     260.0 GB/s       3.5 ns      2.00 ns
#      512 KiB      70.0 GB/s     250.0 GB/s       4.0 ns      2.00 ns
#     4096 KiB      45.0 GB/s     130.0 GB/s      18.0 ns      3.00 ns
#     8192 KiB      40.0 GB/s     120.0 GB/s      20.0 ns      3.00 ns
#    16384 KiB      35.0 GB/s     110.0 GB/s      25.0 ns      4.00 ns
#    65536 KiB      25.0 GB/s      60.0 GB/s      90.0 ns      9.00 ns
#   262144 KiB      20.0 GB/s      50.0 GB/s     100.0 ns     10.00 ns
memory-bandwidth: {value: 50.0GBps, origin: measured, ref: "fixture"}
core-memory-bandwidth: {value: 20.0GBps, origin: measured, ref: "fixture"}
memory-latency: {value: 100ns, origin: measured, ref: "fixture"}
memory-parallelism: {value: 10.0, origin: measured, ref: "fixture"}
EOF
cpuinfo() { # $1 vendor, $2 family, $3 model
  printf 'processor\t: 0\nvendor_id\t: %s\ncpu family\t: %s\nmodel\t\t: %s\nmodel name\t: Test CPU\n' "$1" "$2" "$3"
}
gen_for() { # $1 name, vendor, family, model
  cpuinfo "$2" "$3" "$4" >"$work/cpuinfo.$1"
  "$gen" -o "$work/$1.yaml" --clock 2.5e9 --memory-lines "$work/memory.txt" --sysfs "$work/sys" \
    --cpuinfo "$work/cpuinfo.$1" --meminfo "$work/meminfo" 2>"$work/$1.err"
}

# a CPU outside the table: still a platform, the assumed terms said
gen_for unknown GenuineIntel 6 1 || fail "unknown CPU: host-platform failed: $(cat "$work/unknown.err")"
grep -q "not in validate/host/cpu-table.txt" "$work/unknown.err" || fail "unknown CPU: stderr does not say it is not in the table"
grep -q "assumed.*ops-per-cycle.*fp-latency" "$work/unknown.err" || fail "unknown CPU: stderr does not list the assumed terms"
grep -q "fp-latency: {value: [0-9.]*, origin: assumed" "$work/unknown.yaml" || fail "unknown CPU: fp-latency not assumed"
"$icsim" describe -p "$work/unknown.yaml" >/dev/null || fail "unknown CPU: icsim does not accept the platform"
grep -q "l1-latency" "$work/unknown.yaml" && fail "unknown CPU, nothing measured: an L1 latency was written"
# the files' own sizes, ways and cores
grep -q "l1-size: {value: 48KiB, origin: measured" "$work/unknown.yaml" || fail "l1-size not the sysfs 48 KiB"
grep -q "l2-ways: {value: 16, origin: measured" "$work/unknown.yaml" || fail "l2-ways not the sysfs 16"
grep -q "l3-size: {value: 60MiB, origin: measured" "$work/unknown.yaml" || fail "l3-size not the sysfs 60 MiB"
grep -q "sockets: {value: 2, origin: measured" "$work/unknown.yaml" || fail "sockets not 2"
grep -q "cores-per-socket: {value: 2, origin: measured" "$work/unknown.yaml" || fail "cores-per-socket not 2"
# copy rates at half each core's share of a level: L1 48 KiB -> 16 KiB row, L2 2 MiB -> 512 KiB,
# L3 60 MiB shared by 2 -> 15 MiB -> the 8 MiB row
grep -q "l1-bandwidth: {value: 100.0GBps" "$work/unknown.yaml" || fail "l1-bandwidth not the 16 KiB row"
grep -q "l2-bandwidth: {value: 70.0GBps" "$work/unknown.yaml" || fail "l2-bandwidth not the 512 KiB row"
grep -q "l3-bandwidth: {value: 40.0GBps" "$work/unknown.yaml" || fail "l3-bandwidth not the 8 MiB row"
grep -q "clock: {value: 2.500GHz, origin: measured" "$work/unknown.yaml" || fail "clock not the given rate"

# a CPU in the table (AMD family 19h model 11h, Zen 4): its row, origin spec, latencies at the clock
gen_for zen4 AuthenticAMD 25 17 || fail "Zen 4: host-platform failed: $(cat "$work/zen4.err")"
grep -q "is Zen 4" "$work/zen4.err" || fail "Zen 4: not found in the table"
grep -q "assumed (not this CPU" "$work/zen4.err" && fail "Zen 4: terms reported assumed"
grep -q "reorder-window: {value: 320, origin: spec" "$work/zen4.yaml" || fail "Zen 4: reorder-window not the row's"
grep -q "int-multiply-latency: {value: 3, origin: spec" "$work/zen4.yaml" || fail "Zen 4: int-multiply-latency not the row's"
grep -q "move-elimination: {value: true, origin: spec" "$work/zen4.yaml" || fail "Zen 4: move-elimination not the row's"
grep -q "move-elimination: {value: false, origin: assumed" "$work/unknown.yaml" || fail "unknown CPU: move-elimination not assumed false"
# 14 clocks at 2.5 GHz = 5.6 ns
grep -q "l2-latency: {value: 5.6ns, origin: spec" "$work/zen4.yaml" || fail "Zen 4: l2-latency not 14 clocks at 2.5 GHz"

# a cpuinfo without the identity lines: refused, the file named
printf 'processor\t: 0\n' >"$work/cpuinfo.bad"
"$gen" -o "$work/bad.yaml" --clock 2.5e9 --memory-lines "$work/memory.txt" --sysfs "$work/sys" \
  --cpuinfo "$work/cpuinfo.bad" --meminfo "$work/meminfo" 2>"$work/bad.err"
[ $? -eq 2 ] || fail "bad cpuinfo: not exit 2"
grep -q "cpuinfo.bad has no vendor_id" "$work/bad.err" || fail "bad cpuinfo: message does not name the file: $(cat "$work/bad.err")"
[ -e "$work/bad.yaml" ] && fail "bad cpuinfo: a platform was written"

[ $fails -eq 0 ] && echo "host_platform_test: all checks pass"
[ $fails -eq 0 ]
