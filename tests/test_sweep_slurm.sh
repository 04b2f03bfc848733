#!/bin/sh
# icsim sweep on a real Slurm (a one-node cluster on this machine, tests/slurm/cluster.sh):
# the sweep as a job array, cancelled in the middle, submitted again (only the missing points are
# in the second array), gathered: the same results.csv as the local runner's, byte for byte.
# Exit 77 (skipped) only when the Slurm daemons cannot run here.
#   usage: test_sweep_slurm.sh SOURCE_DIR BUILD_DIR
set -eu
SRC=$1
ICSIM=$2/bin/icsim
F=$SRC/tests/data/sweeps/slow.yaml   # 6 points of about a second
T=$(mktemp -d /tmp/icsim-slurm-test-XXXXXX)
cleanup() { "$SRC/tests/slurm/cluster.sh" stop "$T/cluster" || true; rm -rf "$T"; }
trap cleanup EXIT
trap 'exit 1' INT TERM
fail() { echo "FAIL: $*"; for l in "$T"/slurm/slurm/*.log; do [ -f "$l" ] && { echo "== $l"; cat "$l"; }; done; exit 1; }
count() { ls "$1" 2>/dev/null | wc -l; }

rc=0
env_line=$("$SRC/tests/slurm/cluster.sh" start "$T/cluster" 2>&1) || rc=$?
if [ $rc -eq 77 ]; then
  echo "SKIP: no Slurm cluster can run here: $env_line"
  exit 77
fi
[ $rc -eq 0 ] || fail "cluster.sh start: $env_line"
eval "$env_line"
export PATH="$PATH:/usr/sbin"

echo "== local reference"
"$ICSIM" sweep "$F" --out "$T/local" -j 2 || fail "local sweep"

echo "== Slurm: job array of every point, one task at a time, cancelled after the first point"
"$ICSIM" sweep "$F" --out "$T/slurm" --slurm --throttle 1 || fail "first submission"
grep -q -- '--array=0-5%1' "$T/slurm/slurm/submit-1.sh" || fail "submit-1.sh: $(cat "$T/slurm/slurm/submit-1.sh")"
i=0
while [ "$(count "$T/slurm/points")" -lt 1 ]; do
  i=$((i + 1)); [ $i -lt 600 ] || fail "no point done after 120 s"; sleep 0.2
done
scancel --name=icsim-pingpong-slow
i=0
while [ -n "$(squeue -h 2>/dev/null)" ]; do
  i=$((i + 1)); [ $i -lt 300 ] || fail "the array did not stop in 60 s"; sleep 0.2
done
done1=$(count "$T/slurm/points")
echo "cancelled with $done1 of 6 points done"
[ "$done1" -ge 1 ] && [ "$done1" -lt 6 ] || fail "$done1 points done when cancelled"
[ "$(count "$T/slurm/tmp")" -eq 0 ] || fail "the cancelled task left an unfinished point: $(ls "$T/slurm/tmp")"
before=$(ls "$T/slurm/points" | sort)

echo "== Slurm: the second submission covers only the missing points, waits, gathers"
"$ICSIM" sweep "$F" --out "$T/slurm" --slurm --chunk 2 --wait || fail "second submission"
listed=$(grep -vc '^#' "$T/slurm/slurm/submit-2.points")
[ "$listed" -eq $((6 - done1)) ] || fail "submit-2.points lists $listed points, $((6 - done1)) were missing"
for id in $before; do
  ! grep -q "$id" "$T/slurm/slurm/submit-2.points" || fail "point $id, done before, submitted again"
done
cmp "$T/local/results.csv" "$T/slurm/results.csv" || fail "results.csv differ: $(diff "$T/local/results.csv" "$T/slurm/results.csv")"
echo "== same results.csv locally and on Slurm:"
cat "$T/slurm/results.csv"

# icsim uncertainty's points go through the same runner: its study as Slurm job arrays gives the
# same bytes as the local one (outputs written from the points, so any point lost, repeated or read
# from the wrong run would show).
echo "== icsim uncertainty: the same study locally and on Slurm"
uq() { # out-dir extra-options...
  d=$1; shift
  "$ICSIM" uncertainty -p "$SRC/tests/data/uq-pingpong.yaml" -n 2 --budget 20 --seed 5 -o "$d" "$@" \
    osu_latency -m 1:1 -i 10 -x 1
}
uq "$T/uq-local" -j 2 > "$T/uq-local.out" 2>&1 || fail "local study: $(cat "$T/uq-local.out")"
uq "$T/uq-slurm" --slurm > "$T/uq-slurm.out" 2>&1 || fail "study on Slurm: $(cat "$T/uq-slurm.out")"
ls "$T"/uq-slurm/runs/slurm/submit-*.sh > /dev/null 2>&1 || fail "no job array was submitted: $(ls -R "$T/uq-slurm")"
for f in uncertainty.csv effects.csv parameters.csv summary.md; do
  cmp "$T/uq-local/$f" "$T/uq-slurm/$f" || fail "$f differs: $(diff "$T/uq-local/$f" "$T/uq-slurm/$f")"
done
echo "== same uncertainty.csv, effects.csv, parameters.csv, summary.md locally and on Slurm:"
cat "$T/uq-slurm/uncertainty.csv"
