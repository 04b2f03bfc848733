#!/usr/bin/env python3
"""A program's output under icsim against its output under native MPICH (issue 39's checks).

    same_as_mpich.py ICSIM PLATFORM NP NATIVE_EXE ICSIM_EXE [ARG...]
        NATIVE_EXE (built by mpicc.mpich or mpifort.mpich) runs under `mpiexec.mpich -n NP`; then
        ICSIM_EXE (icsimcc or icsimff) and NATIVE_EXE itself (through the MPI-Adaptor) run under
        `icsim run`. Their stdout lines (sorted: ranks print in any order) and exit statuses must
        be the same.
    same_as_mpich.py --fatal ICSIM PLATFORM NP ICSIM_EXE ARG NEEDLE...
        The run must stop with MPI_Abort's status 1 and say each NEEDLE on stderr; no crash.
Python standard library only.
"""
import subprocess
import sys


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    return p.returncode, sorted(p.stdout.splitlines()), p.stderr


def main(argv):
    if argv[1] == "--fatal":
        icsim, platform, np, exe, arg, needles = argv[2], argv[3], argv[4], argv[5], argv[6], argv[7:]
        rc, _, err = run([icsim, "run", "-p", platform, "-n", np, "--host-timing", "off", exe, arg])
        missing = [n for n in needles if n not in err]
        if rc != 1 or missing or "crashed" in err:
            print("expected exit status 1 and %s; got %d:\n%s" % (needles, rc, err[-3000:]))
            return 1
        print("stopped as MPI_Abort would, saying: %s" % next(l for l in err.splitlines() if needles[0] in l))
        return 0
    icsim, platform, np, native, built, args = argv[1], argv[2], argv[3], argv[4], argv[5], argv[6:]
    want = run(["mpiexec.mpich", "-n", np, native] + args)
    sim = [icsim, "run", "-p", platform, "-n", np, "--host-timing", "off"]
    bad = 0
    for what, exe in (("icsim", built), ("icsim through the MPI-Adaptor", native)):
        got = run(sim + [exe] + args)
        if got[:2] != want[:2]:
            bad += 1
            print("%s differs from MPICH: status %d (MPICH %d)" % (what, got[0], want[0]))
            for line in sorted(set(want[1]) ^ set(got[1])):
                print("  %s %s" % ("MPICH only:" if line in want[1] else "icsim only:", line))
            print(got[2][-2000:])
        else:
            print("%s: the %d lines MPICH prints, exit status %d" % (what, len(want[1]), want[0]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
