#!/usr/bin/env python3
"""A Gantt chart of an icsim Paje trace (icsim run --trace), drawn with gnuplot.

    trace_plot.py TRACE.paje OUT.png [--from SECONDS] [--to SECONDS] [--title TEXT] [--transfers]

One row per rank: the MPI call (or "program") the rank is in, full height; the stacks' CPU costs
and declared computation inside it as the thinner bars above, one colour per state name. With
--transfers, the transfers the rank sent below it, one thin line per transfer lane: each
transfer's phases and flow as the stacks priced them. Times are simulated seconds, shown in
microseconds. Python standard library and gnuplot only.
"""
import argparse
import os
import subprocess
import sys
import tempfile


def read_paje(path, transfers=False):
    """[(rank, depth, start, end, name)] from the pushes and pops icsim writes; with TRANSFERS, the
    pieces of the transfers too, as depth -1 - lane."""
    values, stacks, out = {}, {}, []
    with open(path) as f:
        for line in f:
            if line.startswith("%") or not line.strip():
                continue
            p = line.split()
            if p[0] == "6":  # PajeDefineEntityValue: alias, type, "name", "colour"
                values[p[1]] = line.split('"')[1]
            elif p[0] in ("11", "12") and p[2] != "ST_rank" and not (transfers and p[2] == "ST_xfer"):
                continue  # the transfers' lanes (ST_xfer), unless asked for
            elif p[0] == "11":  # PajePushState: time, type, container, value
                stacks.setdefault(p[3], []).append((float(p[1]), values.get(p[4], p[4])))
            elif p[0] == "12":  # PajePopState: time, type, container
                st = stacks.get(p[3])
                if st:
                    t0, name = st.pop()
                    if p[3].startswith("C_rank"):
                        out.append((int(p[3][len("C_rank"):]), len(st), t0, float(p[1]), name))
                    elif len(st) == 1:  # C_x<rank>_<lane>: a transfer's piece (depth 1 in its lane)
                        r, lane = p[3][len("C_x"):].split("_")
                        out.append((int(r), -1 - int(lane), t0, float(p[1]), name))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("png")
    ap.add_argument("--from", dest="t0", type=float, default=None, help="start of the window (s)")
    ap.add_argument("--to", dest="t1", type=float, default=None, help="end of the window (s)")
    ap.add_argument("--title", default=None)
    ap.add_argument("--transfers", action="store_true", help="draw each rank's transfers and their phases below it")
    a = ap.parse_args()
    try:
        states = read_paje(a.trace, a.transfers)
    except OSError as e:
        sys.exit("trace_plot.py: %s" % e)
    if not states:
        sys.exit("trace_plot.py: %s holds no states (is it an icsim --trace file in Paje format?)" % a.trace)
    t0 = a.t0 if a.t0 is not None else min(s[2] for s in states)
    t1 = a.t1 if a.t1 is not None else max(s[3] for s in states)
    if not t1 > t0:
        sys.exit("trace_plot.py: --from %g --to %g: the window is empty" % (t0, t1))
    shown = [s for s in states if s[3] > t0 and s[2] < t1 and s[3] > s[2]]
    names = sorted({s[4] for s in shown}, key=lambda n: (n != "program", n.startswith("MPI_") is False, n))
    nranks = max(s[0] for s in states) + 1
    with tempfile.TemporaryDirectory() as tmp:
        script = ["set terminal pngcairo noenhanced size 1200,%d font ',10'" % (160 + 70 * nranks),
                  "set output '%s'" % os.path.abspath(a.png),
                  "set title '%s'" % (a.title or os.path.basename(a.trace)).replace("'", ""),
                  "set xlabel 'simulated time (us)'", "set ytics (%s)" % ", ".join('"rank %d" %d' % (r, r) for r in range(nranks)),
                  "set yrange [-0.6:%f]" % (nranks - 0.2), "set xrange [%f:%f]" % (t0 * 1e6, t1 * 1e6),
                  "set key outside right top", "set style fill solid 0.9 border -1", "set grid xtics"]
        plots = []
        for i, name in enumerate(names):
            path = os.path.join(tmp, "s%d.dat" % i)
            with open(path, "w") as f:
                for r, d, b, e, n in shown:
                    if n != name:
                        continue
                    b, e = max(b, t0) * 1e6, min(e, t1) * 1e6
                    if d < 0:  # a transfer's piece, in lane -1 - d below the rank's calls
                        y, h = r - 0.45 - 0.06 * (-1 - d), 0.025
                    else:
                        y, h = (r - 0.15, 0.25) if d == 0 else (r + 0.12 + 0.1 * (d - 1), 0.05)
                    f.write("%.6f %.6f %.6f %.6f\n" % ((b + e) / 2, y, (e - b) / 2, h))
            plots.append("'%s' using 1:2:3:4 with boxxyerrorbars lc %d title '%s'" % (path, i + 1, name))
        script.append("plot " + ", \\\n     ".join(plots))
        r = subprocess.run(["gnuplot"], input="\n".join(script) + "\n", capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("trace_plot.py: gnuplot failed: %s" % r.stderr.strip())
    print("%s: %d states of %d ranks, %.3f-%.3f us" % (a.png, len(shown), nranks, t0 * 1e6, t1 * 1e6))


if __name__ == "__main__":
    main()
