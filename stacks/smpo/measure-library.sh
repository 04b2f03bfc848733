#!/bin/sh
# Counts the instructions of the SMPO library's own steps (library.c: message analysis, room in the
# driver buffer, packetisation, header, driver request) with callgrind, and prints the parameters
# they set:
#
#   stacks/smpo/measure-library.sh [--check]
#
# --check: also compare with the defaults in params.c (`icsim describe`; $ICSIM, default
# build/bin/icsim): exit 1 when they differ, 77 (skipped) without valgrind or with another gcc
# than the one the defaults were counted with (12).
# The count is exact and deterministic for a given compiler (gcc -O2, x86-64): what the library's
# entry points execute per SMPO message, less the stubbed system call (the driver's cost), over
# the runs of library_count.c (1 and 9 packets sent, received, to and from the same module).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
counted_with=12 # gcc major version the defaults in params.c were counted with
check=0
case "${1:-}" in
--check) check=1 ;;
"") ;;
-h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
*) echo "measure-library.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
esac
missing=2
[ $check = 0 ] || missing=77
for tool in gcc valgrind callgrind_annotate; do
  command -v $tool >/dev/null || { echo "measure-library.sh: $tool not found (apt-get install gcc valgrind)" >&2; exit $missing; }
done
gccv=$(gcc -dumpfullversion)
if [ $check = 1 ] && [ "${gccv%%.*}" != $counted_with ]; then
  echo "measure-library.sh: gcc $gccv, the defaults were counted with gcc $counted_with: not compared" >&2
  exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/smpo-library.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
gcc -O2 -I"$here" -I"$root/sim" -o "$tmp/count" "$here/library.c" "$here/library_count.c"

# instructions per message of FUNCTION (inclusive) in one run of the counting program, less the
# stubbed system call's; fails when callgrind's listing lacks the function
count() { # $1 = function, then the program's arguments
  fn=$1
  shift
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$tmp/count" "$@" >"$tmp/n" 2>"$tmp/vg.err" || {
    cat "$tmp/vg.err" >&2
    echo "measure-library.sh: the counting program failed ($*)" >&2
    exit 2
  }
  callgrind_annotate --threshold=100 --inclusive=yes "$tmp/cg.out" >"$tmp/annotate" 2>&1 || {
    cat "$tmp/annotate" >&2
    exit 2
  }
  awk -v fn="$fn" -v n="$(cat "$tmp/n")" '
    { c = $1; gsub(/,/, "", c) }
    $0 ~ ":" fn " " { f = c }
    $0 ~ ":syscall_stub " { s = c }
    END { if (f == "" || n + 0 <= 0) exit 1; printf "%.3f\n", (f - s) / n }' "$tmp/annotate" || {
    echo "measure-library.sh: no $fn in callgrind's listing ($*)" >&2
    exit 2
  }
}
send1=$(count smpo_lib_send send 1)
send9=$(count smpo_lib_send send 9)
recv=$(count smpo_lib_receive receive)
shm_send=$(count smpo_lib_send shm-send)
shm_recv=$(count smpo_lib_receive shm-receive)
# the ring's wrap-round every few hundred messages leaves fractions: rounded to whole instructions
eval "$(awk -v s1="$send1" -v s9="$send9" -v r="$recv" -v ss="$shm_send" -v sr="$shm_recv" 'BEGIN {
  p = (s9 - s1) / 8
  printf "per_packet=%d send_msg=%d recv_msg=%d shm_msg=%g\n", p + 0.5, s1 - p + 0.5, r + 0.5, int(ss + sr + 0.5) / 2 }')"
echo "# instructions per SMPO message, counted by callgrind in library.c (gcc $gccv -O2, $(uname -m))"
echo "send, 1 packet:  $send1"
echo "send, 9 packets: $send9"
echo "receive:         $recv"
echo "same module: send $shm_send, receive $shm_recv"
echo "smpo/library-send-message-instructions $send_msg"
echo "smpo/library-send-packet-instructions $per_packet"
echo "smpo/library-receive-message-instructions $recv_msg"
echo "smpo/library-shm-message-instructions $shm_msg"
[ $check = 1 ] || exit 0
desc=$("${ICSIM:-$root/build/bin/icsim}" describe -p "$root/platforms/vniief-smpo.yaml") || exit 2
bad=0
for kv in "library-send-message-instructions $send_msg" "library-send-packet-instructions $per_packet" \
          "library-receive-message-instructions $recv_msg" "library-shm-message-instructions $shm_msg"; do
  set -- $kv
  have=$(echo "$desc" | awk -v k="smpo/$1" '$1 == k { print $2 + 0; exit }')
  if [ "$have" != "$2" ]; then
    echo "smpo/$1: params.c says ${have:-nothing}, library.c executes $2: update stacks/smpo/params.c" >&2
    bad=1
  fi
done
exit $bad
