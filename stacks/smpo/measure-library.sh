#!/bin/sh
# Counts the instructions of the SMPO library's own steps (library.c: message analysis,
# packetisation, header, driver request) with callgrind, and prints the three parameters they set:
#
#   stacks/smpo/measure-library.sh [--check]
#
# --check: also compare with the defaults in params.c (`icsim describe`; $ICSIM, default build/bin/icsim),
# exit 1 when they differ.
# The count is exact and deterministic for a given compiler (gcc -O2, x86-64): what one SMPO
# message of 1 and of 9 packets executes from the library's entry point, less the stubbed system
# call (the driver's cost), over 1,000 messages each. Needs valgrind and gcc.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
check=0
case "${1:-}" in
--check) check=1 ;;
"") ;;
-h | --help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
*) echo "measure-library.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
esac
for tool in gcc valgrind callgrind_annotate; do
  command -v $tool >/dev/null || { echo "measure-library.sh: $tool not found (apt-get install gcc valgrind)" >&2; exit 2; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/smpo-library.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
gcc -O2 -I"$here" -I"$root/sim" -o "$tmp/count" "$here/library.c" "$here/library_count.c"

# inclusive instructions of FUNCTION over one run of the counting program, less the stub's
count() { # $1 = function, then the program's arguments
  fn=$1; shift
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$tmp/count" "$@" >/dev/null 2>"$tmp/vg.err" ||
    { cat "$tmp/vg.err" >&2; exit 2; }
  callgrind_annotate --inclusive=yes "$tmp/cg.out" 2>/dev/null | awk -v fn="$fn" '
    { gsub(/,/, "", $1) }
    $0 ~ ":" fn " " { f = $1 } $0 ~ ":syscall_stub " { s = $1 }
    END { if (f == "") exit 1; print f - s }'
}
n=1000
send1=$(count smpo_lib_send send 1)
send9=$(count smpo_lib_send send 9)
recv=$(count smpo_lib_receive receive)
per_packet=$(( (send9 - send1) / (8 * n) ))
send_msg=$(( send1 / n - per_packet ))
recv_msg=$(( recv / n ))
echo "# instructions per SMPO message, counted by callgrind in library.c ($(gcc -dumpfullversion) -O2, $(uname -m))"
echo "send, 1 packet:  $((send1 / n))"
echo "send, 9 packets: $((send9 / n))"
echo "receive:         $recv_msg"
echo "smpo/library-send-message-instructions $send_msg"
echo "smpo/library-send-packet-instructions $per_packet"
echo "smpo/library-receive-message-instructions $recv_msg"
[ $check = 1 ] || exit 0
desc=$("${ICSIM:-$root/build/bin/icsim}" describe -p "$root/platforms/vniief-smpo.yaml")
bad=0
for kv in "library-send-message-instructions $send_msg" "library-send-packet-instructions $per_packet" \
          "library-receive-message-instructions $recv_msg"; do
  set -- $kv
  have=$(echo "$desc" | awk -v k="smpo/$1" '$1 == k { print $2 + 0; exit }')
  if [ "$have" != "$2" ]; then
    echo "smpo/$1: params.c says ${have:-nothing}, library.c executes $2: update stacks/smpo/params.c" >&2
    bad=1
  fi
done
exit $bad
