#!/bin/sh
# The sanitizer check (ctest test `sanitizers`): builds icsim a second time with
# -fsanitize=address,undefined (ICSIM_SANITIZE, any report is fatal), runs the unit tests there,
# then runs programs through the MPI layer on every platform of platforms/ and checks that they
# print exactly what the ordinary build prints.
#
# usage: tests/sanitize.sh SOURCE_DIR MAIN_BUILD_DIR SANITIZER_BUILD_DIR
#
# How SMPI runs under ASan (sim/cmd_run.c, ICSIM_SANITIZED): mmap privatization instead of the
# default dlopen one that ASan refuses, the MPI layer preloaded after ASan's runtime, thread
# contexts. The unchanged figures show the layer really ran (its CPU charges are in them).
set -e
src=$1 main=$2 san=$3
[ -n "$src" ] && [ -n "$main" ] && [ -n "$san" ] || { echo "usage: $0 SOURCE_DIR MAIN_BUILD SANITIZER_BUILD" >&2; exit 2; }
jobs=$(nproc 2>/dev/null || echo 2)

unit="test_units test_params test_yaml_loader test_platform test_generic test_numa test_rapidio test_validate_case"
cmake -S "$src" -B "$san" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DICSIM_SANITIZE=ON >/dev/null
# only what is run below
cmake --build "$san" -j"$jobs" --target icsim icsim_platform icsim_mpi $unit wl_osu_latency wl_osu_alltoall \
  wl_osu_put_latency wl_npb_is wl_osu_latency_f prog_exit_paths >"$san/build.log" 2>&1 ||
  { tail -40 "$san/build.log"; exit 1; }

fail=0
for t in $unit; do
  if "$san/bin/$t" --verbose=0 -j1 >"$san/$t.log" 2>&1; then
    echo "unit tests under ASan/UBSan: $t passed"
  else
    echo "unit tests under ASan/UBSan: $t FAILED"; cat "$san/$t.log"; fail=1
  fi
done

# Same command in both builds: the sanitizer build must print the same, byte for byte.
same() {
  label=$1; shift
  "$main/bin/icsim" "$@" >"$san/expected.txt" 2>&1 || { echo "$label: ordinary build failed"; cat "$san/expected.txt"; fail=1; return; }
  "$san/bin/icsim" "$@" >"$san/got.txt" 2>&1 || { echo "$label: sanitizer build failed"; cat "$san/got.txt"; fail=1; return; }
  if cmp -s "$san/expected.txt" "$san/got.txt"; then
    echo "$label: same output under ASan/UBSan ($(grep -vc '^#' "$san/got.txt") lines)"
  else
    echo "$label: output differs under ASan/UBSan"; diff "$san/expected.txt" "$san/got.txt" | head -20; fail=1
  fi
}

for p in "$src"/platforms/*.yaml; do
  name=$(basename "$p" .yaml)
  same "$name osu_latency" run -p "$p" -n 2 --place cyclic --host-timing off osu_latency -m 1:4096 -i 5 -x 1
  same "$name osu_alltoall" run -p "$p" -n 4 --host-timing off osu_alltoall -m 1:1024 -i 3 -x 1
done
score=$src/platforms/score-gige-xeon.yaml
same "one-sided (osu_put_latency)" run -p "$score" -n 2 --host-timing off osu_put_latency -m 1:1024 -i 5 -x 1
same "NPB IS class S (per-rank globals)" run -p "$score" -n 4 --host-timing off is S
same "Fortran (osu_latency_f)" run -p "$score" -n 2 --host-timing off osu_latency_f -m 1:1024 -i 5 -x 1

# an exit path through the layer: MPI_Abort's code is the status there too
set +e
"$san/bin/icsim" run -p "$score" -n 2 --host-timing off "$san/tests/progs/exit_paths" abort-world 7 >"$san/got.txt" 2>&1
rc=$?
set -e
if [ "$rc" = 7 ] && grep -q "called MPI_Abort with error code 7" "$san/got.txt"; then
  echo "MPI_Abort under ASan/UBSan: status 7"
else
  echo "MPI_Abort under ASan/UBSan: status $rc, expected 7"; cat "$san/got.txt"; fail=1
fi
rm -f "$san/expected.txt" "$san/got.txt"
exit $fail
