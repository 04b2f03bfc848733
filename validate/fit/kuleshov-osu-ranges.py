#!/usr/bin/env python3
"""How far each calibrated RapidIO parameter can move before the calibration points notice.

For each parameter fitted by kuleshov-osu.py, the other fitted values held, find (by bisection)
the lowest and highest value at which all 20 calibration points of the kuleshov-osu case (osu_latency
and osu_bw, 10 sizes each, run with the case's arguments) stay within the case's 10% tolerance.
That one-at-a-time span is what the published points can tell apart; it is the range written
into platforms/niisi-rapidio-4.yaml. The osu_bibw column is never read: it is blind.
A search end that still fits is reported as such (the points do not bound that side).
Usage: validate/fit/kuleshov-osu-ranges.py [STEPS [PARAMETER ...]]
"""
import csv, os, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ICSIM = os.path.join(ROOT, "build/bin/icsim")
PLATFORM = os.path.join(ROOT, "platforms/niisi-rapidio-4.yaml")
TOLERANCE = 0.10  # validate/cases/kuleshov-osu.yaml
pub = {}
for row in csv.DictReader(l for l in open(os.path.join(ROOT, "validate/data/kuleshov-osu.csv")) if not l.startswith("#")):
    if row["metric"] in ("osu_latency_us", "osu_bw_MBps") and row["published"]:  # empty: held back
        pub[(row["metric"], int(row["x"]))] = float(row["published"])

# name, fitted value, search ends (beyond any plausible value), unit written to --set
PARAMS = [("nodes/clock", 65e6, 10e6, 400e6, "Hz"), ("rapidio/copy-bandwidth", 27.5e6, 5e6, 200e6, "Bps"),
          ("rapidio/bounce-copy-bandwidth", 95e6, 10e6, 2e9, "Bps"),
          ("rapidio/completion-latency", 112e-6, 1e-6, 1e-3, "s"),
          ("rapidio/control-instructions", 1600, 0, 40000, ""),
          ("rapidio/large-threshold", 1048576, 4096, 8388608, "B"),
          # the paper's instruction counts (">= 20,000 per message"): how far above it the points allow
          ("rapidio/mx-instructions", 20000, 0, 200000, ""), ("rapidio/mx-large-instructions", 40000, 0, 400000, ""),
          # assumed values no outside source bounds on one side: how far the paper's own points let them go
          ("rapidio/turnaround", 100e-9, 1e-9, 100e-6, "s"), ("rapidio/retry-delay", 1e-6, 1e-9, 1e-3, "s"),
          ("rapidio/program-instructions", 200, 0, 40000, "n"), ("rapidio/mailbox-message-instructions", 200, 0, 40000, "n"),
          ("rapidio/common-queue-slots", 32, 1, 1024, "n")]

def run(prog, sets, extra):
    cmd = [ICSIM, "run", "-p", PLATFORM, "-n", "2", "--place", "2x1", "--host-timing", "off"]
    for s in sets:
        cmd += ["--set", s]
    out = subprocess.run(cmd + [prog] + extra, capture_output=True, text=True, check=True).stdout
    return {int(l.split()[0]): float(l.split()[1]) for l in out.splitlines() if l and l[0] != "#"}

def fmt(name, v, unit):
    if unit == "s":
        return f"{name}={v * 1e9:.6g}ns"
    if unit == "B":
        return f"{name}={int(round(v))}B"
    if unit == "n":
        return f"{name}={int(round(v))}"
    return f"{name}={v:.6g}{unit}"

def worst(sets):
    """Largest relative error over the 20 points (osu_bw 0.00 at 1 B: within if below 0.005)."""
    lat = run("osu_latency", sets, ["-m", "1:4194304", "-i", "100", "-x", "10"])
    bw = run("osu_bw", sets, ["-m", "1:4194304"])
    w = 0.0
    for (m, x), v in pub.items():
        sim = lat[x] if m == "osu_latency_us" else bw[x]
        e = (0.0 if sim < 0.005 else 1.0) if v == 0 else abs(sim - v) / v
        w = max(w, e)
    return w

def fits(name, v, unit):
    return worst([fmt(name, v, unit)]) <= TOLERANCE

def edge(name, inside, outside, unit, steps):
    """Bisect between a fitting value and one that does not; geometric steps (log scale) unless 0."""
    for _ in range(steps):
        mid = (inside + outside) / 2 if min(inside, outside) <= 0 else (inside * outside) ** 0.5
        if unit in ("B", "n"):
            step = 4096 if unit == "B" else 1  # sizes on 4 KiB steps (the control level's message), counts whole
            mid = round(mid / step) * step
            if mid in (inside, outside):
                break
        if fits(name, mid, unit):
            inside = mid
        else:
            outside = mid
    return inside, outside

if __name__ == "__main__":
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    print(f"fitted point: worst error {worst([]) * 100:.2f}% (tolerance {TOLERANCE * 100:.0f}%)", flush=True)
    only = sys.argv[2:]
    for name, v, lo, hi, unit in PARAMS:
        if only and name not in only:
            continue
        ends = []
        for far in (lo, hi):
            if fits(name, far, unit):
                ends.append(f"{far:.6g} (search end still fits: not bounded by the points)")
                continue
            inside, outside = edge(name, v, far, unit, steps)
            ends.append(f"{inside:.6g} (fits) / {outside:.6g} (does not)")
        print(f"{name}: fitted {v:.6g}{unit}; low {ends[0]}; high {ends[1]}", flush=True)
