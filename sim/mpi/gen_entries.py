#!/usr/bin/env python3
"""The MPI layer's one entry and leave bracket (sim/mpi/README.md, "The bracket of every call").

    gen_entries.py OUT_H OUT_C CC [CFLAG...] -- SOURCE...

Every MPI_* function the layer's C sources define (found in their preprocessed text, so the
entry points that macros write out count too) is renamed in those sources to icsim_layer_MPI_*
by OUT_H, which they are compiled with (-include). OUT_C defines the public MPI_* names: each
calls icsim_enter(NAME), the layer's function, then icsim_leave(). Calls of the layer to its own
entry points (a collective's MPI_Send) are renamed too, so they go straight to the layer's
function: only the calls a program makes (C, Fortran through fortran.c, a binary through the
adaptor) pass through the bracket. A variadic function (MPI_Pcontrol) cannot be forwarded and is
left as it is. Python standard library only.
"""
import re
import subprocess
import sys

IDENT = re.compile(r"[A-Za-z_]\w*")


def preprocess(cc, flags, src):
    out = subprocess.run([cc, "-E", "-P", *flags, src], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("gen_entries.py: cannot preprocess %s:\n%s" % (src, out.stderr))
    return out.stdout


def matching(text, i, open_ch, close_ch):
    """Index just past the bracket closing the one at TEXT[i]."""
    depth = 0
    while i < len(text):
        c = text[i]
        if c == open_ch:
            depth += 1
        elif c == close_ch:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return -1


def definitions(text):
    """(return type, name, parameter text) of each MPI_* function defined at file scope."""
    found, i, depth, start = [], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                start = i + 1
        elif c == ";" and depth == 0:
            start = i + 1
        elif c == '"' or c == "'":  # skip a literal
            j = i + 1
            while j < len(text) and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j
        elif depth == 0 and text.startswith("MPI_", i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = IDENT.match(text, i)
            name = m.group(0)
            j = m.end()
            while j < len(text) and text[j].isspace():
                j += 1
            if j < len(text) and text[j] == "(":
                end = matching(text, j, "(", ")")
                k = end
                while k < len(text) and text[k].isspace():
                    k += 1
                if k < len(text) and text[k] == "{":
                    ret = " ".join(text[start:i].split())
                    ret = re.sub(r"__attribute__\s*\(\(.*?\)\)", "", ret).strip()
                    found.append((ret, name, " ".join(text[j + 1:end - 1].split())))
                    i = k
                    continue
                i = end
                continue
            i = j
            continue
        i += 1
    return found


def split_params(params):
    out, depth, cur = [], 0, ""
    for c in params:
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        out.append(cur.strip())
    return out


def param_name(p):
    fp = re.search(r"\(\s*\*\s*(\w+)\s*\)", p)  # a function pointer: void (*fn)(int)
    if fp:
        return fp.group(1)
    p = re.sub(r"\[[^\]]*\]", "", p)  # int reqs[]
    names = IDENT.findall(p)
    return names[-1]


def param_type(p, name):
    """The type of parameter text P named NAME ("const void *", "int *" for "int reqs[]")."""
    t = p
    if "[" in t:
        t = re.sub(r"\[[^\]]*\]", "", t) + " *"
    t = re.sub(r"\b%s\b" % re.escape(name), "", t, count=1)
    return " ".join(t.replace("*", " * ").split()).replace("* *", "**")


SEND_P2P = {"MPI_Send", "MPI_Ssend", "MPI_Rsend", "MPI_Bsend", "MPI_Isend", "MPI_Issend", "MPI_Irsend", "MPI_Ibsend",
            "MPI_Send_init", "MPI_Ssend_init", "MPI_Rsend_init", "MPI_Bsend_init"}
RECV_P2P = {"MPI_Recv", "MPI_Irecv", "MPI_Recv_init", "MPI_Probe", "MPI_Iprobe", "MPI_Mprobe", "MPI_Improbe"}
OTHER_P2P = {"MPI_Sendrecv", "MPI_Sendrecv_replace", "MPI_Mrecv", "MPI_Imrecv"}
REQUEST_ARRAYS = {"MPI_Waitall", "MPI_Waitany", "MPI_Waitsome", "MPI_Testall", "MPI_Testany", "MPI_Testsome",
                  "MPI_Startall"}
RMA_CALLS = {"MPI_Put", "MPI_Get", "MPI_Accumulate", "MPI_Get_accumulate", "MPI_Fetch_and_op", "MPI_Compare_and_swap",
             "MPI_Rput", "MPI_Rget", "MPI_Raccumulate", "MPI_Rget_accumulate"}
RMA_SYNC_CALLS = {"MPI_Win_lock", "MPI_Win_unlock", "MPI_Win_lock_all", "MPI_Win_unlock_all", "MPI_Win_start",
                  "MPI_Win_complete", "MPI_Win_post", "MPI_Win_wait", "MPI_Win_test", "MPI_Win_fence", "MPI_Win_free"}
TYPE_MAKERS = {"MPI_Type_indexed", "MPI_Type_create_hindexed", "MPI_Type_create_struct", "MPI_Type_create_indexed",
               "MPI_Type_hindexed", "MPI_Type_struct"}
# point to point: which count and type go with each buffer
BUF_OF = {"buf": ("count", "type"), "sbuf": ("scount", "stype"), "rbuf": ("rcount", "rtype")}


# Communicators made from another inherit its error handler (MPI 4.0, 9.3), which SMPI 3.32 leaves
# to MPI_Comm_dup alone; the parent's parameter, for each maker. MPICH 4.0 gives MPI_Comm_create's
# and MPI_Comm_create_group's results MPI_ERRORS_ARE_FATAL, and icsim does as it does.
# The constructors of communicators: each takes a context id (context_ids.c), given back by
# MPI_Comm_free and MPI_Comm_disconnect. MPI_Comm_idup takes its own in comm.c (its error comes at the wait).
MAKERS = {"MPI_Cart_create", "MPI_Cart_sub", "MPI_Comm_create", "MPI_Comm_create_group", "MPI_Comm_dup",
          "MPI_Comm_dup_with_info", "MPI_Comm_split", "MPI_Comm_split_type", "MPI_Dist_graph_create",
          "MPI_Dist_graph_create_adjacent", "MPI_Graph_create", "MPI_Intercomm_create",
          "MPI_Intercomm_create_from_groups", "MPI_Intercomm_merge"}
INHERITS = {"MPI_Comm_split": "comm", "MPI_Comm_split_type": "comm", "MPI_Cart_create": "comm",
            "MPI_Cart_sub": "comm", "MPI_Graph_create": "comm", "MPI_Dist_graph_create": "comm",
            "MPI_Dist_graph_create_adjacent": "comm", "MPI_Intercomm_create": "local",
            "MPI_Intercomm_merge": "inter"}


def checks(name, params):
    """The argument checks (sim/mpi/checks.h) of entry point NAME, as C statements, in MPICH's
    order: the handles the call acts on, then counts, ranks, tags, types, buffers and pointers. """
    ps = [(param_type(p, param_name(p)), param_name(p)) for p in params]
    names = {n for _, n in ps}
    typed = dict((n, t) for t, n in ps)
    out = []

    def q(s):
        return '"%s"' % s
    if typed.get("comm") == "MPI_Comm" and name != "MPI_Abort":
        out.append("icsim_check_comm(&ck, %s, comm);" % q("comm"))
    if typed.get("win") == "MPI_Win":
        out.append("icsim_check_win(&ck, %s, win);" % q("win"))
    if name.startswith("MPI_Info_") and typed.get("info") == "MPI_Info":
        out.append("icsim_check_info(&ck, %s, info);" % q("info"))
    if name in ("MPI_Mrecv", "MPI_Imrecv"):
        out.append("icsim_check_message(&ck, %s, msg);" % q("msg"))
    p2p = name in SEND_P2P or name in RECV_P2P or name in OTHER_P2P
    if p2p:
        for n in ("count", "scount", "rcount"):
            if n in names:
                out.append("icsim_check_count(&ck, %s, %s);" % (q(n), n))
        for n in ("dest", "src"):
            if n in names:
                out.append("icsim_check_rank(&ck, %s, %s, comm, %d);" % (q(n), n, n == "src"))
        for n in ("tag", "stag", "rtag"):
            if n in names:
                recv = n == "rtag" or (n == "tag" and name in RECV_P2P)
                out.append("icsim_check_tag(&ck, %s, %s, %d);" % (q(n), n, recv))
        for b, (cn, tn) in BUF_OF.items():
            if tn in names:
                out.append("icsim_check_type(&ck, %s, %s);" % (q(tn), tn))
        for b, (cn, tn) in BUF_OF.items():
            if b in names and cn in names and tn in names:
                out.append("icsim_check_buf(&ck, %s, %s, %s, %s);" % (q(b), b, cn, tn))
    if re.match(r"MPI_I?[Nn]eighbor_", name):
        # the layer's neighbourhood algorithms index the buffers straight away (coll_neighbor.c)
        for n in ("scount", "rcount"):
            if n in names:
                out.append("icsim_check_count(&ck, %s, %s);" % (q(n), n))
        for n in ("stype", "rtype"):
            if n in names:
                out.append("icsim_check_type(&ck, %s, %s);" % (q(n), n))
        for b, (cn, tn) in BUF_OF.items():
            if b in names and cn in names and tn in names:
                out.append("icsim_check_buf(&ck, %s, %s, %s, %s);" % (q(b), b, cn, tn))
    if name in ("MPI_Get_elements", "MPI_Get_elements_x"):
        out.append("icsim_check_ptr(&ck, %s, status);" % q("status"))
        out.append("icsim_check_type(&ck, %s, type);" % q("datatype"))
    for t, n in ps:
        if t == "MPI_Group":
            out.append("icsim_check_group(&ck, %s, %s);" % (q(n), n))
    if name in ("MPI_Comm_create", "MPI_Comm_create_group"):
        out.append("icsim_check_subgroup(&ck, %s, group, comm);" % q("group"))
    if name == "MPI_Comm_create_group":
        out.append("icsim_check_tag(&ck, %s, tag, 0);" % q("tag"))
    if name in ("MPI_Pack", "MPI_Unpack"):
        # MPICH: a null input buffer with data to pack is a wrong argument, not a wrong buffer
        out.append("if (%s > 0) icsim_check_data(&ck, %s, in);" % ("incount" if name == "MPI_Pack" else "insize", q("inbuf")))
    if name in RMA_CALLS:
        # the origin and result buffers; SMPI checks a null one but not MPI_BOTTOM, which a binary's
        # null becomes through the adaptor, and the layer's one-sided calls would read it
        for b, cn, tn in (("obuf", "ocount", "otype"), ("rbuf", "rcount", "rtype"), ("obuf", "1", "type"),
                          ("rbuf", "1", "type"), ("cbuf", "1", "type")):
            if b in names and (cn == "1" or cn in names) and tn in names and (cn != "1" or "ocount" not in names):
                # with MPI_NO_OP the origin buffer is not read (MPI 4.0, 12.3.4): it may be null
                cond = "if (op != MPI_NO_OP) " if b == "obuf" and "op" in names else ""
                out.append("%sicsim_check_buf(&ck, %s, %s, %s, %s);" % (cond, q(b), b, cn, tn))
    if name in REQUEST_ARRAYS:
        out.append("icsim_check_count(&ck, %s, n);" % q("count"))
        out.append("if (n > 0) icsim_check_ptr(&ck, %s, reqs);" % q("array_of_requests"))
    if name in TYPE_MAKERS:
        out.append("icsim_check_count(&ck, %s, count);" % q("count"))
        out.append("icsim_check_counts(&ck, %s, lens, count);" % q("array_of_blocklengths"))
    if "keyval" in names and not name.endswith("create_keyval") and not name.startswith("MPI_Keyval_create"):
        # a key made for another kind of object (keyvals.c), MPICH's MPI_ERR_KEYVAL
        kind = 2 if name.startswith("MPI_Type_") else 3 if name.startswith("MPI_Win_") else 1
        key = "(keyval ? *keyval : MPI_KEYVAL_INVALID)" if typed["keyval"] == "int *" else "keyval"
        out.append("icsim_check_keyval(&ck, %s, %s, %d);" % (q("keyval"), key, kind))
    if name in ("MPI_Win_create", "MPI_Win_allocate", "MPI_Win_allocate_shared"):
        out.append("icsim_check_win_size(&ck, %s, size);" % q("size"))
        out.append("icsim_check_disp_unit(&ck, %s, disp);" % q("disp_unit"))
    for t, n in ps:
        if t == "MPI_Request *" and n == "req":
            out.append("icsim_check_ptr(&ck, %s, req);" % q("request"))
        if t == "MPI_Message *" and name in ("MPI_Mprobe", "MPI_Improbe"):
            out.append("icsim_check_ptr(&ck, %s, msg);" % q("message"))
    if name == "MPI_Compare_and_swap":
        out.append("icsim_check_cas_type(&ck, type);")
    if name == "MPI_Cart_create":
        out.append("icsim_check_cart(&ck, comm, ndims, dims, out);")
    if name in ("MPI_Win_lock", "MPI_Win_unlock", "MPI_Win_flush", "MPI_Win_flush_local"):
        out.append("icsim_check_win_rank(&ck, %s, rank, win);" % q("rank"))
    if name in RMA_CALLS:  # the target before the epoch, as MPICH (its errors/rma/winerr)
        out.append("icsim_check_win_rank(&ck, %s, target, win);" % q("target_rank"))
    if name in MAKERS:
        out.append("icsim_check_context_ids(&ck);")
    # the epochs of one-sided communication, last (rma_sync.c)
    if name in RMA_CALLS or name in RMA_SYNC_CALLS:
        target = "target" if name in RMA_CALLS else "rank" if name in ("MPI_Win_lock", "MPI_Win_unlock") else "MPI_PROC_NULL"
        handle = "(win ? *win : MPI_WIN_NULL)" if name == "MPI_Win_free" else "win"
        out.append("icsim_rma_sync_check(&ck, %s, %s);" % (handle, target))
    on_comm = "comm" if typed.get("comm") == "MPI_Comm" else "MPI_COMM_NULL"
    on_win = "win" if typed.get("win") == "MPI_Win" else "(win ? *win : MPI_WIN_NULL)" if name == "MPI_Win_free" \
        else "MPI_WIN_NULL"
    return out, on_comm, on_win


def after(name):
    """What the bracket records once NAME has succeeded: (statements before the call, after it)."""
    if name == "MPI_Win_free":
        return ["MPI_Win freed = win ? *win : MPI_WIN_NULL;"], ["icsim_rma_sync_forget(freed);"]
    if name in MAKERS:
        return [], ["icsim_context_ids_taken(out ? *out : MPI_COMM_NULL);"]
    if name in ("MPI_Comm_free", "MPI_Comm_disconnect"):
        return ["MPI_Comm freed = comm ? *comm : MPI_COMM_NULL;"], ["icsim_context_ids_given(freed);"]
    if name in RMA_SYNC_CALLS:
        target = "rank" if name in ("MPI_Win_lock", "MPI_Win_unlock") else "MPI_PROC_NULL"
        assert_ = "assert" if name == "MPI_Win_fence" else "0"
        flag = "(flag ? *flag : 0)" if name == "MPI_Win_test" else "0"
        return [], ['icsim_rma_sync_done("%s", win, %s, %s, %s);' % (name, target, assert_, flag)]
    return [], []


def main(argv):
    out_h, out_c, cc = argv[1], argv[2], argv[3]
    sep = argv.index("--")
    flags, sources = argv[4:sep], argv[sep + 1:]
    entries = {}
    for src in sources:
        for ret, name, params in definitions(preprocess(cc, flags, src)):
            if "..." in params or not ret:
                continue
            entries.setdefault(name, (ret, params, src))
    if len(entries) < 50:
        sys.exit("gen_entries.py: only %d entry points found in %d files: the parser missed them" % (len(entries), len(sources)))
    h = ["/* Generated by sim/mpi/gen_entries.py: the layer's entry points renamed in its own sources,",
         " * declared as SMPI's mpi.h declares them where it does. Do not edit. */",
         "#ifndef ICSIM_MPI_ENTRIES_H", "#define ICSIM_MPI_ENTRIES_H", "#include <mpi.h>"]
    for name in sorted(entries):
        ret, params, _ = entries[name]
        h.append("%s icsim_layer_%s(%s);" % (ret, name, params or "void"))
        h.append("#define %s icsim_layer_%s" % (name, name))
    h.append("#endif")
    c = ["/* Generated by sim/mpi/gen_entries.py: every MPI call a program makes, bracketed (layer.c:",
         " * icsim_enter, icsim_leave) around the layer's own function. Do not edit. */",
         "#include <mpi.h>", "#include \"mpi/checks.h\"", "", "void icsim_enter(const char *name);",
         "void icsim_leave(void);"]
    for name in sorted(entries):
        ret, params, _ = entries[name]
        plist = [] if params in ("", "void") else split_params(params)
        args = ", ".join(param_name(p) for p in plist)
        c.append("")
        c.append("%s icsim_layer_%s(%s);" % (ret, name, params or "void"))
        c.append("%s %s(%s)" % (ret, name, params or "void"))
        c.append("{")
        c.append('  icsim_enter("%s");' % name)
        ck, on_comm, on_win = checks(name, plist)
        if ck and ret == "int":
            c.append('  if (icsim_checking()) {')
            c.append('    struct icsim_check ck = {"%s", MPI_SUCCESS, ""};' % name)
            for line in ck:
                c.append("    " + line)
            c.append("    if (ck.rc != MPI_SUCCESS) {")
            c.append("      int r = icsim_check_end(&ck, %s, %s);" % (on_comm, on_win))
            c.append("      icsim_leave();")
            c.append("      return r;")
            c.append("    }")
            c.append("  }")
        inherit = INHERITS.get(name)
        pre, post = after(name)
        if inherit:
            post.append("icsim_inherit_errhandler(%s, out);" % inherit)
        if post and ret == "int":
            c += ["  " + x for x in pre]
            c.append("  int r = icsim_layer_%s(%s);" % (name, args))
            c.append("  if (r == MPI_SUCCESS && icsim_checking()) {")
            c += ["    " + x for x in post]
            c.append("  }")
            c.append("  icsim_leave();")
            c.append("  return r;")
        elif ret == "void":
            c.append("  icsim_layer_%s(%s);" % (name, args))
            c.append("  icsim_leave();")
        else:
            c.append("  %s r = icsim_layer_%s(%s);" % (ret, name, args))
            c.append("  icsim_leave();")
            c.append("  return r;")
        c.append("}")
    for path, lines in ((out_h, h), (out_c, c)):
        with open(path + ".tmp", "w") as f:
            f.write("\n".join(lines) + "\n")
        import os
        os.replace(path + ".tmp", path)


if __name__ == "__main__":
    main(sys.argv)
