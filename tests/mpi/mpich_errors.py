#!/usr/bin/env python3
"""MPICH's own error tests (test/mpi/errors) under native MPICH and under icsim, compared.

    mpich_errors.py MPICH_TEST_MPI BUILD WORKDIR [PLATFORM] [--only FOLDER/NAME,...]

MPICH_TEST_MPI is the test/mpi folder of an MPICH source tree (4.0.x, as Debian 12's MPICH;
fetched for this, never part of icsim's tree). Each test its testlists name (C only: the
attr, basic, coll, comm, datatype, group, pt2pt, rma and topo folders) is built twice, by
mpicc.mpich and by BUILD/bin/icsimcc, with MPICH's test harness (util/mtest*.c) and the two
headers its configure script would write (written into WORKDIR). Each runs with the testlist's
number of processes, natively (mpiexec.mpich) and under `icsim run` (PLATFORM, default the
SCore cluster), and passes when it prints "No Errors". Left out, and counted: io (icsim refuses
MPI-IO loudly), faults and spawn (process failure and creation), lines that need options of
MPICH's own launcher (mpiexecarg=). A test listed again with MPICH tuning variables (env=) runs
once. A test MPICH fails is not run under icsim. Prints one line per test and the counts; exit
status 1 when a test MPICH passes fails under icsim. Python standard library only.
"""
import os
import re
import subprocess
import sys

FOLDERS = ["attr", "basic", "coll", "comm", "datatype", "group", "pt2pt", "rma", "topo"]
LEFT_OUT = {"io": "icsim refuses MPI-IO loudly", "faults": "process failures", "spawn": "process creation",
            "session": "MPI 4 sessions", "cxx": "C++ bindings", "f77": "Fortran", "f90": "Fortran", "f08": "Fortran"}
CONF = """/* written by icsim's tests/mpi/mpich_errors.py: what MPICH's configure would find here */
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_UNISTD_H 1
#define HAVE_STDARG_H 1
#define USE_STDARG 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_MPI_WIN_CREATE 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_NONE
#define THREAD_PACKAGE_NONE 0
"""


def sources(src, folder):
    """{program: (its C file, its -D flags)} from the folder's Makefile.am (nb_rerr is rerr.c with
    -DUSE_MTEST_NBC); a program not named there is its own name's C file."""
    got, path = {}, os.path.join(src, "errors", folder, "Makefile.am")
    text = open(path).read() if os.path.exists(path) else ""
    for m in re.finditer(r"^(\w+)_SOURCES\s*=\s*(\S+\.c)", text, re.M):
        flags = re.search(r"^%s_CPPFLAGS\s*=(.*)$" % m.group(1), text, re.M)
        got[m.group(1)] = (m.group(2), [x for x in (flags.group(1).split() if flags else []) if x.startswith("-D")])
    return got


def tests(src):
    seen, out = set(), []
    for folder in FOLDERS:
        for name in ("testlist", "testlist.in"):
            path = os.path.join(src, "errors", folder, name)
            if not os.path.exists(path):
                continue
            for line in open(path):
                f = line.split()
                if not f or f[0].startswith("#") or "@" in f[0] or len(f) < 2 or not f[1].isdigit():
                    continue
                if any(x.startswith("mpiexecarg=") for x in f[2:]):
                    out.append((folder, f[0], int(f[1]), "needs MPICH's launcher options"))
                    continue
                if (folder, f[0]) in seen:
                    continue
                seen.add((folder, f[0]))
                out.append((folder, f[0], int(f[1]), None))
    return out


def sh(cmd, timeout=120):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return -1, "timed out after %d s" % timeout


def main(argv):
    only = None
    if "--only" in argv:
        i = argv.index("--only")
        if i + 1 >= len(argv):
            sys.exit("--only takes a comma-separated list of tests, e.g. --only attr/keyvalmis,coll/bcastlength")
        only = set(argv[i + 1].split(","))
        argv = argv[:i] + argv[i + 2:]
    if len(argv) < 4:
        sys.exit(__doc__)
    src, build, work = os.path.abspath(argv[1]), os.path.abspath(argv[2]), os.path.abspath(argv[3])
    platform = argv[4] if len(argv) > 4 else os.path.join(os.path.dirname(__file__), "..", "..", "platforms",
                                                          "score-gige-xeon.yaml")
    os.makedirs(os.path.join(work, "include"), exist_ok=True)
    with open(os.path.join(work, "include", "mpitestconf.h"), "w") as f:
        f.write(CONF)
    with open(os.path.join(work, "include", "mtest_mpix.h"), "w") as f:
        f.write("/* no MPIX extensions */\n")
    inc = ["-I" + os.path.join(work, "include"), "-I" + os.path.join(src, "include")]
    compilers = {"native": "mpicc.mpich", "icsim": os.path.join(build, "bin", "icsimcc")}
    harness = {}
    for kind, cc in compilers.items():
        objs = []
        for u in ("mtest", "mtest_common", "mtest_single"):
            o = os.path.join(work, "%s_%s.o" % (u, kind))
            rc, msg = sh([cc, "-w", "-O1"] + inc + ["-c", os.path.join(src, "util", u + ".c"), "-o", o])
            if rc:
                sys.exit("cannot build MPICH's test harness with %s:\n%s" % (cc, msg[-2000:]))
            objs.append(o)
        harness[kind] = objs
    counts = {"tests": 0, "MPICH passes": 0, "icsim passes of those": 0}
    regressions = []
    made = {}
    for folder, name, np, skip in tests(src):
        if folder not in made:
            made[folder] = sources(src, folder)
        cfile, defs = made[folder].get(name, (name + ".c", []))
        if only is not None and folder + "/" + name not in only:
            continue
        if skip:
            print("%-28s left out: %s" % (folder + "/" + name, skip))
            continue
        counts["tests"] += 1
        result = {}
        for kind, cc in compilers.items():
            exe = os.path.join(work, "%s_%s_%s" % (folder, name, kind))
            rc, msg = sh([cc, "-w", "-O1"] + inc + defs + [os.path.join(src, "errors", folder, cfile)] + harness[kind]
                         + ["-o", exe, "-lm"])
            if rc:
                result[kind] = (False, "build failed: " + msg.strip().splitlines()[-1] if msg.strip() else "")
                continue
            if kind == "native":
                rc, msg = sh(["mpiexec.mpich", "-n", str(np), exe], 60)
            elif not result["native"][0]:
                result[kind] = (False, "not run: MPICH fails it")
                continue
            else:
                rc, msg = sh([os.path.join(build, "bin", "icsim"), "run", "-p", platform, "-n", str(np), "--host-timing",
                              "off", exe], 120)
            ok = re.search(r"^\s*No Errors\s*$", msg, re.M) is not None
            last = [l for l in msg.splitlines() if l.strip()]
            result[kind] = (ok, "exit %d: %s" % (rc, last[-1][:150] if last else ""))
        n_ok, i_ok = result["native"][0], result["icsim"][0]
        counts["MPICH passes"] += n_ok
        counts["icsim passes of those"] += n_ok and i_ok
        if n_ok and not i_ok:
            regressions.append(folder + "/" + name)
        print("%-28s %2d procs  MPICH %-4s icsim %-4s %s" % (folder + "/" + name, np, "pass" if n_ok else "FAIL",
                                                         "pass" if i_ok else "FAIL", "" if i_ok else result["icsim"][1]))
    for folder, why in LEFT_OUT.items():
        print("left out: errors/%s (%s)" % (folder, why))
    print("; ".join("%s: %d" % kv for kv in counts.items()))
    if regressions:
        print("MPICH passes, icsim fails: " + ", ".join(regressions))
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
