#!/usr/bin/env python3
"""Call and include circles between source files.

    call_circles.py OBJ...                     the call graph of these object files
    call_circles.py --includes [-I DIR]... SRC...   the include graph of these sources/headers
    call_circles.py --self-test                its own check, on two small C files compiled here

Calls: for each object file, the global symbols it defines and those it uses (`nm -P`); file A
calls file B when A uses a symbol B defines (a function or data: naming B's table is depending on
B). Give the objects of one linked unit (a library, or a library and those it links against): a
name resolves within a link, so two libraries that both interpose a libc function (exit, getpid)
do not call each other.

Includes: file A includes file B when A has `#include "B"` that resolves (A's folder first, then
each -I DIR) to one of the files given; `#include MACRO` and <...> are not followed.

Any strongly connected set of more than one file is a circle: each is printed with the symbols (or
includes) on every arrow inside it, and the exit status is 1. Without a circle it prints the files
bottom first (each uses only files before it) and exits 0. An argument may be a ;-separated list
of files (CMake's $<TARGET_OBJECTS:lib>). Exit 2: bad use, or nothing read
(objects with no symbols: a checker that sees nothing must not pass). Python standard library only.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile


def die(msg):
    sys.stderr.write("call_circles.py: %s\n" % msg)
    sys.exit(2)


def short_names(paths):
    """The shortest trailing path of each file that no other given file shares (bind.c.o, or
    abi/adaptor/model.c.o when two model.c.o are given); a trailing .o is dropped."""
    parts = [os.path.normpath(p).split(os.sep) for p in paths]
    names = []
    for p in parts:
        k = 1
        while k < len(p) and sum(1 for q in parts if q[-k:] == p[-k:]) > 1:
            k += 1
        n = "/".join(p[-k:])
        names.append(n[:-2] if n.endswith(".o") else n)
    return names


def read_symbols(obj):
    """(strong definitions, weak definitions, uses) of one object file's global symbols."""
    r = subprocess.run(["nm", "-P", obj], capture_output=True, text=True)
    if r.returncode != 0:
        die("nm %s: %s" % (obj, r.stderr.strip()))
    strong, weak, used = set(), set(), set()
    for line in r.stdout.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        name, t = f[0], f[1]
        if t == "U" or t in "wv":  # undefined (lower-case w/v: an undefined weak reference)
            used.add(name)
        elif t in "WV":
            weak.add(name)
        elif t in "ABCDGRSTi" or t == "u":  # global data, text, common, ifunc, unique
            strong.add(name)
    return strong, weak, used


def call_graph(objs):
    names = short_names(objs)
    syms = {n: read_symbols(o) for n, o in zip(names, objs)}
    if not any(s or w or u for s, w, u in syms.values()):
        die("no symbols in %d object files (nm found nothing to check)" % len(objs))
    strong, weak = {}, {}
    for n, (s, w, _) in syms.items():
        for x in s:
            strong.setdefault(x, []).append(n)
        for x in w:
            weak.setdefault(x, []).append(n)
    edges = {n: {} for n in names}  # edges[a][b] = symbols a uses that b defines
    for a, (_, _, used) in syms.items():
        for x in used:
            for b in strong.get(x) or weak.get(x) or []:
                if b != a:
                    edges[a].setdefault(b, []).append(x)
    return names, edges


INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def include_graph(srcs, dirs):
    names = short_names(srcs)
    real = {os.path.realpath(s): n for s, n in zip(srcs, names)}
    edges = {n: {} for n in names}
    for s, a in zip(srcs, names):
        with open(s, errors="replace") as f:
            text = f.read()
        for inc in INCLUDE.findall(text):
            for d in [os.path.dirname(os.path.abspath(s))] + dirs:
                p = os.path.realpath(os.path.join(d, inc))
                if os.path.exists(p):
                    b = real.get(p)
                    if b and b != a:
                        edges[a].setdefault(b, []).append('#include "%s"' % inc)
                    break
    return names, edges


def circles(names, edges):
    """Strongly connected components (Tarjan, without recursion), each in the order found, and
    every file in an order where each comes after all it uses (when there is no circle)."""
    index, low, on, stack, comps, counter = {}, {}, set(), [], [], [0]
    for root in names:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    comps.append(sorted(comp))
    # Tarjan completes a component after every component it reaches: that order is bottom first.
    return [c for c in comps if len(c) > 1], [c[0] for c in comps if len(c) == 1]


def report(names, edges, what):
    found, order = circles(names, edges)
    narrows = sum(len(b) for b in edges.values())
    for comp in found:
        print("circle of %d files: %s" % (len(comp), " ".join(comp)))
        for a in comp:
            for b in sorted(edges[a]):
                if b in comp:
                    print("  %s -> %s: %s" % (a, b, " ".join(sorted(set(edges[a][b])))))
    if found:
        print("%d circle(s) among %d files (%d arrows); every arrow should run one way" %
              (len(found), len(names), narrows))
        return 1
    print("%s: %d files, %d arrows, no circle; bottom first: %s" % (what, len(names), narrows, " ".join(order)))
    return 0


def self_test():
    """Two files calling each other must be a circle, with the symbols named; one way must not."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        die("--self-test: no C compiler (cc)")
    d = tempfile.mkdtemp(prefix="call_circles.")
    try:
        def obj(name, text):
            src = os.path.join(d, name + ".c")
            with open(src, "w") as f:
                f.write(text)
            subprocess.run([cc, "-c", "-o", src + ".o", src], check=True)
            return src + ".o"
        low = obj("low", "int up(void);\nint down(void) { return up(); }\n")
        high = obj("high", "int down(void);\nint up(void) { return 1; }\nint top(void) { return down(); }\n")
        fixed = obj("fixed", "int down(void) { return 2; }\n")
        names, edges = call_graph([low, high])
        found, _ = circles(names, edges)
        ok = found == [["high.c", "low.c"]] and edges["low.c"] == {"high.c": ["up"]}
        names, edges = call_graph([fixed, high])
        found, order = circles(names, edges)
        ok = ok and not found and order == ["fixed.c", "high.c"]
    finally:
        shutil.rmtree(d)
    print("call_circles.py --self-test: %s" % ("passed" if ok else "FAILED"))
    return 0 if ok else 1


def main(argv):
    # an argument may be a ;-separated list: CMake's $<TARGET_OBJECTS:lib> in an add_test command
    argv = [a for arg in argv for a in arg.split(";") if a]
    if argv == ["--self-test"]:
        return self_test()
    if argv and argv[0] == "--includes":
        dirs, files, args = [], [], argv[1:]
        while args:
            a = args.pop(0)
            if a == "-I" and args:
                dirs.append(args.pop(0))
            elif a.startswith("-I") and len(a) > 2:
                dirs.append(a[2:])
            else:
                files.append(a)
        if not files:
            die("usage:\n" + __doc__)
        names, edges = include_graph(files, dirs)
        return report(names, edges, "includes")
    if not argv or argv[0].startswith("-"):
        die("usage:\n" + __doc__)
    names, edges = call_graph(argv)
    return report(names, edges, "calls")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
