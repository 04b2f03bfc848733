#!/usr/bin/env python3
"""icsim run --trace on every platform: a 2-rank ping-pong and an 8-rank all-to-all.

    trace_check.py SRC BUILD

Each run is made three times: plain, with a Paje trace, with a Chrome trace. Checks:
- the program's output is the same with and without a trace (tracing observes, never perturbs);
- pj_dump (Debian's pajeng) reads the Paje trace; per rank, the top-level states tile the rank's
  time from 0 without gap or overlap (1e-9 s), every nested state lies inside its parent, and the
  MPI calls the program makes are there (MPI_Send or MPI_Alltoall, MPI_Finalize);
- --breakdown (given with the Paje trace): each rank's entries sum to its time, none is negative,
  its time is where its timeline ends, and its time in MPI calls is what the timeline shows;
- the Chrome trace is valid JSON (the Trace Event format: B and E events, balanced per rank, in
  time order per rank) holding the same states as the Paje one;
- both hold the messages as arrows from the sending rank to the receiving one (Paje links, Chrome
  flow events), each ending after it starts;
- both hold, per link and node channel the transfers cross, how many cross it (a Paje variable, a
  Chrome counter), never below zero, and its utilisation (bandwidth in use over nominal), never
  below zero, above zero only while a transfer crosses it, and near 1 somewhere in the ping-pong
  (its large messages fill the route's slowest link; on a one-node platform above zero: a lone copy is
  one core's, a fraction of its memory controller);
- both hold each transfer with its phases as its platform's stack priced them (the paper's names)
  and its flow, one after the other, summing to the transfer's duration: Chrome on the sender's
  track, Paje in the sender's transfer lanes (a transfer never overlaps another in its lane), the
  same number of transfers and the same phase names in both, one per message arrow;
- the phases each stack names appear on its platform (the ping-pong; the all-to-all for the
  phases of sharing: numa's channel shares, generic's PAUSE port shares, which the ping-pong, whose
  transfers share nothing, must not have: a layer's time alone is then the transfer's), and the parts of its CPU
  costs it names (SMPO's library, queue system and driver; generic's registration) as states
  nested in its charges.
Inside a node, numa's channel shares are nil for a lone copy (in a socket, across the sockets) and
positive when copies share a memory controller. And a deadlocked run's trace is written, both ranks
stuck in MPI_Recv. Exit 1 with every failure
listed. Python standard library only.
"""
import json
import os
import subprocess
import sys
import tempfile

SRC, BUILD = sys.argv[1], sys.argv[2]
ICSIM = os.path.join(BUILD, "bin", "icsim")
PLATFORMS = sorted(p[:-5] for p in os.listdir(os.path.join(SRC, "platforms")) if p.endswith(".yaml"))
CASES = [("pingpong", 2, ["osu_latency", "-m", "1:262144", "-i", "5", "-x", "1"], "MPI_Send"),
         ("alltoall", 8, ["osu_alltoall", "-m", "1:4096", "-i", "3", "-x", "1"], "MPI_Alltoall")]
EPS = 1e-9
# the phases each platform's network stack prices a large message's transfer with
PHASES = {"niisi-rapidio-4": ["rapidio segments", "rapidio MX rendezvous", "rapidio bounce copies"],
          "score-gige-xeon": ["generic RTS-CTS", "generic frame headers", "generic eager", "generic rendezvous data"],
          "sibsutis-numa-ib": ["generic RTS-CTS", "generic FIN", "generic eager", "generic RDMA write"],
          "sibsutis-smp-gige": ["generic RTS-CTS", "generic eager"],
          "skif-aurora": ["skifch torus headers", "skifch ring push", "flow"],
          "vniief-smpo": ["smpo adapter starts", "smpo RTS-CTS", "smpo packet headers"]}
# the parts of the stacks' CPU costs each platform's stack names (states nested in its charges)
CPU_PARTS = {"sibsutis-numa-ib": ["generic eager copy", "generic registration"], "sibsutis-smp-gige": ["generic eager copy"],
             "skif-aurora": ["skifch MPI matching"], "vniief-smpo": ["smpo library", "smpo queue system", "smpo driver"]}
# ... and the phases of sharing, in the all-to-all (its transfers share links and channels)
SHARING_PHASES = {"sibsutis-numa-ib": ["numa channel shares"], "sibsutis-smp-gige": ["numa channel shares"],
                  "score-gige-xeon": ["generic port shares (PAUSE)"]}
failures = []


def run(platform, n, prog, extra, want_err=False):
    cmd = [ICSIM, "run", "-p", os.path.join(SRC, "platforms", platform + ".yaml"), "-n", str(n), "--place", "cyclic",
           "--host-timing", "off", *extra, os.path.join(BUILD, "workloads", prog[0]), *prog[1:]]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if want_err:
        return r.returncode, r.stdout, r.stderr
    return r.returncode, r.stdout, " ".join(cmd)


def breakdown(stderr, what):
    """{rank: {entry: seconds}} from --breakdown's table."""
    lines = stderr.splitlines()
    try:
        i = next(k for k, l in enumerate(lines) if l.startswith("icsim: where each rank's time went"))
    except StopIteration:
        failures.append("%s: no --breakdown table on stderr" % what)
        return None
    head = lines[i + 1].split()
    out = {}
    for l in lines[i + 2:]:
        f = l.split()
        if not f or f[0] == "total":
            break
        out[int(f[0])] = dict(zip(head[1:], map(float, f[1:])))
    return out


def check_breakdown(bd, states, what):
    """Each rank's entries sum to its time, none is negative, and they agree with its timeline: its
    time is where its last top-level state ends, the time in MPI calls is blocked plus CPU plus polls."""
    by_rank = {}
    for s in states:
        by_rank.setdefault(int(s[0].split()[-1]), []).append(s)
    for r, e in bd.items():
        parts = {k: v for k, v in e.items() if k != "time"}
        if abs(sum(parts.values()) - e["time"]) > 1e-8:
            failures.append("%s: rank %d: the entries sum to %.9f, its time is %.9f" % (what, r, sum(parts.values()), e["time"]))
        for k, v in parts.items():
            if v < -1e-9:
                failures.append("%s: rank %d: %s is negative (%.9f)" % (what, r, k, v))
        top = [s for s in by_rank.get(r, []) if s[3] == 0]
        if not top:
            continue
        end = max(s[2] for s in top)
        in_mpi = sum(s[2] - s[1] for s in top if s[4] != "program")
        if abs(end - e["time"]) > 1e-8:
            failures.append("%s: rank %d: time %.9f in the breakdown, %.9f on the timeline" % (what, r, e["time"], end))
        mpi_parts = sum(v for k, v in parts.items() if k not in ("program", "compute", "outside/cpu"))
        if abs(in_mpi - mpi_parts) > 1e-8:
            failures.append("%s: rank %d: %.9f in MPI calls on the timeline, %.9f in the breakdown" % (what, r, in_mpi, mpi_parts))


def paje_states(path, what, case):
    """The ranks' states and the transfers' (lanes) from pj_dump, and the checks of the arrows and
    the links' variables."""
    r = subprocess.run(["pj_dump", "-l", "12", path], capture_output=True, text=True)
    if r.returncode != 0:
        failures.append("%s: pj_dump exit %d: %s" % (what, r.returncode, r.stderr.strip()[:300]))
        return None, None
    states, xfers, links = [], [], 0  # (container, start, end, depth, name)
    load, use = {}, {}  # link -> [(start, end, value)]
    for line in r.stdout.splitlines():
        f = [x.strip() for x in line.split(",")]
        if f[0] == "State":
            st = (f[1], float(f[3]), float(f[4]), int(float(f[6])), f[7])
            (states if f[2] == "state" else xfers).append(st)
        elif f[0] == "Variable":  # Variable, container, type, start, end, duration, value
            iv = (float(f[3]), float(f[4]), float(f[6]))
            if f[2] == "transfers":
                load.setdefault(f[1], []).append(iv)
            elif f[2] in ("utilisation", "utilisation up", "utilisation down"):
                use.setdefault(f[1], []).append(iv)
            else:
                failures.append("%s: link %s has an unknown variable %s" % (what, f[1], f[2]))
            if float(f[6]) < 0:
                failures.append("%s: link %s carries %s %s" % (what, f[1], f[6], f[2]))
        elif f[0] == "Link":  # Link, container, type, start, end, duration, value, from, to, key
            links += 1
            if float(f[4]) < float(f[3]) - EPS or not f[7].startswith("rank") or not f[8].startswith("rank"):
                failures.append("%s: message arrow %s runs from %s at %s to %s at %s" % (what, f[9], f[7], f[3], f[8], f[4]))
    if links == 0:
        failures.append("%s: no message arrows" % what)
    if not load:
        failures.append("%s: no link carries a transfer" % what)
    if not use:
        failures.append("%s: no link has a utilisation" % what)
    # a link is used only while a transfer crosses it (the rates are the flows')
    for name, ivs in use.items():
        for s0, e0, v in ivs:
            if v > 0 and e0 - s0 > EPS and any(l[2] == 0 and l[0] < e0 - EPS and s0 < l[1] - EPS for l in load.get(name, [])):
                failures.append("%s: link %s is %.3f used over [%.9f, %.9f] with no transfer on it" % (what, name, v, s0, e0))
                break
    # the ping-pong's large messages fill the slowest link of a route through the network; inside one
    # node (a one-node platform: only memory controllers and socket links) a lone copy is one core's,
    # which a memory controller serves at a fraction of its rate (one Haswell core's 15.5 GB/s of a
    # 68 GB/s controller), so there it need only be used
    node_only = all(name.startswith(("mem:", "qpi:")) for name in use)
    peak = max((v for ivs in use.values() for _, _, v in ivs), default=0)
    if case == "pingpong" and not node_only and peak < 0.5:
        failures.append("%s: no link is ever more than half used by the ping-pong's large messages" % what)
    if case == "pingpong" and node_only and peak <= 0:
        failures.append("%s: no node channel is ever used by the ping-pong's large messages" % what)
    names = check_paje_transfers(xfers, what)
    if len(xfers) and sum(1 for x in xfers if x[3] == 0) != links:
        failures.append("%s: %d transfers in the lanes, %d message arrows" % (what, sum(1 for x in xfers if x[3] == 0), links))
    return states, (sum(1 for x in xfers if x[3] == 0), names)


def check_paje_transfers(xfers, what):
    """In each lane the transfers follow each other without overlap, and each one's pieces (depth 1)
    tile it from its start to its end (printed to the nanosecond). Returns the pieces' names."""
    lanes, names = {}, set()
    for x in xfers:
        lanes.setdefault(x[0], []).append(x)
    for lane, xs in lanes.items():
        xs.sort(key=lambda x: (x[1], x[3], x[2]))
        tops = [x for x in xs if x[3] == 0]
        for a, b in zip(tops, tops[1:]):
            if b[1] < a[2] - EPS:
                failures.append("%s: lane %s: transfers [%.9f, %.9f] and [%.9f, %.9f] overlap" % (what, lane, a[1], a[2], b[1], b[2]))
                return names
        i = 0
        for top in tops:
            pieces = [x for x in xs if x[3] == 1 and top[1] - EPS <= x[1] and x[2] <= top[2] + EPS]
            pieces.sort(key=lambda x: (x[1], x[2]))
            at = top[1]
            for p in pieces:
                names.add(p[4])
                if abs(p[1] - at) > 1.5 * EPS:
                    failures.append("%s: lane %s: transfer at %.9f: piece %s starts at %.9f, not %.9f" % (what, lane, top[1], p[4], p[1], at))
                    return names
                at = p[2]
            if not pieces or abs(at - top[2]) > 1.5 * EPS:
                failures.append("%s: lane %s: transfer [%.9f, %.9f]: its pieces end at %.9f" % (what, lane, top[1], top[2], at))
                return names
    return names


def check_tiling(states, what):
    ranks = {}
    for s in states:
        ranks.setdefault(s[0], []).append(s)
    for rank, ss in ranks.items():
        top = sorted((s for s in ss if s[3] == 0), key=lambda s: (s[1], s[2]))
        if not top or abs(top[0][1]) > EPS:
            failures.append("%s: %s: the first top-level state does not start at 0" % (what, rank))
            continue
        for a, b in zip(top, top[1:]):
            if abs(b[1] - a[2]) > EPS:
                failures.append("%s: %s: top-level states %s (ends %.9f) and %s (starts %.9f) do not meet"
                                % (what, rank, a[4], a[2], b[4], b[1]))
                break
        for s in ss:
            if s[3] == 0:
                continue
            parents = [p for p in ss if p[3] == s[3] - 1 and p[1] - EPS <= s[1] and s[2] <= p[2] + EPS]
            if not parents:
                failures.append("%s: %s: nested state %s [%.9f, %.9f] lies in no state of the level above"
                                % (what, rank, s[4], s[1], s[2]))
                break
    return ranks


def chrome_states(path, what):
    try:
        events = json.load(open(path))
    except ValueError as e:
        failures.append("%s: not valid JSON: %s" % (what, e))
        return None
    open_, last, out, flows, transfers, counters = {}, {}, [], {}, {}, set()
    for e in events:
        if e.get("ph") == "M":
            continue
        if e.get("ph") == "C":  # a link's load (transfers) or its utilisation (up and down, or whole)
            if any(v < 0 for v in e["args"].values()) or not e["args"] or \
                    not set(e["args"]) <= {"transfers", "utilisation", "up", "down"}:
                failures.append("%s: link %s: counter %s" % (what, e["name"], e["args"]))
            counters.add("utilisation" if e["name"].endswith(" utilisation") else "transfers")
            continue
        if e.get("ph") in ("b", "e") and e.get("cat") == "transfer":  # a transfer and its phases
            transfers.setdefault(e["id"], []).append((e["ph"], e["name"], e["ts"]))
            continue
        if e.get("ph") in ("s", "f"):  # a message's arrow: one start and one end per id
            flows[e["id"]] = flows.get(e["id"], "") + e["ph"]
            continue
        tid, ts = e["tid"], e["ts"]
        if ts < last.get(tid, 0) - 1e-3:
            failures.append("%s: rank %d: events out of time order at %.3f us" % (what, tid, ts))
            return None
        last[tid] = ts
        if e["ph"] == "B":
            open_.setdefault(tid, []).append((e["name"], ts))
        elif e["ph"] == "E":
            if not open_.get(tid):
                failures.append("%s: rank %d: an E event with no state open" % (what, tid))
                return None
            name, t0 = open_[tid].pop()
            out.append((tid, name, ts - t0))
        else:
            failures.append("%s: unexpected event phase %r" % (what, e.get("ph")))
            return None
    if any(open_.values()):
        failures.append("%s: states left open at the end" % what)
    if counters != {"transfers", "utilisation"}:
        failures.append("%s: the links' counters are %s, not transfers and utilisation" % (what, sorted(counters)))
    if not flows or any(v != "sf" for v in flows.values()):
        failures.append("%s: message arrows missing or not each one start then one end" % what)
    names = set()
    for tid, ev in transfers.items():
        # "transfer" opens first and closes last; inside it the phases follow each other without gap
        # and end where it ends (the timestamps are printed to the nanosecond)
        if ev[0][:2] != ("b", "transfer") or ev[-1][:2] != ("e", "transfer"):
            failures.append("%s: transfer %d is not one slice around its phases" % (what, tid))
            break
        inner, at = ev[1:-1], ev[0][2]
        for b, e in zip(inner[0::2], inner[1::2]):
            names.add(b[1])
            if b[0] != "b" or e[0] != "e" or b[1] != e[1] or abs(b[2] - at) > 0.0015 or e[2] < b[2] - 0.0015:
                failures.append("%s: transfer %d: its phases do not follow each other: %s" % (what, tid, inner))
                return out, names, len(transfers)
            at = e[2]
        if abs(at - ev[-1][2]) > 0.0015 * (1 + len(inner)):
            failures.append("%s: transfer %d: its phases end at %.3f us, the transfer at %.3f us" % (what, tid, at, ev[-1][2]))
            break
    return out, names, len(transfers)


def main():
    if not os.path.exists("/usr/bin/pj_dump"):
        print("pj_dump not installed (Debian package pajeng; .ci/setup installs it)")
        return 1
    tmp = tempfile.mkdtemp(prefix="icsim-trace-test-")
    for platform in PLATFORMS:
        for case, n, prog, call in CASES:
            if platform.startswith("niisi-rapidio") and n > 4:
                n = 4  # the RapidIO prototype has four single-core nodes
            what = "%s %s (%d ranks)" % (platform, case, n)
            rc0, out0, cmd = run(platform, n, prog, [])
            paje, chrome = os.path.join(tmp, "t.paje"), os.path.join(tmp, "t.json")
            rc1, out1, err1 = run(platform, n, prog, ["--trace", paje, "--breakdown"], want_err=True)
            rc2, out2, _ = run(platform, n, prog, ["--trace", chrome, "--trace-format", "chrome"])
            if rc0 != 0 or rc1 != 0 or rc2 != 0:
                failures.append("%s: exit status %d / %d / %d (%s)" % (what, rc0, rc1, rc2, cmd))
                continue
            if out0 != out1 or out0 != out2:
                failures.append("%s: the program's output changes with --trace" % what)
            states, pt = paje_states(paje, what + " paje", case)
            bd = breakdown(err1, what)
            if bd is not None and states is not None:
                if len(bd) != n:
                    failures.append("%s: --breakdown has %d ranks, expected %d" % (what, len(bd), n))
                check_breakdown(bd, states, what + " breakdown")
            if states is not None:
                ranks = check_tiling(states, what + " paje")
                names = {s[4] for s in states}
                for need in (call, "MPI_Finalize", "program") + tuple(CPU_PARTS.get(platform, []) if case == "pingpong" else ()):
                    if need not in names:
                        failures.append("%s paje: no %s state" % (what, need))
                if len(ranks) != n:
                    failures.append("%s paje: %d ranks have states, expected %d" % (what, len(ranks), n))
            cs = chrome_states(chrome, what + " chrome")
            phase_names, ntransfers = set(), 0
            if cs is not None:
                cs, phase_names, ntransfers = cs
            for need in (PHASES if case == "pingpong" else SHARING_PHASES).get(platform, []):
                if need not in phase_names:
                    failures.append("%s chrome: no transfer phase %r (phases: %s)" % (what, need, sorted(phase_names)))
                if pt is not None and need not in pt[1]:
                    failures.append("%s paje: no transfer phase %r (phases: %s)" % (what, need, sorted(pt[1])))
            # a ping-pong's transfers never share a link: a layer's time alone is their time, to the ns
            for never in (SHARING_PHASES.get(platform, []) if case == "pingpong" else []):
                if never in phase_names:
                    failures.append("%s chrome: phase %r in a ping-pong, whose transfers share nothing" % (what, never))
            if pt is not None and cs is not None and (pt[0] != ntransfers or pt[1] != phase_names):
                failures.append("%s: %d transfers with phases %s in Paje, %d with %s in Chrome"
                                % (what, pt[0], sorted(pt[1]), ntransfers, sorted(phase_names)))
            # the same states of non-zero length (longer than 100 ns: pj_dump leaves out one of zero length at the very end)
            if cs is not None and states is not None and \
                    sorted(x[1] for x in cs if x[2] > 0.1) != sorted(s[4] for s in states if s[2] - s[1] > 1e-7):
                failures.append("%s: the Chrome and Paje traces hold different states" % what)
            print("%-18s %-9s %d ranks: %d states, %d transfers" % (platform, case, n, len(states or []), ntransfers))
    # numa's channel shares inside a node: none for a lone copy (in a socket, across the sockets:
    # its time alone is its time), some when four copies share a memory controller
    for place, prog, want in (("1x2", ["osu_latency", "-m", "1:4194304", "-i", "2", "-x", "1"], False),
                              ("0.0,0.1", ["osu_latency", "-m", "1:4194304", "-i", "2", "-x", "1"], False),
                              ("1x4", ["contention", "-P", "self", "-m", "8", "-n", "1"], True)):
        n = 4 if want else 2
        cmd = [ICSIM, "run", "-p", os.path.join(SRC, "platforms", "sibsutis-numa-ib.yaml"), "-n", str(n), "--place", place,
               "--host-timing", "off", "--breakdown", os.path.join(BUILD, "workloads", prog[0]), *prog[1:]]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        shares = [l for l in r.stderr.splitlines() if l.strip().startswith("numa/channel shares")]
        if r.returncode != 0 or bool(shares) != want or (want and float(shares[0].split()[2]) <= 0):
            failures.append("numa %s %s: channel shares %s, expected %s" % (prog[0], place, shares or "none", "some" if want else "none"))
    # a run whose figures depend on where buffers land (generic's registration cache is keyed on
    # addresses): a trace must not move them
    prog = ["osu_allreduce", "-m", "131072:1048576", "-i", "50", "-x", "5"]
    rc0, out0, _ = run("sibsutis-numa-ib", 4, prog, [])
    rc1, out1, _ = run("sibsutis-numa-ib", 4, prog, ["--trace", os.path.join(tmp, "r.json"), "--trace-format", "chrome"])
    if rc0 or rc1 or out0 != out1:
        failures.append("registration-sensitive allreduce: the figures change with --trace:\n%s\n%s" % (out0, out1))
    # a deadlocked run's timeline is written too: both ranks stuck in MPI_Recv (raw pushes: pj_dump
    # leaves out states of no length at the end of a container, and this deadlock is at time 0)
    dl = os.path.join(tmp, "deadlock.paje")
    r = subprocess.run([ICSIM, "run", "-p", os.path.join(SRC, "platforms", "score-gige-xeon.yaml"), "-n", "2",
                        "--host-timing", "off", "--trace", dl, os.path.join(BUILD, "tests", "progs", "deadlock")],
                       capture_output=True, text=True, timeout=300)
    if not os.path.exists(dl) or "written up to the deadlock" not in r.stderr:
        failures.append("deadlock: no trace written (%s)" % r.stderr.strip()[-300:])
    else:
        text = open(dl).read()
        recv = [l.split()[1] for l in text.splitlines() if l.startswith("6 ") and '"MPI_Recv"' in l]
        stuck = {l.split()[3] for l in text.splitlines() if recv and l.startswith("11 ") and l.split()[4] == recv[0]}
        if stuck != {"C_rank0", "C_rank1"} or subprocess.run(["pj_dump", dl], capture_output=True).returncode != 0:
            failures.append("deadlock: the trace does not show both ranks in MPI_Recv, or pj_dump refuses it")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


sys.exit(main())
